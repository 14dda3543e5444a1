package bridge

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/tables"
)

// listenMetrics opens the metrics listener on addr and makes the server
// that Run starts on it.
func (b *Bridge) listenMetrics(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("bridge: metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(b.reg, promhttp.HandlerOpts{}))
	b.ml = l
	b.metrics = &http.Server{Addr: l.Addr().String(), Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	return nil
}

// tableCollector exports the flow tables and the channel's connections
// at scrape time.
type tableCollector struct {
	agent  *controller.Agent
	tables *tables.Owner
	d      *tableDescs
}

// tableDescs are the descriptors of tableCollector's metrics. A collector
// makes them when it is made, not at init: every command of the binary
// links bridge, only run serves metrics.
type tableDescs struct {
	flows, subtables, occupancy, bloom, conns, prefault, recycled, overlap *prometheus.Desc
}

// newTableDescs makes the descriptors.
func newTableDescs() *tableDescs {
	return &tableDescs{
		flows:     prometheus.NewDesc("ofswitch_flows", "Flow entries in a table.", []string{"table"}, nil),
		subtables: prometheus.NewDesc("ofswitch_subtables", "Subtables (masks) of a table.", []string{"table"}, nil),
		occupancy: prometheus.NewDesc("ofswitch_filter_occupancy", "Occupancy of a table's filter.", []string{"table", "filter"}, nil),
		bloom:     prometheus.NewDesc("ofswitch_filter_bloom_elements", "Elements in the Bloom part of a table's filter.", []string{"table"}, nil),
		conns:     prometheus.NewDesc("ofswitch_openflow_connections", "OpenFlow connections past the handshake.", nil, nil),
		prefault:  prometheus.NewDesc("ofswitch_prefaulted_chunks", "Chunks of rule memory made ahead of the bursts (--prefault) and not yet taken.", nil, nil),
		recycled:  prometheus.NewDesc("ofswitch_recycled_total", "Removed rules and replaced index nodes whose memory was reclaimed for reuse.", nil, nil),
		overlap:   prometheus.NewDesc("ofswitch_bursts_overlapped_total", "Bursts applied by a connection's own goroutine while the connection read the next batch (--overlap-bursts).", nil, nil),
	}
}

func (c *tableCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.d.flows, c.d.subtables, c.d.occupancy, c.d.bloom, c.d.conns, c.d.prefault, c.d.recycled, c.d.overlap} {
		ch <- d
	}
}

func (c *tableCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.d.conns, prometheus.GaugeValue, float64(c.agent.Conns()))
	ch <- prometheus.MustNewConstMetric(c.d.prefault, prometheus.GaugeValue, float64(c.tables.Pipeline().Prefaulted()))
	ch <- prometheus.MustNewConstMetric(c.d.recycled, prometheus.CounterValue, float64(c.tables.Pipeline().Recycled()))
	ch <- prometheus.MustNewConstMetric(c.d.overlap, prometheus.CounterValue, float64(c.agent.Overlapped()))
	for i, ts := range c.tables.Stats() {
		t := strconv.Itoa(i)
		ch <- prometheus.MustNewConstMetric(c.d.flows, prometheus.GaugeValue, float64(ts.Flows), t)
		ch <- prometheus.MustNewConstMetric(c.d.subtables, prometheus.GaugeValue, float64(ts.Subtables), t)
		ch <- prometheus.MustNewConstMetric(c.d.occupancy, prometheus.GaugeValue, ts.Occupancy, t, ts.Filter)
		ch <- prometheus.MustNewConstMetric(c.d.bloom, prometheus.GaugeValue, float64(ts.FilterBloomLen), t)
	}
}

// burstMetrics are the Prometheus metrics of the agent's bursts.
type burstMetrics struct {
	latency, apply, cost prometheus.Histogram
	iters                prometheus.Histogram
	updates              prometheus.Counter
}

func newBurstMetrics(reg *prometheus.Registry) *burstMetrics {
	// hist is a histogram with n buckets doubling from start.
	hist := func(name, help string, start float64, n int) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: prometheus.ExponentialBuckets(start, 2, n)})
	}
	m := &burstMetrics{
		latency: hist("ofswitch_burst_latency_seconds", "Time from the first FLOW_MOD of a burst read to the burst visible to lookups.", 1e-6, 24),
		apply:   hist("ofswitch_burst_apply_seconds", "Time a burst spent in the flow tables, to its publication.", 1e-6, 24),
		cost:    hist("ofswitch_update_seconds", "Time the flow tables took for one update of a burst.", 25e-9, 20),
		iters:   hist("ofswitch_filter_insert_iterations", "Filter iterations of an update's insertion (1: placed at once; each kick adds 1).", 1, 10),
		updates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ofswitch_flow_mods_applied_total", Help: "FLOW_MODs applied in bursts.",
		}),
	}
	reg.MustRegister(m.latency, m.apply, m.cost, m.iters, m.updates)
	return m
}

// add records b; called from the tables' OnBurst.
func (m *burstMetrics) add(b tables.Burst) {
	m.latency.Observe(b.Latency.Seconds())
	m.apply.Observe(b.Apply.Seconds())
	m.updates.Add(float64(b.Updates))
	for _, c := range b.Costs {
		m.cost.Observe(c.Time.Seconds())
		if c.Iterations > 0 {
			m.iters.Observe(float64(c.Iterations))
		}
	}
}

package main

import (
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ofswitch/ofswitch/controller"
)

// burstStats gathers the bursts of FLOW_MODs of one interval for
// `run --stats`: their latencies, every update's cost and filter
// iterations, and the lookup rates around them. Safe for concurrent use.
type burstStats struct {
	mu      sync.Mutex
	since   time.Time
	bursts  int
	updates int
	errors  int
	latency *hdrhistogram.Histogram // µs, first FLOW_MOD read to publication
	cost    *hdrhistogram.Histogram // ns per update
	iters   *hdrhistogram.Histogram // per filter insertion
	// sums of the bursts' lookup rates, and how many bursts had one
	before, during float64
	nBefore        int
	last           controller.Burst
}

func newBurstStats() *burstStats {
	return &burstStats{
		since:   time.Now(),
		latency: hdrhistogram.New(1, 60_000_000, 2),
		cost:    hdrhistogram.New(1, 60_000_000_000, 2),
		iters:   hdrhistogram.New(1, 100_000, 2),
	}
}

// add records b; called from the agent's OnBurst.
func (s *burstStats) add(b controller.Burst) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bursts++
	s.updates += b.Updates
	s.errors += b.Errors
	s.latency.RecordValue(max(b.Latency.Microseconds(), 1))
	for _, c := range b.Costs {
		s.cost.RecordValue(max(c.Time.Nanoseconds(), 1))
		if c.Iterations > 0 {
			s.iters.RecordValue(int64(c.Iterations))
		}
	}
	s.during += b.LookupsDuring
	if b.LookupsBefore > 0 {
		s.before += b.LookupsBefore
		s.nBefore++
	}
	b.Costs = nil // the agent's buffer: not kept past OnBurst
	s.last = b
}

// report logs what the bursts since the last report cost, if there were
// any, and starts a new interval.
func (s *burstStats) report(log *slog.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.bursts > 0 {
		attrs := []any{
			"seconds", now.Sub(s.since).Round(time.Millisecond).Seconds(),
			"bursts", s.bursts, "updates", s.updates, "errors", s.errors,
			slog.Group("latency_us", "p50", s.latency.ValueAtQuantile(50), "p99", s.latency.ValueAtQuantile(99), "max", s.latency.Max()),
			slog.Group("update_ns", "p50", s.cost.ValueAtQuantile(50), "p99", s.cost.ValueAtQuantile(99), "max", s.cost.Max(), "mean", int64(s.cost.Mean())),
		}
		if s.iters.TotalCount() > 0 {
			attrs = append(attrs, slog.Group("iterations", "p50", s.iters.ValueAtQuantile(50), "p99", s.iters.ValueAtQuantile(99), "max", s.iters.Max(), "mean", roundTo(s.iters.Mean(), 2)))
		}
		b := s.last
		share := 0.0
		if b.FilterLen > 0 {
			share = float64(b.BloomLen) / float64(b.FilterLen)
		}
		attrs = append(attrs, slog.Group("filter", "elements", b.FilterLen, "bloom", b.BloomLen, "bloom_share", roundTo(share, 4), "occupancy", roundTo(b.Occupancy, 4)))
		lk := []any{"during", roundTo(s.during/float64(s.bursts), 1)}
		if s.nBefore > 0 {
			lk = append(lk, "before", roundTo(s.before/float64(s.nBefore), 1))
		}
		attrs = append(attrs, slog.Group("lookups_per_s", lk...))
		log.Info("bursts", attrs...)
	}
	s.since, s.bursts, s.updates, s.errors = now, 0, 0, 0
	s.before, s.during, s.nBefore, s.last = 0, 0, 0, controller.Burst{}
	s.latency.Reset()
	s.cost.Reset()
	s.iters.Reset()
}

// roundTo rounds x to n decimals, for logs.
func roundTo(x float64, n int) float64 {
	p := math.Pow10(n)
	return math.Round(x*p) / p
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

// add records b; called from the agent's OnBurst.
func (m *burstMetrics) add(b controller.Burst) {
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

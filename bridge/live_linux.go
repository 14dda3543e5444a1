//go:build linux

package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vishvananda/netlink"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// liveSwitch is the data plane of a bridge with ports: a dataplane.Switch
// whose workers read the ports' AF_PACKET rings, the OpenFlow view of the
// ports, and the watcher that keeps that view current.
type liveSwitch struct {
	names []string
	infos []dataplane.PortInfo // as opened; port i+1 is infos[i]
	ports []*dataplane.LivePort
	sw    *dataplane.Switch
	table *portTable
	agent *controller.Agent // set by run, before any worker starts
}

// openLive opens the interfaces names as ports 1..len(names), each with
// queues receive queues (one worker each), in the namespace of the
// calling thread; group actions use gt.
func openLive(names []string, queues int, pipe *rules.Pipeline, mt *meters.Table, gt *groups.Table) (dataPlane, error) {
	if queues <= 0 {
		return nil, fmt.Errorf("bridge: workers %d: want at least 1 per port", queues)
	}
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		if seen[name] {
			return nil, fmt.Errorf("bridge: port %s: given twice", name)
		}
		seen[name] = true
	}
	ls := &liveSwitch{names: names}
	devs := make(map[uint32]dataplane.Port, len(names))
	for i, name := range names {
		lp, err := dataplane.OpenLivePort(name, uint32(i+1), &dataplane.LiveConfig{Queues: queues})
		if err != nil {
			ls.close()
			return nil, fmt.Errorf("bridge: port %s: %w", name, err)
		}
		ls.ports = append(ls.ports, lp)
		ls.infos = append(ls.infos, lp.Info())
		devs[uint32(i+1)] = lp
	}
	ls.sw = dataplane.NewSwitch(pipe, &dataplane.Config{
		Workers:  len(names) * queues,
		Ports:    portNumbers(len(names)),
		Devices:  devs,
		PacketIn: ls.packetIn,
		Meters:   mt,
		Groups:   gt,
	})
	for i := range ls.infos {
		ls.sw.SetPortLive(uint32(i+1), ls.infos[i].AdminUp && ls.infos[i].LinkUp)
	}
	ls.table = newPortTable(ls.infos, liveCounters{sw: ls.sw, ports: ls.ports})
	ls.table.setAdmin = setLinkAdmin
	ls.table.setConfig = func(no, bits uint32) { ls.sw.SetPortConfig(no, bits) }
	return ls, nil
}

// configure points the agent's configuration at the data plane.
func (ls *liveSwitch) configure(cfg *controller.Config) {
	cfg.Ports = ls.table
	cfg.PacketOut = func(inPort uint32, actions []rules.Action, frame []byte) error {
		return packetOutError(ls.sw.PacketOut(inPort, actions, frame))
	}
	cfg.OnFailOpen = ls.sw.SetFailOpen
	cfg.TableCounters = func(table uint8) (lookups, matched uint64) {
		c := ls.sw.TableCount(table)
		return c.Lookups, c.Matched
	}
}

// lookups returns how many frames the workers have looked up so far.
func (ls *liveSwitch) lookups() uint64 { return ls.sw.Processed() }

// packetIn hands a worker's packet-in to the controllers. It runs on the
// worker's goroutine; the agent copies the frame and does not block.
func (ls *liveSwitch) packetIn(p *dataplane.PacketIn) {
	var pin controller.PacketIn
	packetIn(&pin, p)
	ls.agent.PacketIn(&pin)
}

// run switches frames until ctx ends, announcing port changes to the
// agent's controllers, then stops the workers. It returns the workers'
// error, if a socket failed. The ports stay open for PacketOut until
// close.
func (ls *liveSwitch) run(ctx context.Context, agent *controller.Agent, log *slog.Logger) error {
	ls.agent = agent
	byName := make(map[string]uint32, len(ls.names))
	for i, n := range ls.names {
		byName[n] = uint32(i + 1)
	}
	for i := range ls.infos {
		log.Info("port", "no", i+1, "name", ls.infos[i].Name, "mac", fmt.Sprintf("%x", ls.infos[i].HWAddr[:]),
			"up", ls.infos[i].AdminUp && ls.infos[i].LinkUp, "queues", ls.ports[i].Queues())
	}
	ls.table.setAnnounce(func(desc openflow.Port) {
		log.Info("port status", "no", desc.PortNo, "name", desc.NameString(), "reason", "MODIFY", "config", fmt.Sprintf("%#x", desc.Config))
		agent.PortStatus(openflow.PortModify, desc)
	})
	wctx, stopWatch := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		err := dataplane.WatchPorts(wctx, &dataplane.WatchConfig{Ports: byName}, func(ev dataplane.PortEvent) {
			ev, ok := ls.follow(ev, log)
			if !ok {
				return
			}
			reason, desc, ok := ls.table.Update(ev)
			if !ok {
				return
			}
			// Group liveness (FAST_FAILOVER) follows link and admin
			// state; PORT_MOD's OFPPC_PORT_DOWN comes back this way.
			ls.sw.SetPortLive(ev.Info.No, ev.Reason != dataplane.PortDeleted && ev.Info.AdminUp && ev.Info.LinkUp)
			log.Info("port status", "no", ev.Info.No, "name", ev.Info.Name, "reason", ev.Reason.String(),
				"admin_up", ev.Info.AdminUp, "link_up", ev.Info.LinkUp)
			agent.PortStatus(reason, desc)
		})
		if err != nil && !errors.Is(err, context.Canceled) {
			log.Error("port watcher stopped: port changes are no longer reported", "err", err)
		}
	})
	err := ls.sw.RunLive(ctx, ls.ports)
	stopWatch()
	wg.Wait()
	if err != nil {
		return fmt.Errorf("data plane: %w", err)
	}
	return nil
}

// follow moves port ev.Info.No's sockets with its interface, as Open
// vSwitch does (dataplane.LivePort.Follow): when the interface goes away
// the port closes its sockets (its number stays reserved, its workers
// idle, frames output to it are dropped), and when an interface of its
// name appears again, with a new ifindex, the port opens sockets on it
// and its workers switch its traffic again, under the same flows. It
// returns the event to announce: ok is false if the interface appeared
// but could not be opened (it is tried again at its next change, which
// is then announced as its addition).
func (ls *liveSwitch) follow(ev dataplane.PortEvent, log *slog.Logger) (_ dataplane.PortEvent, ok bool) {
	no := ev.Info.No
	if no == 0 || int(no) > len(ls.ports) {
		return ev, true
	}
	p := ls.ports[no-1]
	was := p.Attached()
	attached, err := p.Follow(ev)
	switch {
	case err != nil:
		log.Error("port attach failed: the port stays detached", "no", no, "name", ev.Info.Name, "err", err)
		return ev, false
	case ev.Reason == dataplane.PortDeleted:
		log.Info("port detached", "no", no, "name", ev.Info.Name, "ifindex", ev.Info.Index)
	case attached:
		info := p.Info()
		log.Info("port attached", "no", no, "name", info.Name, "ifindex", info.Index,
			"mac", fmt.Sprintf("%x", info.HWAddr[:]), "queues", p.Queues(), "reopened", was)
		if !was {
			ev.Reason = dataplane.PortAdded
		}
	}
	return ev, true
}

// close closes the ports opened so far. Call it once neither the
// workers nor the agent (PACKET_OUT) can use them any more.
func (ls *liveSwitch) close() {
	for _, p := range ls.ports {
		p.Close()
	}
}

// datapathID returns the lowest MAC of the ports, or def.
func (ls *liveSwitch) datapathID(def uint64) uint64 { return datapathID(ls.infos, def) }

// collector exports the ports' counters (those PORT_STATS replies carry)
// and the frames the workers took in.
func (ls *liveSwitch) collector() prometheus.Collector {
	return &portCollector{ls: ls, d: newPortDescs()}
}

// portCollector reads the port table at scrape time.
type portCollector struct {
	ls *liveSwitch
	d  *portDescs
}

// portLabels are the labels of the per-port metrics.
var portLabels = []string{"port", "name"}

// portDescs are the descriptors of portCollector's metrics. A collector
// makes them when it is made, not at init: every command of the binary
// links bridge, only run serves metrics.
type portDescs struct {
	// per port (portLabels)
	rxPackets, txPackets, rxBytes, txBytes, rxDropped, txDropped, rxErrors, txErrors *prometheus.Desc
	// of the switch
	processed, dropped, misses, noPort, ttl, xlate, rxErr, panics *prometheus.Desc
	malformed                                                     *prometheus.Desc // by reason
	lookups, matched                                              *prometheus.Desc // by table
}

// newPortDescs makes the descriptors.
func newPortDescs() *portDescs {
	return &portDescs{
		rxPackets: prometheus.NewDesc("ofswitch_port_rx_packets_total", "Frames received on a port.", portLabels, nil),
		txPackets: prometheus.NewDesc("ofswitch_port_tx_packets_total", "Frames transmitted on a port.", portLabels, nil),
		rxBytes:   prometheus.NewDesc("ofswitch_port_rx_bytes_total", "Bytes received on a port.", portLabels, nil),
		txBytes:   prometheus.NewDesc("ofswitch_port_tx_bytes_total", "Bytes transmitted on a port.", portLabels, nil),
		rxDropped: prometheus.NewDesc("ofswitch_port_rx_dropped_total", "Frames dropped on receive: by the interface, or because the switch's rings were full.", portLabels, nil),
		txDropped: prometheus.NewDesc("ofswitch_port_tx_dropped_total", "Frames dropped on transmit: by the interface, or output while the port's interface was away or down.", portLabels, nil),
		rxErrors:  prometheus.NewDesc("ofswitch_port_rx_errors_total", "Receive errors of a port's interface.", portLabels, nil),
		txErrors:  prometheus.NewDesc("ofswitch_port_tx_errors_total", "Transmit errors: of the interface, and sends of the switch that failed.", portLabels, nil),
		processed: prometheus.NewDesc("ofswitch_frames_processed_total", "Frames the data plane's workers took in.", nil, nil),
		dropped:   prometheus.NewDesc("ofswitch_frames_dropped_total", "Classified frames that left the pipeline without an output (misses in secure mode included).", nil, nil),
		misses:    prometheus.NewDesc("ofswitch_table_misses_total", "Lookups that found no flow entry.", nil, nil),
		noPort:    prometheus.NewDesc("ofswitch_output_no_port_total", "Outputs to a port the switch does not have.", nil, nil),
		ttl:       prometheus.NewDesc("ofswitch_ttl_expired_total", "Frames whose dec_ttl or dec_mpls_ttl found TTL 1 or 0 (sent to the controller as OFPR_INVALID_TTL).", nil, nil),
		xlate:     prometheus.NewDesc("ofswitch_xlate_errors_total", "Frames dropped at a resubmit limit (depth 64, 4096 resubmits), as Open vSwitch drops them.", nil, nil),
		rxErr:     prometheus.NewDesc("ofswitch_rx_errors_total", "Socket errors of live ports and frames too large to take.", nil, nil),
		panics:    prometheus.NewDesc("ofswitch_panics_total", "Frames whose actions panicked (a bug; skipped).", nil, nil),
		malformed: prometheus.NewDesc("ofswitch_malformed_frames_total", "Frames the parser skipped, by reason.", []string{"reason"}, nil),
		lookups:   prometheus.NewDesc("ofswitch_table_lookups_total", "Frames looked up in a flow table (OFPMP_TABLE lookup_count).", []string{"table"}, nil),
		matched:   prometheus.NewDesc("ofswitch_table_matched_total", "Lookups in a flow table that found an entry, table-miss entries included (OFPMP_TABLE matched_count).", []string{"table"}, nil),
	}
}

// Describe sends the descriptors of the port metrics.
func (c *portCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.d.rxPackets, c.d.txPackets, c.d.rxBytes, c.d.txBytes,
		c.d.rxDropped, c.d.txDropped, c.d.rxErrors, c.d.txErrors, c.d.processed,
		c.d.dropped, c.d.misses, c.d.noPort, c.d.ttl, c.d.xlate, c.d.rxErr, c.d.panics, c.d.malformed, c.d.lookups, c.d.matched} {
		ch <- d
	}
}

// Collect sends the current counters of every present port.
func (c *portCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.d.processed, prometheus.CounterValue, float64(c.ls.sw.Processed()))
	lc := c.ls.sw.LiveStats()
	for _, m := range []struct {
		d *prometheus.Desc
		v uint64
	}{{c.d.dropped, lc.Drops}, {c.d.misses, lc.Misses}, {c.d.noPort, lc.NoPort}, {c.d.ttl, lc.TTLExpired},
		{c.d.xlate, lc.XlateErrors}, {c.d.rxErr, lc.RxErrors}, {c.d.panics, lc.Panics}} {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v))
	}
	for r, v := range lc.Malformed {
		ch <- prometheus.MustNewConstMetric(c.d.malformed, prometheus.CounterValue, float64(v), dataplane.Reason(r).String())
	}
	for i, tc := range c.ls.sw.TableCounts() {
		t := strconv.Itoa(i)
		ch <- prometheus.MustNewConstMetric(c.d.lookups, prometheus.CounterValue, float64(tc.Lookups), t)
		ch <- prometheus.MustNewConstMetric(c.d.matched, prometheus.CounterValue, float64(tc.Matched), t)
	}
	descs := c.ls.table.Descs(nil)
	stats, _ := c.ls.table.Stats(nil, openflow.PortAny)
	for i := range stats {
		s := &stats[i]
		name := ""
		for j := range descs {
			if descs[j].PortNo == s.PortNo {
				name = descs[j].NameString()
			}
		}
		l := []string{strconv.FormatUint(uint64(s.PortNo), 10), name}
		for _, m := range []struct {
			d *prometheus.Desc
			v uint64
		}{{c.d.rxPackets, s.RxPackets}, {c.d.txPackets, s.TxPackets}, {c.d.rxBytes, s.RxBytes}, {c.d.txBytes, s.TxBytes},
			{c.d.rxDropped, s.RxDropped}, {c.d.txDropped, s.TxDropped}, {c.d.rxErrors, s.RxErrors}, {c.d.txErrors, s.TxErrors}} {
			ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v), l...)
		}
	}
}

// liveCounters reads a port's counters while the switch runs: frames
// and bytes received and transmitted as the switch's workers counted them
// (dataplane.Switch.LivePortStats), and, as Open vSwitch reports them for
// the ports of a netdev bridge, drops and errors from the interface's
// kernel statistics (netlink IFLA_STATS64), to which it adds the frames
// the switch's receive rings dropped (rx_dropped) and its failed sends
// (tx_errors) and the frames output while the port's interface was away
// or down (tx_dropped).
type liveCounters struct {
	sw    *dataplane.Switch
	ports []*dataplane.LivePort // port i+1 is ports[i]
}

// Counters fills s with the counters of port info.No.
func (c liveCounters) Counters(info *dataplane.PortInfo, s *openflow.PortStats) {
	for _, ps := range c.sw.LivePortStats() {
		if ps.Port == info.No {
			s.RxPackets, s.RxBytes = ps.RxPackets, ps.RxBytes
			s.TxPackets, s.TxBytes = ps.TxPackets, ps.TxBytes
		}
	}
	if info.No >= 1 && int(info.No) <= len(c.ports) {
		p := c.ports[info.No-1]
		s.RxDropped += p.RxDrops()
		s.TxErrors += p.TxErrors()
		s.TxDropped += p.TxDropped()
	}
	l, err := netlink.LinkByName(info.Name)
	if err != nil || l.Attrs().Statistics == nil {
		return
	}
	st := l.Attrs().Statistics
	s.RxDropped += st.RxDropped
	s.TxDropped += st.TxDropped
	s.RxErrors += st.RxErrors
	s.TxErrors += st.TxErrors
	s.RxFrameErr, s.RxOverErr, s.RxCRCErr = st.RxFrameErrors, st.RxOverErrors, st.RxCrcErrors
	s.Collisions = st.Collisions
}

// setLinkAdmin brings the interface called name administratively up or
// down, as ip link set NAME up|down does.
func setLinkAdmin(name string, up bool) error {
	l, err := netlink.LinkByName(name)
	if err != nil {
		return err
	}
	if up {
		return netlink.LinkSetUp(l)
	}
	return netlink.LinkSetDown(l)
}

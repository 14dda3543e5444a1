package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/tables"
)

// Config describes one switch. The zero value of every field means its
// default; New needs at least one target.
type Config struct {
	// Channel configures the OpenFlow channel: datapath id, batching of
	// FLOW_MODs into bursts, inactivity probe, TLS, fail mode, StrictPorts
	// and the logger. New fills in what connects the channel to the rest
	// of the switch (FlowTables, Ports, PacketOut, OnFailOpen,
	// TableCounters), whatever those fields hold. A zero DatapathID is
	// derived from the ports (see DatapathID).
	Channel controller.Config
	// Targets are where the channel listens (ptcp:, pssl:, punix:) and
	// which controllers it keeps a connection to (tcp:, ssl:, unix:); at
	// least one.
	Targets []controller.Target

	// Tables is the number of flow tables; default 8.
	Tables int
	// Filter is the filter in front of each table, and BloomAfter the
	// Bloom-Cuckoo filter's t (rules.Config).
	Filter     rules.FilterKind
	BloomAfter int
	// Prefault is how many rules' memory is made ahead of the bursts,
	// after each one, off the update path (rules.Config.PrefaultRules);
	// 0: none.
	Prefault int

	// Ports are the network interfaces the switch forwards between, ports
	// 1, 2, ... in order; none makes a switch without ports, whose tables
	// can still be managed.
	Ports []string
	// Workers is the number of receive queues, each with its worker, per
	// port; default 1.
	Workers int

	// Metrics, if set, is the address on which Run serves Prometheus
	// metrics at /metrics (":0" picks a free port; see MetricsAddr).
	Metrics string
	// Stats, if positive, is the interval at which Run logs what the
	// bursts of FLOW_MODs cost to StatsLogger; the bursts since the last
	// report are logged once more when Run returns.
	Stats time.Duration
	// StatsLogger receives the Stats reports; default the channel's
	// logger.
	StatsLogger *slog.Logger
}

// dataPlane is what a bridge needs of its ports and workers: on Linux,
// live ports (live_linux.go).
type dataPlane interface {
	// datapathID returns the id derived from the ports, or def.
	datapathID(def uint64) uint64
	// configure points the channel's configuration at the data plane.
	configure(cfg *controller.Config)
	// lookups returns how many frames the workers have looked up so far.
	lookups() uint64
	// run switches frames until ctx ends, then stops the workers.
	run(ctx context.Context, agent *controller.Agent, log *slog.Logger) error
	// close closes the ports, once neither the workers nor the agent run.
	close()
	// collector exports the ports' counters.
	collector() prometheus.Collector
}

// Bridge is one switch: flow tables behind the OpenFlow channel and, when
// it has ports, the data plane that forwards frames through them.
//
// # Lifecycle
//
// New opens everything that can fail (the ports, the metrics listener);
// Run runs the switch until its context ends and then closes it. Close
// releases what New opened when Run is not called; after Run it does
// nothing.
type Bridge struct {
	cfg     Config
	log     *slog.Logger
	tables  *tables.Owner
	agent   *controller.Agent
	dp      dataPlane // nil without ports
	reg     *prometheus.Registry
	metrics *http.Server
	ml      net.Listener // metrics listener, nil without Config.Metrics
	stats   *burstStats  // nil without Config.Stats

	closeOnce sync.Once
}

// New builds the switch cfg describes and opens its ports and metrics
// listener; nil cfg is refused (a switch needs a target).
func New(cfg *Config) (*Bridge, error) {
	if cfg == nil {
		return nil, errors.New("bridge: no configuration")
	}
	b := &Bridge{cfg: *cfg}
	c := &b.cfg
	if len(c.Targets) == 0 {
		return nil, errors.New("bridge: nothing to do: no OpenFlow target to listen on or connect to")
	}
	if c.Stats < 0 {
		return nil, fmt.Errorf("bridge: stats interval %v: want a positive interval", c.Stats)
	}
	if c.Prefault < 0 {
		return nil, fmt.Errorf("bridge: prefault %d: want 0 or more", c.Prefault)
	}
	if c.Tables == 0 {
		c.Tables = 8
	}
	ch := &c.Channel
	if ch.Logger == nil {
		ch.Logger = slog.Default()
	}
	b.log = ch.Logger
	if c.StatsLogger == nil {
		c.StatsLogger = ch.Logger
	}
	pipe, err := rules.New(&rules.Config{Tables: c.Tables, Filter: c.Filter, BloomAfter: c.BloomAfter,
		StrictPorts: ch.StrictPorts, PrefaultRules: c.Prefault, Recycle: true})
	if err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	ch.Ports, ch.PacketOut, ch.OnFailOpen, ch.TableCounters = nil, nil, nil, nil
	// One meter table: the data plane charges it, the flow tables' owner
	// writes it and checks flows' meter instructions against it.
	mt := meters.NewTable(nil)
	// The group table: the flow tables' owner writes it, the data plane
	// reads it.
	gt := groups.New(nil)

	// Ports are opened last among the checks: every later error path
	// closes them.
	if len(c.Ports) > 0 {
		workers := c.Workers
		if workers == 0 {
			workers = 1
		}
		if b.dp, err = openLive(c.Ports, workers, pipe, mt, gt); err != nil {
			return nil, err
		}
	}
	if ch.DatapathID == 0 {
		ch.DatapathID = b.DatapathID()
	}
	if b.dp != nil {
		b.dp.configure(ch)
	}

	tc := &tables.Config{Groups: gt}
	if b.dp != nil {
		tc.Lookups = b.dp.lookups
	}
	var bm *burstMetrics
	if c.Metrics != "" {
		b.reg = prometheus.NewRegistry()
		// The Go runtime's and the process's own (goroutines, heap,
		// descriptors, RSS), as any Go server exports them.
		b.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		bm = newBurstMetrics(b.reg)
	}
	if c.Stats > 0 {
		b.stats = newBurstStats()
	}
	// Without --metrics or --stats nothing reads what each update cost.
	tc.NoUpdateCosts = bm == nil && b.stats == nil
	if bm != nil || b.stats != nil {
		stats := b.stats
		tc.OnBurst = func(r tables.Burst) {
			if bm != nil {
				bm.add(r)
			}
			if stats != nil {
				stats.add(r)
			}
		}
	}
	b.tables = tables.New(pipe, tc)
	b.tables.SetMeters(mt)
	ch.FlowTables = b.tables
	if b.agent, err = controller.New(ch); err != nil {
		b.Close()
		return nil, err
	}
	if b.reg != nil {
		b.reg.MustRegister(&tableCollector{agent: b.agent, tables: b.tables, d: newTableDescs()})
		if b.dp != nil {
			b.reg.MustRegister(b.dp.collector())
		}
		if err := b.listenMetrics(c.Metrics); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

// DatapathID returns the switch's datapath id: Config.Channel.DatapathID
// if it is not zero, otherwise the numerically lowest unicast Ethernet
// address of the ports, as Open vSwitch derives a bridge's, or 1 for a
// switch without one.
func (b *Bridge) DatapathID() uint64 {
	if id := b.cfg.Channel.DatapathID; id != 0 {
		return id
	}
	if b.dp == nil {
		return 1
	}
	return b.dp.datapathID(1)
}

// Agent returns the switch's OpenFlow channel.
func (b *Bridge) Agent() *controller.Agent { return b.agent }

// FlowTables returns the switch's flow tables.
func (b *Bridge) FlowTables() *tables.Owner { return b.tables }

// MetricsAddr returns the address the metrics are served on, or "" without
// Config.Metrics.
func (b *Bridge) MetricsAddr() string {
	if b.ml == nil {
		return ""
	}
	return b.ml.Addr().String()
}

// Run runs the switch until ctx is done or a part of it fails: the data
// plane's workers and port watcher, the metrics server, the Stats reports
// and the OpenFlow channel. It then stops them all, waits for them and
// closes the ports. It returns the first failure, or nil once ctx is done.
func (b *Bridge) Run(ctx context.Context) error {
	ch := &b.cfg.Channel
	b.log.Info("switch", "dpid", fmt.Sprintf("%016x", ch.DatapathID), "ports", len(b.cfg.Ports), "fail_mode", ch.FailMode.String())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 3)
	if b.dp != nil {
		// Started first, so that an early return below still stops
		// the workers (cancel) and waits for them.
		dpDone := make(chan struct{})
		go func() {
			defer close(dpDone)
			if err := b.dp.run(ctx, b.agent, b.log); err != nil {
				errc <- err
			}
		}()
		// Runs after the agent stopped (every return below waits for
		// it): no PACKET_OUT can use a closed port.
		defer func() {
			cancel()
			<-dpDone
			b.Close()
		}()
	} else {
		defer b.Close()
	}
	if b.metrics != nil {
		b.log.Info("metrics", "url", "http://"+b.MetricsAddr()+"/metrics")
		go func() {
			if err := b.metrics.Serve(b.ml); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
		defer func() {
			sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer scancel()
			b.metrics.Shutdown(sctx)
		}()
	}
	if b.stats != nil {
		statsDone := make(chan struct{})
		go func() {
			defer close(statsDone)
			t := time.NewTicker(b.cfg.Stats)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					b.stats.report(b.cfg.StatsLogger)
				}
			}
		}()
		// The bursts since the last report, once the agent stopped
		// (every return below waits for it).
		defer func() {
			cancel()
			<-statsDone
			b.stats.report(b.cfg.StatsLogger)
		}()
	}
	agentDone := make(chan error, 1)
	go func() { agentDone <- b.agent.Run(ctx, b.cfg.Targets) }()
	select {
	case err := <-errc:
		cancel()
		<-agentDone
		return err
	case err := <-agentDone:
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	case <-ctx.Done():
		b.log.Info("stopping")
		if err := <-agentDone; err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
}

// Close closes the ports and the metrics listener. Run closes them when it
// returns; Close is for a Bridge that New made and Run never ran, and may
// be called more than once.
func (b *Bridge) Close() {
	b.closeOnce.Do(func() {
		if b.dp != nil {
			b.dp.close()
		}
		if b.ml != nil {
			b.ml.Close() // after Run's Shutdown, closed already: no matter
		}
	})
}

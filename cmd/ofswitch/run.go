package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/rules"
)

func newRunCmd() *cobra.Command {
	var (
		listen      []string
		controllers []string
		tables      int
		filterKind  string
		bloomAfter  int
		dpid        string
		metrics     string
		logLevel    string
		tlsKey      string
		tlsCert     string
		tlsCA       string
		portNames   []string
		failMode    string
		workers     int
		stats       time.Duration
		cpuProfile  string
		tracePath   string
		prefault    int
		cfg         controller.Config
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the switch between interfaces, managed over OpenFlow 1.3",
		Long: `Runs ofswitch's flow tables behind its OpenFlow channel, like an Open vSwitch
bridge that controllers and ovs-ofctl manage. It listens on every --listen
target (ptcp:[PORT][:IP], default ptcp:6653 on 127.0.0.1) and keeps a
connection to every --controller (tcp:IP[:PORT]), reconnecting with backoff.
pssl: and ssl: targets use TLS 1.3 with mutual certificate authentication
(--private-key, --certificate, --ca-cert, as Open vSwitch takes them).
FLOW_MODs are applied in bursts; --metrics serves Prometheus metrics on
/metrics, and --stats logs what the bursts cost every interval and at exit:
their latency, each update's time and filter iterations (percentiles), the
filters' Bloom part and occupancy, and the data plane's lookups per second
before and during them. SIGINT or SIGTERM stops it cleanly.

Every --port IFACE is a switch port, numbered 1, 2, ... in the order of
the flags: frames are read through AF_PACKET TPACKET_V3 rings (--workers
receive queues and workers per port, in a fanout group), classified by
the flow tables and sent out of the ports their actions name. Port
descriptions come from netlink and link changes are sent to the
controllers as PORT_STATUS. Without --dpid the datapath id is the lowest
MAC address of the ports, as Open vSwitch derives it. Without --port the
switch has no ports, like an empty bridge, and its tables can still be
managed.

--fail-mode says what happens while none of the --controller targets is
connected: secure (the default) keeps the flows and drops table misses;
standalone switches table misses as a learning switch (NORMAL) after
three inactivity probes without a controller, and at once when there is
no --controller at all.

The memory of deleted flows is reused for the flows added after them,
once no worker can still hold them (rules.Config.Recycle): a table whose
flows come and go takes no new memory, and run keeps the memory of the
largest tables it has held. Unless GOGC is set in the environment, run
gives Go's garbage collector twice its default headroom (GOGC=200): fewer
collections while flows are pushed, for a little more memory when tables
are emptied and refilled.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var lvl slog.Level
			if err := lvl.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level: %w", err)
			}
			cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: lvl}))
			if stats < 0 {
				return fmt.Errorf("--stats %v: want a positive interval", stats)
			}
			if prefault < 0 {
				return fmt.Errorf("--prefault %d: want 0 or more", prefault)
			}
			setRunGC(os.Getenv)
			for _, rec := range []struct {
				flag, path string
				start      func(io.Writer) error
				stop       func()
			}{
				{"--cpuprofile", cpuProfile, pprof.StartCPUProfile, pprof.StopCPUProfile},
				{"--trace", tracePath, trace.Start, trace.Stop},
			} {
				if rec.path == "" {
					continue
				}
				stop, err := startRecording(rec.flag, rec.path, rec.start, rec.stop)
				if err != nil {
					return err
				}
				defer stop()
			}
			cfg.DatapathID = 1
			if dpid != "" {
				v, err := strconv.ParseUint(strings.TrimPrefix(dpid, "0x"), 16, 64)
				if err != nil {
					return fmt.Errorf("--dpid %q: want up to 16 hex digits", dpid)
				}
				cfg.DatapathID = v
			}
			fm, err := controller.ParseFailMode(failMode)
			if err != nil {
				return fmt.Errorf("--fail-mode: %w", err)
			}
			cfg.FailMode = fm
			if tlsKey != "" || tlsCert != "" || tlsCA != "" {
				tc, err := controller.LoadTLS(tlsKey, tlsCert, tlsCA)
				if err != nil {
					return err
				}
				cfg.TLS = tc
			}
			kind, err := rules.ParseFilterKind(filterKind)
			if err != nil {
				return fmt.Errorf("--filter: %w", err)
			}
			pipe, err := rules.New(&rules.Config{Tables: tables, Filter: kind, BloomAfter: bloomAfter, StrictPorts: cfg.StrictPorts, PrefaultRules: prefault, Recycle: true})
			if err != nil {
				return err
			}
			cfg.Pipeline = pipe
			var targets []controller.Target
			for _, s := range append(append([]string(nil), listen...), controllers...) {
				t, err := controller.ParseTarget(s)
				if err != nil {
					return err
				}
				targets = append(targets, t)
			}
			if len(targets) == 0 {
				return errors.New("nothing to do: give --listen or --controller")
			}
			// Ports are opened last among the checks: every later
			// error path closes them.
			var dp dataPlane
			if len(portNames) > 0 {
				dp, err = openLive(portNames, workers, pipe)
				if err != nil {
					return err
				}
				if dpid == "" {
					cfg.DatapathID = dp.datapathID(cfg.DatapathID)
				}
				dp.configure(&cfg)
			}
			var (
				reg *prometheus.Registry
				bm  *burstMetrics
				bs  *burstStats
			)
			if metrics != "" {
				reg = prometheus.NewRegistry()
				bm = newBurstMetrics(reg)
			}
			if stats > 0 {
				bs = newBurstStats()
			}
			if bm != nil || bs != nil {
				cfg.OnBurst = func(b controller.Burst) {
					if bm != nil {
						bm.add(b)
					}
					if bs != nil {
						bs.add(b)
					}
				}
			}
			agent, err := controller.New(&cfg)
			if err != nil {
				if dp != nil {
					dp.close()
				}
				return err
			}
			cfg.Logger.Info("switch", "dpid", fmt.Sprintf("%016x", cfg.DatapathID), "ports", len(portNames), "fail_mode", fm.String())
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			errc := make(chan error, 3)
			if dp != nil {
				// Started first, so that an early return below still
				// stops the workers (cancel) and waits for them.
				dpDone := make(chan struct{})
				go func() {
					defer close(dpDone)
					if err := dp.run(ctx, agent, cfg.Logger); err != nil {
						errc <- err
					}
				}()
				// Runs after the agent stopped (every return below
				// waits for it): no PACKET_OUT can use a closed port.
				defer func() {
					cancel()
					<-dpDone
					dp.close()
				}()
			}
			if reg != nil {
				reg.MustRegister(&tableCollector{agent: agent, pipe: pipe})
				if dp != nil {
					reg.MustRegister(dp.collector())
				}
				srv, err := serveMetrics(metrics, reg)
				if err != nil {
					return err
				}
				cfg.Logger.Info("metrics", "url", "http://"+srv.Addr+"/metrics")
				go func() {
					if err := srv.Serve(srv.listener); !errors.Is(err, http.ErrServerClosed) {
						errc <- err
					}
				}()
				defer func() {
					sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
					defer scancel()
					srv.Shutdown(sctx)
				}()
			}
			if bs != nil {
				// Asked for, the figures are logged whatever --log-level says.
				statsLog := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
				statsDone := make(chan struct{})
				go func() {
					defer close(statsDone)
					t := time.NewTicker(stats)
					defer t.Stop()
					for {
						select {
						case <-ctx.Done():
							return
						case <-t.C:
							bs.report(statsLog)
						}
					}
				}()
				// The bursts since the last report, once the agent
				// stopped (every return below waits for it).
				defer func() {
					cancel()
					<-statsDone
					bs.report(statsLog)
				}()
			}
			agentDone := make(chan error, 1)
			go func() { agentDone <- agent.Run(ctx, targets) }()
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
				cfg.Logger.Info("stopping")
				if err := <-agentDone; err != nil && !errors.Is(err, context.Canceled) {
					return err
				}
				return nil
			}
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&listen, "listen", []string{"ptcp:6653"}, "passive OpenFlow target ptcp:[PORT][:IP] or pssl:[PORT][:IP] (repeatable)")
	f.StringArrayVar(&controllers, "controller", nil, "controller to connect to, tcp:IP[:PORT] or ssl:IP[:PORT] (repeatable)")
	f.StringVar(&tlsKey, "private-key", "", "PEM private key of the switch, for ssl: and pssl:")
	f.StringVar(&tlsCert, "certificate", "", "PEM certificate of the switch, for ssl: and pssl:")
	f.StringVar(&tlsCA, "ca-cert", "", "PEM CA certificate that controllers' certificates must chain to")
	f.IntVar(&tables, "tables", 8, "number of flow tables")
	f.StringVar(&filterKind, "filter", "bcf", "filter in front of each table: bcf (Bloom-Cuckoo), cf (plain cuckoo) or none")
	f.IntVar(&bloomAfter, "t", 10, "Bloom-Cuckoo t: kicks before an insertion may use the Bloom part")
	f.StringVar(&dpid, "dpid", "", "datapath id, hex (default: the lowest MAC of the ports, 1 without ports)")
	f.StringArrayVar(&portNames, "port", nil, "network interface to switch between, port 1, 2, ... in flag order (repeatable)")
	f.IntVar(&workers, "workers", 1, "receive queues, each with its worker, per port")
	f.StringVar(&failMode, "fail-mode", "secure", "without a connected --controller: secure (drop table misses) or standalone (learning switch)")
	f.StringVar(&metrics, "metrics", "", "serve Prometheus metrics on this address (e.g. 127.0.0.1:9100)")
	f.DurationVar(&stats, "stats", 0, "log what the bursts of FLOW_MODs cost every interval, --stats=INTERVAL (--stats alone: every 10s), and at exit")
	f.Lookup("stats").NoOptDefVal = "10s"
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file at exit (for go tool pprof)")
	f.StringVar(&tracePath, "trace", "", "write a Go execution trace of the whole run to this file (for go tool trace: where each goroutine spent its time)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.BoolVar(&cfg.StrictPorts, "strict-ports", false, "refuse masked TCP/UDP/SCTP ports (strict OpenFlow 1.3)")
	f.IntVar(&cfg.BatchMax, "batch-max", 1024, "most FLOW_MODs applied as one burst")
	f.IntVar(&prefault, "prefault", 1024, "rules whose memory is made ahead of the bursts, after each one, off the update path (about 600 KB per 1024 per table in use; 0: none)")
	f.DurationVar(&cfg.BatchWait, "batch-wait", time.Millisecond, "longest a FLOW_MOD waits for others before its burst is applied")
	f.BoolVar(&cfg.OverlapBursts, "overlap-bursts", false, "apply the burst of a controller that pipelines its batches on a goroutine of its own while the next batch is read (pays with processors to spare)")
	f.DurationVar(&cfg.EchoInterval, "inactivity-probe", 5*time.Second, "idle time before an echo request; as long again without answer closes the connection")
	return cmd
}

// runGCPercent is the garbage collector's target (GOGC) of a switch
// process. Its heap is mostly the flow tables: long-lived memory that
// every collection marks again, while a burst of updates changes little of
// it. With twice Go's default headroom a stream of updates causes about
// half the collections. A table that grows ends about as large as with
// the default (1M flows: 702 against 667-697 MB resident), one that is
// emptied and refilled peaks about a fifth higher (100K flows: 148 against
// 124 MB); see BENCHMARKS.md.
const runGCPercent = 200

// setRunGC sets the collector's target for `run`, unless the environment
// (getenv) sets GOGC: the user's setting wins.
func setRunGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(runGCPercent)
	}
}

// startRecording starts a recorder of the whole run (a CPU profile, an
// execution trace) writing into the file path, named by flag in errors;
// the returned function stops it and closes the file.
func startRecording(flag, path string, start func(io.Writer) error, stop func()) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return func() {
		stop()
		f.Close()
	}, nil
}

type metricsServer struct {
	*http.Server
	listener net.Listener
}

func serveMetrics(addr string, reg *prometheus.Registry) (*metricsServer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return &metricsServer{Server: &http.Server{Addr: l.Addr().String(), Handler: mux, ReadHeaderTimeout: 5 * time.Second}, listener: l}, nil
}

// tableCollector exports the agent's tables at scrape time.
type tableCollector struct {
	agent *controller.Agent
	pipe  *rules.Pipeline
}

var (
	descFlows     = prometheus.NewDesc("ofswitch_flows", "Flow entries in a table.", []string{"table"}, nil)
	descSubtables = prometheus.NewDesc("ofswitch_subtables", "Subtables (masks) of a table.", []string{"table"}, nil)
	descOccupancy = prometheus.NewDesc("ofswitch_filter_occupancy", "Occupancy of a table's filter.", []string{"table", "filter"}, nil)
	descBloom     = prometheus.NewDesc("ofswitch_filter_bloom_elements", "Elements in the Bloom part of a table's filter.", []string{"table"}, nil)
	descConns     = prometheus.NewDesc("ofswitch_openflow_connections", "OpenFlow connections past the handshake.", nil, nil)
	descPrefault  = prometheus.NewDesc("ofswitch_prefaulted_chunks", "Chunks of rule memory made ahead of the bursts (--prefault) and not yet taken.", nil, nil)
	descRecycled  = prometheus.NewDesc("ofswitch_recycled_total", "Removed rules and replaced index nodes whose memory was reclaimed for reuse.", nil, nil)
	descOverlap   = prometheus.NewDesc("ofswitch_bursts_overlapped_total", "Bursts applied by a connection's own goroutine while the connection read the next batch (--overlap-bursts).", nil, nil)
)

func (c *tableCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descFlows, descSubtables, descOccupancy, descBloom, descConns, descPrefault, descRecycled, descOverlap} {
		ch <- d
	}
}

func (c *tableCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descConns, prometheus.GaugeValue, float64(c.agent.Conns()))
	ch <- prometheus.MustNewConstMetric(descPrefault, prometheus.GaugeValue, float64(c.pipe.Prefaulted()))
	ch <- prometheus.MustNewConstMetric(descRecycled, prometheus.CounterValue, float64(c.pipe.Recycled()))
	ch <- prometheus.MustNewConstMetric(descOverlap, prometheus.CounterValue, float64(c.agent.Overlapped()))
	for i, ts := range c.agent.TableStats() {
		t := strconv.Itoa(i)
		ch <- prometheus.MustNewConstMetric(descFlows, prometheus.GaugeValue, float64(ts.Flows), t)
		ch <- prometheus.MustNewConstMetric(descSubtables, prometheus.GaugeValue, float64(ts.Subtables), t)
		ch <- prometheus.MustNewConstMetric(descOccupancy, prometheus.GaugeValue, ts.Occupancy, t, ts.Filter)
		ch <- prometheus.MustNewConstMetric(descBloom, prometheus.GaugeValue, float64(ts.FilterBloomLen), t)
	}
}

// dataPlane is what run needs of the switch's ports and workers: on Linux,
// live ports (live_linux.go).
type dataPlane interface {
	// datapathID returns the id derived from the ports, or def.
	datapathID(def uint64) uint64
	// configure points the agent's configuration at the data plane.
	configure(cfg *controller.Config)
	// run switches frames until ctx ends, then stops the workers.
	run(ctx context.Context, agent *controller.Agent, log *slog.Logger) error
	// close closes the ports, once neither the workers nor the agent run.
	close()
	// collector exports the ports' counters.
	collector() prometheus.Collector
}

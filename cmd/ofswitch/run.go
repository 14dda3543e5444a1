package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/bridge"
	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/rules"
)

func newRunCmd() *cobra.Command {
	var (
		listen      []string
		controllers []string
		filterKind  string
		dpid        string
		logLevel    string
		tlsKey      string
		tlsCert     string
		tlsCA       string
		failMode    string
		cpuProfile  string
		tracePath   string
		cfg         bridge.Config
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
--listen punix:PATH is a local-only management socket like Open vSwitch's
br0.mgmt (ovs-ofctl dump-flows unix:PATH): mode 0600, so only the switch's
user (and root) may connect; a socket left by a dead switch is replaced,
any other file refused, and the socket is removed at exit. run listens on
no management socket unless asked, since it has no run directory of its
own. --max-conns bounds the connections of the ptcp: and pssl: targets
together: one more is closed as soon as it is accepted, with a log line;
the management socket is not counted, so its owner always gets in.
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
			cfg.Channel.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: lvl}))
			// Asked for, the figures are logged whatever --log-level says.
			cfg.StatsLogger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			if cfg.Stats < 0 {
				return fmt.Errorf("--stats %v: want a positive interval", cfg.Stats)
			}
			if cfg.Prefault < 0 {
				return fmt.Errorf("--prefault %d: want 0 or more", cfg.Prefault)
			}
			if cfg.Workers <= 0 {
				return fmt.Errorf("--workers %d: want at least 1", cfg.Workers)
			}
			setRunGC(os.Getenv)
			stop, err := startRecordings(cpuProfile, tracePath)
			if err != nil {
				return err
			}
			defer stop()
			if dpid != "" {
				v, err := strconv.ParseUint(strings.TrimPrefix(dpid, "0x"), 16, 64)
				if err != nil || v == 0 {
					return fmt.Errorf("--dpid %q: want 1 to 16 hex digits, not all zero", dpid)
				}
				cfg.Channel.DatapathID = v
			}
			fm, err := controller.ParseFailMode(failMode)
			if err != nil {
				return fmt.Errorf("--fail-mode: %w", err)
			}
			cfg.Channel.FailMode = fm
			if tlsKey != "" || tlsCert != "" || tlsCA != "" {
				tc, err := controller.LoadTLS(tlsKey, tlsCert, tlsCA)
				if err != nil {
					return err
				}
				cfg.Channel.TLS = tc
			}
			if cfg.Filter, err = rules.ParseFilterKind(filterKind); err != nil {
				return fmt.Errorf("--filter: %w", err)
			}
			for _, s := range append(append([]string(nil), listen...), controllers...) {
				t, err := controller.ParseTarget(s)
				if err != nil {
					return err
				}
				cfg.Targets = append(cfg.Targets, t)
			}
			if len(cfg.Targets) == 0 {
				return errors.New("nothing to do: give --listen or --controller")
			}
			br, err := bridge.New(&cfg)
			if err != nil {
				return err
			}
			return br.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&listen, "listen", []string{"ptcp:6653"}, "passive OpenFlow target ptcp:[PORT][:IP], pssl:[PORT][:IP] or punix:PATH (repeatable)")
	f.StringArrayVar(&controllers, "controller", nil, "controller to connect to, tcp:IP[:PORT], ssl:IP[:PORT] or unix:PATH (repeatable)")
	f.IntVar(&cfg.Channel.MaxConns, "max-conns", 1024, "most connections served on the ptcp: and pssl: targets together; more are closed at once (punix: is not counted)")
	f.StringVar(&tlsKey, "private-key", "", "PEM private key of the switch, for ssl: and pssl:")
	f.StringVar(&tlsCert, "certificate", "", "PEM certificate of the switch, for ssl: and pssl:")
	f.StringVar(&tlsCA, "ca-cert", "", "PEM CA certificate that controllers' certificates must chain to")
	f.IntVar(&cfg.Tables, "tables", 8, "number of flow tables")
	f.StringVar(&filterKind, "filter", "bcf", "filter in front of each table: bcf (Bloom-Cuckoo), cf (plain cuckoo) or none")
	f.IntVar(&cfg.BloomAfter, "t", 10, "Bloom-Cuckoo t: kicks before an insertion may use the Bloom part")
	f.StringVar(&dpid, "dpid", "", "datapath id, hex (default: the lowest MAC of the ports, 1 without ports)")
	f.StringArrayVar(&cfg.Ports, "port", nil, "network interface to switch between, port 1, 2, ... in flag order (repeatable)")
	f.IntVar(&cfg.Workers, "workers", 1, "receive queues, each with its worker, per port")
	f.StringVar(&failMode, "fail-mode", "secure", "without a connected --controller: secure (drop table misses) or standalone (learning switch)")
	f.StringVar(&cfg.Metrics, "metrics", "", "serve Prometheus metrics on this address (e.g. 127.0.0.1:9100)")
	f.DurationVar(&cfg.Stats, "stats", 0, "log what the bursts of FLOW_MODs cost every interval, --stats=INTERVAL (--stats alone: every 10s), and at exit")
	f.Lookup("stats").NoOptDefVal = "10s"
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file at exit (for go tool pprof)")
	f.StringVar(&tracePath, "trace", "", "write a Go execution trace of the whole run to this file (for go tool trace: where each goroutine spent its time)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.BoolVar(&cfg.Channel.StrictPorts, "strict-ports", false, "refuse masked TCP/UDP/SCTP ports (strict OpenFlow 1.3)")
	f.IntVar(&cfg.Channel.BatchMax, "batch-max", 1024, "most FLOW_MODs applied as one burst")
	f.IntVar(&cfg.Prefault, "prefault", 1024, "rules whose memory is made ahead of the bursts, after each one, off the update path (about 600 KB per 1024 per table in use; 0: none)")
	f.DurationVar(&cfg.Channel.BatchWait, "batch-wait", time.Millisecond, "longest a FLOW_MOD waits for others before its burst is applied")
	f.BoolVar(&cfg.Channel.OverlapBursts, "overlap-bursts", false, "apply the burst of a controller that pipelines its batches on a goroutine of its own while the next batch is read (pays with processors to spare)")
	f.DurationVar(&cfg.Channel.EchoInterval, "inactivity-probe", 5*time.Second, "idle time before an echo request; as long again without answer closes the connection")
	limitFlags(cmd, &cfg.Channel)
	return cmd
}

// runGCPercent is the garbage collector's target (GOGC) of a switch
// process. Its heap is mostly the flow tables: long-lived memory that
// every collection marks again, while a burst of updates changes little of
// it. With twice Go's default headroom a stream of updates causes about
// half the collections. A table that grows ends about as large as with
// the default (1M flows: 702 against 667-697 MB resident), one that is
// emptied and refilled peaks about a fifth higher (100K flows: 148 against
// 124 MB; measured for commit 89d44d8, whose message has the commands).
const runGCPercent = 200

// setRunGC sets the collector's target for `run`, unless the environment
// (getenv) sets GOGC: the user's setting wins.
func setRunGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(runGCPercent)
	}
}

// startRecordings starts the CPU profile (--cpuprofile) and execution
// trace (--trace) a command was asked for, each into its file (an empty
// path: not asked for), and returns what stops them both.
func startRecordings(cpuProfile, tracePath string) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range slices.Backward(stops) {
			s()
		}
	}
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
		s, err := startRecording(rec.flag, rec.path, rec.start, rec.stop)
		if err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, s)
	}
	return stop, nil
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

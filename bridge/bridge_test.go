package bridge_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/bridge"
	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// freeTarget returns a passive target on a free loopback port.
func freeTarget(t *testing.T) controller.Target {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tg, err := controller.ParseTarget("ptcp:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port) + ":127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestNewRefuses(t *testing.T) {
	tg := freeTarget(t)
	for _, tt := range []struct {
		name string
		cfg  *bridge.Config
		want string
	}{
		{"nil", nil, "no configuration"},
		{"no target", &bridge.Config{}, "no OpenFlow target"},
		{"negative stats", &bridge.Config{Targets: []controller.Target{tg}, Stats: -time.Second}, "stats interval"},
		{"negative prefault", &bridge.Config{Targets: []controller.Target{tg}, Prefault: -1}, "prefault -1"},
		{"bad metrics address", &bridge.Config{Targets: []controller.Target{tg}, Metrics: "127.0.0.1:x"}, "metrics"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cfg != nil {
				tt.cfg.Channel.Logger = quiet()
			}
			b, err := bridge.New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				if b != nil {
					b.Close()
				}
				t.Fatalf("New: err = %v, want one naming %q", err, tt.want)
			}
		})
	}
}

func TestDatapathID(t *testing.T) {
	for _, tt := range []struct {
		set, want uint64
	}{{0, 1}, {0xabc, 0xabc}} {
		cfg := &bridge.Config{Targets: []controller.Target{freeTarget(t)}}
		cfg.Channel.Logger, cfg.Channel.DatapathID = quiet(), tt.set
		b, err := bridge.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.DatapathID(); got != tt.want {
			t.Errorf("DatapathID with %#x configured and no ports = %#x, want %#x", tt.set, got, tt.want)
		}
		b.Close()
	}
}

// TestCloseWithoutRun: Close gives back the metrics listener of a bridge
// that never ran.
func TestCloseWithoutRun(t *testing.T) {
	cfg := &bridge.Config{Targets: []controller.Target{freeTarget(t)}, Metrics: "127.0.0.1:0"}
	cfg.Channel.Logger = quiet()
	b, err := bridge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr := b.MetricsAddr()
	b.Close()
	b.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the metrics address %s is still taken after Close: %v", addr, err)
	}
	l.Close()
}

// TestRunPushMetricsStats runs a bridge without ports, pushes flows into
// it over OpenFlow, and reads them back from its metrics and from its
// Stats report at exit.
func TestRunPushMetricsStats(t *testing.T) {
	var statsLog testutil.LockedBuffer
	tg := freeTarget(t)
	cfg := &bridge.Config{
		Targets:     []controller.Target{tg},
		Tables:      2,
		Prefault:    64,
		Metrics:     "127.0.0.1:0",
		Stats:       time.Hour, // one report: at exit
		StatsLogger: slog.New(slog.NewTextHandler(&statsLog, nil)),
	}
	cfg.Channel.Logger = quiet()
	b, err := bridge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run after cancel: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return")
		}
	}()

	ups, errs := ofctl.ParseFlows("t.flows", []byte(
		"priority=10,ip,nw_dst=10.0.0.1,actions=output:1\n"+
			"priority=20,tcp,tp_dst=22,actions=drop\n"+
			"table=1,priority=0,actions=CONTROLLER:128\n"), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var res *push.Result
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err = push.Flows(context.Background(), "tcp:"+tg.Addr(), ups, &push.Config{Batch: 2}); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("push: %v", err)
		}
	}
	if res.Flows != 3 || res.Batches != 2 || res.ErrCount != 0 {
		t.Fatalf("push: %+v", res)
	}

	resp, err := http.Get("http://" + b.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`ofswitch_flows{table="0"} 2`,
		`ofswitch_flows{table="1"} 1`,
		"ofswitch_flow_mods_applied_total 3",
		"ofswitch_burst_latency_seconds_count 2",
		"ofswitch_openflow_connections ",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	done <- nil // for the deferred check
	report := regexp.MustCompile(`msg=bursts .*bursts=2 updates=3 errors=0 .*update_ns\.p50=[1-9].* filter\.elements=[0-9]+ `)
	if !report.MatchString(statsLog.String()) {
		t.Errorf("no Stats report of 2 bursts and 3 updates at exit:\n%s", statsLog.String())
	}
}

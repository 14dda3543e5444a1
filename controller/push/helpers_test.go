package push

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// The switch side of this package's tests is ofswitch's own agent,
// served on a loopback listener, and (where it runs) Open vSwitch.

// quiet is a logger that drops everything, so tests print only failures.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startAgent serves an agent on a loopback listener until the test ends.
func startAgent(t *testing.T, cfg *controller.Config) (*controller.Agent, string) {
	t.Helper()
	if cfg == nil {
		cfg = &controller.Config{}
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	a, err := controller.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after cancel")
		}
	})
	return a, l.Addr().String()
}

func parseFlows(t *testing.T, text string) []rules.Update {
	t.Helper()
	ups, errs := ofctl.ParseFlows("test.flows", []byte(text), nil)
	if len(errs) != 0 {
		t.Fatalf("parse: %v", errs)
	}
	return ups
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// requireTool returns the path of a peer tool, or skips (fails under CI).
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI=true: %v", name, err)
		}
		t.Skipf("%s not installed (apt-get install openvswitch-common)", name)
	}
	return p
}

// dumpFlows returns what ovs-ofctl dump-flows prints for target over
// OpenFlow 1.3.
func dumpFlows(t *testing.T, ofctl, target string) string {
	t.Helper()
	out, err := exec.Command(ofctl, "-O", "OpenFlow13", "dump-flows", target).CombinedOutput()
	if err != nil {
		t.Fatalf("ovs-ofctl dump-flows %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// counters strips what differs between two switches that hold the same
// flows: durations and hit counters.
var counters = regexp.MustCompile(` duration=[0-9.]+s,| n_packets=\d+,| n_bytes=\d+,| idle_age=\d+,| hard_age=\d+,`)

// flowLines returns the flows of a dump-flows output, normalized and sorted.
func flowLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "OFPST_FLOW") {
			continue
		}
		lines = append(lines, counters.ReplaceAllString(l, ""))
	}
	slices.Sort(lines)
	return lines
}

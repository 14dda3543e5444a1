package push

import (
	"context"
	"io"
	"log/slog"
	"net"
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

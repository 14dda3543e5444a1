package controller

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// FailMode is what the switch does while no controller is connected
// (Open vSwitch's fail_mode).
type FailMode uint8

// Fail modes.
const (
	// FailSecure keeps the flow entries and drops table misses: the
	// switch goes on as its flows say and waits for a controller.
	FailSecure FailMode = iota
	// FailStandalone acts as a learning switch (the NORMAL action for
	// table misses) while no controller has been connected for three
	// inactivity probe intervals.
	FailStandalone
)

// String returns the flag spelling, "secure" or "standalone".
func (m FailMode) String() string {
	switch m {
	case FailSecure:
		return "secure"
	case FailStandalone:
		return "standalone"
	}
	return fmt.Sprintf("FailMode(%d)", uint8(m))
}

// ParseFailMode parses "secure" or "standalone".
func ParseFailMode(s string) (FailMode, error) {
	switch s {
	case "secure":
		return FailSecure, nil
	case "standalone":
		return FailStandalone, nil
	}
	return 0, fmt.Errorf("fail mode %q: want secure or standalone", s)
}

// failState counts the connections to active targets that completed the
// handshake, and wakes the fail-mode monitor when that changes.
type failState struct {
	n    atomic.Int32
	kick chan struct{} // capacity 1
}

func (f *failState) init() { f.kick = make(chan struct{}, 1) }

func (f *failState) connected(delta int32) {
	f.n.Add(delta)
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// failOpenDelay is how long the switch waits without a controller before
// it fails open: three inactivity probe intervals, as Open vSwitch does.
func (a *Agent) failOpenDelay() time.Duration { return 3 * a.cfg.EchoInterval }

// failMonitor runs for Run (with active targets of Run) until ctx is done
// and calls Config.OnFailOpen when the standalone switch enters or leaves
// fail-open operation. Only it calls OnFailOpen, so the calls are ordered.
func (a *Agent) failMonitor(ctx context.Context, active int) {
	if a.cfg.FailMode != FailStandalone || a.cfg.OnFailOpen == nil {
		return
	}
	open := false
	set := func(v bool) {
		if open != v {
			open = v
			a.cfg.Logger.Info("fail mode", "mode", a.cfg.FailMode.String(), "open", v)
			a.cfg.OnFailOpen(v)
		}
	}
	if active == 0 {
		set(true) // no controller can ever connect
		return
	}
	delay := a.failOpenDelay()
	timer := time.NewTimer(delay)
	defer timer.Stop()
	down := time.Now() // without a controller since
	for {
		if a.fail.n.Load() > 0 {
			down = time.Time{}
			set(false)
		} else if down.IsZero() {
			down = time.Now()
			timer.Reset(delay)
		}
		select {
		case <-ctx.Done():
			return
		case <-a.fail.kick:
		case <-timer.C:
			if !down.IsZero() && a.fail.n.Load() == 0 {
				if wait := delay - time.Since(down); wait > 0 {
					timer.Reset(wait)
				} else {
					set(true)
				}
			}
		}
	}
}

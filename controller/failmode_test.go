package controller

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// failEvents records OnFailOpen calls.
type failEvents chan bool

func (f failEvents) next(t *testing.T, want bool) {
	t.Helper()
	select {
	case got := <-f:
		if got != want {
			t.Fatalf("OnFailOpen(%v), want OnFailOpen(%v)", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no OnFailOpen(%v) within 5 s", want)
	}
}

// runAgent runs a.Run(targets) until the test ends.
func runAgent(t *testing.T, a *Agent, targets ...Target) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, targets) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
}

// fakeController listens on addr and plays, on every connection, a
// controller that only says HELLO and answers echo requests. stop closes
// the listener and every connection and waits for them.
func fakeController(t *testing.T, addr string) (stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex // guards conns and closed
	var conns []net.Conn
	closed := false
	var wg sync.WaitGroup
	serve := func(nc net.Conn) {
		defer wg.Done()
		h := openflow.NewHello(1, openflow.Version13)
		b, _ := h.AppendBinary(nil)
		if _, err := nc.Write(b); err != nil {
			return
		}
		r := openflow.NewReader(nc, 0)
		for {
			msg, err := r.Next()
			if err != nil {
				return
			}
			if openflow.Type(msg[1]) == openflow.TypeEchoRequest {
				rep := openflow.EchoReply{Header: openflow.Header{XID: xidOf(msg)}}
				b, _ := rep.AppendBinary(nil)
				nc.Write(b)
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closed {
				mu.Unlock()
				nc.Close()
				return
			}
			conns = append(conns, nc)
			wg.Add(1)
			mu.Unlock()
			go serve(nc)
		}
	}()
	stop = func() {
		mu.Lock()
		if closed {
			mu.Unlock()
			return
		}
		closed = true
		l.Close()
		for _, nc := range conns {
			nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
	t.Cleanup(stop)
	return stop
}

func TestFailStandalone(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(freeTCPPort(t))
	stop := fakeController(t, addr)
	ev := make(failEvents, 8)
	// The echo interval is short, for a short test, but long enough that
	// a loaded machine does not miss an echo reply.
	a, err := New(&Config{Logger: quiet, FailMode: FailStandalone, EchoInterval: 200 * time.Millisecond,
		MaxBackoff: 100 * time.Millisecond, OnFailOpen: func(open bool) { ev <- open }})
	if err != nil {
		t.Fatal(err)
	}
	target, err := ParseTarget("tcp:" + addr)
	if err != nil {
		t.Fatal(err)
	}
	runAgent(t, a, target)
	// The switch connects at once; the controller is there.
	waitConns(t, a, 1)
	// A slow start under load may have failed open before the switch
	// connected; then it must have come back.
	select {
	case v := <-ev:
		if !v {
			t.Fatal("OnFailOpen(false) first")
		}
		ev.next(t, false)
	case <-time.After(a.failOpenDelay()):
	}
	select {
	case v := <-ev:
		t.Fatalf("OnFailOpen(%v) while the controller is connected", v)
	case <-time.After(2 * a.failOpenDelay()):
	}
	// The controller goes away and does not come back for a while:
	// the switch fails open.
	stop()
	ev.next(t, true)
	// It comes back: the switch leaves fail-open operation.
	fakeController(t, addr)
	ev.next(t, false)
}

func TestFailOpenWithoutActiveTargets(t *testing.T) {
	ev := make(failEvents, 8)
	a, err := New(&Config{Logger: quiet, FailMode: FailStandalone, OnFailOpen: func(open bool) { ev <- open }})
	if err != nil {
		t.Fatal(err)
	}
	runAgent(t, a, Target{Passive: true, Host: "127.0.0.1", Port: 0})
	ev.next(t, true)
}

func TestFailSecureNeverOpens(t *testing.T) {
	ev := make(failEvents, 8)
	a, err := New(&Config{Logger: quiet, EchoInterval: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		OnFailOpen: func(open bool) { ev <- open }})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing listens on the discard port of loopback.
	runAgent(t, a, Target{Host: "127.0.0.1", Port: 9}, Target{Passive: true, Host: "127.0.0.1", Port: 0})
	select {
	case v := <-ev:
		t.Fatalf("secure fail mode called OnFailOpen(%v)", v)
	case <-time.After(10 * a.failOpenDelay()):
	}
}

package controller

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// TestAsyncLimitTotal: four controllers that stop reading after the
// handshake, each under its own backlog limit, together pass the limit of
// all of them. The switch then disconnects the one with the largest
// backlog, and the total stays bounded.
func TestAsyncLimitTotal(t *testing.T) {
	var logBuf testutil.LockedBuffer
	const perConn, total, msgLen = 2 << 20, 3 << 20, 64 << 10
	a, err := New(&Config{Logger: slog.New(slog.NewTextHandler(&logBuf, nil)), AsyncLimit: perConn, AsyncLimitTotal: total})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 4 {
		sw, peer := net.Pipe() // no buffer: a peer that does not read blocks every write
		t.Cleanup(func() { peer.Close() })
		go a.ServeConn(ctx, sw)
		c := &client{t: t, nc: peer, r: openflow.NewReader(peer, 0)}
		c.recv(openflow.TypeHello) // the switch's comes first, and a pipe holds nothing
		h := openflow.NewHello(1, openflow.Version13)
		c.send(&h)
	}
	for deadline := time.Now().Add(10 * time.Second); a.Conns() < 4; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections, want 4", a.Conns())
		}
	}
	conns := *a.live.Load()
	msg := make([]byte, msgLen)
	most := int64(0)
	// Connection i gets i+1 messages a round: the last has the largest
	// backlog, and none passes its own limit before the total passes.
	for range 8 {
		for i, c := range conns {
			for range i + 1 {
				c.enqueue(msg)
				most = max(most, a.queued.Load())
			}
		}
	}
	if most > total+msgLen {
		t.Errorf("the total backlog reached %d bytes, limit %d", most, total)
	}
	if !strings.Contains(logBuf.String(), "backlog of all controllers over the limit") {
		t.Fatalf("no connection was disconnected for the total:\n%s", logBuf.String())
	}
	if strings.Contains(logBuf.String(), "backlog over the limit, disconnecting") {
		t.Errorf("a connection passed its own limit:\n%s", logBuf.String())
	}
	// The largest backlog went first: the last connection's.
	for deadline := time.Now().Add(10 * time.Second); a.Conns() == 4; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the disconnected controller's connection did not end")
		}
	}
	live := map[*conn]bool{}
	for _, c := range *a.live.Load() {
		live[c] = true
	}
	if live[conns[3]] {
		t.Errorf("the connection with the largest backlog is still there; %d of 4 left", len(live))
	}
	cancel()
	for deadline := time.Now().Add(10 * time.Second); a.Conns() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("connections did not end")
		}
	}
	if q := a.queued.Load(); q != 0 {
		t.Errorf("%d bytes counted queued after every connection ended", q)
	}
}

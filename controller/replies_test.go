package controller

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// TestReplyLimitTotal: controllers that ask for a flow dump and never read
// hold their replies until WriteTimeout; past ReplyLimitTotal over all of
// them, the one whose reply has been stalled longest is disconnected, each
// time another reply starts, and a controller that reads gets its whole
// dump.
func TestReplyLimitTotal(t *testing.T) {
	// Replies larger than the socket buffers take (4 MB on Linux).
	const flows = 100_000
	var logBuf testutil.LockedBuffer
	cfg := &Config{WriteTimeout: time.Minute, EchoInterval: time.Minute, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}
	a, addr := startAgent(t, cfg)
	fillLarge(t, a, flows)
	dump := func(c *client, xid uint32) {
		c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, xid), Part: openflow.MultipartFlow,
			Flow: openflow.FlowStatsRequest{TableID: openflow.TableAll, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}})
	}
	// inFlight waits until the replies in flight are n of size bytes
	// (size 0: learn it from the first).
	size := 0
	inFlight := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			a.replies.mu.Lock()
			got, k := a.replies.bytes, len(a.replies.writes)
			// Stalled too: the socket buffers took what they take.
			stalled := true
			for c := range a.replies.writes {
				stalled = stalled && time.Since(time.Unix(0, c.out.took.Load())) > 100*time.Millisecond
			}
			a.replies.mu.Unlock()
			if k == n && (size == 0 || got == n*size) && stalled {
				if size == 0 && n == 1 {
					size = got
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d replies (%d bytes) in flight, want %d of %d", k, got, n, size)
			}
		}
	}
	mute := func(xid uint32) *client {
		c := dial(t, addr)
		if err := c.nc.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
			t.Fatal(err)
		}
		c.handshake(openflow.Version13)
		dump(c, xid)
		return c
	}
	m1 := mute(1)
	inFlight(1)
	a.cfg.ReplyLimitTotal = 5 * size / 2 // before the second reply is encoded
	m2 := mute(2)
	inFlight(2)
	// The third passes 2.5 replies: the first goes.
	m3 := mute(3)
	inFlight(2)
	// conns waits until the switch has disconnected dropped controllers
	// and serves n connections. (Reading a closed one to its end would
	// take long: its socket buffers hold megabytes that a 4 KB window
	// lets through slowly.) The count of connections alone would not do:
	// a client's handshake returns once it has the switch's hello, before
	// the switch registers the connection, so a count can be reached
	// before the new connection is counted.
	dropLogs := func() int { return strings.Count(logBuf.String(), "replies in flight over the limit") }
	conns := func(n, dropped int, what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); a.Conns() != n || dropLogs() != dropped; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections and %d disconnected, want %d and %d: %s\n%s", a.Conns(), dropLogs(), n, dropped, what, logBuf.String())
			}
		}
	}
	// The first disconnection is m3's reply starting, so that c's below
	// starts while m2's and m3's are in flight.
	conns(2, 1, "the first silent controller disconnected")
	// A controller that reads gets its whole dump; the second goes.
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	dump(c, 4)
	got := 0
	for more := true; more; {
		var rep openflow.MultipartReply
		if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
			t.Fatal(err)
		}
		got += len(rep.Flows)
		more = rep.Flags&openflow.MultipartReplyMore != 0
	}
	if got != flows {
		t.Errorf("the reading controller got %d flows, want %d", got, flows)
	}
	conns(2, 2, "the second silent controller disconnected")
	if n := dropLogs(); n != 2 {
		t.Errorf("%d log lines of disconnections, want 2:\n%s", n, logBuf.String())
	}
	// The third is still served: its reply is the only one in flight.
	inFlight(1)
	_, _, _ = m1, m2, m3
}

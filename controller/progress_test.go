package controller

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestWriteTimeoutDropsNonReader: a controller asks for the statistics of
// 100K flows (a reply of megabytes, more than the sockets buffer) and
// never reads. The switch drops it once it has taken nothing for
// WriteTimeout, with a log line, and goes on serving another controller.
func TestWriteTimeoutDropsNonReader(t *testing.T) {
	var logBuf testutil.LockedBuffer
	a, addr := startAgent(t, &Config{WriteTimeout: 300 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	fillLarge(t, a, 100_000)

	mute := dial(t, addr)
	// A small receive buffer: the reply must not fit in the sockets.
	if err := mute.nc.(*net.TCPConn).SetReadBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	mute.handshake(openflow.Version13)
	// An echo first: once it is answered, the switch counts the
	// connection (the HELLOs alone may cross before it does).
	mute.send(&openflow.EchoRequest{Header: hdr(openflow.TypeEchoRequest, 1)})
	mute.recv(openflow.TypeEchoReply)
	if n := a.Conns(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
	mute.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 2), Part: openflow.MultipartFlow,
		Flow: openflow.FlowStatsRequest{TableID: openflow.TableAll, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}})
	// Dropped after 300 ms without progress; the bound only keeps a
	// switch that never drops it from hanging the test.
	for deadline := time.Now().Add(20 * time.Second); a.Conns() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a controller that does not read is still connected after 20 s:\n%s", logBuf.String())
		}
	}
	if !strings.Contains(logBuf.String(), "the peer took nothing for 300ms") {
		t.Errorf("no log line says why the controller was dropped:\n%s", logBuf.String())
	}

	c := dial(t, addr)
	c.handshake(openflow.Version13)
	c.send(&openflow.EchoRequest{Header: hdr(openflow.TypeEchoRequest, 3)})
	c.recv(openflow.TypeEchoReply)
}

// fillLarge installs n flows (ip, nw_dst=10.x.x.x, output:1) into a's
// tables at once: a flow dump large enough that no socket buffer takes
// it whole (100,000 flows are about 10 MB).
func fillLarge(t *testing.T, a *Agent, n int) {
	t.Helper()
	ups := make([]rules.Update, n)
	for i := range ups {
		ups[i].Match.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		ups[i].Match.SetExact(rules.FieldIPv4Dst, uint64(10<<24|i))
		ups[i].Priority = 10
		ups[i].Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 1}}}}
	}
	var res rules.BurstResult
	if failed := a.FlowTables().Apply(&res, ups, true, time.Now(), 0); failed != 0 {
		t.Fatalf("%d flows failed", failed)
	}
}

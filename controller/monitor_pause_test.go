package controller

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// TestFlowMonitorPause: a monitoring connection that reads nothing (a
// pipe: every write waits for its reader) while 3,000 flows are added is
// paused once its unread updates pass monitorPauseBytes. While paused,
// the removal of 10 flows older than the pause is reported and that of 10
// added after it is not; 5 older flows modified meanwhile come back as
// MODIFIED, the flows added since as ADDED, then RESUMED. The flows the
// monitor knows in the end are the table's.
func TestFlowMonitorPause(t *testing.T) {
	v := openflow.Version14
	a, addr := startAgent(t, &Config{Tables: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sw, peer := net.Pipe()
	t.Cleanup(func() { peer.Close() })
	go a.ServeConn(ctx, sw)
	mon := &client{t: t, nc: peer, r: openflow.NewReader(peer, 0)}
	mon.recv(openflow.TypeHello) // the switch's comes first, and a pipe holds nothing
	hello := openflow.NewHello(1, v)
	mon.send(&hello)
	h := func(t openflow.Type, xid uint32) openflow.Header {
		return openflow.Header{Version: v, Type: t, XID: xid}
	}
	mon.send(&openflow.FlowMonitorRequest{Header: h(openflow.TypeMultipartRequest, 1), Monitors: []openflow.FlowMonitor{{
		ID: 1, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, TableID: openflow.TableAll,
		Flags: openflow.FlowMonitorAdded | openflow.FlowMonitorRemoved | openflow.FlowMonitorModified}}})
	if rep := mon.nextMonitor(); len(rep.Updates) != 0 {
		t.Fatalf("initial reply: %d updates, want none", len(rep.Updates))
	}

	ctl := dial(t, addr)
	ctl.handshake(v)
	const n = 3000
	dst := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}) }
	flow := func(cmd openflow.FlowModCommand, i int, port uint32) {
		ctl.send(&openflow.FlowMod{Header: h(openflow.TypeFlowMod, uint32(i)), Command: cmd, Priority: 5,
			BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
			Match:        openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPv4Dst(netip.PrefixFrom(dst(i), 32))}},
			Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(port, 0))}})
	}
	barrier := func() {
		ctl.send(&openflow.Empty{Header: h(openflow.TypeBarrierRequest, 0)})
		ctl.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		ctl.recv(openflow.TypeBarrierReply)
	}
	for i := range n {
		flow(openflow.FlowAdd, i, 1)
		if i%256 == 255 {
			barrier()
		}
	}
	barrier()
	for i := range 10 {
		flow(openflow.FlowDeleteStrict, i, 0)     // added before the pause
		flow(openflow.FlowDeleteStrict, n-1-i, 0) // added after it
	}
	for i := 10; i < 15; i++ {
		flow(openflow.FlowModifyStrict, i, 2)
	}
	barrier()

	// Now the monitor reads.
	count := map[uint16]int{}
	known := map[netip.Addr]bool{}
	paused, resumed := -1, -1
	for k := 0; resumed < 0; {
		rep := mon.nextMonitor()
		for _, u := range rep.Updates {
			count[u.Event]++
			var a netip.Addr
			for _, f := range u.Match.Fields {
				if f.Class == openflow.OXMClassOpenFlow && f.Field == openflow.FieldIPv4Dst {
					a = netip.AddrFrom4([4]byte(f.Value[:4]))
				}
			}
			switch u.Event {
			case openflow.FlowUpdatePaused:
				paused = k
			case openflow.FlowUpdateResumed:
				resumed = k
			case openflow.FlowUpdateAdded, openflow.FlowUpdateModified:
				known[a] = true
			case openflow.FlowUpdateRemoved:
				if paused < 0 {
					t.Errorf("a removal of %v before the pause", a)
				}
				delete(known, a)
			}
			k++
		}
	}
	if paused < 0 || paused > n {
		t.Fatalf("PAUSED at update %d", paused)
	}
	if count[openflow.FlowUpdatePaused] != 1 || count[openflow.FlowUpdateResumed] != 1 || count[openflow.FlowUpdateAdded] != n-10 ||
		count[openflow.FlowUpdateModified] != 5 || count[openflow.FlowUpdateRemoved] != 10 {
		t.Errorf("events %v (paused at %d); want 1 PAUSED, 1 RESUMED, %d ADDED, 5 MODIFIED, 10 REMOVED", count, paused, n-10)
	}
	if len(known) != n-20 {
		t.Errorf("the monitor knows %d flows, the table has %d", len(known), n-20)
	}
	for i := 10; i < n-10; i++ {
		if !known[dst(i)] {
			t.Fatalf("the monitor does not know flow %d", i)
		}
	}
}

package controller

import (
	"net/netip"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// nextMonitor returns the next flow monitor reply, skipping echo requests
// and barrier replies (which are not queued with the updates).
func (c *client) nextMonitor() openflow.FlowMonitorReply {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		msg, err := c.r.Next()
		if err != nil {
			c.t.Fatalf("waiting for a flow monitor reply: %v", err)
		}
		switch openflow.Type(msg[1]) {
		case openflow.TypeEchoRequest, openflow.TypeBarrierReply:
			continue
		}
		var rep openflow.FlowMonitorReply
		if err := rep.UnmarshalBinary(msg); err != nil {
			c.t.Fatalf("not a flow monitor reply: %v\n%x", err, msg)
		}
		return rep
	}
}

// TestFlowMonitor: a connection's monitors over OpenFlow 1.3 (ONF form)
// and 1.4: the initial entries in the reply, another connection's add,
// modify and delete in full (one reply per burst, one update per entry
// even when two monitors select it), the monitoring connection's own add
// abbreviated to its xid, the errors for a duplicate monitor, a bad table
// and an unknown cancel, and nothing after the monitors are cancelled.
func TestFlowMonitor(t *testing.T) {
	for _, v := range []uint8{openflow.Version13, openflow.Version14} {
		t.Run(map[uint8]string{openflow.Version13: "OF1.3", openflow.Version14: "OF1.4"}[v], func(t *testing.T) {
			_, addr := startAgent(t, &Config{Tables: 2})
			ctl, mon := dial(t, addr), dial(t, addr)
			ctl.handshake(v)
			mon.handshake(v)
			h := func(t openflow.Type, xid uint32) openflow.Header {
				return openflow.Header{Version: v, Type: t, XID: xid}
			}
			flow := func(c *client, xid uint32, cmd openflow.FlowModCommand, table uint8, prio uint16, port uint32) {
				c.send(&openflow.FlowMod{Header: h(openflow.TypeFlowMod, xid), Command: cmd, TableID: table, Priority: prio,
					BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
					Match:        openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPv4Dst(netip.MustParsePrefix("10.0.0.0/8"))}},
					Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(port, 0))}})
			}
			// ctlBarrier waits for ctl's barrier reply; a barrier of mon is
			// only sent (its reply and the updates are not ordered).
			ctlBarrier := func(xid uint32) {
				ctl.send(&openflow.Empty{Header: h(openflow.TypeBarrierRequest, xid)})
				ctl.recv(openflow.TypeBarrierReply)
			}
			monBarrier := func(xid uint32) { mon.send(&openflow.Empty{Header: h(openflow.TypeBarrierRequest, xid)}) }
			flow(ctl, 2, openflow.FlowAdd, 0, 5, 1)
			ctlBarrier(3)

			all := openflow.FlowMonitor{ID: 1, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, TableID: openflow.TableAll,
				Flags: openflow.FlowMonitorInitial | openflow.FlowMonitorAdded | openflow.FlowMonitorRemoved |
					openflow.FlowMonitorModified | openflow.FlowMonitorInstructions}
			table1 := openflow.FlowMonitor{ID: 2, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, TableID: 1,
				Flags: openflow.FlowMonitorAdded}
			mon.send(&openflow.FlowMonitorRequest{Header: h(openflow.TypeMultipartRequest, 10), Monitors: []openflow.FlowMonitor{all, table1}})
			rep := mon.nextMonitor()
			initial := openflow.FlowUpdateInitial
			if v == openflow.Version13 {
				initial = openflow.FlowUpdateAdded // the ONF form has no initial event
			}
			if rep.XID != 10 || len(rep.Updates) != 1 || rep.Updates[0].Event != initial || rep.Updates[0].Priority != 5 ||
				len(rep.Updates[0].Instructions) != 1 {
				t.Fatalf("initial reply %+v", rep)
			}

			// Errors: a monitor id again (nothing of the request is
			// added), a table the switch lacks.
			exists, unknown := openflow.ErrorMsg{Type: openflow.ErrTypeFlowMonitorFailed, Code: openflow.FlowMonitorFailedMonitorExists},
				openflow.ErrorMsg{Type: openflow.ErrTypeFlowMonitorFailed, Code: openflow.FlowMonitorFailedUnknownMonitor}
			if v == openflow.Version13 {
				exists = openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter, Code: 6}
				unknown = openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter, Code: 8}
			}
			mon.send(&openflow.FlowMonitorRequest{Header: h(openflow.TypeMultipartRequest, 11),
				Monitors: []openflow.FlowMonitor{{ID: 3, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, TableID: openflow.TableAll, Flags: openflow.FlowMonitorAdded}, all}})
			mon.expectError(11, exists.Type, exists.Code)
			bad := all
			bad.ID, bad.TableID = 4, 7
			mon.send(&openflow.FlowMonitorRequest{Header: h(openflow.TypeMultipartRequest, 12), Monitors: []openflow.FlowMonitor{bad}})
			mon.expectError(12, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadTableID))

			// Another connection's changes, in full.
			flow(ctl, 20, openflow.FlowAdd, 1, 7, 2)
			ctlBarrier(21)
			rep = mon.nextMonitor()
			if rep.XID != 0 || len(rep.Updates) != 1 || rep.Updates[0].Event != openflow.FlowUpdateAdded || rep.Updates[0].TableID != 1 {
				t.Fatalf("add in table 1: %+v", rep)
			}
			// The monitoring connection's own add: abbreviated.
			flow(mon, 0x55, openflow.FlowAdd, 0, 9, 1)
			monBarrier(0x56)
			if rep = mon.nextMonitor(); len(rep.Updates) != 1 || rep.Updates[0].Event != openflow.FlowUpdateAbbrev || rep.Updates[0].XID != 0x55 {
				t.Fatalf("own add: %+v", rep)
			}
			// A modify that changes the actions, then one that does not.
			flow(ctl, 30, openflow.FlowModifyStrict, 0, 5, 3)
			flow(ctl, 31, openflow.FlowModifyStrict, 0, 5, 3)
			ctlBarrier(32)
			if rep = mon.nextMonitor(); len(rep.Updates) != 1 || rep.Updates[0].Event != openflow.FlowUpdateModified ||
				rep.Updates[0].Instructions[0].Actions[0].Port != 3 {
				t.Fatalf("modify: %+v", rep)
			}
			// A delete of everything: one reply, an update per entry.
			ctl.send(&openflow.FlowMod{Header: h(openflow.TypeFlowMod, 40), Command: openflow.FlowDelete, TableID: openflow.TableAll,
				BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny})
			ctlBarrier(41)
			rep = mon.nextMonitor()
			if len(rep.Updates) != 3 {
				t.Fatalf("delete all: %+v", rep)
			}
			for _, u := range rep.Updates {
				if u.Event != openflow.FlowUpdateRemoved || u.Reason != uint16(openflow.FlowRemovedDelete) {
					t.Fatalf("delete all: %+v", u)
				}
			}

			// Cancel both; a second cancel of one is an error.
			cancel := func(id, xid uint32) {
				if v == openflow.Version13 {
					mon.send(&openflow.FlowMonitorCancel{Header: h(openflow.TypeExperimenter, xid), ID: id})
					return
				}
				mon.send(&openflow.FlowMonitorRequest{Header: h(openflow.TypeMultipartRequest, xid),
					Monitors: []openflow.FlowMonitor{{ID: id, Command: openflow.FlowMonitorDelete, OutGroup: openflow.GroupAny}}})
			}
			cancel(1, 50)
			cancel(2, 51)
			if v >= openflow.Version14 {
				// As Open vSwitch: a request that only deletes has an
				// empty reply.
				for _, xid := range []uint32{50, 51} {
					if rep := mon.nextMonitor(); rep.XID != xid || len(rep.Updates) != 0 {
						t.Fatalf("reply to the cancel %d: %+v", xid, rep)
					}
				}
			}
			cancel(2, 52)
			mon.expectError(52, unknown.Type, unknown.Code)
			flow(ctl, 60, openflow.FlowAdd, 1, 7, 2)
			ctlBarrier(61)
			monBarrier(62)
			mon.recv(openflow.TypeBarrierReply)
			mon.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if msg, err := mon.r.Next(); err == nil {
				t.Fatalf("after the cancels: %x", msg)
			}
		})
	}
}

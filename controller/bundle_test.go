package controller

import (
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// TestBundleGroupsMeters: over a connection, in both bundle forms (OpenFlow
// 1.4's messages and the ONF experimenter form on 1.3), a bundle carries a
// GROUP_MOD, a METER_MOD and the FLOW_MODs that use them, committed at
// once; a bundle whose later message fails at commit is answered with that
// message's error and xid, then OFPBFC_MSG_FAILED, and changes nothing; a
// bundle that deletes the group removes its flow.
func TestBundleGroupsMeters(t *testing.T) {
	for _, v := range []uint8{openflow.Version13, openflow.Version14} {
		t.Run(map[uint8]string{openflow.Version13: "OF13-ONF", openflow.Version14: "OF14"}[v], func(t *testing.T) {
			testBundleGroupsMeters(t, v)
		})
	}
}

func testBundleGroupsMeters(t *testing.T, v uint8) {
	a, addr := startAgent(t, &Config{Tables: 2})
	c := dial(t, addr)
	c.handshake(v)
	ctlType := openflow.TypeExperimenter
	if v >= openflow.Version14 {
		ctlType = openflow.TypeBundleControl
	}
	failed := func(xid uint32) {
		t.Helper()
		if v >= openflow.Version14 {
			c.expectError(xid, openflow.ErrTypeBundleFailed, bundleMsgFailed)
		} else {
			c.expectError(xid, openflow.ErrTypeExperimenter, onfBundleErrorsBase+bundleMsgFailed)
		}
	}
	ctl := func(typ uint16, xid uint32) {
		c.send(&openflow.BundleControl{Header: openflow.Header{Version: v, Type: ctlType, XID: xid}, BundleID: 3, Type: typ, Flags: openflow.BundleAtomic | openflow.BundleOrdered})
	}
	add := func(m openflow.Message, xid uint32) {
		t.Helper()
		inner, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		inner[0] = v
		inner[4], inner[5], inner[6], inner[7] = byte(xid>>24), byte(xid>>16), byte(xid>>8), byte(xid)
		typ := openflow.TypeBundleAddMessage
		if v < openflow.Version14 {
			typ = openflow.TypeExperimenter
		}
		c.send(&openflow.BundleAddMessage{Header: openflow.Header{Version: v, Type: typ, XID: xid}, BundleID: 3, Flags: openflow.BundleAtomic | openflow.BundleOrdered, Message: inner})
	}
	committed := func(xid uint32) {
		t.Helper()
		var rep openflow.BundleControl
		if err := rep.UnmarshalBinary(c.recv(ctlType)); err != nil || rep.Type != openflow.BundleCommitReply || rep.XID != xid {
			t.Fatalf("commit reply %+v, %v", rep, err)
		}
	}
	group := func(cmd uint16, id uint32, acts ...openflow.Action) *openflow.GroupMod {
		m := &openflow.GroupMod{Command: cmd, Type: openflow.GroupTypeAll, GroupID: id}
		if len(acts) > 0 {
			m.Buckets = []openflow.Bucket{{WatchPort: openflow.PortAny, WatchGroup: openflow.GroupAny, Actions: acts}}
		}
		return m
	}
	flow := func(prio uint16, ins ...openflow.Instruction) *openflow.FlowMod {
		return &openflow.FlowMod{Priority: prio, BufferID: 0xffffffff, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
			Flags: openflow.FlowSendFlowRem, Instructions: ins}
	}
	toGroup := func(id uint32) openflow.Instruction {
		return openflow.ApplyActions(openflow.Action{Type: openflow.ActionGroup, GroupID: id})
	}
	meter := &openflow.MeterMod{Command: openflow.MeterAdd, Flags: 2 /* OFPMF_PKTPS */, MeterID: 4,
		Bands: []openflow.MeterBand{{Type: openflow.MeterBandDrop, Rate: 100}}}
	count := func() (flows, groups, meters int) {
		return len(a.FlowTables().Pipeline().Rules(0)), a.FlowTables().Groups().Load().Len(), a.FlowTables().Meters().Len()
	}

	add(group(openflow.GroupAdd, 1, openflow.Output(1, 0)), 10)
	add(flow(1, toGroup(1)), 11)
	add(meter, 12)
	add(flow(2, openflow.Instruction{Type: openflow.InstructionMeter, MeterID: 4}, openflow.ApplyActions(openflow.Output(2, 0))), 13)
	ctl(openflow.BundleCommitRequest, 14)
	committed(14)
	if f, g, m := count(); f != 2 || g != 1 || m != 1 {
		t.Fatalf("after the bundle: %d flows, %d groups, %d meters; want 2, 1, 1", f, g, m)
	}

	// A duplicate group add, after a good flow: its error, then the
	// commit's, and nothing changed.
	add(flow(3, openflow.ApplyActions(openflow.Output(2, 0))), 20)
	add(group(openflow.GroupAdd, 1, openflow.Output(2, 0)), 21)
	ctl(openflow.BundleCommitRequest, 22)
	em := c.expectError(21, openflow.ErrTypeGroupModFailed, 0 /* OFPGMFC_GROUP_EXISTS */)
	if len(em.Data) < openflow.HeaderLen || openflow.Type(em.Data[1]) != openflow.TypeGroupMod {
		t.Fatalf("error data % x, want the GROUP_MOD", em.Data)
	}
	failed(22)
	// A flow naming a group the bundle deleted.
	add(group(openflow.GroupDelete, 1), 30)
	add(flow(4, toGroup(1)), 31)
	ctl(openflow.BundleCommitRequest, 32)
	em = c.expectError(31, openflow.ErrTypeBadAction, 9 /* OFPBAC_BAD_OUT_GROUP */)
	if len(em.Data) < openflow.HeaderLen || openflow.Type(em.Data[1]) != openflow.TypeFlowMod {
		t.Fatalf("error data % x, want the FLOW_MOD", em.Data)
	}
	failed(32)
	if f, g, m := count(); f != 2 || g != 1 || m != 1 {
		t.Fatalf("after failed bundles: %d flows, %d groups, %d meters; want 2, 1, 1", f, g, m)
	}
	// A bad meter is refused as it is added, and fails the bundle.
	bad := *meter
	bad.Bands = []openflow.MeterBand{{Type: openflow.MeterBandDrop, Rate: 0}}
	add(&bad, 40)
	c.expectError(40, openflow.ErrTypeMeterModFailed, 6 /* OFPMMFC_BAD_RATE */)
	ctl(openflow.BundleCommitRequest, 41)
	failed(41)

	// Deleting the group and the meter in a bundle removes their flows,
	// with FLOW_REMOVED for each.
	add(group(openflow.GroupDelete, 1), 50)
	add(&openflow.MeterMod{Command: openflow.MeterDelete, MeterID: 4}, 51)
	ctl(openflow.BundleCommitRequest, 52)
	// The FLOW_REMOVED messages go out asynchronously: any order.
	reasons, replied := map[uint8]int{}, false
	for range 3 {
		c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		msg, err := c.r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if openflow.Type(msg[1]) == openflow.TypeFlowRemoved {
			var fr openflow.FlowRemoved
			if err := fr.UnmarshalBinary(msg); err != nil {
				t.Fatal(err)
			}
			reasons[fr.Reason]++
			continue
		}
		var rep openflow.BundleControl
		if err := rep.UnmarshalBinary(msg); err != nil || rep.Type != openflow.BundleCommitReply || rep.XID != 52 {
			t.Fatalf("commit reply %+v, %v", rep, err)
		}
		replied = true
	}
	if !replied {
		t.Fatal("no commit reply")
	}
	if reasons[3] != 1 || reasons[2] != 1 { // OFPRR_GROUP_DELETE, OFPRR_DELETE
		t.Fatalf("FLOW_REMOVED reasons %v, want one GROUP_DELETE and one DELETE", reasons)
	}
	if f, g, m := count(); f != 0 || g != 0 || m != 0 {
		t.Fatalf("after the deletes: %d flows, %d groups, %d meters", f, g, m)
	}
}

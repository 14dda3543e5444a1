package controller

import (
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestBundleFailsWhole: a bundle one of whose messages was refused fails
// at commit, and none of its flows is applied.
func TestBundleFailsWhole(t *testing.T) {
	a, addr := startAgent(t, &Config{Tables: 2})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	ctl := func(typ uint16, xid uint32) {
		c.send(&openflow.BundleControl{Header: openflow.Header{Version: openflow.Version13, XID: xid}, BundleID: 7, Type: typ, Flags: openflow.BundleAtomic})
	}
	add := func(fm openflow.FlowMod, xid uint32) {
		fm.Version, fm.Type, fm.XID, fm.BufferID = openflow.Version13, openflow.TypeFlowMod, xid, 0xffffffff
		inner, err := fm.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		c.send(&openflow.BundleAddMessage{Header: openflow.Header{Version: openflow.Version13, XID: xid}, BundleID: 7, Message: inner})
	}
	ctl(openflow.BundleOpenRequest, 1)
	var rep openflow.BundleControl
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeExperimenter)); err != nil || rep.Type != openflow.BundleOpenReply || rep.XID != 1 {
		t.Fatalf("open reply %+v, %v", rep, err)
	}
	good := openflow.FlowMod{Priority: 1, Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(2, 0))}}
	add(good, 2)
	bad := openflow.FlowMod{Priority: 2, Instructions: []openflow.Instruction{openflow.GotoTable(9)}}
	add(bad, 3)
	c.expectError(3, openflow.ErrTypeBadInstruction, uint16(openflow.BadInstructionBadTableID))
	ctl(openflow.BundleCommitRequest, 4)
	em := c.expectError(4, openflow.ErrTypeExperimenter, onfBundleErrorsBase+bundleMsgFailed)
	if em.Experimenter != openflow.ONFExperimenter {
		t.Fatalf("commit error experimenter %#x", em.Experimenter)
	}
	if n := len(a.FlowTables().Pipeline().Rules(0)); n != 0 {
		t.Fatalf("%d flows applied from a failed bundle", n)
	}
	// The connection goes on, and the id is free again.
	ctl(openflow.BundleOpenRequest, 5)
	add(good, 6)
	ctl(openflow.BundleCommitRequest, 7)
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeExperimenter)); err != nil || rep.Type != openflow.BundleOpenReply {
		t.Fatalf("second open reply %+v, %v", rep, err)
	}
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeExperimenter)); err != nil || rep.Type != openflow.BundleCommitReply || rep.XID != 7 {
		t.Fatalf("commit reply %+v, %v", rep, err)
	}
	if n := len(a.FlowTables().Pipeline().Rules(0)); n != 1 {
		t.Fatalf("%d flows after a good bundle, want 1", n)
	}
}

// TestFlowModsBeforeClose: FLOW_MODs a controller sends just before it
// hangs up, with no barrier, are applied all the same.
func TestFlowModsBeforeClose(t *testing.T) {
	a, addr := startAgent(t, &Config{BatchWait: time.Hour}) // only the close can flush
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	// An echo round trip: the switch has registered the connection.
	c.send(&openflow.EchoRequest{Header: hdr(0, 99)})
	c.recv(openflow.TypeEchoReply)
	var fm openflow.FlowMod
	for i := range 10 {
		ofrules.WireFlowMod(&fm, &flowgen.Exact(10, 0)[i])
		fm.Version, fm.XID = openflow.Version13, uint32(i+1)
		c.send(&fm)
	}
	c.nc.Close()
	deadline := time.Now().Add(10 * time.Second)
	for a.Conns() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	n := a.FlowTables().Stats()[0].Flows
	if n != 10 {
		t.Fatalf("%d of 10 flows applied after the controller closed", n)
	}
}

// TestBatchWait: FLOW_MODs with no barrier after them are applied as a
// burst once the first of them has waited Config.BatchWait, on a
// connection that stays open and quiet; a connection whose wait is an
// hour still holds them ten times that long after.
func TestBatchWait(t *testing.T) {
	for _, wait := range []time.Duration{20 * time.Millisecond, time.Hour} {
		a, addr := startAgent(t, &Config{BatchWait: wait})
		c := dial(t, addr)
		c.handshake(openflow.Version13)
		var fm openflow.FlowMod
		for i, u := range flowgen.Exact(5, 0) {
			ofrules.WireFlowMod(&fm, &u)
			fm.Version, fm.XID = openflow.Version13, uint32(i+1)
			c.send(&fm)
		}
		flows := func() int { return a.FlowTables().Stats()[0].Flows }
		look := 2 * time.Second
		if wait == time.Hour {
			look = 200 * time.Millisecond // ten times the other wait
		}
		n := flows()
		for deadline := time.Now().Add(look); n == 0 && time.Now().Before(deadline); n = flows() {
			time.Sleep(5 * time.Millisecond)
		}
		if wait == time.Hour {
			if n != 0 {
				t.Errorf("batch wait of an hour: %d flows applied within %v without a barrier", n, look)
			}
			continue
		}
		if n != 5 {
			t.Errorf("batch wait of %v: %d of 5 flows applied after 2 s", wait, n)
		}
		// The connection goes on: a barrier is answered.
		c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, 9)})
		c.recv(openflow.TypeBarrierReply)
	}
}

// TestSharedInstructions checks the translation a connection reuses for
// FLOW_MODs with the same instruction bytes: it is only reused for the same
// table (goto_table's validity depends on it), and a match the flow tables
// refuse when the burst is applied is still answered with its own xid.
func TestSharedInstructions(t *testing.T) {
	a, addr := startAgent(t, &Config{Tables: 3})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	send := func(table uint8, m openflow.Match, xid uint32) {
		fm := openflow.FlowMod{Header: hdr(openflow.TypeFlowMod, xid), TableID: table, Priority: 10, BufferID: openflow.NoBuffer,
			OutPort: openflow.PortAny, OutGroup: 0xffffffff, Match: m,
			Instructions: []openflow.Instruction{openflow.GotoTable(2)}}
		c.send(&fm)
	}
	inPort := func(p uint32) openflow.Match { return openflow.Match{Fields: []openflow.OXM{openflow.InPort(p)}} }
	send(0, inPort(1), 1)
	send(2, inPort(2), 2) // same bytes, but no goto_table from the last table
	send(0, inPort(3), 3)
	send(1, inPort(4), 4)
	c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, 5)})
	c.expectError(2, openflow.ErrTypeBadInstruction, uint16(openflow.BadInstructionBadTableID))
	c.recv(openflow.TypeBarrierReply)
	for table, want := range []int{2, 1, 0} {
		rs := a.FlowTables().Pipeline().Rules(uint8(table))
		if len(rs) != want {
			t.Fatalf("table %d holds %d rules, want %d", table, len(rs), want)
		}
		for _, r := range rs {
			if len(r.Instructions) != 1 || r.Instructions[0].Kind != rules.InstGotoTable || r.Instructions[0].Table != 2 {
				t.Errorf("table %d: instructions %+v, want goto_table:2", table, r.Instructions)
			}
		}
	}
}

// TestPipelinedBursts sends several batches, each ended by a barrier, in
// one write, so that the switch (with Config.OverlapBursts) hands bursts
// to its applier while it
// decodes the next: each burst's errors come with their own xids before its
// barrier reply, the replies keep their order, and a stats request after
// FLOW_MODs without a barrier sees all of them.
func TestPipelinedBursts(t *testing.T) {
	for _, batchMax := range []int{1024, 4} {
		a, addr := startAgent(t, &Config{BatchMax: batchMax, BatchWait: time.Hour, OverlapBursts: true})
		c := dial(t, addr)
		c.handshake(openflow.Version13)
		flows := flowgen.Exact(40, 0)
		var wire []byte
		var fm openflow.FlowMod
		add := func(u *rules.Update, xid uint32, flags uint16) {
			ofrules.WireFlowMod(&fm, u)
			fm.Version, fm.XID, fm.Flags = openflow.Version13, xid, flags
			var err error
			if wire, err = fm.AppendBinary(wire); err != nil {
				t.Fatal(err)
			}
		}
		const batches = 3
		for b := range batches {
			for i := range 10 {
				add(&flows[10*b+i], uint32(100*b+i+1), 0)
			}
			// A flow that overlaps one of them (its tp_dst wildcarded)
			// with CHECK_OVERLAP: the flow tables refuse it when the
			// burst is applied. (The same flow again would replace it.)
			wide := flows[10*b]
			wide.Match.Set(rules.FieldL4Dst, 0, 0)
			add(&wide, uint32(100*b+50), openflow.FlowCheckOverlap)
			br := openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, uint32(100*b+99))}
			wire, _ = br.AppendBinary(wire)
		}
		for i := 30; i < 40; i++ {
			add(&flows[i], uint32(1000+i), 0)
		}
		agg := openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 2000), Part: openflow.MultipartAggregate,
			Flow: openflow.FlowStatsRequest{TableID: 0xff, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}}
		wire, err := agg.AppendBinary(wire)
		if err != nil {
			t.Fatal(err)
		}
		c.sendRaw(wire)
		for b := range batches {
			c.expectError(uint32(100*b+50), openflow.ErrTypeFlowModFailed, uint16(openflow.FlowModFailedOverlap))
			if xid := xidOf(c.recv(openflow.TypeBarrierReply)); xid != uint32(100*b+99) {
				t.Fatalf("batch max %d: barrier reply xid %d, want %d", batchMax, xid, 100*b+99)
			}
		}
		var rep openflow.MultipartReply
		if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
			t.Fatal(err)
		}
		if rep.XID != 2000 || rep.Aggregate.FlowCount != 40 {
			t.Fatalf("batch max %d: aggregate xid %d, %d flows; want xid 2000, 40 flows", batchMax, rep.XID, rep.Aggregate.FlowCount)
		}
		if n := len(a.FlowTables().Pipeline().Rules(0)); n != 40 {
			t.Fatalf("batch max %d: %d rules, want 40", batchMax, n)
		}
		// The barriers (and the full batches) came with more read
		// behind them: some burst went to the applier.
		if a.handOffs.Load() == 0 {
			t.Errorf("batch max %d: no burst was handed to the applier", batchMax)
		}
	}
}

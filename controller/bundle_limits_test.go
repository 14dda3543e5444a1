package controller

import (
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// bundleConn is an OpenFlow 1.4 connection that sends bundle messages.
type bundleConn struct {
	*client
}

func (c bundleConn) ctl(typ uint16, id, xid uint32) {
	c.send(&openflow.BundleControl{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBundleControl, XID: xid},
		BundleID: id, Type: typ, Flags: openflow.BundleAtomic})
}

// add adds a FLOW_MOD of priority prio to bundle id.
func (c bundleConn) add(id, xid uint32, prio uint16) {
	c.t.Helper()
	fm := &openflow.FlowMod{Header: openflow.Header{Version: openflow.Version14, XID: xid}, Priority: prio, BufferID: openflow.NoBuffer,
		OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(1, 0))}}
	inner, err := fm.AppendBinary(nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(&openflow.BundleAddMessage{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBundleAddMessage, XID: xid},
		BundleID: id, Flags: openflow.BundleAtomic, Message: inner})
}

func (c bundleConn) reply(typ uint16, xid uint32) {
	c.t.Helper()
	var rep openflow.BundleControl
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeBundleControl)); err != nil || rep.Type != typ || rep.XID != xid {
		c.t.Fatalf("bundle reply %+v (%v), want type %d xid %d", rep, err, typ, xid)
	}
}

// TestBundleIdleTimeout: a bundle that sees no message for
// BundleIdleTimeout is discarded with OFPBFC_TIMEOUT naming the request
// that opened it, whether the connection goes on sending other messages
// or stays silent, and its id is then unknown (OFPBFC_BAD_ID); a bundle
// that keeps getting messages stays.
func TestBundleIdleTimeout(t *testing.T) {
	_, addr := startAgent(t, &Config{BundleIdleTimeout: 300 * time.Millisecond, EchoInterval: 200 * time.Millisecond})
	c := bundleConn{dial(t, addr)}
	c.handshake(openflow.Version14)
	c.ctl(openflow.BundleOpenRequest, 1, 10)
	c.reply(openflow.BundleOpenReply, 10)
	c.add(1, 11, 5)
	c.ctl(openflow.BundleOpenRequest, 2, 20)
	c.reply(openflow.BundleOpenReply, 20)
	// Bundle 2 gets a message every 100 ms, which keeps the connection
	// reading: bundle 1 expires on the read path. (Nothing else is
	// answered meanwhile, so the next message is the expiry's error.)
	var em openflow.ErrorMsg
	for i := range 10 {
		c.add(2, uint32(21+i), uint16(6+i))
		c.nc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		msg, err := c.r.Next()
		for err == nil && openflow.Type(msg[1]) != openflow.TypeError {
			msg, err = c.r.Next()
		}
		if err == nil {
			if err := em.UnmarshalBinary(msg); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if em.XID != 10 || em.Type != openflow.ErrTypeBundleFailed || em.Code != bundleTimeout {
		t.Fatalf("bundle 1 idle: got %+v, want OFPBFC_TIMEOUT for xid 10", em)
	}
	c.ctl(openflow.BundleCommitRequest, 1, 40)
	c.expectError(40, openflow.ErrTypeBundleFailed, bundleBadID)
	c.ctl(openflow.BundleCommitRequest, 2, 41)
	c.reply(openflow.BundleCommitReply, 41)

	// A silent connection: the bundle expires when the inactivity probe
	// wakes the loop.
	c.ctl(openflow.BundleOpenRequest, 3, 50)
	c.reply(openflow.BundleOpenReply, 50)
	c.expectError(50, openflow.ErrTypeBundleFailed, bundleTimeout)
}

// TestBundleMaxMsgs: the open bundles of a connection hold at most
// BundleMaxMsgs messages together; one more is refused with
// OFPBFC_MSG_TOO_MANY and fails its bundle, and a commit or discard gives
// the room back.
func TestBundleMaxMsgs(t *testing.T) {
	a, addr := startAgent(t, &Config{BundleMaxMsgs: 5})
	c := bundleConn{dial(t, addr)}
	c.handshake(openflow.Version14)
	for i := range 3 {
		c.add(1, uint32(10+i), uint16(10+i))
	}
	c.add(2, 20, 20)
	c.add(2, 21, 21)
	c.add(2, 22, 22) // the sixth
	c.expectError(22, openflow.ErrTypeBundleFailed, bundleMsgTooMany)
	c.ctl(openflow.BundleCommitRequest, 2, 23)
	c.expectError(23, openflow.ErrTypeBundleFailed, bundleMsgFailed)
	// Bundle 2 is gone: its two messages' room is back.
	c.add(3, 30, 30)
	c.add(3, 31, 31)
	c.ctl(openflow.BundleCommitRequest, 3, 32)
	c.reply(openflow.BundleCommitReply, 32)
	c.ctl(openflow.BundleDiscardRequest, 1, 33)
	c.reply(openflow.BundleDiscardReply, 33)
	for i := range 5 {
		c.add(4, uint32(40+i), uint16(40+i))
	}
	c.ctl(openflow.BundleCommitRequest, 4, 45)
	c.reply(openflow.BundleCommitReply, 45)
	if n := a.FlowTables().Stats()[0].Flows; n != 7 {
		t.Errorf("%d flows, want the 2 of bundle 3 and the 5 of bundle 4", n)
	}
}

// TestBundleMaxBytes: the open bundles of all connections together hold
// at most BundleMaxBytes of messages; the message that would pass it is
// refused with OFPBFC_MSG_TOO_MANY and fails its bundle, and the room of
// a bundle comes back when it is committed or its connection ends.
func TestBundleMaxBytes(t *testing.T) {
	fm := &openflow.FlowMod{Header: openflow.Header{Version: openflow.Version14}, BufferID: openflow.NoBuffer,
		OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(1, 0))}}
	one, err := fm.AppendBinary(nil) // what bundleConn.add bundles
	if err != nil {
		t.Fatal(err)
	}
	a, addr := startAgent(t, &Config{BundleMaxBytes: 5 * len(one)})
	x := bundleConn{dial(t, addr)}
	x.handshake(openflow.Version14)
	y := bundleConn{dial(t, addr)}
	y.handshake(openflow.Version14)
	for i := range 3 {
		x.add(1, uint32(10+i), uint16(10+i))
	}
	// x's barrier answered: its three are in before y's.
	x.send(&openflow.Empty{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBarrierRequest, XID: 13}})
	x.recv(openflow.TypeBarrierReply)
	y.add(1, 20, 20)
	y.add(1, 21, 21)
	y.add(1, 22, 22) // the sixth of both
	y.expectError(22, openflow.ErrTypeBundleFailed, bundleMsgTooMany)
	y.ctl(openflow.BundleCommitRequest, 1, 23)
	y.expectError(23, openflow.ErrTypeBundleFailed, bundleMsgFailed)
	// y's failed bundle is gone, and x's connection ends: all the room
	// is back.
	x.nc.Close()
	for deadline := time.Now().Add(5 * time.Second); a.Conns() > 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the closed connection is still served")
		}
	}
	for i := range 5 {
		y.add(2, uint32(30+i), uint16(30+i))
	}
	y.ctl(openflow.BundleCommitRequest, 2, 35)
	y.reply(openflow.BundleCommitReply, 35)
	if n := a.FlowTables().Stats()[0].Flows; n != 5 {
		t.Errorf("%d flows, want the 5 of y's second bundle", n)
	}
	if n := a.bundleBytes.Load(); n != 0 {
		t.Errorf("%d bytes counted after every bundle ended, want 0", n)
	}
}

package openflow

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlowMonitorCancel encodes ONFT_FLOW_MONITOR_CANCEL as ovs-ofctl
// ofp-print reads it ("ONFT_FLOW_MONITOR_CANCEL (OF1.3) (xid=0x9): id=7"),
// and decodes Decode's dispatch to it.
func TestFlowMonitorCancel(t *testing.T) {
	want, _ := hex.DecodeString("04040014000000094f4e46000000074e00000007")
	m := &FlowMonitorCancel{Header: Header{Version: Version13, XID: 9}, ID: 7}
	got, err := m.MarshalBinary()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("MarshalBinary = %x, %v; want %x", got, err, want)
	}
	d, err := Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := d.(*FlowMonitorCancel)
	if !ok || c.ID != 7 {
		t.Fatalf("Decode = %#v", d)
	}
	if err := c.UnmarshalBinary(want[:19]); !errors.Is(err, ErrBadLength) {
		t.Errorf("short cancel: err = %v, want ErrBadLength", err)
	}
}

// TestFlowMonitorPause encodes ONFT_FLOW_MONITOR_PAUSED and _RESUMED as
// ovs-ofctl ofp-print reads them ("ONFT_FLOW_MONITOR_PAUSED (OF1.3)
// (xid=0x0):"), and decodes Decode's dispatch to them.
func TestFlowMonitorPause(t *testing.T) {
	for _, c := range []struct {
		hex     string
		resumed bool
	}{{"04040010000000004f4e46000000074f", false}, {"04040010000000004f4e460000000750", true}} {
		want, _ := hex.DecodeString(c.hex)
		m := &FlowMonitorPause{Header: Header{Version: Version13}, Resumed: c.resumed}
		got, err := m.MarshalBinary()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("MarshalBinary = %x, %v; want %x", got, err, want)
		}
		d, err := Decode(want)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := d.(*FlowMonitorPause); !ok || p.Resumed != c.resumed {
			t.Fatalf("Decode = %#v", d)
		}
		if err := m.UnmarshalBinary(append(want, 0, 0, 0, 0)); !errors.Is(err, ErrBadLength) {
			t.Errorf("long notice: err = %v, want ErrBadLength", err)
		}
	}
	bad, _ := hex.DecodeString("04040010000000004f4e460000000751")
	var m FlowMonitorPause
	if err := m.UnmarshalBinary(bad); !errors.Is(err, ErrBadExperimenter) {
		t.Errorf("type 1873: err = %v, want ErrBadExperimenter", err)
	}
}

// TestFlowMonitorForms checks that the version chooses the form, both
// ways: the same monitor encodes as ONF at 1.3 and as OFPMP_FLOW_MONITOR
// at 1.4, each decodes back, and a form under the other version's number
// is refused.
func TestFlowMonitorForms(t *testing.T) {
	mon := FlowMonitor{ID: 3, OutPort: 2, OutGroup: GroupAny, Flags: FlowMonitorAdded | FlowMonitorRemoved,
		TableID: 1, Match: Match{Fields: []OXM{EthType(0x0800)}}}
	for _, v := range []uint8{Version13, Version14} {
		req := &FlowMonitorRequest{Header: Header{Version: v, Type: TypeMultipartRequest, XID: 1}, Monitors: []FlowMonitor{mon}}
		b, err := req.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !IsFlowMonitor(b) {
			t.Errorf("v%d: IsFlowMonitor false", v)
		}
		var got FlowMonitorRequest
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		req.Length = got.Length
		if diff := cmp.Diff(req, &got, cmpOpts...); diff != "" {
			t.Errorf("v%d (-want +got):\n%s", v, diff)
		}
		b[0] = Version13 + Version14 - v // the other version
		if err := got.UnmarshalBinary(b); !errors.Is(err, ErrBadMultipart) {
			t.Errorf("v%d bytes at the other version: err = %v, want ErrBadMultipart", v, err)
		}
	}
	// The ONF form cannot say out_group or a command.
	bad := &FlowMonitorRequest{Header: Header{Version: Version13}, Monitors: []FlowMonitor{{OutGroup: 1}}}
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("ONF request with an out_group encoded")
	}
	// Nor paused events.
	rep := &FlowMonitorReply{Header: Header{Version: Version13}, Updates: []FlowUpdate{{Event: FlowUpdatePaused}}}
	if _, err := rep.MarshalBinary(); err == nil {
		t.Error("ONF reply with a paused event encoded")
	}
	rep.Version = Version14
	b, err := rep.MarshalBinary()
	if err != nil || len(b) != 24 {
		t.Fatalf("1.4 paused: %x, %v", b, err)
	}
}

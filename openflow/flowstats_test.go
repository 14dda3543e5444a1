package openflow

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlowStatsImportance: OpenFlow 1.4's importance sits in what 1.3's
// ofp_flow_stats pads (bytes 20-21 of an entry): a 1.4 reply carries and
// returns it, a 1.3 reply has zeros there and decodes it as 0 whatever
// those bytes hold.
func TestFlowStatsImportance(t *testing.T) {
	fs := FlowStats{TableID: 1, Priority: 5, Importance: 0x1234, Cookie: 9, Match: Match{Fields: []OXM{EthType(0x0800)}},
		Instructions: []Instruction{ApplyActions(Output(3, 0))}}
	for _, v := range []uint8{Version13, Version14} {
		rep := MultipartReply{Header: Header{Version: v, Type: TypeMultipartReply, XID: 1}, Part: MultipartFlow, Flows: []FlowStats{fs}}
		b, err := rep.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		want := uint16(0)
		if v >= Version14 {
			want = fs.Importance
		}
		if got := binary.BigEndian.Uint16(b[16+20:]); got != want {
			t.Errorf("version %#x: importance bytes %#04x, want %#04x", v, got, want)
		}
		if v < Version14 {
			binary.BigEndian.PutUint16(b[16+20:], 0xbeef) // padding a 1.3 peer may fill
		}
		var back MultipartReply
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("version %#x: %v", v, err)
		}
		if got := back.Flows[0].Importance; got != want {
			t.Errorf("version %#x: decoded importance %#04x, want %#04x", v, got, want)
		}
		back.Flows[0].Importance = fs.Importance
		if diff := cmp.Diff(fs, back.Flows[0]); diff != "" {
			t.Errorf("version %#x: round trip (-sent +decoded):\n%s", v, diff)
		}
	}
	// FlowModView reads importance only from a 1.4 message.
	fm := FlowMod{Header: Header{Version: Version14}, Importance: 77, BufferID: NoBuffer, OutPort: PortAny, OutGroup: GroupAny}
	b, _ := fm.MarshalBinary()
	if got := FlowModView(b).Importance(); got != 77 {
		t.Errorf("FlowModView(1.4).Importance() = %d, want 77", got)
	}
	b[0] = Version13
	binary.BigEndian.PutUint16(b[46:], 77)
	if got := FlowModView(b).Importance(); got != 0 {
		t.Errorf("FlowModView(1.3).Importance() = %d, want 0 (padding)", got)
	}
}

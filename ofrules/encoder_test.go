package ofrules

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestEncoderTemplate checks an Encoder's patched copies against the full
// encoding of every flow (WireFlowMod, then FlowMod.AppendBinary), byte
// for byte, in OpenFlow 1.3 and 1.4, and that runs of one shape do take
// the fast path.
func TestEncoderTemplate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ups := flowgen.RandomShapes(r, 4000)
	for _, version := range []uint8{openflow.Version13, openflow.Version14} {
		var e Encoder
		var got, want []byte
		var fm openflow.FlowMod
		patched := 0
		for i := range ups {
			xid := uint32(100 + i)
			if e.tmpl.fits(&ups[i], version) {
				patched++
			}
			var err error
			if got, err = e.Encode(got, &ups[i], version, xid); err != nil {
				t.Fatal(err)
			}
			WireFlowMod(&fm, &ups[i])
			fm.Version, fm.XID = version, xid
			if want, err = fm.AppendBinary(want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				j := 0
				for j < len(got) && j < len(want) && got[j] == want[j] {
					j++
				}
				t.Fatalf("version %d, flow %d: %d bytes encoded, want %d; first difference at byte %d", version, i, len(got), len(want), j)
			}
		}
		t.Logf("version %d: %d of %d flows were patched copies", version, patched, len(ups))
		if patched < len(ups)/2 {
			t.Errorf("version %d: %d of %d flows were patched copies", version, patched, len(ups))
		}
		// Each flow after the first of its run is a patched copy.
		var q Encoder
		if _, err := q.Encode(nil, &ups[0], version, 1); err != nil {
			t.Fatal(err)
		}
		next := ups[0]
		next.Match.Key, next.Cookie = rules.Key{}, 42
		for f := rules.Field(0); int(f) < rules.NumFields; f++ {
			switch {
			case !next.Match.Has(f) || f.Bits() > 64:
			case f == rules.FieldEthType || f == rules.FieldIPProto: // the shape's
				next.Match.SetExact(f, ups[0].Match.Key.Get(f))
			default:
				next.Match.Set(f, ^ups[0].Match.Key.Get(f), ups[0].Match.Mask.Get(f))
			}
		}
		if !q.tmpl.fits(&next, version) {
			t.Errorf("version %d: a flow of the same shape as %+v is not a patched copy", version, ups[0])
		}
	}
}

// TestEncodeCacheMatchesPlain encodes a flow file with an Encoder's cache
// of instruction translations and without: the bytes must be the same, also
// when consecutive flows have the same actions but a different ip_proto
// (set_field:tp_dst is a TCP or a UDP field) or actions that differ in one
// field only.
func TestEncodeCacheMatchesPlain(t *testing.T) {
	ups := parseFlows(t, `priority=1,tcp,actions=set_field:80->tp_dst,output:2
priority=1,tcp,tp_src=9,actions=set_field:80->tp_dst,output:2
priority=1,udp,actions=set_field:80->tp_dst,output:2
priority=1,udp,tp_src=9,actions=set_field:80->tp_dst,output:3
priority=1,udp,tp_src=10,actions=set_field:80->tp_dst,output:3,output:4
priority=2,ip,actions=write_metadata:0x1/0xff,goto_table:1
priority=3,ip,actions=write_metadata:0x2/0xff,goto_table:1
priority=4,ip,actions=drop
priority=5,ip,actions=drop
priority=6,tcp,tcp_flags=+syn-ack,actions=drop
priority=6,tcp,tcp_flags=+syn+ack,actions=drop
priority=7,tcp,tcp_flags=rst,actions=drop
`)
	var cache wireInsCache
	for i := range ups {
		var plain, cached openflow.FlowMod
		WireFlowMod(&plain, &ups[i])
		encodeUpdate(&ups[i], &cached, &cache, nil)
		a, err := plain.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b, err := cached.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("flow %d: with the cache %x, without %x", i+1, b, a)
		}
	}
}

// TestEncoderKeepsInstructions: an Encoder compares each flow's
// instructions with those of the flow it last encoded in full, and the
// caller may reuse that flow's memory for the next flows (ofswitch push
// parses a file a chunk at a time into the same memory). A flow whose
// actions were written over the memory of the template's flow must still
// be encoded with its own actions, byte for byte as in full, and a flow
// of the template's actions, in memory of its own, as a patched copy.
func TestEncoderKeepsInstructions(t *testing.T) {
	acts := []rules.Action{{Kind: rules.ActionOutput, Port: 2}}
	ins := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: acts}}
	ups := parseFlows(t, "priority=100,tcp,nw_src=10.0.0.1,actions=drop\npriority=100,tcp,nw_src=10.0.0.2,actions=drop\n")
	first, next := ups[0], ups[1]
	first.Instructions, next.Instructions = ins, ins
	for _, version := range []uint8{openflow.Version13, openflow.Version14} {
		var e Encoder
		if _, err := e.Encode(nil, &first, version, 1); err != nil {
			t.Fatal(err)
		}
		acts[0].Port = 3 // the caller's memory, reused for the next flow
		got, err := e.Encode(nil, &next, version, 2)
		if err != nil {
			t.Fatal(err)
		}
		var fm openflow.FlowMod
		WireFlowMod(&fm, &next)
		fm.Version, fm.XID = version, 2
		want, err := fm.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("version %d: a flow of output:3 in the memory of the template's output:2 was encoded as\n% x\nwant\n% x", version, got, want)
		}
		same := next
		same.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 3}}}}
		if !e.tmpl.fits(&same, version) {
			t.Errorf("version %d: a flow of the template's own actions is not a patched copy", version)
		}
		acts[0].Port = 2
	}
}

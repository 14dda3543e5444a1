package ofrules

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// randomShapeUpdates returns n updates in runs of one match shape and one
// instruction list (as flow files are), with random values, masks of the
// shape's own, and random fixed-part fields; runs come back to earlier
// shapes, and equal instruction lists come as separate slices too.
func randomShapeUpdates(r *rand.Rand, n int) []rules.Update {
	out2 := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}
	insLists := [][]rules.Instruction{
		nil,
		out2,
		{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}, // equal to out2, another slice
		{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionSetField, Field: rules.FieldIPv4Dst, Value: [2]uint64{0, 0x0a000001}}, {Kind: rules.ActionOutput, Port: 3}}}},
		{{Kind: rules.InstGotoTable, Table: 1}},
	}
	// Each shape sets its fields with random values; the masks are the
	// shape's (prefix lengths drawn once per run).
	type shape func(m *rules.Match, bits int)
	shapes := []shape{
		func(m *rules.Match, _ int) { // the benchmark's exact 5-tuple
			m.SetExact(rules.FieldEthType, 0x0800)
			m.SetExact(rules.FieldIPProto, 6)
			m.SetExact(rules.FieldIPv4Src, r.Uint64()&0xffffffff)
			m.SetExact(rules.FieldIPv4Dst, r.Uint64()&0xffffffff)
			m.SetExact(rules.FieldL4Src, r.Uint64()&0xffff)
			m.SetExact(rules.FieldL4Dst, r.Uint64()&0xffff)
		},
		func(m *rules.Match, bits int) { // UDP, masked addresses
			m.SetExact(rules.FieldInPort, 1+r.Uint64()%8)
			m.SetExact(rules.FieldEthType, 0x0800)
			m.SetExact(rules.FieldIPProto, 17)
			m.SetPrefix(rules.FieldIPv4Src, r.Uint64()&0xffffffff, 1+bits%31)
			m.SetPrefix(rules.FieldIPv4Dst, r.Uint64()&0xffffffff, 8)
			m.SetExact(rules.FieldL4Dst, r.Uint64()&0xffff)
		},
		func(m *rules.Match, bits int) { // IPv6, 128-bit prefixes, ICMPv6
			m.SetExact(rules.FieldEthType, 0x86dd)
			m.SetExact(rules.FieldIPProto, 58)
			m.SetPrefix128(rules.FieldIPv6Src, r.Uint64(), r.Uint64(), 1+bits%127)
			m.SetPrefix128(rules.FieldIPv6Dst, r.Uint64(), r.Uint64(), 128)
			m.SetExact(rules.FieldICMPType, r.Uint64()&0xff)
		},
		func(m *rules.Match, _ int) { // ARP, masked MAC, VLAN
			m.Set(rules.FieldEthDst, r.Uint64()&0xffffffffffff, 0xffffff000000)
			m.SetExact(rules.FieldEthType, 0x0806)
			m.SetExact(rules.FieldVLANVID, 0x1000|r.Uint64()&0xfff)
			m.SetExact(rules.FieldARPOp, 1+r.Uint64()%2)
			m.SetExact(rules.FieldARPTPA, r.Uint64()&0xffffffff)
		},
		func(m *rules.Match, _ int) { // metadata under a mask, DSCP
			m.Set(rules.FieldMetadata, r.Uint64(), 0xffff0000ffff0000)
			m.SetExact(rules.FieldEthType, 0x0800)
			m.SetExact(rules.FieldIPDSCP, r.Uint64()&0x3f)
		},
		func(*rules.Match, int) {}, // match everything
	}
	var ups []rules.Update
	for len(ups) < n {
		sh, ins, bits := shapes[r.IntN(len(shapes))], insLists[r.IntN(len(insLists))], r.IntN(200)
		for range 1 + r.IntN(6) {
			var u rules.Update
			sh(&u.Match, bits)
			u.Instructions = ins
			u.Command = rules.Command(r.IntN(5))
			u.Table, u.Priority = uint8(r.IntN(3)), uint16(r.Uint32())
			u.Cookie, u.CookieMask = r.Uint64(), r.Uint64()>>r.IntN(64)
			u.IdleTimeout, u.HardTimeout = uint16(r.IntN(3)), uint16(r.IntN(1000))
			u.Flags = rules.FlowFlags(r.IntN(32))
			u.Importance = uint16(r.IntN(3)) * uint16(r.Uint32()) // zero a third of the time
			if r.IntN(2) == 0 {
				u.OutPort, u.OutGroup = r.Uint32(), r.Uint32()
			}
			ups = append(ups, u)
		}
	}
	return ups[:n]
}

// TestEncoderTemplate checks an Encoder's patched copies against the full
// encoding of every flow (WireFlowMod, then FlowMod.AppendBinary), byte
// for byte, in OpenFlow 1.3 and 1.4, and that runs of one shape do take
// the fast path.
func TestEncoderTemplate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ups := randomShapeUpdates(r, 4000)
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
		encodeUpdate(&ups[i], &cached, &cache)
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

package push

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/ofrules"
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

// TestPushTemplate checks the batches the pusher writes, its FLOW_MODs
// mostly patched copies of its encoder's template, against the full
// encoding of every flow (ofrules.WireFlowMod, then FlowMod.AppendBinary)
// with the barrier after each batch, or in bundles, byte for byte, in
// OpenFlow 1.3 and 1.4. ofrules' TestEncoderTemplate checks that runs of
// one shape do take the template.
func TestPushTemplate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ups := randomShapeUpdates(r, 4000)
	for _, version := range []uint8{openflow.Version13, openflow.Version14} {
		var got bytes.Buffer
		p := &pusher{w: openflow.NewWriter(&got), version: version, xid: 99}
		for lo := 0; lo < len(ups); lo += 100 {
			if err := p.sendBatch(ups, lo, min(lo+100, len(ups))); err != nil {
				t.Fatal(err)
			}
		}
		var want []byte
		xid := uint32(99)
		var fm openflow.FlowMod
		for lo := 0; lo < len(ups); lo += 100 {
			for i := lo; i < min(lo+100, len(ups)); i++ {
				xid++
				ofrules.WireFlowMod(&fm, &ups[i])
				fm.Version, fm.XID = version, xid
				var err error
				if want, err = fm.AppendBinary(want); err != nil {
					t.Fatal(err)
				}
			}
			xid++
			br := openflow.NewBarrierRequest(xid)
			br.Version = version
			want, _ = br.AppendBinary(want)
		}
		if !bytes.Equal(got.Bytes(), want) {
			g, w := got.Bytes(), want
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Fatalf("version %d: %d bytes sent, want %d; first difference at byte %d", version, len(g), len(w), i)
		}
		// In bundles: each flow in a bundle add message of its own xid,
		// between the bundle's open and commit requests.
		got.Reset()
		p = &pusher{w: openflow.NewWriter(&got), version: version, xid: 99, bundle: true}
		for lo := 0; lo < len(ups); lo += 100 {
			if err := p.sendBatch(ups, lo, min(lo+100, len(ups))); err != nil {
				t.Fatal(err)
			}
		}
		want, xid = want[:0], 99
		const flags = openflow.BundleAtomic | openflow.BundleOrdered
		for lo, id := 0, uint32(1); lo < len(ups); lo, id = lo+100, id+1 {
			xid++
			open := openflow.BundleControl{Header: openflow.Header{Version: version, XID: xid}, BundleID: id, Type: openflow.BundleOpenRequest, Flags: flags}
			want, _ = open.AppendBinary(want)
			for i := lo; i < min(lo+100, len(ups)); i++ {
				xid++
				ofrules.WireFlowMod(&fm, &ups[i])
				fm.Version, fm.XID = version, xid
				inner, err := fm.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				add := openflow.BundleAddMessage{Header: openflow.Header{Version: version, XID: xid}, BundleID: id, Flags: flags, Message: inner}
				if want, err = add.AppendBinary(want); err != nil {
					t.Fatal(err)
				}
			}
			xid++
			commit := openflow.BundleControl{Header: openflow.Header{Version: version, XID: xid}, BundleID: id, Type: openflow.BundleCommitRequest, Flags: flags}
			want, _ = commit.AppendBinary(want)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("version %d, bundles: %d bytes sent, want %d", version, got.Len(), len(want))
		}
	}
}

// sendBatch encodes updates[lo:hi] as a batch and writes it.
func (p *pusher) sendBatch(updates []rules.Update, lo, hi int) error {
	if err := p.prepare(updates, lo, hi); err != nil {
		return err
	}
	return p.send()
}

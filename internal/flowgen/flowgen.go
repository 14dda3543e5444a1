// Package flowgen makes rule updates for tests and benchmarks: exact
// 5-tuple flows, and runs of random updates of a few match shapes, as flow
// files hold them.
package flowgen

import (
	"math/rand/v2"

	"github.com/ofswitch/ofswitch/rules"
)

// Exact returns n distinct exact 5-tuple flows (tcp, both addresses and
// ports) starting at offset, each output:2 at priority 100: the flows the
// channel's benchmarks push.
func Exact(n, offset int) []rules.Update {
	ups := make([]rules.Update, n)
	for i := range ups {
		k := uint64(i + offset)
		var m rules.Match
		m.SetExact(rules.FieldEthType, 0x0800)
		m.SetExact(rules.FieldIPProto, 6)
		m.SetExact(rules.FieldIPv4Src, 0x7f100000|k&0xfffff)
		m.SetExact(rules.FieldIPv4Dst, 0x7f200000|k&0xfffff)
		m.SetExact(rules.FieldL4Src, 1024+k%50000)
		m.SetExact(rules.FieldL4Dst, 80)
		ups[i] = rules.Update{Match: m, Priority: 100, Instructions: []rules.Instruction{
			{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}},
		}}
	}
	return ups
}

// RandomShapes returns n updates in runs of one match shape and one
// instruction list (as flow files are), with random values, masks of the
// shape's own, and random fixed-part fields; runs come back to earlier
// shapes, and equal instruction lists come as separate slices too.
func RandomShapes(r *rand.Rand, n int) []rules.Update {
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

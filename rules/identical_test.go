package rules_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestStrictDeleteSamePriority adds rules of one priority that differ only
// on the words a merged subtable relaxes (address prefixes, ip_proto, port
// values, masks and ranges), so that many share merged subtables and
// nodes, and strict-deletes them one by one in a random order: each delete
// removes exactly its rule, and deletes of absent variants remove nothing.
func TestStrictDeleteSamePriority(t *testing.T) {
	var vs []variant
	for _, sl := range []int{8, 16, 24, 32} {
		for _, dl := range []int{16, 32} {
			for proto := range 5 {
				var m rules.Match
				m.SetExact(rules.FieldEthType, 0x0800)
				m.Set(rules.FieldIPv4Src, 0x0a010203, ^uint64(0)<<(32-sl)&0xffffffff)
				m.Set(rules.FieldIPv4Dst, 0x0a090807, ^uint64(0)<<(32-dl)&0xffffffff)
				var rg rules.Ranges
				switch proto {
				case 1:
					m.SetExact(rules.FieldIPProto, 6)
				case 2:
					m.SetExact(rules.FieldIPProto, 6)
					m.SetExact(rules.FieldL4Dst, 80)
				case 3:
					m.SetExact(rules.FieldIPProto, 6)
					m.Set(rules.FieldL4Dst, 80, 0xfff0)
				case 4:
					m.SetExact(rules.FieldIPProto, 6)
					rg.Dst = rules.PortRange{Lo: 80, Hi: 90}
				}
				vs = append(vs, variant{m, rg})
			}
		}
	}
	// Absent variants: a prefix length or range none of the rules has.
	absent := func(v variant, k int) variant {
		switch k % 3 {
		case 0:
			v.m.Set(rules.FieldIPv4Src, 0x0a010203, 0xfff00000)
		case 1:
			v.m.Set(rules.FieldIPv4Dst, 0x0a090807, 0xffffff00)
		default:
			v.m.SetExact(rules.FieldIPProto, 6)
			v.rg.Dst = rules.PortRange{Lo: 80, Hi: 91}
		}
		return v
	}
	for seed := range uint64(20) {
		p, err := rules.New(&rules.Config{NoPrereqs: true, Filter: rules.FilterBloomCuckoo, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if seed%2 == 1 {
			rules.SetMergeLimit(p, 4)
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		var adds []rules.Update
		for _, i := range rng.Perm(len(vs)) {
			adds = append(adds, rules.Update{Command: rules.CmdAdd, Match: vs[i].m, Ranges: vs[i].rg, Priority: 100})
		}
		for i, err := range p.ApplyBurst(adds, true).Errs {
			if err != nil {
				t.Fatalf("seed %d: add %d: %v", seed, i, err)
			}
		}
		flows := func() int { return p.Table(0).Stats().Flows }
		if n := flows(); n != len(vs) {
			t.Fatalf("seed %d: %d flows after %d adds", seed, n, len(vs))
		}
		del := func(v variant) int {
			before := flows()
			u := rules.Update{Command: rules.CmdDeleteStrict, Match: v.m, Ranges: v.rg, Priority: 100}
			if err := p.ApplyBurst([]rules.Update{u}, true).Errs[0]; err != nil {
				t.Fatalf("seed %d: delete: %v", seed, err)
			}
			return before - flows()
		}
		for k, i := range rng.Perm(len(vs)) {
			if a := absent(vs[i], k); !inVariants(vs, a.m, a.rg) {
				if n := del(a); n != 0 {
					t.Fatalf("seed %d: a strict delete of an absent rule removed %d", seed, n)
				}
			}
			if n := del(vs[i]); n != 1 {
				t.Fatalf("seed %d: a strict delete of rule %d removed %d", seed, i, n)
			}
			if n := del(vs[i]); n != 0 {
				t.Fatalf("seed %d: a second strict delete of rule %d removed %d", seed, i, n)
			}
		}
	}
}

// variant is a rule's match and ranges.
type variant struct {
	m  rules.Match
	rg rules.Ranges
}

func inVariants(vs []variant, m rules.Match, rg rules.Ranges) bool {
	for _, v := range vs {
		if v.m == m && v.rg == rg {
			return true
		}
	}
	return false
}

// TestStrictMatchEveryWord adds rules of one priority whose matches differ
// on words of every kind (relaxed words, which merged subtables share, and
// metadata, registers, tunnel fields, IPv6 and Ethernet addresses, on
// their values or only their masks) and on their port ranges, and checks
// strict deletes, strict modifies and identical adds against the rules'
// matches compared whole: only the rule whose Match and Ranges both equal
// the update's is found. Strict deletes whose value has a bit outside its
// mask find no rule, whatever words the mask tests. It guards any compare
// that reads less than two whole Matches: one that skips the masks, the
// ranges, a relaxed word or the value bits outside the mask fails it.
func TestStrictMatchEveryWord(t *testing.T) {
	// Each feature sets the match for choice c > 0 (0 leaves it alone).
	features := []struct {
		n   int
		set func(m *rules.Match, rg *rules.Ranges, c int)
	}{
		{4, func(m *rules.Match, _ *rules.Ranges, c int) { // word 0, relaxed
			m.SetPrefix(rules.FieldIPv4Src, 0x0a010203, []int{0, 16, 24, 32}[c])
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 3, relaxed
			m.SetExact(rules.FieldIPProto, []uint64{0, 6, 17}[c])
		}},
		{5, func(m *rules.Match, rg *rules.Ranges, c int) { // word 2, relaxed, and ranges
			switch c {
			case 1:
				m.SetExact(rules.FieldL4Dst, 80)
			case 2:
				m.Set(rules.FieldL4Dst, 80, 0xfff0)
			case 3:
				rg.Dst = rules.PortRange{Lo: 80, Hi: 90}
			case 4:
				rg.Dst = rules.PortRange{Lo: 80, Hi: 91}
			}
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 2, relaxed: ICMP
			m.SetExact(rules.FieldICMPType, []uint64{0, 8, 0}[c]) // 2: only the mask differs from 0
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 10, relaxed
			m.SetPrefix(rules.FieldARPTPA, 0x0a000001, []int{0, 24, 32}[c])
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 4
			m.Set(rules.FieldMetadata, 0x50, []uint64{0, 0xff, 0xf0}[c])
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // words 5 and 6
			m.SetPrefix128(rules.FieldIPv6Src, 0x20010db8<<32, 0x1, []int{0, 64, 128}[c])
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 9
			m.Set(rules.FieldEthSrc, 0x0200_0000_0001, []uint64{0, 0xffff_ffff_ffff, 0xffff_ffff_ff00}[c]&0xffff_ffff_ffff)
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 13
			m.Set(rules.FieldTunnelID, 7, []uint64{0, ^uint64(0), 0xff}[c])
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 21
			m.SetExact(rules.FieldXReg3, []uint64{0, 1, 2}[c])
		}},
		{3, func(m *rules.Match, _ *rules.Ranges, c int) { // word 35, the last
			m.Set(rules.FieldTunOpts3, 0x100, []uint64{0, 0x100, 0xf00}[c])
		}},
	}
	build := func(cs []int) (v variant, ok bool) {
		for i, c := range cs {
			if c > 0 {
				features[i].set(&v.m, &v.rg, c)
			}
		}
		// A rule with ranges tests no ARP address (checkRanges).
		return v, v.rg.IsZero() || v.m.Mask[10] == 0
	}
	for seed := range uint64(12) {
		p, err := rules.New(&rules.Config{NoPrereqs: true, Filter: rules.FilterBloomCuckoo, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if seed%3 == 1 {
			rules.SetMergeLimit(p, 4)
		}
		p.Watch(true)
		rng := rand.New(rand.NewPCG(seed, 11))
		// Most rules take choice 0 of most features, so that many share
		// masks, subtables and nodes and differ on one or two words.
		var vs []variant
		var choices [][]int
		for len(vs) < 150 {
			cs := make([]int, len(features))
			for i, f := range features {
				if rng.IntN(3) == 0 {
					cs[i] = rng.IntN(f.n)
				}
			}
			if v, ok := build(cs); ok && !inVariants(vs, v.m, v.rg) {
				vs, choices = append(vs, v), append(choices, cs)
			}
		}
		var adds []rules.Update
		for _, v := range vs {
			adds = append(adds, rules.Update{Command: rules.CmdAdd, Match: v.m, Ranges: v.rg, Priority: 100})
		}
		for i, err := range p.ApplyBurst(adds, true).Errs {
			if err != nil {
				t.Fatalf("seed %d: add %d (%v %v): %v", seed, i, vs[i].m, vs[i].rg, err)
			}
		}
		// apply applies u and returns the rules it added, modified and
		// removed.
		apply := func(u rules.Update) (n [3]int) {
			res := p.ApplyBurst([]rules.Update{u}, true)
			if err := res.Errs[0]; err != nil {
				t.Fatalf("seed %d: %v %v %v: %v", seed, u.Command, u.Match, u.Ranges, err)
			}
			for _, c := range res.Changes {
				n[c.Kind]++
			}
			return n
		}
		// Absent matches near the rules': a rule's with one feature's
		// choice changed.
		for range 300 {
			j := rng.IntN(len(vs))
			cs := append([]int(nil), choices[j]...)
			f := rng.IntN(len(features))
			cs[f] = rng.IntN(features[f].n)
			w, ok := build(cs)
			if !ok || inVariants(vs, w.m, w.rg) {
				continue
			}
			u := rules.Update{Command: rules.CmdDeleteStrict, Match: w.m, Ranges: w.rg, Priority: 100}
			if n := apply(u); n != [3]int{} {
				t.Fatalf("seed %d: a strict delete of absent %v %v (near %v %v) made %v", seed, w.m, w.rg, vs[j].m, vs[j].rg, n)
			}
			u.Command = rules.CmdModifyStrict
			if n := apply(u); n != [3]int{} {
				t.Fatalf("seed %d: a strict modify of absent %v %v (near %v %v) made %v", seed, w.m, w.rg, vs[j].m, vs[j].rg, n)
			}
			u.Command = rules.CmdAdd
			if n := apply(u); n != [3]int{1, 0, 0} {
				t.Fatalf("seed %d: an add of absent %v %v (near %v %v) made %v", seed, w.m, w.rg, vs[j].m, vs[j].rg, n)
			}
			if fl := p.Table(0).Stats().Flows; fl != len(vs)+1 {
				t.Fatalf("seed %d: an add of absent %v %v (near %v %v) left %d flows, want %d", seed, w.m, w.rg, vs[j].m, vs[j].rg, fl, len(vs)+1)
			}
			u.Command = rules.CmdDeleteStrict
			if n := apply(u); n != [3]int{0, 0, 1} {
				t.Fatalf("seed %d: a strict delete of added %v %v made %v", seed, w.m, w.rg, n)
			}
		}
		// A value bit outside the mask, on any word: no rule has one.
		for range 200 {
			v := vs[rng.IntN(len(vs))]
			w, b := rng.IntN(rules.KeyWords), rng.IntN(64)
			if v.m.Mask[w]>>b&1 != 0 {
				continue
			}
			v.m.Key[w] |= 1 << b
			u := rules.Update{Command: rules.CmdDeleteStrict, Match: v.m, Ranges: v.rg, Priority: 100}
			if n := apply(u); n != [3]int{} {
				t.Fatalf("seed %d: a strict delete with value bit %d of word %d outside the mask made %v", seed, b, w, n)
			}
		}
		// Each rule: an identical add replaces it, a strict modify finds
		// it, a strict delete removes it, once, and an add puts it back.
		for _, i := range rng.Perm(len(vs)) {
			v := vs[i]
			u := rules.Update{Command: rules.CmdAdd, Match: v.m, Ranges: v.rg, Priority: 100}
			if fl := p.Table(0).Stats().Flows; fl != len(vs) {
				t.Fatalf("seed %d: %d flows, want %d", seed, fl, len(vs))
			}
			if n := apply(u); n != [3]int{1, 0, 0} {
				t.Fatalf("seed %d: an identical add of rule %d made %v", seed, i, n)
			}
			if fl := p.Table(0).Stats().Flows; fl != len(vs) {
				t.Fatalf("seed %d: an identical add of rule %d %v %v left %d flows, want %d", seed, i, v.m, v.rg, fl, len(vs))
			}
			u.Command = rules.CmdModifyStrict
			if n := apply(u); n != [3]int{0, 1, 0} {
				t.Fatalf("seed %d: a strict modify of rule %d made %v", seed, i, n)
			}
			u.Command = rules.CmdDeleteStrict
			if n := apply(u); n != [3]int{0, 0, 1} {
				t.Fatalf("seed %d: a strict delete of rule %d made %v", seed, i, n)
			}
			if n := apply(u); n != [3]int{} {
				t.Fatalf("seed %d: a second strict delete of rule %d made %v", seed, i, n)
			}
			// Back in, so that the rules after it meet it.
			u.Command = rules.CmdAdd
			if n := apply(u); n != [3]int{1, 0, 0} {
				t.Fatalf("seed %d: an add of deleted rule %d made %v", seed, i, n)
			}
		}
	}
}

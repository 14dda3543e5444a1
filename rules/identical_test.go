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

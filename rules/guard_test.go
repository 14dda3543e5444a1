package rules_test

import (
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestSubtableGuard checks the guard lookups use to pass over subtables:
// keys of another EtherType skip a subtable of IPv4 rules, and a rule of
// that EtherType joining the same subtable (same mask) narrows the guard
// before it becomes visible, so that its packets find it.
func TestSubtableGuard(t *testing.T) {
	for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterCuckoo, rules.FilterNone} {
		t.Run(kind.String(), func(t *testing.T) {
			p, err := rules.New(&rules.Config{Filter: kind})
			if err != nil {
				t.Fatal(err)
			}
			add := func(ethType uint64, id int) {
				t.Helper()
				var m rules.Match
				m.SetExact(rules.FieldEthType, ethType)
				for _, err := range p.ApplyBurst([]rules.Update{{Match: m, Priority: 10, ID: id}}, true).Errs {
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			lookup := func(ethType uint64) (*rules.Rule, rules.Counters) {
				var k rules.Key
				k.Set(rules.FieldEthType, ethType)
				var c rules.Counters
				r, _ := p.Table(0).LookupVersion(&k, &c)
				var out [1]*rules.Rule
				var cb rules.Counters
				p.Table(0).LookupBatch([]rules.Key{k}, out[:], &cb)
				if out[0] != r || cb.Guarded != c.Guarded {
					t.Fatalf("eth_type %#x: batch lookup %v (guarded %d), single %v (guarded %d)", ethType, out[0], cb.Guarded, r, c.Guarded)
				}
				return r, c
			}
			add(rules.EthTypeIPv4, 1)
			if r, c := lookup(rules.EthTypeIPv6); r != nil || c.Guarded != 1 || c.Visited != 0 {
				t.Fatalf("IPv6 key against an IPv4-only subtable: rule %v, counters %+v; want no rule, guarded 1, visited 0", r, c)
			}
			if r, c := lookup(rules.EthTypeIPv4); r == nil || r.ID != 1 || c.Guarded != 0 {
				t.Fatalf("IPv4 key: rule %v, counters %+v; want rule 1, not guarded", r, c)
			}
			add(rules.EthTypeIPv6, 2)
			if r, c := lookup(rules.EthTypeIPv6); r == nil || r.ID != 2 || c.Guarded != 0 {
				t.Fatalf("IPv6 key after an IPv6 rule joined the subtable: rule %v, counters %+v; want rule 2, not guarded", r, c)
			}
			// The guard now covers only the bits on which 0x0800 and
			// 0x86dd agree: ARP's 0x0806 is guarded if it differs there.
			agree := ^uint64(rules.EthTypeIPv4^rules.EthTypeIPv6) & 0xffff
			want := uint64(0)
			if (rules.EthTypeARP^rules.EthTypeIPv4)&agree != 0 {
				want = 1
			}
			if r, c := lookup(rules.EthTypeARP); r != nil || c.Guarded != want {
				t.Fatalf("ARP key: rule %v, counters %+v; want no rule, guarded %d", r, c, want)
			}
		})
	}
}

// TestSubtableGuardAddresses checks the guard on the IPv4 addresses: a key
// from another network passes over a subtable whose rules all name hosts
// of 10.1.0.0/16 (the guard covers the bits on which their /24s agree),
// and a rule of 11.0.0.0/24 joining the subtable narrows the guard before
// it becomes visible, so that keys from there find it.
func TestSubtableGuardAddresses(t *testing.T) {
	for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterNone} {
		t.Run(kind.String(), func(t *testing.T) {
			p, err := rules.New(&rules.Config{Filter: kind})
			if err != nil {
				t.Fatal(err)
			}
			add := func(dst uint64, id int) {
				t.Helper()
				var m rules.Match
				m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
				m.SetPrefix(rules.FieldIPv4Dst, dst, 24)
				for _, err := range p.ApplyBurst([]rules.Update{{Match: m, Priority: 10, ID: id}}, true).Errs {
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			lookup := func(dst uint64) (*rules.Rule, rules.Counters) {
				var k rules.Key
				k.Set(rules.FieldEthType, rules.EthTypeIPv4)
				k.Set(rules.FieldIPv4Dst, dst)
				var c rules.Counters
				r, _ := p.Table(0).LookupVersion(&k, &c)
				return r, c
			}
			for i := range 4 {
				add(10<<24|1<<16|uint64(i)<<8, i)
			}
			if r, c := lookup(11<<24 | 5); r != nil || c.Guarded != 1 || c.Visited != 0 {
				t.Fatalf("11.0.0.5 against rules of 10.1.0-3.0/24: rule %v, counters %+v; want no rule, guarded 1, visited 0", r, c)
			}
			if r, c := lookup(10<<24 | 1<<16 | 2<<8 | 9); r == nil || r.ID != 2 || c.Guarded != 0 {
				t.Fatalf("10.1.2.9: rule %v, counters %+v; want rule 2, not guarded", r, c)
			}
			add(11<<24, 9)
			if r, c := lookup(11<<24 | 5); r == nil || r.ID != 9 || c.Guarded != 0 {
				t.Fatalf("11.0.0.5 after a rule of 11.0.0.0/24 joined the subtable: rule %v, counters %+v; want rule 9, not guarded", r, c)
			}
		})
	}
}

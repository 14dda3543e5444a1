package rules_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestARPPrefixChecks: ARP rules of address prefixes from 128.0.0.0 up,
// which merge into relaxed subtables whose nodes check each rule's ARP
// addresses (word 10 of the key), answer as a linear scan does, for keys
// near their addresses and keys that differ from them only in the top bit.
// Such an address has in its check's value the bit that marks a ranged
// rule's check (rangedMark); the mark alone once sent ARP checks to the
// port-range test, which reads no ARP address, and an ARP packet from
// 10.10.10.10 met arp_spa=192.168.10.0/24 (Ryu's match test 22_ARP_SPA,
// Mask).
func TestARPPrefixChecks(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 10))
	for _, kind := range []rules.FilterKind{rules.FilterNone, rules.FilterBloomCuckoo} {
		p, err := rules.New(&rules.Config{Tables: 1, Filter: kind})
		if err != nil {
			t.Fatal(err)
		}
		var ms []rules.Match
		var prios []uint16
		var ups []rules.Update
		for i := range 64 {
			spa := 0xc0a80000 | uint32(rng.IntN(1<<16))
			tpa := 0x80000000 | uint32(rng.IntN(1<<31))
			line := fmt.Sprintf("priority=%d,arp,arp_spa=%d.%d.%d.%d/%d,arp_tpa=%d.%d.%d.%d/%d,actions=output:%d",
				100+i, spa>>24, spa>>16&0xff, spa>>8&0xff, spa&0xff, 16+rng.IntN(17),
				tpa>>24, tpa>>16&0xff, tpa>>8&0xff, tpa&0xff, rng.IntN(33), 1+i%3)
			if i == 0 {
				line = "priority=100,arp,arp_spa=192.168.10.0/24,actions=output:2"
			}
			u, err := ofctl.ParseFlow(line)
			if err != nil {
				t.Fatal(err)
			}
			ups = append(ups, u)
			ms, prios = append(ms, u.Match), append(prios, u.Priority)
		}
		if res := p.ApplyBurst(ups, true); res.Errs != nil {
			for i, err := range res.Errs {
				if err != nil {
					t.Fatalf("%v: rule %d: %v", kind, i, err)
				}
			}
		}
		tb := p.Table(0)
		check := func(k *rules.Key) {
			t.Helper()
			want := -1
			for i := range ms {
				if ms[i].Matches(k) && (want < 0 || prios[i] > prios[want]) {
					want = i
				}
			}
			got := tb.Lookup(k)
			switch {
			case want < 0 && got != nil:
				t.Fatalf("%v: key %v: got the rule of priority %d, want none", kind, k, got.Priority)
			case want >= 0 && (got == nil || got.Priority != prios[want]):
				t.Fatalf("%v: key %v: got %v, want the rule of priority %d", kind, k, got, prios[want])
			}
		}
		var k rules.Key
		k.Set(rules.FieldEthType, 0x0806)
		k.Set(rules.FieldARPOp, 1)
		k.Set(rules.FieldARPSPA, 0x0a0a0a0a)
		k.Set(rules.FieldARPTPA, 0xc0a81414)
		check(&k)
		for range 20000 {
			m := &ms[rng.IntN(len(ms))]
			spa, _ := m.Get(rules.FieldARPSPA)
			tpa, _ := m.Get(rules.FieldARPTPA)
			spa ^= uint64(rng.IntN(1 << rng.IntN(17)))
			tpa ^= uint64(rng.IntN(1 << rng.IntN(33)))
			if rng.IntN(2) == 0 {
				spa ^= 1 << 31 // the top bit only: rangedMark's place
			}
			k.Set(rules.FieldARPSPA, spa)
			k.Set(rules.FieldARPTPA, tpa)
			check(&k)
		}
	}
}

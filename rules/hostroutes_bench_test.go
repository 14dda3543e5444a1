package rules_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// hostRoutes is a host-route table: n rules of one destination host each
// (eth_type=ipv4, ipv4_dst=10.0.0.0+i, priority 100), nets /24 routes
// (ipv4_dst=10.16.j.0/24, priority 50: with hosts, the commonest shape of
// an Open vSwitch routing table) and a match-all at priority 0. Keys are
// 65,536 TCP packets from random 172.x.y.z sources to port 80 of random
// hosts of the table; with nets, every odd key goes to a random address
// of a random /24 instead. want is each key's answer's priority.
func hostRoutes(n, nets int) (ups []rules.Update, keys []rules.Key, want []uint16) {
	ups = make([]rules.Update, 0, n+nets+1)
	for i := range n {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPv4Dst, uint64(10<<24|i))
		ups = append(ups, rules.Update{Match: m, Priority: 100, ID: i})
	}
	for j := range nets {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetPrefix(rules.FieldIPv4Dst, uint64(10<<24|16<<16+j<<8), 24)
		ups = append(ups, rules.Update{Match: m, Priority: 50, ID: n + j})
	}
	ups = append(ups, rules.Update{Priority: 0, ID: n + nets})
	rng := rand.New(rand.NewPCG(25, uint64(n)))
	keys = make([]rules.Key, 65536)
	want = make([]uint16, len(keys))
	for i := range keys {
		k := &keys[i]
		k.Set(rules.FieldEthType, rules.EthTypeIPv4)
		k.Set(rules.FieldIPProto, rules.IPProtoTCP)
		k.Set(rules.FieldIPv4Src, uint64(172<<24)|rng.Uint64N(1<<24))
		if nets > 0 && i%2 == 1 {
			k.Set(rules.FieldIPv4Dst, uint64(10<<24|16<<16)+rng.Uint64N(uint64(nets)<<8))
			want[i] = 50
		} else {
			k.Set(rules.FieldIPv4Dst, uint64(10<<24)|rng.Uint64N(uint64(n)))
			want[i] = 100
		}
		k.Set(rules.FieldL4Src, 1024+rng.Uint64N(60000))
		k.Set(rules.FieldL4Dst, 80)
	}
	return ups, keys, want
}

// BenchmarkHostRoutes looks packets up in host-route tables (hostRoutes):
// 1K and 100K hosts, and 1K hosts beside 1,500 and 4,000 /24 routes,
// whose lookups to hosts (hosts) and to the routes (nets) run apart.
// Every answer is checked.
func BenchmarkHostRoutes(b *testing.B) {
	for _, c := range []struct{ hosts, nets int }{{1_000, 0}, {100_000, 0}, {1_000, 1_500}, {1_000, 4_000}} {
		ups, keys, want := hostRoutes(c.hosts, c.nets)
		parts := []string{""}
		if c.nets > 0 {
			parts = []string{"/hosts", "/nets"}
		}
		for _, kind := range []rules.FilterKind{rules.FilterNone, rules.FilterBloomCuckoo} {
			p, err := rules.New(&rules.Config{Filter: kind})
			if err != nil {
				b.Fatal(err)
			}
			for _, err := range p.ApplyBurst(ups, true).Errs {
				if err != nil {
					b.Fatal(err)
				}
			}
			tbl := p.Table(0)
			name := fmt.Sprintf("%dhosts", c.hosts)
			if c.nets > 0 {
				name += fmt.Sprintf("+%dnets", c.nets)
			}
			for off, part := range parts {
				step := len(parts)
				b.Run(name+"/"+kind.String()+part, func(b *testing.B) {
					var cs rules.Counters
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						j := (step*i + off) & (len(keys) - 1)
						r, _ := tbl.LookupVersion(&keys[j], &cs)
						if r == nil || r.Priority != want[j] {
							b.Fatalf("key %d: rule %v, want priority %d", j, r, want[j])
						}
						i++
					}
					reportLookups(b, i, &cs)
				})
			}
		}
	}
}

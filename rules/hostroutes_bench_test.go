package rules_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// hostRoutes is a host-route table: n rules of one destination host each
// (eth_type=ipv4, ipv4_dst=10.0.0.0+i, priority 100) and a match-all at
// priority 0; keys are 65,536 TCP packets from random 172.x.y.z sources
// to port 80 of random hosts of the table.
func hostRoutes(n int) ([]rules.Update, []rules.Key) {
	ups := make([]rules.Update, 0, n+1)
	for i := range n {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPv4Dst, uint64(10<<24|i))
		ups = append(ups, rules.Update{Match: m, Priority: 100, ID: i})
	}
	ups = append(ups, rules.Update{Priority: 0, ID: n})
	rng := rand.New(rand.NewPCG(25, uint64(n)))
	keys := make([]rules.Key, 65536)
	for i := range keys {
		k := &keys[i]
		k.Set(rules.FieldEthType, rules.EthTypeIPv4)
		k.Set(rules.FieldIPProto, rules.IPProtoTCP)
		k.Set(rules.FieldIPv4Src, uint64(172<<24)|rng.Uint64N(1<<24))
		k.Set(rules.FieldIPv4Dst, uint64(10<<24)|rng.Uint64N(uint64(n)))
		k.Set(rules.FieldL4Src, 1024+rng.Uint64N(60000))
		k.Set(rules.FieldL4Dst, 80)
	}
	return ups, keys
}

// BenchmarkHostRoutes looks packets up in a host-route table (hostRoutes)
// of 1K and 100K hosts: every lookup's answer is its host's rule, which
// the loop checks (priority 100).
func BenchmarkHostRoutes(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		ups, keys := hostRoutes(n)
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
			b.Run(fmt.Sprintf("%dhosts/%s", n, kind), func(b *testing.B) {
				var c rules.Counters
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					r, _ := tbl.LookupVersion(&keys[i&(len(keys)-1)], &c)
					if r == nil || r.Priority != 100 {
						b.Fatalf("key %d: rule %v, want a host's", i&(len(keys)-1), r)
					}
					i++
				}
				reportLookups(b, i, &c)
			})
		}
	}
}

package rules_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// loadCBPorts is loadCB with the rules' ports made entries as ports says.
func loadCBPorts(t testing.TB, rs []classbench.Rule, cfg rules.Config, ports classbench.Ports) *rules.Table {
	t.Helper()
	cfg.NoPrereqs = true
	p, err := rules.New(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	ups, _ := classbench.TupleUpdatesWith(rs, 0, nil, ports)
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatalf("update %d (rule %d): %v", i, ups[i].ID, err)
		}
	}
	return p.Table(0)
}

// BenchmarkClassBenchPorts compares the two forms of a ClassBench set's
// port ranges side by side: one entry per rule with its ranges checked
// after the hash match (classbench.PortRanges) and the ranges expanded
// into prefixes (PortPrefixes), each in a table of its own, filter none
// and bcf. Each round looks up a fresh block of 512 keys of the set's
// trace in each table, single lookups and LookupBatch, in random order;
// the metrics are the medians over the rounds: each form's rate
// (Mlookups/s), the rate of ranges over that of prefixes ("x" > 1: ranges
// are faster), and the subtables a lookup visits in each.
func BenchmarkClassBenchPorts(b *testing.B) {
	forms := []classbench.Ports{classbench.PortPrefixes, classbench.PortRanges}
	for _, set := range benchSets {
		rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
		if err != nil {
			b.Fatal(err)
		}
		keys := benchKeys(b, rs, set.trace)
		for _, kind := range []rules.FilterKind{rules.FilterNone, rules.FilterBloomCuckoo} {
			b.Run(fmt.Sprintf("%s/%s", set.name, kind), func(b *testing.B) {
				var tbls [2]*rules.Table
				for i, f := range forms {
					tbls[i] = loadCBPorts(b, rs, rules.Config{Filter: kind}, f)
				}
				const block = 512
				out := make([]*rules.Rule, block)
				// paths: form i single (2i), batch (2i+1).
				var ns [4][]float64
				var cs [2]rules.Counters
				rng := rand.New(rand.NewPCG(9, 9))
				off := 0
				for b.Loop() {
					if off+block > len(keys) {
						off = 0
					}
					ks := keys[off : off+block]
					off += block
					for _, pi := range rng.Perm(4) {
						tbl := tbls[pi/2]
						t0 := time.Now()
						if pi%2 == 0 {
							for i := range ks {
								out[i], _ = tbl.LookupVersion(&ks[i], &cs[pi/2])
							}
						} else {
							var c rules.Counters
							for i := 0; i < len(ks); i += 32 {
								tbl.LookupBatch(ks[i:i+32], out[i:i+32], &c)
							}
						}
						ns[pi] = append(ns[pi], float64(time.Since(t0).Nanoseconds()))
					}
				}
				med := func(xs []float64) float64 {
					s := slices.Clone(xs)
					slices.Sort(s)
					return s[len(s)/2]
				}
				ratio := func(a, b []float64) float64 {
					rs := make([]float64, len(a))
					for i := range rs {
						rs[i] = a[i] / b[i]
					}
					return med(rs)
				}
				for i, f := range forms {
					b.ReportMetric(block/med(ns[2*i])*1e3, f.String()+"-Mlookups/s")
					b.ReportMetric(float64(cs[i].Visited)/float64(cs[i].Lookups), f.String()+"-subtables/lookup")
				}
				b.ReportMetric(ratio(ns[0], ns[2]), "single-ranges/x")
				b.ReportMetric(ratio(ns[1], ns[3]), "batch-ranges/x")
			})
		}
	}
}

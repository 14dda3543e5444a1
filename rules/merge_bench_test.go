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

// mergeLimits are the collision limits BenchmarkMergeLimit compares; the
// first is the reference.
var mergeLimits = []int{64, 96, 128}

// BenchmarkMergeLimit compares merge limits (rules.SetMergeLimit) on the
// ClassBench sets, interleaved in one process so that a busy machine
// slows every limit alike. "lookup": tables of each limit, filter bcf and
// none, each round a fresh block of 512 trace keys looked up in every
// table in random order; "churn/per=N": pipelines of each limit (bcf)
// under classBenchChurn's updates, N rules a call, each round the next
// calls of every pipeline in random order. The metrics are the medians
// over the rounds of each limit's time over the first limit's in the
// same round ("L/64" < 1: faster than 64), and the first limit's median
// ns per lookup or per rule.
func BenchmarkMergeLimit(b *testing.B) {
	for _, set := range benchSets {
		rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
		if err != nil {
			b.Fatal(err)
		}
		ups, _ := classbench.TupleUpdates(rs, 0, nil)
		b.Run(set.name+"/lookup", func(b *testing.B) {
			keys := benchKeys(b, rs, set.trace)
			type table struct {
				name string
				t    *rules.Table
			}
			var tables []table
			for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterNone} {
				for _, l := range mergeLimits {
					p, err := rules.New(&rules.Config{Filter: kind, NoPrereqs: true})
					if err != nil {
						b.Fatal(err)
					}
					rules.SetMergeLimit(p, l)
					for _, err := range p.ApplyBurst(ups, true).Errs {
						if err != nil {
							b.Fatal(err)
						}
					}
					tables = append(tables, table{fmt.Sprintf("%s-%d", kind, l), p.Table(0)})
				}
			}
			const block = 512
			ns := make([][]float64, len(tables))
			cs := make([]rules.Counters, len(tables))
			rng := rand.New(rand.NewPCG(9, 9))
			off := 0
			for b.Loop() {
				if off+block > len(keys) {
					off = 0
				}
				for _, ti := range rng.Perm(len(tables)) {
					start := time.Now()
					for i := off; i < off+block; i++ {
						sinkRule, _ = tables[ti].t.LookupVersion(&keys[i], &cs[ti])
					}
					ns[ti] = append(ns[ti], float64(time.Since(start).Nanoseconds()))
				}
				off += block
			}
			nl := len(mergeLimits)
			for ti := range tables {
				ref := ti / nl * nl
				if ti != ref {
					b.ReportMetric(medianRatio(ns[ti], ns[ref]), tables[ti].name+"/64")
				}
				b.ReportMetric(float64(cs[ti].Visited)/float64(cs[ti].Lookups), tables[ti].name+"-visited")
			}
			slices.Sort(ns[0])
			b.ReportMetric(ns[0][len(ns[0])/2]/block, tables[0].name+"-ns")
		})
		c := classBenchChurn(rs, 1<<14, 1, classbench.PortRanges)
		for _, per := range []int{1, 1024} {
			b.Run(fmt.Sprintf("%s/churn/per=%d", set.name, per), func(b *testing.B) {
				var calls [][]rules.Update
				var nrules []int
				for i := 0; i < len(c.ops); i += per {
					var call []rules.Update
					for _, us := range c.ops[i:min(i+per, len(c.ops))] {
						call = append(call, us...)
					}
					calls = append(calls, call)
					nrules = append(nrules, min(per, len(c.ops)-i))
				}
				var start []rules.Update
				for _, us := range c.start {
					start = append(start, us...)
				}
				ps := make([]*rules.Pipeline, len(mergeLimits))
				var res rules.BurstResult
				for li, l := range mergeLimits {
					p, err := rules.New(&rules.Config{Filter: rules.FilterBloomCuckoo, NoPrereqs: true})
					if err != nil {
						b.Fatal(err)
					}
					rules.SetMergeLimit(p, l)
					p.ApplyBurstTo(&res, start, true, nil)
					// One untimed cycle: the heap it grows into faulted in.
					for _, call := range calls {
						p.ApplyBurstTo(&res, call, true, nil)
					}
					ps[li] = p
				}
				// Calls per round: about 1024 rules.
				step := max(1, 1024/per)
				ns := make([][]float64, len(ps))
				var done int
				rng := rand.New(rand.NewPCG(9, 9))
				i := 0
				for b.Loop() {
					n := 0
					for _, li := range rng.Perm(len(ps)) {
						t0 := time.Now()
						n = 0
						for j := range step {
							k := (i + j) % len(calls)
							ps[li].ApplyBurstTo(&res, calls[k], true, nil)
							n += nrules[k]
						}
						ns[li] = append(ns[li], float64(time.Since(t0).Nanoseconds())/float64(n))
						for _, err := range res.Errs {
							if err != nil {
								b.Fatal(err)
							}
						}
					}
					i += step
					done += n
				}
				for li := 1; li < len(ps); li++ {
					b.ReportMetric(medianRatio(ns[li], ns[0]), fmt.Sprintf("bcf-%d/64", mergeLimits[li]))
				}
				slices.Sort(ns[0])
				b.ReportMetric(ns[0][len(ns[0])/2], "bcf-64-ns/rule")
			})
		}
	}
}

// medianRatio returns the median over rounds of a[r]/b[r].
func medianRatio(a, b []float64) float64 {
	rs := make([]float64, len(a))
	for r := range rs {
		rs[r] = a[r] / b[r]
	}
	slices.Sort(rs)
	return rs[len(rs)/2]
}

package rules_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// BenchmarkFilterTables compares, on each ClassBench set of
// BenchmarkClassBench, a table built with the Bloom-Cuckoo filter and one
// built without a filter, as BenchmarkClassBench and bench/tuplemerge.sh
// build them (each table of its own, its own memory), but in one run: each
// round looks up a fresh block of 4,096 keys in each, single lookups, in
// random order, so that a busy machine slows both alike. A block is long
// enough that refilling the first-level cache with its table's lines
// costs little: with blocks of 512 keys, that cost the bcf table (index
// and filter) about 2% against the none table on the 1k sets, which a run
// of one table (BenchmarkClassBench) does not pay. The metrics are
// the medians over the rounds of the bcf table's rate over the none
// table's ("bcf/none" > 1: the filter's table is faster), of the bcf table
// looked up without its filter over the none table ("bcf-unfiltered/none":
// what the two tables' memory alone makes of it), each table's ns per
// lookup, and the bcf table's index slots, filter buckets and keys.
func BenchmarkFilterTables(b *testing.B) {
	for _, set := range benchSets {
		b.Run(set.name, func(b *testing.B) {
			rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
			if err != nil {
				b.Fatal(err)
			}
			keys := benchKeys(b, rs, set.trace)
			none := loadCBPorts(b, rs, rules.Config{Filter: rules.FilterNone}, classbench.PortRanges)
			bcf := loadCBPorts(b, rs, rules.Config{Filter: rules.FilterBloomCuckoo}, classbench.PortRanges)
			const block = 4096
			out := make([]*rules.Rule, block)
			var ns [3][]float64
			rng := rand.New(rand.NewPCG(9, 9))
			off := 0
			for b.Loop() {
				for _, pi := range rng.Perm(3) {
					if off+block > len(keys) {
						off = 0
					}
					ks := keys[off : off+block]
					off += block
					var d float64
					switch pi {
					case 0:
						d = float64(rules.LookupPathsTime(none, ks, out, "single").Nanoseconds())
					case 1:
						d = float64(rules.LookupPathsTime(bcf, ks, out, "single").Nanoseconds())
					case 2:
						d = float64(rules.LookupPathsTime(bcf, ks, out, "single-none").Nanoseconds())
					}
					ns[pi] = append(ns[pi], d)
				}
			}
			for pi, name := range []string{"", "bcf/none", "bcf-unfiltered/none"} {
				if pi == 0 {
					continue
				}
				rs := make([]float64, len(ns[0]))
				for r := range rs {
					rs[r] = ns[0][r] / ns[pi][r]
				}
				slices.Sort(rs)
				b.ReportMetric(rs[len(rs)/2], name)
			}
			st := bcf.Stats()
			b.ReportMetric(float64(rules.Slots(bcf)), "slots")
			b.ReportMetric(float64(st.FilterBuckets), "buckets")
			b.ReportMetric(float64(st.Keys), "keys")
			for pi, name := range []string{"none-ns", "bcf-ns"} {
				slices.Sort(ns[pi])
				b.ReportMetric(ns[pi][len(ns[pi])/2]/block, name)
			}
		})
	}
}

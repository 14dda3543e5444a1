package rules_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// BenchmarkLookupPaths compares the lookup paths on one table, so that
// the rule choosing between them (rules.lookupPaths) can be checked on a
// busy machine: each round looks up a fresh block of 512 keys along every
// path, in random order, and the metrics are the medians over the rounds
// of each path's rate over that of single lookups without the filter
// ("x" > 1 is faster), and of LookupBatch's over Lookup's (each choosing
// its path as the table's size and traffic say); "-ns" are the medians of
// the two single paths' ns per lookup, to compare builds. Same table, same keys,
// same memory: only the path differs ("single-allfilter": the filter in
// front of every subtable, none probed directly whatever its evidence). The sets are those of
// BenchmarkClassBench; acl1_1k's first 100 rules with acl1_1k's trace (a
// small table whose biggest subtable most keys miss); acl1_10k's rules in
// front of 100,000 exact flows; and exact 5-tuple
// tables (as in BenchmarkExact100K) of 1,000 to 100,000 flows, all keys
// hits, and of 100,000 flows with every other key a miss. The ClassBench
// tables replay 65,536 keys (benchKeys, replayBlocks) and every table has
// at least 8 blocks of keys, so no round replays the block before it.
func BenchmarkLookupPaths(b *testing.B) {
	type table struct {
		name string
		load func() (*rules.Table, []rules.Key)
	}
	var tables []table
	for _, set := range benchSets {
		tables = append(tables, table{set.name, func() (*rules.Table, []rules.Key) {
			rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
			if err != nil {
				b.Fatal(err)
			}
			keys := benchKeys(b, rs, set.trace)
			_, p, _ := loadCB(b, set.rules, &rules.Config{Filter: rules.FilterBloomCuckoo})
			return p.Table(0), keys
		}})
	}
	tables = append(tables, table{"acl1_1k-100", func() (*rules.Table, []rules.Key) {
		set := benchSets[0]
		rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
		if err != nil {
			b.Fatal(err)
		}
		keys := benchKeys(b, rs, set.trace)
		p, err := rules.New(&rules.Config{Filter: rules.FilterBloomCuckoo, NoPrereqs: true})
		if err != nil {
			b.Fatal(err)
		}
		ups, _ := classbench.TupleUpdates(rs[:100], 0, nil)
		for _, err := range p.ApplyBurst(ups, true).Errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		return p.Table(0), keys
	}})
	// An ACL in front of microflows: acl1_10k's rules (priorities above
	// the flows') and 100,000 exact flows, keys alternately a flow's and
	// one of acl1_10k's: the exact subtable holds most of the table's
	// keys, and a lookup visits the ACL's subtables first.
	tables = append(tables, table{"acl1_10k+exact100000", func() (*rules.Table, []rules.Key) {
		set := benchSets[3]
		rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
		if err != nil {
			b.Fatal(err)
		}
		ckeys := benchKeys(b, rs, set.trace)
		ups, ekeys := exactSet(100_000)
		cups, _ := classbench.TupleUpdates(rs, 0, nil)
		for i := range cups {
			cups[i].ID += len(ups)
		}
		p, err := rules.New(&rules.Config{Filter: rules.FilterBloomCuckoo, NoPrereqs: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range p.ApplyBurst(append(ups, cups...), true).Errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		keys := make([]rules.Key, 8192)
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range keys {
			if i%2 == 0 {
				keys[i] = ekeys[rng.IntN(len(ekeys))]
			} else {
				keys[i] = ckeys[rng.IntN(len(ckeys))]
			}
		}
		return p.Table(0), keys
	}})
	for _, n := range []int{1_000, 5_000, 10_000, 100_000, -100_000} {
		name := fmt.Sprintf("exact%d", n)
		if n < 0 {
			name = fmt.Sprintf("exact%d-halfmiss", -n)
		}
		tables = append(tables, table{name, func() (*rules.Table, []rules.Key) {
			ups, keys := exactSet(max(n, -n))
			m := 1
			for m*2 <= len(keys) {
				m *= 2
			}
			keys = keys[:m]
			for len(keys) < 4096 { // 8 blocks: not the same block every round
				keys = append(keys, keys...)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			if n < 0 {
				keys = halfMissing(keys)
			}
			p, err := rules.New(&rules.Config{Filter: rules.FilterBloomCuckoo})
			if err != nil {
				b.Fatal(err)
			}
			p.ApplyBurst(ups, true)
			return p.Table(0), keys
		}})
	}
	paths := []string{"single-none", "single-filter", "chunk-none", "chunk-filter", "single", "batch", "single-allfilter"}
	for _, tb := range tables {
		b.Run(tb.name, func(b *testing.B) {
			tbl, keys := tb.load()
			const block = 512
			out := make([]*rules.Rule, block)
			ns := make([][]float64, len(paths))
			rng := rand.New(rand.NewPCG(9, 9))
			off := 0
			for b.Loop() {
				for _, pi := range rng.Perm(len(paths)) {
					if off+block > len(keys) {
						off = 0
					}
					d := rules.LookupPathsTime(tbl, keys[off:off+block], out, paths[pi])
					off += block
					ns[pi] = append(ns[pi], float64(d.Nanoseconds()))
				}
			}
			for pi := 1; pi < len(paths); pi++ {
				rs := make([]float64, len(ns[0]))
				for r := range rs {
					rs[r] = ns[0][r] / ns[pi][r]
				}
				slices.Sort(rs)
				b.ReportMetric(rs[len(rs)/2], paths[pi]+"/x")
			}
			// What the target is about: batches against single lookups,
			// each along the path the table's size chooses.
			rs := make([]float64, len(ns[0]))
			for r := range rs {
				rs[r] = ns[4][r] / ns[5][r]
			}
			slices.Sort(rs)
			b.ReportMetric(rs[len(rs)/2], "batch/single")
			// Absolute times, to compare builds: the medians of single
			// lookups without the filter and along the default path.
			for _, pi := range []int{0, 4} {
				slices.Sort(ns[pi])
				b.ReportMetric(ns[pi][len(ns[pi])/2]/block, paths[pi]+"-ns")
			}
		})
	}
}

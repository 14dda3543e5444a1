package rules_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// churnOps is a cycle of ClassBench rule insertions and deletions: each op
// is the updates of one rule (all of its five-field entries: one per
// protocol with port ranges, or each of its prefix pairs),
// adds if the rule is absent at that point, strict deletes if present.
// Applied in order from the state start describes, the ops return the
// table to that state, so that a benchmark may cycle through them.
type churnOps struct {
	start [][]rules.Update // the rules live at the start
	ops   [][]rules.Update
}

// classBenchChurn builds the churn TupleMerge's driver runs: half the rules
// live at first, then nops random toggles (an absent rule inserted, a
// present one deleted), the live share kept between 20% and 80%, followed
// by the same toggles in reverse. ports says how the rules' port ranges
// become entries.
func classBenchChurn(rs []classbench.Rule, nops int, seed uint64, ports classbench.Ports) churnOps {
	ups, _ := classbench.TupleUpdatesWith(rs, 0, nil, ports)
	adds := make([][]rules.Update, len(rs))
	dels := make([][]rules.Update, len(rs))
	for _, u := range ups {
		adds[u.ID] = append(adds[u.ID], u)
		d := u
		d.Command = rules.CmdDeleteStrict
		dels[u.ID] = append(dels[u.ID], d)
	}
	rng := rand.New(rand.NewPCG(seed, 25))
	live := make([]bool, len(rs))
	var c churnOps
	nlive := 0
	for _, i := range rng.Perm(len(rs))[:len(rs)/2] {
		live[i] = true
		nlive++
	}
	for i := range rs {
		if live[i] {
			c.start = append(c.start, adds[i])
		}
	}
	startLive := append([]bool(nil), live...)
	toggles := make([]int, 0, nops)
	for len(toggles) < nops {
		i := rng.IntN(len(rs))
		if live[i] && 5*(nlive-1) < len(rs) || !live[i] && 5*(nlive+1) > 4*len(rs) {
			continue
		}
		toggles = append(toggles, i)
		live[i] = !live[i]
		if live[i] {
			nlive++
		} else {
			nlive--
		}
	}
	copy(live, startLive)
	for j := range 2 * nops {
		var i int
		if j < nops {
			i = toggles[j]
		} else {
			i = toggles[2*nops-1-j]
		}
		if live[i] {
			c.ops = append(c.ops, dels[i])
		} else {
			c.ops = append(c.ops, adds[i])
		}
		live[i] = !live[i]
	}
	return c
}

// BenchmarkClassBenchChurn measures rule updates on the ClassBench sets
// under insert/delete churn (classBenchChurn), as TupleMerge's driver does:
// one rule per call (each rule's entries in one atomic burst) and 1024
// rules per call, for each filter kind. The pipeline recycles the memory
// of what it removes (Config.Recycle), as a switch's does (package bridge,
// controller.Agent) and as TupleMerge's frees it: without, every add and
// node copy takes fresh memory, and the garbage collector's share of the
// time depends on whatever else the process holds (the first sub-benchmark
// of a process ran up to 2x slower than the same one later). Mrules/s counts ClassBench rules,
// each of one entry per protocol with its port ranges, or of its prefix
// pairs in the "-prefixes" variants; Mentries/s counts the updates
// applied.
func BenchmarkClassBenchChurn(b *testing.B) {
	for _, set := range benchSets {
		rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
		if err != nil {
			b.Fatal(err)
		}
		for _, ports := range []classbench.Ports{classbench.PortRanges, classbench.PortPrefixes} {
			c := classBenchChurn(rs, 1<<14, 1, ports)
			suffix := ""
			if ports == classbench.PortPrefixes {
				suffix = "-prefixes"
			}
			for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterCuckoo, rules.FilterNone} {
				for _, per := range []int{1, 1024} {
					b.Run(fmt.Sprintf("%s/%s%s/per=%d", set.name, kind, suffix, per), func(b *testing.B) {
						benchChurn(b, &c, kind, per)
					})
				}
			}
		}
	}
}

func benchChurn(b *testing.B, c *churnOps, kind rules.FilterKind, per int) {
	p, err := rules.New(&rules.Config{Filter: kind, NoPrereqs: true, Recycle: true})
	if err != nil {
		b.Fatal(err)
	}
	var res rules.BurstResult
	var start []rules.Update
	for _, us := range c.start {
		start = append(start, us...)
	}
	p.ApplyBurstTo(&res, start, true, nil)
	for _, err := range res.Errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	// The calls: per ops each, flattened ahead of the clock.
	var calls [][]rules.Update
	for i := 0; i < len(c.ops); i += per {
		var call []rules.Update
		for _, us := range c.ops[i:min(i+per, len(c.ops))] {
			call = append(call, us...)
		}
		calls = append(calls, call)
	}
	// One untimed cycle first (it returns the table to its start): the
	// first sub-benchmark of a process otherwise pays for faulting in
	// the heap the cycle grows into, which made whichever filter kind
	// ran first (bcf) look 2-3x slower than the others.
	for _, call := range calls {
		p.ApplyBurstTo(&res, call, true, nil)
	}
	b.ReportAllocs()
	var nrules, nents int
	i := 0
	copies0 := rules.NodeCopies(p)
	cpu0 := cpuTime()
	for b.Loop() {
		call := calls[i%len(calls)]
		p.ApplyBurstTo(&res, call, true, nil)
		nrules += min(per, len(c.ops)-i%len(calls)*per)
		nents += len(call)
		i++
	}
	cpu := cpuTime() - cpu0
	for _, err := range res.Errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(nrules)/b.Elapsed().Seconds()/1e6, "Mrules/s")
	b.ReportMetric(float64(nents)/b.Elapsed().Seconds()/1e6, "Mentries/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/call")
	b.ReportMetric(float64(nrules)/cpu.Seconds()/1e6, "Mrules/cpu-s")
	b.ReportMetric(float64(rules.NodeCopies(p)-copies0)/float64(nrules), "copies/rule")
}

// cpuTime returns the CPU time the process has used, user and system: on
// a machine whose cores other processes share, the time an update costs,
// where the wall clock also counts the time the benchmark waited for a
// core. It includes the garbage collector's work on other threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGrowBursts grows a table of n exact flows to 2n+ in bursts of
// 1024 adds, through the growth of its flow index (and, with a filter, of
// its filter), and reports the slowest burst and the median one in CPU
// time of the process: what a burst that grows the index costs beyond an
// ordinary one. Each iteration is one growth, on a table loaded with the
// timer stopped.
func BenchmarkGrowBursts(b *testing.B) {
	for _, n := range []int{32_768, 131_072} {
		ups, _ := exactSet(2*n + 4096)
		ups = ups[:2*n+4096] // the exact flows only
		for _, kind := range []rules.FilterKind{rules.FilterNone, rules.FilterBloomCuckoo} {
			b.Run(fmt.Sprintf("flows=%d/%s", n, kind), func(b *testing.B) {
				var slowest, median []time.Duration
				grown := 0
				for b.Loop() {
					b.StopTimer()
					p, err := rules.New(&rules.Config{Filter: kind, MaxOccupancy: 0.999})
					if err != nil {
						b.Fatal(err)
					}
					var res rules.BurstResult
					p.ApplyBurstTo(&res, ups[:n], true, nil)
					idx := p.Table(0).Stats().IndexRebuilds
					var times []time.Duration
					b.StartTimer()
					for i := n; i+1024 <= len(ups); i += 1024 {
						c0 := cpuTime()
						p.ApplyBurstTo(&res, ups[i:i+1024], true, nil)
						times = append(times, cpuTime()-c0)
					}
					b.StopTimer()
					for _, err := range res.Errs {
						if err != nil {
							b.Fatal(err)
						}
					}
					grown += p.Table(0).Stats().IndexRebuilds - idx
					slices.Sort(times)
					slowest = append(slowest, times[len(times)-1])
					median = append(median, times[len(times)/2])
					b.StartTimer()
				}
				slices.Sort(slowest)
				slices.Sort(median)
				b.ReportMetric(float64(slowest[len(slowest)/2].Microseconds()), "slowest-µs/burst")
				b.ReportMetric(float64(median[len(median)/2].Microseconds()), "median-µs/burst")
				b.ReportMetric(float64(grown)/float64(len(slowest)), "index-growths")
			})
		}
	}
}

// TestClassBenchChurn runs the churn of BenchmarkClassBenchChurn, port
// ranges as ranges and as prefixes, one rule per call and bursts of many,
// with and without recycling, and checks after every call the published
// subtable order and the index, and lookups of rule corners against a
// linear scan of the live rules. With recycling, the pipeline poisons what
// it reclaims (rule, node, and the node's entry and check arrays, which
// later node copies reuse) while a reader looks corners up concurrently
// through a Reader: every rule it finds must match its key and be
// unpoisoned, and under -race the poisoning writes race with any read of
// memory reused under the reader.
func TestClassBenchChurn(t *testing.T) {
	rs, err := classbench.Parse("fw1_1k", readCB(t, "lyxocs-ruleSet/fw1_1k"))
	if err != nil {
		t.Fatal(err)
	}
	nops := 2000
	if testing.Short() || raceEnabled {
		nops = 300
	}
	hs := cornerHeaders(rs)
	for _, recycle := range []bool{false, true} {
		for _, c := range []churnOps{classBenchChurn(rs, nops, 3, classbench.PortRanges), classBenchChurn(rs, nops, 3, classbench.PortPrefixes)} {
			for _, per := range []int{1, 37, 512} {
				testClassBenchChurn(t, rs, hs, &c, per, recycle)
			}
		}
	}
}

func testClassBenchChurn(t *testing.T, rs []classbench.Rule, hs []classbench.Header, c *churnOps, per int, recycle bool) {
	p, err := rules.New(&rules.Config{NoPrereqs: true, Seed: 5, Recycle: recycle})
	if err != nil {
		t.Fatal(err)
	}
	var ck *checkers
	if recycle {
		rules.Poison(p)
		ck = newCheckers(1)
		rd := p.NewReader()
		ck.wg.Go(func() {
			defer rd.Close()
			for i := 0; !ck.stop.Load(); i++ {
				rd.Enter()
				k := hs[i*31%len(hs)].Key()
				if r := p.Table(0).Lookup(&k); r != nil && (r.Priority == 0xdead || !r.Match.Matches(&k) || !r.Ranges.Contains(&k)) {
					ck.errc <- fmt.Errorf("recycle per=%d: key %v: found a rule that does not match it: %v %v priority %d", per, k, r.Match, r.Ranges, r.Priority)
					return
				}
				ck.checked.Add(1)
				rd.Leave()
			}
		})
	}
	live := map[int]bool{}
	var res rules.BurstResult
	apply := func(ops [][]rules.Update) {
		var ups []rules.Update
		for _, us := range ops {
			ups = append(ups, us...)
			live[us[0].ID] = us[0].Command == rules.CmdAdd
		}
		p.ApplyBurstTo(&res, ups, true, nil)
		for i, err := range res.Errs {
			if err != nil {
				t.Fatalf("recycle=%v per=%d: update %d: %v", recycle, per, i, err)
			}
		}
	}
	apply(c.start)
	for i := 0; i < len(c.ops); i += per {
		apply(c.ops[i:min(i+per, len(c.ops))])
		if err := rules.CheckOrder(p); err != nil {
			t.Fatalf("recycle=%v per=%d call %d: %v", recycle, per, i/per, err)
		}
		if err := rules.CheckIndex(p); err != nil {
			t.Fatalf("recycle=%v per=%d call %d: %v", recycle, per, i/per, err)
		}
		for j := i % 7; j < len(hs); j += 97 {
			k := hs[j].Key()
			want := -1
			for _, r := range rs {
				if live[r.Index] && r.MatchesHeader(&hs[j]) {
					want = r.Index
					break
				}
			}
			got := -1
			if r := p.Table(0).Lookup(&k); r != nil {
				got = r.ID
			}
			if got != want {
				t.Fatalf("recycle=%v per=%d call %d: header %d: rule %d, want %d", recycle, per, i/per, j, got, want)
			}
		}
	}
	if ck != nil {
		ck.done(t)
		if p.Recycled() == 0 {
			t.Fatalf("per=%d: nothing was recycled", per)
		}
	}
}

// TestClassBenchChurnRecycleAllocs: with recycling, ClassBench churn one
// rule a call, where most adds and deletes copy a node of several merged
// entries, takes its rules, nodes and the nodes' entry and check arrays
// from what earlier calls removed: a cycle of the churn, after one that
// warmed the pools up, allocates a few bytes a call, for the structure
// that comes and goes with it (subtables made and dropped), where taking
// node copies' arrays fresh from the slabs allocated some 1,300 bytes a
// call, and cloning each subtable order published some 180 (its orders
// are recycled too: about 15 bytes a call are left).
func TestClassBenchChurnRecycleAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	rs, err := classbench.Parse("fw1_1k", readCB(t, "lyxocs-ruleSet/fw1_1k"))
	if err != nil {
		t.Fatal(err)
	}
	c := classBenchChurn(rs, 1000, 3, classbench.PortRanges)
	p, err := rules.New(&rules.Config{NoPrereqs: true, Seed: 5, Recycle: true})
	if err != nil {
		t.Fatal(err)
	}
	var res rules.BurstResult
	var start []rules.Update
	for _, us := range c.start {
		start = append(start, us...)
	}
	p.ApplyBurstTo(&res, start, true, nil)
	cycle := func() {
		for _, call := range c.ops {
			p.ApplyBurstTo(&res, call, true, nil)
			for _, err := range res.Errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	cycle()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cycle()
	runtime.ReadMemStats(&m1)
	perCall := float64(m1.TotalAlloc-m0.TotalAlloc) / float64(len(c.ops))
	if perCall > 48 {
		t.Errorf("%.0f bytes allocated a call, want at most 48", perCall)
	}
	t.Logf("%.0f bytes, %d allocations a cycle of %d calls", float64(m1.TotalAlloc-m0.TotalAlloc), m1.Mallocs-m0.Mallocs, len(c.ops))
}

// TestIndexGrowth grows a table of exact flows through several index
// growths in bursts of 1024, checking the index between bursts, often
// while a next index is part-copied, and every flow's lookup at the end.
// Prefault runs after each burst, as a switch runs it between bursts, so
// the larger growths copy into an index it made.
func TestIndexGrowth(t *testing.T) {
	n := 80_000
	if testing.Short() || raceEnabled {
		n = 20_000
	}
	ups, keys := exactSet(n)
	ups = ups[:n]
	p, err := rules.New(&rules.Config{Filter: rules.FilterNone})
	if err != nil {
		t.Fatal(err)
	}
	var res rules.BurstResult
	for i := 0; i < n; i += 1024 {
		p.ApplyBurstTo(&res, ups[i:min(i+1024, n)], true, nil)
		for _, err := range res.Errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		p.Prefault()
		if i/1024%8 == 0 || rules.IndexGrowing(p) && i/1024%3 == 0 {
			if err := rules.CheckIndex(p); err != nil {
				t.Fatalf("after %d flows: %v", i+1024, err)
			}
		}
	}
	if err := rules.CheckIndex(p); err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if r := p.Table(0).Lookup(&keys[i]); r == nil || r.ID != i {
			t.Fatalf("flow %d: lookup found %v", i, r)
		}
	}
	st := p.Table(0).Stats()
	if st.IndexRebuilds < 8 || rules.PrefaultedIndexes(p) == 0 {
		t.Errorf("%d index growths for %d flows, %d into an index Prefault made", st.IndexRebuilds, n, rules.PrefaultedIndexes(p))
	}
	t.Logf("%d flows: %d index growths, %d into an index Prefault made", n, st.IndexRebuilds, rules.PrefaultedIndexes(p))
}

// BenchmarkClassBenchChurnLookups measures lookups of a set's trace (as
// BenchmarkClassBench's merged-bcf) in a table that went through half of
// BenchmarkClassBenchChurn's toggles, one rule a call, with recycling:
// its nodes hold what churn leaves in them (the entries of removed rules
// a node keeps until its next copy, the tails of single adds), which a
// static table has none of: "churned" right after the churn, "idle" after
// the idle work (Rebalance) that ranks the tails.
func BenchmarkClassBenchChurnLookups(b *testing.B) {
	for _, set := range benchSets {
		rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(set.name, func(b *testing.B) {
			keys := traceKeys(setHeaders(b, rs, set.trace))
			c := classBenchChurn(rs, 1<<14, 1, classbench.PortRanges)
			p, err := rules.New(&rules.Config{Filter: rules.FilterBloomCuckoo, NoPrereqs: true, Recycle: true})
			if err != nil {
				b.Fatal(err)
			}
			var res rules.BurstResult
			apply := func(us []rules.Update) {
				p.ApplyBurstTo(&res, us, true, nil)
				for _, err := range res.Errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			for _, us := range c.start {
				apply(us)
			}
			for _, us := range c.ops[:len(c.ops)/2] {
				apply(us)
			}
			time.Sleep(time.Millisecond) // past UnlinkAfter: the last removals unlinked too
			apply(nil)
			b.Run("churned", func(b *testing.B) { benchLookups(b, p.Table(0), keys) })
			for p.Rebalance(1<<12) >= 1<<12 {
			}
			b.Run("idle", func(b *testing.B) { benchLookups(b, p.Table(0), keys) })
		})
	}
}

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

var sinkRule *rules.Rule

type benchSet struct{ name, rules, trace string }

var benchSets = []benchSet{
	{"acl1_1k", "lyxocs-ruleSet/acl1_1k", "lyxocs-ruleSet/acl1_1k_trace"},
	{"fw1_1k", "lyxocs-ruleSet/fw1_1k", "lyxocs-ruleSet/fw1_1k_trace"},
	{"ipc1_1k", "lyxocs-ruleSet/ipc1_1k", "lyxocs-ruleSet/ipc1_1k_trace"},
	{"acl1_10k", "lyxocs-ruleSet/acl1_10k", ""},
	{"fw1_10k", "lyxocs-ruleSet/fw1_10k", "lyxocs-ruleSet/fw1_10k_trace"},
	{"ipc1_10k", "lyxocs-ruleSet/ipc1_10k", "lyxocs-ruleSet/ipc1_10k_trace"},
	// The PartitionSort paper's sets, as VPP's ACL plugin tests use them.
	{"acl1_8k", "vpp-acl-partitionsort/acl1_seed_1_8k.rules", "vpp-acl-partitionsort/acl1_seed_1_8k.rules_trace"},
	{"fw1_1k_ps", "vpp-acl-partitionsort/fw1_seed_1_1k.rules", "vpp-acl-partitionsort/fw1_seed_1_1k.rules_trace"},
}

// traceSeed is the seed of the trace generated for a set without one
// (acl1_10k): the default of ofswitch bench trace, which
// bench/tuplemerge.sh uses to write the same trace for TupleMerge.
const traceSeed = 1

// setHeaders returns the set's trace in file order, or for a set without
// one the trace ClassBench's generator would draw (classbench.GenerateTrace,
// 10 headers a rule, traceSeed).
func setHeaders(b testing.TB, rs []classbench.Rule, trace string) []classbench.Header {
	if trace == "" {
		return classbench.GenerateTrace(rs, classbench.TraceScale*len(rs), traceSeed)
	}
	hs, err := classbench.ParseTrace(trace, readCB(b, trace))
	if err != nil {
		b.Fatal(err)
	}
	return hs
}

// traceKeys returns the keys of hs in their order: replayed in a cycle
// (benchLookups, benchBatch), they are the sequence TupleMerge's driver
// classifies when given the trace tiled to 1M headers, runs of repeated
// headers included (about half of a ClassBench trace's headers repeat
// the one before them).
func traceKeys(hs []classbench.Header) []rules.Key {
	keys := make([]rules.Key, len(hs))
	for i := range hs {
		keys[i] = hs[i].Key()
	}
	return keys
}

// shuffledKeys returns a power-of-two number of keys of hs (the largest
// not above len(hs)), shuffled, followed by reshuffled copies of
// themselves up to replayKeys (replayBlocks): the trace's runs broken up
// (a header that makes a share of the trace still follows itself about
// that often: acl1_10k's generated trace is 29% one header), in another
// order in every block. hs is left as it was.
func shuffledKeys(hs []classbench.Header) []rules.Key {
	hs = slices.Clone(hs)
	n := 1
	for n*2 <= len(hs) {
		n *= 2
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	return replayBlocks(traceKeys(hs[:n]))
}

// benchKeys returns shuffledKeys of the set's trace, or for a set without
// one (acl1_10k) of its rules' corners (cornerHeaders), as the benchmarks
// other than BenchmarkClassBench replay them.
func benchKeys(b testing.TB, rs []classbench.Rule, trace string) []rules.Key {
	if trace == "" {
		return shuffledKeys(cornerHeaders(rs))
	}
	return shuffledKeys(setHeaders(b, rs, trace))
}

// replayKeys is how many keys a shuffled replay (shuffledKeys,
// replayBlocks) holds at least: 19 MB of 288-byte keys, beyond the second
// level cache and streamed in order (the prefetcher hides most of it, but
// a lookup of tens of ns pays for the key's width; acl1_1k's first 100
// rules in BenchmarkLookupPaths take 94 ns with 288-byte keys, 43 with
// 216). BenchmarkClassBench's in-order replays hold the whole trace
// instead (acl1_1k 8,780 keys, fw1_10k 94,182: 27 MB).
const replayKeys = 1 << 16

// replayBlocks returns keys followed by shuffled copies of themselves, each
// in another order, until there are at least replayKeys; keys of a power
// of two up to replayKeys (what shuffledKeys gives it: fw1_1k_ps's 812
// headers become 512 keys, the 1k sets' 8,192, the 10k sets' 65,536 and
// no copy) give exactly replayKeys. A block replayed in a short cycle in
// the same order lets the branch predictor learn the lookups' branches,
// the probes' more than the filter checks': in BenchmarkLookupPaths,
// single lookups without the filter took 107 ns on fw1_1k_ps's 512 keys in
// the same order, and 133 ns with the keys reshuffled, those with the
// filter 117 and 129 ns. A cycle of 4,096 keys is still partly learned;
// one of 65,536 lowered every set's rate further. (The in-order replays of
// BenchmarkClassBench cycle through the trace as TupleMerge's driver
// does, and are learned alike.)
func replayBlocks(keys []rules.Key) []rules.Key {
	rng := rand.New(rand.NewPCG(7, 8))
	base := keys
	for len(keys) < replayKeys {
		c := slices.Clone(base)
		rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		keys = append(keys, c...)
	}
	return keys
}

// linear is the baseline: the expanded entries in priority order, first
// match wins.
type linear struct {
	ms  []rules.Match
	rgs []rules.Ranges // per entry, or nil when none has ranges
	ids []int
}

// add appends u's entry.
func (l *linear) add(u *rules.Update) {
	l.ms, l.ids = append(l.ms, u.Match), append(l.ids, u.ID)
	if !u.Ranges.IsZero() && l.rgs == nil {
		l.rgs = make([]rules.Ranges, len(l.ms)-1, cap(l.ms))
	}
	if l.rgs != nil {
		l.rgs = append(l.rgs, u.Ranges)
	}
}

func (l *linear) lookup(k *rules.Key) int {
	for i := range l.ms {
		if l.ms[i].Matches(k) && (l.rgs == nil || l.rgs[i].Contains(k)) {
			return l.ids[i]
		}
	}
	return -1
}

var sinkInt int

// BenchmarkClassBench measures lookups on ClassBench sets with their traces:
// a linear scan, tuple space without filter (plain tuples and merged), and
// merged tuple space behind the plain cuckoo and Bloom-Cuckoo filters, with
// the rules' port ranges checked after the hash match, and merged tuple
// space with the ranges expanded into prefixes ("-prefixes").
//
// Each looks up the set's trace in file order, all of it, in a cycle
// (traceKeys; acl1_10k, which has none, the trace setHeaders generates):
// the sequence TupleMerge's driver classifies in bench/tuplemerge.sh, the
// trace tiled to 1M headers, runs of repeated headers and all. The
// "-shuffled" variants of merged-nofilter and merged-bcf look up the
// trace shuffled and cut to a power of two (8,192 of acl1_1k's 8,780
// headers, 65,536 of fw1_10k's 94,182), in reshuffled blocks up to 65,536
// keys (shuffledKeys): the runs broken up, the harder, cache-cold case.
func BenchmarkClassBench(b *testing.B) {
	for _, set := range benchSets {
		rs, err := classbench.Parse(set.rules, readCB(b, set.rules))
		if err != nil {
			b.Fatal(err)
		}
		hs := setHeaders(b, rs, set.trace)
		keys, shuffled := traceKeys(hs), shuffledKeys(hs)
		b.Run(set.name+"/linear", func(b *testing.B) {
			ups, _ := classbench.TupleUpdates(rs, 0, nil)
			l := &linear{}
			for i := range ups {
				l.add(&ups[i])
			}
			b.ReportAllocs()
			i, j := 0, 0
			for b.Loop() {
				sinkInt = l.lookup(&keys[j])
				i++
				if j++; j == len(keys) {
					j = 0
				}
			}
			b.ReportMetric(float64(i)/b.Elapsed().Seconds()/1e6, "Mlookups/s")
		})
		// The "-prefixes" variants load the rules' port ranges expanded
		// into prefixes (classbench.PortPrefixes), the others as ranges.
		for _, v := range []struct {
			name  string
			cfg   rules.Config
			ports classbench.Ports
		}{
			{"tuple-nofilter", rules.Config{Filter: rules.FilterNone, NoMerge: true}, classbench.PortRanges},
			{"tuple-cf", rules.Config{Filter: rules.FilterCuckoo, NoMerge: true}, classbench.PortRanges},
			{"merged-nofilter", rules.Config{Filter: rules.FilterNone}, classbench.PortRanges},
			{"merged-cf", rules.Config{Filter: rules.FilterCuckoo}, classbench.PortRanges},
			{"merged-bcf", rules.Config{Filter: rules.FilterBloomCuckoo}, classbench.PortRanges},
			{"merged-nofilter-prefixes", rules.Config{Filter: rules.FilterNone}, classbench.PortPrefixes},
			{"merged-bcf-prefixes", rules.Config{Filter: rules.FilterBloomCuckoo}, classbench.PortPrefixes},
		} {
			b.Run(set.name+"/"+v.name, func(b *testing.B) {
				benchLookups(b, loadCBPorts(b, rs, v.cfg, v.ports), keys)
			})
			b.Run(set.name+"/"+v.name+"-batch", func(b *testing.B) {
				benchBatch(b, loadCBPorts(b, rs, v.cfg, v.ports), keys)
			})
			if v.name == "merged-nofilter" || v.name == "merged-bcf" {
				b.Run(set.name+"/"+v.name+"-shuffled", func(b *testing.B) {
					benchLookups(b, loadCBPorts(b, rs, v.cfg, v.ports), shuffled)
				})
				b.Run(set.name+"/"+v.name+"-shuffled-batch", func(b *testing.B) {
					benchBatch(b, loadCBPorts(b, rs, v.cfg, v.ports), shuffled)
				})
			}
		}
	}
}

// benchLookups looks up keys in a cycle, one at a time. The index wraps
// by a compare, which the branch predictor gets right but once a cycle,
// so that keys may be of any length.
func benchLookups(b *testing.B, tbl *rules.Table, keys []rules.Key) {
	var c rules.Counters
	b.ReportAllocs()
	i, j := 0, 0
	cpu := startThreadCPU()
	for b.Loop() {
		sinkRule, _ = tbl.LookupVersion(&keys[j], &c)
		i++
		if j++; j == len(keys) {
			j = 0
		}
	}
	reportCPU(b, cpu, i)
	reportLookups(b, i, &c)
}

// reportCPU reports the CPU time of the benchmark's thread since cpu
// started, per lookup ("cpu-ns/lookup"): on a machine that other work
// keeps busy, wall time swings with the share of the processor the
// benchmark gets, CPU time much less, so that two builds run one after
// the other compare by it.
func reportCPU(b *testing.B, cpu threadCPU, n int) {
	if ns, ok := cpu.stop(); ok && n > 0 {
		b.ReportMetric(ns/float64(n), "cpu-ns/lookup")
	}
}

// benchBatch looks up keys in a cycle, in batches of 32 (keys holds at
// least 32). Where the cycle's length is not a multiple of 32, the batch
// that reaches its end is looked up in two, its end and its beginning, so
// that the sequence is the cycle's.
func benchBatch(b *testing.B, tbl *rules.Table, keys []rules.Key) {
	var c rules.Counters
	out := make([]*rules.Rule, 32)
	b.ReportAllocs()
	i, j := 0, 0
	cpu := startThreadCPU()
	for b.Loop() {
		if r := len(keys) - j; r >= 32 {
			tbl.LookupBatch(keys[j:j+32], out, &c)
			if j += 32; j == len(keys) {
				j = 0
			}
		} else {
			tbl.LookupBatch(keys[j:], out[:r], &c)
			tbl.LookupBatch(keys[:32-r], out[r:], &c)
			j = 32 - r
		}
		i++
	}
	reportCPU(b, cpu, i*32)
	reportLookups(b, i*32, &c)
}

func reportLookups(b *testing.B, n int, c *rules.Counters) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mlookups/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(n), "ns/lookup")
	if c.Lookups > 0 {
		b.ReportMetric(float64(c.Visited)/float64(c.Lookups), "subtables/lookup")
		b.ReportMetric(float64(c.Guarded)/float64(c.Lookups), "guarded/lookup")
		b.ReportMetric(float64(c.Probes)/float64(c.Lookups), "probes/lookup")
		b.ReportMetric(float64(c.FalsePositives)/float64(c.Lookups), "fp/lookup")
	}
}

// exactFlow is the i-th exact TCP 5-tuple of exactSet's shape, its
// source address in net.0.0.0/8.
func exactFlow(net uint64, i int) rules.Match {
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	m.SetExact(rules.FieldIPv4Src, net<<24|uint64(i))
	m.SetExact(rules.FieldIPv4Dst, uint64(172<<24|i*7))
	m.SetExact(rules.FieldL4Src, uint64(1024+i%60000))
	m.SetExact(rules.FieldL4Dst, 80)
	return m
}

// exactSet builds n exact 5-tuple entries plus 10 wildcard entries.
func exactSet(n int) ([]rules.Update, []rules.Key) {
	var ups []rules.Update
	keys := make([]rules.Key, 0, n)
	for i := range n {
		m := exactFlow(10, i)
		ups = append(ups, rules.Update{Match: m, Priority: 100, ID: i})
		keys = append(keys, m.Key)
	}
	for i := range 10 {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetPrefix(rules.FieldIPv4Dst, uint64(192<<24|i<<16), 16)
		ups = append(ups, rules.Update{Match: m, Priority: uint16(10 + i), ID: n + i})
	}
	return ups, keys
}

// halfMissing returns keys with every other one replaced by a key no
// entry of exactSet matches: flow i's addresses with another source port
// (only flow i has its source address), outside the wildcards'
// destinations. A lookup of it passes the exact subtable's guard (its
// addresses are among the flows'), visits it and finds nothing; the
// wildcards' subtable's guard passes it over.
func halfMissing(keys []rules.Key) []rules.Key {
	out := make([]rules.Key, len(keys))
	for i := range keys {
		if i%2 == 0 {
			out[i] = keys[i]
			continue
		}
		m := exactFlow(10, i)
		m.SetExact(rules.FieldL4Src, uint64(1024+(i+30_000)%60_000))
		out[i] = m.Key
	}
	return out
}

// BenchmarkExact100K is the SDN-style table: 100K exact 5-tuples and 10
// wildcard entries; every lookup hits an exact entry, except in the
// "-halfmiss" cases, where every other key matches no entry.
// "interleaved" compares filter bcf with none on a busy machine.
func BenchmarkExact100K(b *testing.B) {
	ups, keys := exactSet(100_000)
	keys = keys[:65536]
	rng := rand.New(rand.NewPCG(3, 4))
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	missKeys := halfMissing(keys)
	b.Run("linear", func(b *testing.B) {
		l := &linear{}
		// Priority order: exact entries (100) before wildcards.
		for i := range ups {
			l.add(&ups[i])
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			sinkInt = l.lookup(&keys[i&(len(keys)-1)])
			i++
		}
		b.ReportMetric(float64(i)/b.Elapsed().Seconds()/1e6, "Mlookups/s")
	})
	tables := map[rules.FilterKind]*rules.Table{}
	for _, kind := range []rules.FilterKind{rules.FilterNone, rules.FilterCuckoo, rules.FilterBloomCuckoo} {
		p, err := rules.New(&rules.Config{Filter: kind})
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range p.ApplyBurst(ups, true).Errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		tables[kind] = p.Table(0)
		b.Run(kind.String(), func(b *testing.B) { benchLookups(b, p.Table(0), keys) })
		b.Run(kind.String()+"-batch", func(b *testing.B) { benchBatch(b, p.Table(0), keys) })
		b.Run(kind.String()+"-halfmiss", func(b *testing.B) { benchLookups(b, p.Table(0), missKeys) })
		b.Run(kind.String()+"-halfmiss-batch", func(b *testing.B) { benchBatch(b, p.Table(0), missKeys) })
	}
	// The filter's target, measured on a busy machine: each round looks
	// up a fresh block of 512 keys (all hits, and half misses) in the
	// tables with filter none and bcf, in random order, single lookups;
	// the metrics are the medians over the rounds of none's time over
	// bcf's ("x" > 1: bcf is faster).
	b.Run("interleaved", func(b *testing.B) {
		type path struct {
			t    *rules.Table
			keys []rules.Key
		}
		paths := []path{
			{tables[rules.FilterNone], keys}, {tables[rules.FilterBloomCuckoo], keys},
			{tables[rules.FilterNone], missKeys}, {tables[rules.FilterBloomCuckoo], missKeys},
		}
		const block = 512
		ns := make([][]float64, len(paths))
		cs := make([]rules.Counters, len(paths)) // a reader per traffic
		rng := rand.New(rand.NewPCG(9, 9))
		perm := []int{0, 1, 2, 3}
		off := 0
		for b.Loop() {
			if off+block > len(keys) {
				off = 0
			}
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			for _, pi := range perm {
				ph := paths[pi]
				start := time.Now()
				for i := off; i < off+block; i++ {
					sinkRule, _ = ph.t.LookupVersion(&ph.keys[i], &cs[pi])
				}
				ns[pi] = append(ns[pi], float64(time.Since(start).Nanoseconds()))
			}
			off += block
		}
		for i, name := range []string{"bcf/none-x", "bcf/none-halfmiss-x"} {
			rs := make([]float64, len(ns[0]))
			for r := range rs {
				rs[r] = ns[2*i][r] / ns[2*i+1][r]
			}
			slices.Sort(rs)
			b.ReportMetric(rs[len(rs)/2], name)
		}
	})
}

// BenchmarkUpdate measures update throughput: bursts of 1024 adds followed
// by bursts of 1024 deletes of the same rules, on a 100K-entry table.
func BenchmarkUpdate(b *testing.B) {
	base, _ := exactSet(100_000)
	for _, kind := range []rules.FilterKind{rules.FilterNone, rules.FilterCuckoo, rules.FilterBloomCuckoo} {
		b.Run(kind.String(), func(b *testing.B) {
			p, _ := rules.New(&rules.Config{Filter: kind})
			p.ApplyBurst(base, true)
			adds, dels := churn(1024, 0)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				p.ApplyBurst(adds, true)
				p.ApplyBurst(dels, true)
				n += 2 * len(adds)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mupdates/s")
		})
	}
}

func churn(n, off int) (adds, dels []rules.Update) {
	for i := range n {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPProto, rules.IPProtoUDP)
		m.SetExact(rules.FieldIPv4Src, uint64(20<<24|(off+i)))
		m.SetExact(rules.FieldL4Dst, 53)
		adds = append(adds, rules.Update{Match: m, Priority: 200})
		dels = append(dels, rules.Update{Command: rules.CmdDeleteStrict, Match: m, Priority: 200})
	}
	return adds, dels
}

// BenchmarkBurst1024 applies a 1024-rule burst to a table whose filter is
// at 95% occupancy and reports the burst latency and the largest number of
// filter iterations any insertion of the burst took. "bcf-t5-switch" is
// bcf-t5 in the configuration a switch runs (controller.Agent, package
// bridge): recycling the memory of removed rules (Config.Recycle) and
// making the next burst's memory between bursts, off the clock
// (Config.PrefaultRules, Pipeline.Prefault), as tables.Owner does after
// each burst; the others take fresh heap for every rule, so the garbage
// collector's work is part of their time.
func BenchmarkBurst1024(b *testing.B) {
	const buckets = 1 << 15
	fill := 4*buckets*95/100 - 1024
	base, _ := exactSet(fill)
	base = base[:fill]
	for _, v := range []struct {
		name string
		kind rules.FilterKind
		t    int
		sw   bool
	}{
		{"cf", rules.FilterCuckoo, 0, false}, {"bcf-t0", rules.FilterBloomCuckoo, 0, false},
		{"bcf-t5", rules.FilterBloomCuckoo, 5, false}, {"bcf-t10", rules.FilterBloomCuckoo, 10, false},
		{"bcf-t5-switch", rules.FilterBloomCuckoo, 5, true},
	} {
		b.Run(v.name, func(b *testing.B) {
			cfg := &rules.Config{Filter: v.kind, BloomAfter: v.t, FilterBuckets: buckets, MaxOccupancy: 0.999, Seed: 9}
			if v.sw {
				cfg.Recycle, cfg.PrefaultRules = true, 1024
			}
			p, _ := rules.New(cfg)
			p.ApplyBurst(base, true)
			adds, dels := churn(1024, 0)
			maxIter := 0
			rebuilds := 0
			for b.Loop() {
				b.StopTimer()
				p.Table(0).ResetFilterStats()
				before := p.Table(0).Stats()
				b.StartTimer()
				p.ApplyBurst(adds, true)
				after := p.Table(0).Stats()
				b.StopTimer()
				if after.Rebuilds != before.Rebuilds {
					rebuilds++
				} else if after.FilterStats != nil {
					maxIter = max(maxIter, after.FilterStats.MaxIterationsSeen)
				}
				p.ApplyBurst(dels, true)
				p.Rebalance(1 << 20)
				if v.sw {
					p.Prefault()
				}
				b.StartTimer()
			}
			st := p.Table(0).Stats()
			b.ReportMetric(float64(maxIter), "max-iterations")
			b.ReportMetric(float64(rebuilds), "rebuilds")
			b.ReportMetric(st.Occupancy, "occupancy")
		})
	}
}

// Make sure ClassBench's linear scan and the benchmark baselines agree
// once, so the benchmark numbers compare like with like.
func TestLinearBaselineAgrees(t *testing.T) {
	rs, p, _ := loadCB(t, "lyxocs-ruleSet/fw1_1k", nil)
	ups, _ := classbench.TupleUpdates(rs, 0, nil)
	l := &linear{}
	for i := range ups {
		l.add(&ups[i])
	}
	for _, h := range cornerHeaders(rs) {
		k := h.Key()
		want := classbench.First(rs, &h)
		got := -1
		if r := p.Table(0).Lookup(&k); r != nil {
			got = r.ID
		}
		if l.lookup(&k) != want || got != want {
			t.Fatalf("header %+v: linear %d, table %d, oracle %d", h, l.lookup(&k), got, want)
		}
	}
}

func TestLookupAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	rs, p, _ := loadCB(t, "lyxocs-ruleSet/acl1_1k", nil)
	tbl := p.Table(0)
	// Rule corners: lookups that test port ranges.
	keys := make([]rules.Key, 32)
	for i, h := range cornerHeaders(rs)[:32] {
		keys[i] = h.Key()
	}
	k := keys[7]
	out := make([]*rules.Rule, 32)
	var c rules.Counters
	if n := testing.AllocsPerRun(100, func() { sinkRule = tbl.Lookup(&k) }); n != 0 {
		t.Errorf("Lookup: %v allocs", n)
	}
	if n := testing.AllocsPerRun(100, func() { tbl.LookupBatch(keys, out, &c) }); n != 0 {
		t.Errorf("LookupBatch: %v allocs", n)
	}
	_ = fmt.Sprint
}

// BenchmarkAdd isolates adds: batches of 256 new exact 5-tuple flows into a
// table of 100K, each batch deleted again (and unlinked at once) with the
// timer stopped, so that every add makes a new index node, as when a table
// grows. allocs/op counts a batch of 256 adds. "bcf-recycle" reuses the
// memory of the deleted flows (Config.Recycle).
func BenchmarkAdd(b *testing.B) { benchAddDelete(b, false) }

// BenchmarkDelete is BenchmarkAdd the other way round: batches of 256
// strict deletes, each unlinked within its batch (UnlinkAfter < 0), of
// flows added back with the timer stopped.
func BenchmarkDelete(b *testing.B) { benchAddDelete(b, true) }

func benchAddDelete(b *testing.B, del bool) {
	base, _ := exactSet(100_000)
	const batch, batches = 256, 64
	var adds, dels [batches][]rules.Update
	for j := range batches {
		for i := range batch {
			k := uint64(j*batch + i)
			var m rules.Match
			m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
			m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
			m.SetExact(rules.FieldIPv4Src, 30<<24|k)
			m.SetExact(rules.FieldIPv4Dst, 40<<24|k*7)
			m.SetExact(rules.FieldL4Src, 1024+k%60000)
			m.SetExact(rules.FieldL4Dst, 443)
			adds[j] = append(adds[j], rules.Update{Match: m, Priority: 100})
			dels[j] = append(dels[j], rules.Update{Command: rules.CmdDeleteStrict, Match: m, Priority: 100})
		}
	}
	unit := "ns/add"
	if del {
		unit = "ns/delete"
	}
	for _, v := range []struct {
		name    string
		kind    rules.FilterKind
		recycle bool
	}{{"none", rules.FilterNone, false}, {"bcf", rules.FilterBloomCuckoo, false}, {"bcf-recycle", rules.FilterBloomCuckoo, true}} {
		b.Run(v.name, func(b *testing.B) {
			p, _ := rules.New(&rules.Config{Filter: v.kind, UnlinkAfter: -1, Recycle: v.recycle})
			for _, err := range p.ApplyBurst(base, true).Errs {
				if err != nil {
					b.Fatal(err)
				}
			}
			apply := func(ups []rules.Update) {
				for _, err := range p.ApplyBurst(ups, true).Errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				j := n / batch % batches
				if del {
					b.StopTimer()
					apply(adds[j])
					b.StartTimer()
					apply(dels[j])
				} else {
					apply(adds[j])
					b.StopTimer()
					apply(dels[j])
					b.StartTimer()
				}
				n += batch
			}
			if st := p.Table(0).Stats(); st.Flows != len(base) || st.Rules != len(base) {
				b.Fatalf("%d flows, %d rules after the benchmark; want %d", st.Flows, st.Rules, len(base))
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(n), unit)
		})
	}
}

// BenchmarkDeleteAll deletes every flow of a 100K table with one
// non-strict DELETE (what a controller sends before it reinstalls its
// flows), unlinking them in the same burst; the table is refilled with the
// timer stopped.
func BenchmarkDeleteAll(b *testing.B) {
	base, _ := exactSet(100_000)
	p, _ := rules.New(&rules.Config{UnlinkAfter: -1})
	all := []rules.Update{{Command: rules.CmdDelete, Table: rules.TableAll}}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		b.StopTimer()
		p.ApplyBurst(base, true)
		b.StartTimer()
		p.ApplyBurst(all, true)
		n += len(base)
	}
	if st := p.Table(0).Stats(); st.Flows != 0 || st.Rules != 0 {
		b.Fatalf("%d flows, %d rules left", st.Flows, st.Rules)
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(n), "ns/rule")
}

// BenchmarkDuplicates applies a burst that replaces one flow 10,000 times
// (an add of the same match and priority with a new output port each
// time, as a bundle of duplicates is), atomic and not, on a table of
// 10,000 other flows: each replacement must cost what one add costs, not
// a copy of every version before it.
func BenchmarkDuplicates(b *testing.B) {
	const n = 10_000
	base, _ := exactSet(n)
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	m.SetExact(rules.FieldIPv4Dst, 0x0a0a0a0a)
	ups := make([]rules.Update, n)
	for i := range ups {
		ups[i] = rules.Update{Match: m, Priority: 9, Instructions: []rules.Instruction{{Kind: rules.InstApplyActions,
			Actions: []rules.Action{{Kind: rules.ActionOutput, Port: uint32(1 + i%1000)}}}}}
	}
	for _, atomic := range []bool{true, false} {
		b.Run(fmt.Sprintf("atomic=%v", atomic), func(b *testing.B) {
			p, _ := rules.New(&rules.Config{})
			p.ApplyBurst(base, true)
			b.ReportAllocs()
			for b.Loop() {
				p.ApplyBurst(ups, atomic)
			}
		})
	}
}

// BenchmarkModify applies bursts of 1024 strict modifies (a new output
// port each) to flows of a 10,000-flow table, with and without
// recycling: the versions' rules come from the slab, and with recycling
// go back to it.
func BenchmarkModify(b *testing.B) {
	base, _ := exactSet(10_000)
	for _, recycle := range []bool{false, true} {
		b.Run(fmt.Sprintf("recycle=%v", recycle), func(b *testing.B) {
			p, _ := rules.New(&rules.Config{Recycle: recycle})
			p.ApplyBurst(base, true)
			mods := make([][]rules.Update, 2)
			for i := range mods {
				for j := range 1024 {
					u := base[j*7]
					mods[i] = append(mods[i], rules.Update{Command: rules.CmdModifyStrict, Match: u.Match, Priority: u.Priority,
						Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: uint32(i + 1)}}}}})
				}
			}
			var res rules.BurstResult
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				p.ApplyBurstTo(&res, mods[n%2], true, nil)
				n++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*1024), "ns/modify")
		})
	}
}

package rules_test

import (
	"testing"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// TestFilterUse checks that a subtable's use follows the traffic that
// visits it: the exact subtable of a table of exact flows, looked up with
// keys it holds, is soon probed without the filter (a hit costs one probe
// and no check), and looked up with keys it lacks, goes behind the filter
// again (a miss costs a filter check); answers stay those of the entries
// throughout, and a table without a filter samples nothing.
func TestFilterUse(t *testing.T) {
	cfg := rules.Config{Filter: rules.FilterBloomCuckoo}
	p, err := rules.New(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	ups, keys := exactSet(n)
	for _, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	tbl := p.Table(0)
	if probe, _, _ := rules.SubtableUses(tbl); probe != 0 {
		t.Fatalf("%d subtables probed without the filter before any lookup, want 0", probe)
	}
	missing := halfMissing(keys)
	var c rules.Counters // one reader, as a dataplane worker
	const rounds = 200   // 20,000 visits of the exact subtable a phase: two windows and more
	hits := func() {
		t.Helper()
		for range rounds {
			for i := 0; i < n; i += 2 {
				r, _ := tbl.LookupVersion(&keys[i], &c)
				if r == nil || r.ID != i {
					t.Fatalf("key %d: got %v, want rule %d", i, r, i)
				}
			}
		}
	}
	absent := func() {
		t.Helper()
		for range rounds {
			for i := 1; i < n; i += 2 {
				if r, _ := tbl.LookupVersion(&missing[i], &c); r != nil {
					t.Fatalf("absent key %d matched rule %d", i, r.ID)
				}
			}
		}
	}
	hits()
	if probe, _, _ := rules.SubtableUses(tbl); probe != 1 {
		t.Fatalf("after hits only, %d subtables probed without the filter, want the exact one", probe)
	}
	for i := 0; i < n; i += 2 {
		var c rules.Counters
		if r, _ := tbl.LookupVersion(&keys[i], &c); r == nil || r.ID != i {
			t.Fatalf("key %d: got %v, want rule %d", i, r, i)
		}
		if c.Probes != 1 || c.FilterNegatives != 0 || c.FalsePositives != 0 {
			t.Fatalf("key %d: %+v, want one probe and no filter check", i, c)
		}
	}
	absent()
	if probe, _, _ := rules.SubtableUses(tbl); probe != 0 {
		t.Fatalf("after misses only, %d subtables probed without the filter, want 0", probe)
	}
	for i := 1; i < n; i += 2 {
		var c rules.Counters
		if r, _ := tbl.LookupVersion(&missing[i], &c); r != nil {
			t.Fatalf("absent key %d matched rule %d", i, r.ID)
		}
		// The exact subtable visited, the wildcards' passed over by
		// its guard (the key's destination is not theirs).
		if c.Visited != 1 || c.Guarded != 1 || c.FilterNegatives+c.FalsePositives != 1 {
			t.Fatalf("absent key %d: %+v, want the exact subtable checked against the filter", i, c)
		}
	}
	// Batches sample too: hits in chunks put the exact subtable back in
	// front of the filter.
	out := make([]*rules.Rule, 32)
	ks := make([]rules.Key, 32)
	for range rounds {
		for start := range n / 2 {
			for j := range ks {
				ks[j] = keys[2*((start+j)%(n/2))]
			}
			rules.LookupChunkForTest(tbl, ks, out, &c)
			for j, r := range out {
				if want := 2 * ((start + j) % (n / 2)); r == nil || r.ID != want {
					t.Fatalf("chunk key %d: got %v, want rule %d", want, r, want)
				}
			}
		}
	}
	if probe, _, _ := rules.SubtableUses(tbl); probe != 1 {
		t.Fatalf("after hits in chunks, %d subtables probed without the filter, want the exact one", probe)
	}

	// Without a filter there is nothing to decide.
	np, err := rules.New(&rules.Config{Filter: rules.FilterNone})
	if err != nil {
		t.Fatal(err)
	}
	np.ApplyBurst(ups, true)
	for i := range 20_000 {
		np.Table(0).LookupVersion(&keys[i%n], &c)
	}
	if probe, _, _ := rules.SubtableUses(np.Table(0)); probe != 0 {
		t.Fatalf("a table without a filter decided %d subtables", probe)
	}
}

// TestSampledLookup checks that a sampled lookup (its own copy of the
// lookup loop, which notes every visit) answers as a lookup that is not
// sampled, and visits and passes over the same subtables, on every set of
// BenchmarkClassBench with its trace and on exact flows half of whose
// keys are missing.
func TestSampledLookup(t *testing.T) {
	type table struct {
		name string
		tbl  *rules.Table
		keys []rules.Key
	}
	var tables []table
	for _, set := range benchSets {
		rs, err := classbench.Parse(set.rules, readCB(t, set.rules))
		if err != nil {
			t.Fatal(err)
		}
		_, p, _ := loadCB(t, set.rules, &rules.Config{Filter: rules.FilterBloomCuckoo})
		tables = append(tables, table{set.name, p.Table(0), benchKeys(t, rs, set.trace)})
	}
	p, err := rules.New(&rules.Config{Filter: rules.FilterBloomCuckoo})
	if err != nil {
		t.Fatal(err)
	}
	ups, keys := exactSet(2000)
	p.ApplyBurst(ups, true)
	tables = append(tables, table{"exact2000-halfmiss", p.Table(0), halfMissing(keys)})
	for _, tb := range tables {
		var cf, cs rules.Counters
		for i := range tb.keys {
			k := &tb.keys[i]
			visited, guarded := cf.Visited, cf.Guarded
			r, _ := tb.tbl.LookupVersion(k, &cf)
			vs, gs := cs.Visited, cs.Guarded
			rs := rules.LookupSampledForTest(tb.tbl, k, &cs)
			if r != rs {
				t.Fatalf("%s key %d: sampled lookup found %v, lookup %v", tb.name, i, rs, r)
			}
			if cf.Visited-visited != cs.Visited-vs || cf.Guarded-guarded != cs.Guarded-gs {
				t.Fatalf("%s key %d: sampled lookup visited %d and passed over %d subtables, lookup %d and %d",
					tb.name, i, cs.Visited-vs, cs.Guarded-gs, cf.Visited-visited, cf.Guarded-guarded)
			}
		}
		if cs.Visited == 0 || cs.Probes+cs.FilterNegatives != cs.Visited {
			t.Fatalf("%s: sampled lookups %+v: want visits, each probed or a filter negative", tb.name, cs)
		}
	}
}

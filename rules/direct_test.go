package rules_test

import (
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestDirectSubtable checks the rule that probes, without the filter, a
// subtable holding more than three quarters of the table's keys: the exact subtable
// of an exact-flow table is probed directly (a hit costs one probe, a miss
// there no filter negative), the wildcards' subtable stays behind the
// filter, answers stay those of the entries, and once deletions leave the
// exact subtable a third of the keys it goes behind the filter again.
func TestDirectSubtable(t *testing.T) {
	cfg := rules.Config{Filter: rules.FilterBloomCuckoo, UnlinkAfter: -1} // deletions leave the index at once
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
	if s := rules.DirectShare(tbl); s <= 0.75 {
		t.Fatalf("exact subtable's share %.2f, want > 0.75 and it probed directly", s)
	}
	missing := halfMissing(keys)
	check := func(live int, direct bool) {
		t.Helper()
		for i := 1; i < len(missing); i += 2 {
			var c rules.Counters
			if r, _ := tbl.LookupVersion(&missing[i], &c); r != nil {
				t.Fatalf("absent key %d matched rule %d", i, r.ID)
			}
			// The exact subtable visited, the wildcards' passed over
			// by its guard (the key's destination is not theirs).
			if c.Visited != 1 || c.Guarded != 1 {
				t.Fatalf("absent key %d: %+v, want 1 subtable visited and 1 guarded", i, c)
			}
			if direct && (c.Probes != 1 || c.FilterNegatives != 0) {
				t.Fatalf("absent key %d: %+v, want the exact subtable probed without the filter", i, c)
			}
			if !direct && c.FilterNegatives+c.FalsePositives != 1 {
				t.Fatalf("absent key %d: %+v, want the exact subtable checked against the filter", i, c)
			}
		}
		for i := range live {
			var c rules.Counters
			r, _ := tbl.LookupVersion(&keys[i], &c)
			if r == nil || r.ID != i {
				t.Fatalf("key %d: got %v, want rule %d", i, r, i)
			}
			if c.Probes != 1 || c.FilterNegatives != 0 || c.FalsePositives != 0 {
				t.Fatalf("key %d: %+v, want one probe", i, c)
			}
		}
		for i := live; i < n; i++ {
			if r := tbl.Lookup(&keys[i]); r != nil {
				t.Fatalf("deleted key %d matched rule %d", i, r.ID)
			}
		}
	}
	check(n, true)
	// Leave 5 exact flows beside the 10 wildcards.
	var dels []rules.Update
	for i := 5; i < n; i++ {
		dels = append(dels, rules.Update{Command: rules.CmdDeleteStrict, Match: ups[i].Match, Priority: ups[i].Priority})
	}
	for _, err := range p.ApplyBurst(dels, true).Errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s := rules.DirectShare(tbl); s != 0 {
		t.Fatalf("a subtable of share %.2f probed directly, want none", s)
	}
	check(5, false)
}

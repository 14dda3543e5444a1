package rules

import (
	"fmt"
	"testing"
	"time"
)

// emptyTestFlows returns n exact 5-tuple adds to table tbl, prefixed so
// that those of different prefixes differ, and their keys.
func emptyTestFlows(n int, tbl uint8, prefix uint64) ([]Update, []Key) {
	ups := make([]Update, n)
	keys := make([]Key, n)
	for i := range ups {
		var m Match
		m.SetExact(FieldEthType, EthTypeIPv4)
		m.SetExact(FieldIPProto, IPProtoTCP)
		m.SetExact(FieldIPv4Src, prefix<<24|uint64(i))
		m.SetExact(FieldIPv4Dst, 172<<24|uint64(i*7))
		m.SetExact(FieldL4Src, uint64(1024+i))
		m.SetExact(FieldL4Dst, 80)
		ups[i] = Update{Table: tbl, Match: m, Priority: 100, ID: i}
		keys[i] = m.Key
	}
	return ups, keys
}

func mustApply(t *testing.T, p *Pipeline, ups []Update) {
	t.Helper()
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
}

// TestDeleteAllRefill deletes every flow of a table: once unlinked, the
// table holds nothing, answers as an empty table, refills, and another
// table keeps its rules. Then a DELETE of everything followed by an add in
// the same burst leaves the table that one rule.
func TestDeleteAllRefill(t *testing.T) {
	for _, ua := range []time.Duration{-1, 0} {
		for _, kind := range []FilterKind{FilterBloomCuckoo, FilterNone} {
			t.Run(fmt.Sprintf("%s/unlink-after=%v", kind, ua), func(t *testing.T) {
				testDeleteAllRefill(t, kind, ua)
			})
		}
	}
}

func testDeleteAllRefill(t *testing.T, kind FilterKind, unlinkAfter time.Duration) {
	p, err := New(&Config{Tables: 2, Filter: kind, UnlinkAfter: unlinkAfter})
	if err != nil {
		t.Fatal(err)
	}
	ups0, keys0 := emptyTestFlows(3000, 0, 10)
	ups1, keys1 := emptyTestFlows(10, 1, 20)
	mustApply(t, p, ups0)
	mustApply(t, p, ups1)
	t0 := p.Table(0)
	before := t0.Stats()
	// settle runs cleanup once the grace has passed.
	settle := func() {
		if unlinkAfter >= 0 {
			time.Sleep(2 * time.Millisecond)
			p.Rebalance(0)
		}
	}

	mustApply(t, p, []Update{{Command: CmdDelete, Table: 0}})
	settle()
	st := t0.Stats()
	if st.Flows != 0 || st.Rules != 0 || st.Keys != 0 || st.Subtables != 0 || st.FilterLen != 0 {
		t.Fatalf("after deleting all: %+v", st)
	}
	if st.FilterBuckets != before.FilterBuckets {
		t.Errorf("filter buckets %d, want %d as before", st.FilterBuckets, before.FilterBuckets)
	}
	for i := range keys0 {
		if r := t0.Lookup(&keys0[i]); r != nil {
			t.Fatalf("key %d: found rule %d in an emptied table", i, r.ID)
		}
	}
	for i := range keys1 {
		if r := p.Table(1).Lookup(&keys1[i]); r == nil || r.ID != i {
			t.Fatalf("table 1 key %d: got %v, want rule %d", i, r, i)
		}
	}
	if got := len(p.Rules(1)); got != len(ups1) {
		t.Fatalf("table 1 has %d rules, want %d", got, len(ups1))
	}

	// Refill: the same flows, found again.
	mustApply(t, p, ups0)
	for i := range keys0 {
		if r := t0.Lookup(&keys0[i]); r == nil || r.ID != i {
			t.Fatalf("after refill, key %d: got %v, want rule %d", i, r, i)
		}
	}
	if st := t0.Stats(); st.Flows != len(ups0) || st.Keys != len(ups0) || (kind != FilterNone && st.FilterLen != len(ups0)) {
		t.Fatalf("after refill: %+v", st)
	}

	// A delete of everything followed, in the same burst, by an add: the
	// table keeps that rule.
	mustApply(t, p, []Update{{Command: CmdDelete, Table: 0}, ups0[7]})
	settle()
	if st := t0.Stats(); st.Flows != 1 || st.Rules != 1 || st.Keys != 1 {
		t.Fatalf("after deleting all but one: %+v", st)
	}
	for i := range keys0 {
		r := t0.Lookup(&keys0[i])
		if (i == 7) != (r != nil) {
			t.Fatalf("key %d: got %v", i, r)
		}
	}
}

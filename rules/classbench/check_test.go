package classbench_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// smallSet is three rules: TCP to port 80 from 10/8, anything from
// 10.1/16 and the catch-all.
const smallSet = "@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n" +
	"@10.1.0.0/16\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\n" +
	"@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\n"

func parseSmall(t *testing.T) []classbench.Rule {
	t.Helper()
	rs, err := classbench.Parse("small", []byte(smallSet))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestFirst: ClassBench's first match over the rules as written, and
// MatchesHeader at the edges of prefixes, port ranges and protocol masks.
func TestFirst(t *testing.T) {
	rs := parseSmall(t)
	const (
		ten1 = 10<<24 | 1<<16 | 2<<8 | 3 // 10.1.2.3
		ten2 = 10<<24 | 2<<16 | 1        // 10.2.0.1
		elev = 11<<24 | 1                // 11.0.0.1
	)
	for _, c := range []struct {
		h    classbench.Header
		want int
	}{
		{classbench.Header{Src: ten1, Dport: 80, Proto: 6}, 0},
		{classbench.Header{Src: ten1, Dport: 81, Proto: 6}, 1},
		{classbench.Header{Src: ten1, Dport: 80, Proto: 17}, 1},
		{classbench.Header{Src: ten2, Dport: 80, Proto: 6}, 0},
		{classbench.Header{Src: ten2, Dport: 79, Proto: 6}, 2},
		{classbench.Header{Src: elev, Dport: 80, Proto: 6}, 2},
	} {
		if got := classbench.First(rs, &c.h); got != c.want {
			t.Errorf("First(%+v) = %d, want %d", c.h, got, c.want)
		}
	}
	if got := classbench.First(rs[:2], &classbench.Header{Src: elev}); got != -1 {
		t.Errorf("First without a catch-all = %d, want -1", got)
	}
	r := classbench.Rule{Src: 10<<24 | 1<<16 | 2<<8 | 3, SrcLen: 32, SportLo: 1000, SportHi: 1999, DportHi: 65535, Proto: 6, ProtoMask: 0xfe}
	for _, c := range []struct {
		h    classbench.Header
		want bool
	}{
		{classbench.Header{Src: ten1, Sport: 1000, Proto: 6}, true},
		{classbench.Header{Src: ten1, Sport: 1999, Proto: 7}, true}, // 7 & 0xfe == 6
		{classbench.Header{Src: ten1 + 1, Sport: 1000, Proto: 6}, false},
		{classbench.Header{Src: ten1, Sport: 999, Proto: 6}, false},
		{classbench.Header{Src: ten1, Sport: 2000, Proto: 6}, false},
		{classbench.Header{Src: ten1, Sport: 1000, Proto: 17}, false},
	} {
		if got := r.MatchesHeader(&c.h); got != c.want {
			t.Errorf("MatchesHeader(%+v) = %v, want %v", c.h, got, c.want)
		}
	}
}

// TestCheck: a trace whose answers agree with the linear scan and whose
// labels are right passes; each wrong label is a Mismatch naming its line.
func TestCheck(t *testing.T) {
	rs := parseSmall(t)
	trace, err := classbench.ParseTrace("small_trace", []byte(
		"167838211\t1\t1000\t80\t6\t0\t0\n"+ // 10.1.2.3 -> :80 tcp: rule 0
			"167838211\t1\t1000\t443\t6\t0\t2\n"+ // rule 1 answers; rule 2 matches too
			"184549377\t1\t53\t53\t17\t0\t2\n"+ // 11.0.0.1 udp: rule 2
			"184549377\t1\t1000\t80\t6\t0\t0\n"+ // rule 0 does not match 11.0.0.1
			"184549377\t1\t1000\t80\t6\t0\t7\n")) // no rule 7
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterCuckoo, rules.FilterNone} {
		rep, err := classbench.Check(rs, trace, &rules.Config{Filter: kind, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := []classbench.Mismatch{
			{Line: 4, Got: 2, Want: 2, Label: 0, Why: "label 0 does not match the header"},
			{Line: 5, Got: 2, Want: 2, Label: 7, Why: "label 7 is not a rule index"},
		}
		if d := cmp.Diff(want, rep.Mismatches); d != "" {
			t.Errorf("%s: mismatches (-want +got):\n%s", kind, d)
		}
		if rep.Checked != 5 || rep.Expansion != (classbench.Expansion{Rules: 3, Entries: 3, MaxPer: 1}) || rep.Subtables == 0 || rep.Filter != kind.String() {
			t.Errorf("%s: report %+v", kind, rep)
		}
		if v, _, _ := rep.PerLookup(); rep.Counters.Lookups != 5 || v <= 0 {
			t.Errorf("%s: %d lookups, %.2f subtables visited per lookup", kind, rep.Counters.Lookups, v)
		}
	}
	if _, err := classbench.Check(rs, trace, &rules.Config{Tables: 256}); err == nil {
		t.Error("Check made a pipeline of 256 tables")
	}
}

// TestCheckTrace: a ClassBench set and the trace generated with it pass,
// every header.
func TestCheckTrace(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(testutil.SharedData(t, "classbench", "lyxocs-ruleSet", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rs, err := classbench.Parse("fw1_1k", read("fw1_1k"))
	if err != nil {
		t.Fatal(err)
	}
	trace, err := classbench.ParseTrace("fw1_1k_trace", read("fw1_1k_trace"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := classbench.Check(rs, trace, &rules.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Checked != 7610 || len(rep.Mismatches) != 0 || rep.Expansion.Entries != 761 {
		t.Fatalf("checked %d, %d mismatches (first %+v), %d entries", rep.Checked, len(rep.Mismatches), rep.Mismatches[:min(1, len(rep.Mismatches))], rep.Expansion.Entries)
	}
}

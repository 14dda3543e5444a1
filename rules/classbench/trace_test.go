package classbench_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/rules/classbench"
)

// genRules returns n rules of distinct /24 and /32 prefixes, port ranges
// and protocols, every fourth of any protocol and every fifth of a
// partial protocol mask (not in ClassBench's sets, which mask 0x00 or
// 0xFF, but in other generators').
func genRules(t *testing.T, n int) []classbench.Rule {
	t.Helper()
	var b strings.Builder
	for i := range n {
		proto := "0x06/0xFF"
		switch {
		case i%4 == 0:
			proto = "0x00/0x00"
		case i%5 == 0:
			proto = "0x10/0xF0"
		}
		fmt.Fprintf(&b, "@10.%d.%d.0/24\t192.168.%d.%d/32\t%d : %d\t%d : %d\t%s\t0x0000/0x0000\n",
			i>>8, i&255, i>>8, i&255, i, i+100*(i%3), 1024+i, 1024+i, proto)
	}
	rs, err := classbench.Parse("gen", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// isCorner reports whether h is a corner of r: each field at the low or
// the high end of r's range for it.
func isCorner(r *classbench.Rule, h *classbench.Header) bool {
	end := func(v, lo, hi uint32) bool { return v == lo || v == hi }
	host := func(l int) uint32 {
		if l == 32 {
			return 0
		}
		return 1<<(32-l) - 1
	}
	return end(h.Src, r.Src, r.Src|host(r.SrcLen)) && end(h.Dst, r.Dst, r.Dst|host(r.DstLen)) &&
		end(uint32(h.Sport), uint32(r.SportLo), uint32(r.SportHi)) &&
		end(uint32(h.Dport), uint32(r.DportLo), uint32(r.DportHi)) &&
		end(uint32(h.Proto), uint32(r.Proto), uint32(r.Proto|^r.ProtoMask))
}

// runs returns the lengths of the runs of identical consecutive headers
// (the five fields).
func runs(hs []classbench.Header) []int {
	var out []int
	for i := range hs {
		h, p := hs[i], classbench.Header{}
		if i > 0 {
			p = hs[i-1]
		}
		if i > 0 && h.Src == p.Src && h.Dst == p.Dst && h.Sport == p.Sport && h.Dport == p.Dport && h.Proto == p.Proto {
			out[len(out)-1]++
		} else {
			out = append(out, 1)
		}
	}
	return out
}

func TestGenerateTrace(t *testing.T) {
	rs := genRules(t, 1000)
	hs := classbench.GenerateTrace(rs, 50_000, 1)
	if len(hs) != 50_000 {
		t.Fatalf("%d headers, want 50000 (the last run cut at n)", len(hs))
	}
	if diff := cmp.Diff(hs, classbench.GenerateTrace(rs, 50_000, 1)); diff != "" {
		t.Fatalf("seed 1 twice differs (-first +second):\n%s", diff)
	}
	if other := classbench.GenerateTrace(rs, 50_000, 2); slices.Equal(hs, other) {
		t.Fatal("seeds 1 and 2 give the same trace")
	}
	// A shorter trace of the same seed is the longer one's beginning, but
	// for its last run's cut.
	if short := classbench.GenerateTrace(rs, 1000, 1); !slices.Equal(short, hs[:1000]) {
		t.Fatal("the first 1000 headers of seed 1 depend on n")
	}
	ends := map[string]int{} // which end each field took, over the trace
	for i := range hs {
		h := &hs[i]
		if h.Line != i+1 {
			t.Fatalf("header %d has Line %d", i, h.Line)
		}
		if h.Label < 0 || h.Label >= len(rs) {
			t.Fatalf("line %d: label %d is not a rule index", h.Line, h.Label)
		}
		r := &rs[h.Label]
		if !isCorner(r, h) || !r.MatchesHeader(h) {
			t.Fatalf("line %d: %+v is not a corner of its rule %+v", h.Line, *h, *r)
		}
		if i > 0 && h.Label == hs[i-1].Label {
			continue // count each run once
		}
		if r.SrcLen < 32 {
			ends[fmt.Sprint("src", h.Src == r.Src)]++
		}
		if r.SportLo != r.SportHi {
			ends[fmt.Sprint("sport", h.Sport == r.SportLo)]++
		}
		if r.ProtoMask != 0xff {
			ends[fmt.Sprint("proto", h.Proto == r.Proto)]++
		}
	}
	// Each end about half the time.
	for _, f := range []string{"src", "sport", "proto"} {
		lo, hi := ends[f+"true"], ends[f+"false"]
		if share := float64(lo) / float64(lo+hi); share < 0.45 || share > 0.55 {
			t.Errorf("%s: low end %d times, high end %d", f, lo, hi)
		}
	}
	if classbench.GenerateTrace(nil, 10, 1) != nil || classbench.GenerateTrace(rs, 0, 1) != nil {
		t.Error("no rules or no headers should give nil")
	}
}

// TestGenerateTraceCopies checks the Pareto copies (a = 1, b = 0.1): a
// run has k or more headers with probability 0.1/(k-1) for k >= 2, so
// nine runs in ten are single headers and one in a hundred has 11 or
// more, as in ClassBench's traces (acl1_1k_trace 0.907 and 0.008,
// fw1_10k_trace 0.900 and 0.010, ipc1_10k_trace 0.901 and 0.010). The
// share of headers that repeat the one before them is 0.40-0.52 in those
// traces (scale 10); a trace of the same scale gives about as many.
func TestGenerateTraceCopies(t *testing.T) {
	rs := genRules(t, 1000)
	rl := runs(classbench.GenerateTrace(rs, 300_000, 1))
	one, eleven := 0, 0
	for _, n := range rl {
		if n == 1 {
			one++
		}
		if n >= 11 {
			eleven++
		}
	}
	if s := float64(one) / float64(len(rl)); s < 0.89 || s > 0.91 {
		t.Errorf("%.4f of %d runs are one header, want 0.90", s, len(rl))
	}
	if s := float64(eleven) / float64(len(rl)); s < 0.008 || s > 0.012 {
		t.Errorf("%.4f of %d runs have 11 or more headers, want 0.010", s, len(rl))
	}
	t.Logf("%d runs: %.4f one header, %.4f 11 or more", len(rl), float64(one)/float64(len(rl)), float64(eleven)/float64(len(rl)))
	var shares []float64
	for seed := range uint64(9) {
		n := classbench.TraceScale * len(rs)
		shares = append(shares, 1-float64(len(runs(classbench.GenerateTrace(rs, n, seed))))/float64(n))
	}
	slices.Sort(shares)
	t.Logf("share of repeated headers at scale %d, 9 seeds: %.3f", classbench.TraceScale, shares)
	if m := shares[len(shares)/2]; m < 0.38 || m > 0.56 {
		t.Errorf("median share of repeated headers over 9 seeds %.3f (all: %.3f), want 0.40-0.52 as ClassBench's traces", m, shares)
	}
}

func TestWriteTraceRoundTrip(t *testing.T) {
	rs := genRules(t, 300)
	hs := classbench.GenerateTrace(rs, 5000, 7)
	// Extremes of every column.
	hs = append(hs, classbench.Header{Src: 1<<32 - 1, Dst: 0, Sport: 65535, Dport: 0, Proto: 255, Label: 299, Line: len(hs) + 1})
	var buf bytes.Buffer
	if err := classbench.WriteTrace(&buf, hs); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if got := strings.Count(first, "\t"); got != 6 {
		t.Fatalf("first line %q has %d TABs, want 6 (seven columns)", first, got)
	}
	back, err := classbench.ParseTrace("written", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hs, back); diff != "" {
		t.Fatalf("round trip (-written +read):\n%s", diff)
	}
}

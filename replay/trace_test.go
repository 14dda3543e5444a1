package replay

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// cbTestdata is package classbench's hand-written testdata: rules that
// constrain ports of ICMP, GRE, protocol 7 and of every protocol, and a
// trace with ports on headers of those protocols.
const cbTestdata = "../rules/classbench/testdata"

// TestTraceCaptureParses: every synthesized frame parses, and the parser's
// key holds the header's addresses and protocol, and its ports exactly
// where OpenFlow has ports (TCP, UDP, SCTP).
func TestTraceCaptureParses(t *testing.T) {
	hs := []classbench.Header{
		{Src: 0x0a000001, Dst: 0xc0a80105, Sport: 21, Dport: 80, Proto: 6},
		{Src: 1, Dst: 2, Sport: 53, Dport: 65535, Proto: 17},
		{Src: 0xffffffff, Dst: 0, Sport: 1, Dport: 2, Proto: 132},
		{Src: 3, Dst: 4, Sport: 21, Dport: 7, Proto: 1},
		{Src: 5, Dst: 6, Sport: 1024, Dport: 53, Proto: 47},
		{Src: 7, Dst: 8, Sport: 9, Dport: 10, Proto: 0},
		{Src: 7, Dst: 8, Sport: 9, Dport: 10, Proto: 255},
	}
	c := TraceCapture("t", hs)
	if c.Len() != len(hs) {
		t.Fatalf("%d frames, want %d", c.Len(), len(hs))
	}
	p := dataplane.NewParser()
	for i := range hs {
		h := &hs[i]
		got, ok := p.Parse(c.Frame(i), c.Link(i), 1)
		if !ok {
			t.Fatalf("frame %d (%+v) did not parse: %+v", i, *h, p.Stats)
		}
		var k rules.Key
		got.Key(&k)
		want := h.Key()
		for _, f := range []rules.Field{rules.FieldEthType, rules.FieldIPProto, rules.FieldIPv4Src, rules.FieldIPv4Dst} {
			if k.Get(f) != want.Get(f) {
				t.Errorf("frame %d: field %v = %#x, want %#x", i, f, k.Get(f), want.Get(f))
			}
		}
		ported := h.Proto == 6 || h.Proto == 17 || h.Proto == 132
		if ported && (k.Get(rules.FieldL4Src) != uint64(h.Sport) || k.Get(rules.FieldL4Dst) != uint64(h.Dport)) {
			t.Errorf("frame %d: ports %d,%d, want %d,%d", i, k.Get(rules.FieldL4Src), k.Get(rules.FieldL4Dst), h.Sport, h.Dport)
		}
		if ipv4Checksum(c.Frame(i)[14:34]) != 0 {
			t.Errorf("frame %d: IPv4 checksum does not verify", i)
		}
	}
}

// oracleHits counts classbench.FirstPacket's answers for hs: per rule
// index, and the headers no rule matches.
func oracleHits(rs []classbench.Rule, hs []classbench.Header) (map[int]uint64, uint64) {
	want := map[int]uint64{}
	var none uint64
	for i := range hs {
		if r := classbench.FirstPacket(rs, &hs[i]); r >= 0 {
			want[r]++
		} else {
			none++
		}
	}
	return want, none
}

// ruleHits sums a configuration's hits per rule (a rule's flows share its
// index as ID); the synthetic controller's flows have negative IDs.
func ruleHits(kr *KindReport) map[int]uint64 {
	got := map[int]uint64{}
	for _, h := range kr.Top {
		got[h.ID] += h.Packets
	}
	return got
}

// replayTrace loads a ClassBench set and its trace as `ofswitch replay
// --classbench --trace` does and replays them under every filter kind.
func replayTrace(t *testing.T, rulesPath, tracePath string, burst int) ([]classbench.Rule, []classbench.Header, *Report) {
	t.Helper()
	data, err := os.ReadFile(rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := classbench.Parse(rulesPath, data)
	if err != nil {
		t.Fatal(err)
	}
	ups, tables, err := LoadRules("", rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	c, hs, err := LoadTrace(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	filters, _ := ParseFilters([]string{"bcf,cf,none"}, []int{0})
	// Bounded in time as well as in work: one pass, or a few bursts.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, &Config{Rules: ups, Tables: tables, Filters: filters, Captures: []*dataplane.Capture{c},
		Workers: 2, Burst: burst, Bursts: 2, AtPackets: uint64(max(len(hs)/2, 8)), Seed: 5,
		TopN: len(ups) + 4*max(burst, 1)*8, BurstFromRules: true})
	if err != nil {
		t.Fatal(err)
	}
	return rs, hs, rep
}

// checkOracle: without bursts, one pass over the trace hits each rule as
// often as FirstPacket answers it, under every filter kind; with checkOcc,
// table 0's filter runs at Config.Occupancy.
func checkOracle(t *testing.T, rulesPath, tracePath string, checkOcc bool) {
	rs, hs, rep := replayTrace(t, rulesPath, tracePath, 0)
	want, none := oracleHits(rs, hs)
	for i := range rep.Kinds {
		kr := &rep.Kinds[i]
		if kr.Counters.Parse.Read != uint64(len(hs)) || kr.Counters.Packets != uint64(len(hs)) {
			t.Errorf("%s: read %d, classified %d of %d frames", kr.Filter, kr.Counters.Parse.Read, kr.Counters.Packets, len(hs))
		}
		if kr.Counters.MissTable0 != none {
			t.Errorf("%s: %d table misses, FirstPacket matches no rule for %d", kr.Filter, kr.Counters.MissTable0, none)
		}
		// The filter is sized by its elements, not by flows, so that a
		// realistic set runs at the occupancy asked for (0.9 by default).
		// A set of a few rules may fall short: flows shaped like them
		// often share their elements.
		if occ := kr.Table.Occupancy; checkOcc && kr.Filter != "none" && (occ < 0.85 || occ > 0.95) {
			t.Errorf("%s: occupancy %.3f with %d elements, want 0.9", kr.Filter, occ, kr.Table.FilterLen)
		}
		got := ruleHits(kr)
		for id, n := range want {
			if got[id] != n {
				t.Errorf("%s: rule %d hit %d times, FirstPacket answers it for %d headers", kr.Filter, id, got[id], n)
			}
		}
		for id, n := range got {
			if want[id] == 0 {
				t.Errorf("%s: rule %d hit %d times, FirstPacket never answers it", kr.Filter, id, n)
			}
		}
	}
}

func TestReplayTraceOracle(t *testing.T) {
	checkOracle(t, filepath.Join(cbTestdata, "ports_any_proto"), filepath.Join(cbTestdata, "ports_any_proto_trace"), false)
}

func TestReplayTraceOracleShared(t *testing.T) {
	dir := testutil.SharedData(t, "classbench", "lyxocs-ruleSet")
	for _, set := range []string{"acl1_1k", "fw1_1k", "ipc1_1k"} {
		t.Run(set, func(t *testing.T) {
			checkOracle(t, filepath.Join(dir, set), filepath.Join(dir, set+"_trace"), true)
		})
	}
}

// TestReplayTraceBursts: bursts drawn from the rule set apply without
// error and, below every rule at priority 0, never take a packet of the
// trace (every header of a generated trace matches its label's rule), so
// every hit still goes to the rule FirstPacket answers.
func TestReplayTraceBursts(t *testing.T) {
	rs, hs, rep := replayTrace(t, filepath.Join(cbTestdata, "ports_any_proto"), filepath.Join(cbTestdata, "ports_any_proto_trace"), 32)
	want, none := oracleHits(rs, hs)
	if none != 0 {
		t.Fatalf("%d headers of the trace match no rule", none)
	}
	for i := range rep.Kinds {
		kr := &rep.Kinds[i]
		if len(kr.Bursts) != 2 {
			t.Fatalf("%s: %d bursts, want 2", kr.Filter, len(kr.Bursts))
		}
		for _, b := range kr.Bursts {
			if b.Errors != 0 || b.Adds == 0 {
				t.Errorf("%s: burst %d: %d adds, %d errors", kr.Filter, b.Index, b.Adds, b.Errors)
			}
		}
		if kr.Counters.MissTable0 != 0 {
			t.Errorf("%s: %d table misses", kr.Filter, kr.Counters.MissTable0)
		}
		// A burst's flow that took packets may have been deleted since, and
		// its hits with it: the rule set's flows, never deleted, must have
		// taken every packet.
		var sum uint64
		for id, n := range ruleHits(kr) {
			if want[id] == 0 {
				t.Errorf("%s: rule %d hit %d times, FirstPacket never answers it", kr.Filter, id, n)
			}
			sum += n
		}
		if sum != kr.Counters.Packets || sum == 0 {
			t.Errorf("%s: the rule set's flows took %d of %d packets", kr.Filter, sum, kr.Counters.Packets)
		}
	}
}

// TestRuleShapes: a flow of a burst drawn from the rule set has the mask
// of a rule of the set.
func TestRuleShapes(t *testing.T) {
	ups, _, err := LoadRules("", filepath.Join(cbTestdata, "ports_any_proto"))
	if err != nil {
		t.Fatal(err)
	}
	shapes := ruleShapes(ups)
	masks := map[rules.Key]bool{}
	for _, m := range shapes {
		masks[m.Mask] = true
	}
	ctl := &controller{rng: rand.New(rand.NewPCG(1, 2)), shapes: shapes}
	for range 200 {
		if m := ctl.synthetic(); !masks[m.Mask] {
			t.Fatalf("flow %+v has no rule's mask", m)
		}
	}
}

func TestLoadTraceMalformed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad_trace")
	if err := os.WriteFile(p, []byte("1\t2\t3\t4\t6\t0\t0\n1\t2\tx\t4\t6\t0\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadTrace(p)
	var pe *classbench.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.HasPrefix(err.Error(), p+":2:") {
		t.Fatalf("LoadTrace = %v, want a ParseError at %s:2", err, p)
	}
}

// TestLoadCapturesClassBench: a ClassBench trace or filter set given as a
// capture gets an error that names the flag that reads it.
func TestLoadCapturesClassBench(t *testing.T) {
	for _, tc := range []struct{ file, flag string }{
		{"ports_any_proto_trace", "--trace"},
		{"ports_any_proto", "--classbench"},
	} {
		p := filepath.Join(cbTestdata, tc.file)
		_, frames, err := LoadCaptures([]string{p})
		if frames != 0 || err == nil || !strings.Contains(err.Error(), tc.flag+" "+p) {
			t.Errorf("LoadCaptures(%s) = %d frames, %v; want an error naming %s", tc.file, frames, err, tc.flag)
		}
	}
	if k := classBenchKind([]byte("\n\nnot a trace\n")); k != "" {
		t.Errorf("classBenchKind(text) = %q", k)
	}
}

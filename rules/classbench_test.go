package rules_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/oracle"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

type cbSet struct {
	rules, trace string // paths below classbench/
}

var cbSets = []cbSet{
	{"lyxocs-ruleSet/acl1_1k", "lyxocs-ruleSet/acl1_1k_trace"},
	{"lyxocs-ruleSet/fw1_1k", "lyxocs-ruleSet/fw1_1k_trace"},
	{"lyxocs-ruleSet/ipc1_1k", "lyxocs-ruleSet/ipc1_1k_trace"},
	{"lyxocs-ruleSet/acl1_10k", ""},
	{"lyxocs-ruleSet/fw1_10k", "lyxocs-ruleSet/fw1_10k_trace"},
	{"lyxocs-ruleSet/ipc1_10k", "lyxocs-ruleSet/ipc1_10k_trace"},
	{"vpp-acl-partitionsort/acl1_seed_1_8k.rules", "vpp-acl-partitionsort/acl1_seed_1_8k.rules_trace"},
	{"vpp-acl-partitionsort/fw1_seed_1_1k.rules", "vpp-acl-partitionsort/fw1_seed_1_1k.rules_trace"},
}

func readCB(t testing.TB, rel string) []byte {
	t.Helper()
	p := testutil.SharedData(t, "classbench", filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadCB(t testing.TB, rel string, cfg *rules.Config) ([]rules.ClassBenchRule, *rules.Pipeline, rules.Expansion) {
	t.Helper()
	rs, err := rules.ParseClassBench(rel, readCB(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	p, err := rules.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ups, ex := rules.ClassBenchUpdates(rs, 0, nil)
	res := p.ApplyBatch(ups, true)
	for i, err := range res.Errs {
		if err != nil {
			t.Fatalf("update %d (rule %d): %v", i, ups[i].ID, err)
		}
	}
	return rs, p, ex
}

// cornerHeaders draws headers from the corners of every rule, for sets that
// ship no trace.
func cornerHeaders(rs []rules.ClassBenchRule) []rules.ClassBenchHeader {
	var hs []rules.ClassBenchHeader
	for i, r := range rs {
		lo := func(a uint32, l int) uint32 { return a }
		hi := func(a uint32, l int) uint32 {
			if l == 32 {
				return a
			}
			return a | (1<<(32-l) - 1)
		}
		proto := r.Proto
		if r.ProtoMask == 0 {
			proto = uint8(i * 37)
		}
		hs = append(hs,
			rules.ClassBenchHeader{Src: lo(r.Src, r.SrcLen), Dst: hi(r.Dst, r.DstLen), Sport: r.SportLo, Dport: r.DportHi, Proto: proto, Label: i},
			rules.ClassBenchHeader{Src: hi(r.Src, r.SrcLen), Dst: lo(r.Dst, r.DstLen), Sport: r.SportHi, Dport: r.DportLo, Proto: proto, Label: i})
	}
	return hs
}

// TestClassBench checks every ClassBench set and trace: the classifier
// answers what the range-aware oracle answers, and the trace's label
// matches and is not before the answer.
func TestClassBench(t *testing.T) {
	for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterCuckoo, rules.FilterNone} {
		for _, set := range cbSets {
			t.Run(fmt.Sprintf("%s/%s", kind, filepath.Base(set.rules)), func(t *testing.T) {
				if kind != rules.FilterBloomCuckoo && (raceEnabled || testing.Short()) && !strings.HasSuffix(set.rules, "1k") {
					t.Skip("large sets run with bcf only under -race/-short")
				}
				rs, p, ex := loadCB(t, set.rules, &rules.Config{Filter: kind, Seed: 1})
				t.Logf("%d rules -> %d entries (x%.2f, max %d per rule), %d subtables",
					ex.Rules, ex.Entries, ex.Factor(), ex.MaxPer, p.Table(0).Stats().Subtables)
				var hs []rules.ClassBenchHeader
				if set.trace != "" {
					var err error
					hs, err = rules.ParseClassBenchTrace(set.trace, readCB(t, set.trace))
					if err != nil {
						t.Fatal(err)
					}
				} else {
					hs = cornerHeaders(rs)
				}
				limit := len(hs)
				if raceEnabled || testing.Short() {
					limit = min(limit, 1000)
				} else if kind != rules.FilterBloomCuckoo {
					limit = min(limit, 10000)
				}
				stride := max(1, len(hs)/limit)
				orc := &oracle.ClassBench{Rules: rs}
				tbl := p.Table(0)
				var c rules.Counters
				checked, fails := 0, 0
				for i := 0; i < len(hs); i += stride {
					h := &hs[i]
					k := h.Key()
					got := -1
					if r := tbl.LookupCount(&k, &c); r != nil {
						got = r.ID
					}
					want := orc.First(h)
					checked++
					bad := got != want
					if set.trace != "" {
						bad = bad || !oracle.Matches(&rs[h.Label], h) || got > h.Label || got < 0
					}
					if bad {
						fails++
						if fails <= 5 {
							t.Errorf("%s line %d: classifier %d, oracle %d, label %d", set.trace, h.Line, got, want, h.Label)
						}
					}
				}
				if fails > 0 {
					t.Fatalf("%d of %d headers fail", fails, checked)
				}
				if checked == 0 {
					t.Fatal("no headers checked")
				}
				t.Logf("%d headers ok; per lookup: %.1f subtables visited, %.2f probes, %.3f false positives",
					checked, float64(c.Visited)/float64(c.Lookups), float64(c.Probes)/float64(c.Lookups), float64(c.FalsePositives)/float64(c.Lookups))
			})
		}
	}
}

// TestClassBenchBatch checks LookupBatch against Lookup on a trace.
func TestClassBenchBatch(t *testing.T) {
	_, p, _ := loadCB(t, "lyxocs-ruleSet/fw1_1k", nil)
	hs, err := rules.ParseClassBenchTrace("fw1_1k_trace", readCB(t, "lyxocs-ruleSet/fw1_1k_trace"))
	if err != nil {
		t.Fatal(err)
	}
	tbl := p.Table(0)
	keys := make([]rules.Key, len(hs))
	for i := range hs {
		keys[i] = hs[i].Key()
	}
	out := make([]*rules.Rule, len(keys))
	for _, n := range []int{1, 7, 32, 100} {
		for i := 0; i+n <= len(keys); i += n * 13 {
			tbl.LookupBatch(keys[i:i+n], out[i:i+n])
			for j := i; j < i+n; j++ {
				if want := tbl.Lookup(&keys[j]); out[j] != want {
					t.Fatalf("batch of %d, key %d: batch %v, single %v", n, j, out[j], want)
				}
			}
		}
	}
}

func TestExpandPortRange(t *testing.T) {
	for _, tt := range []struct {
		lo, hi uint16
		n      int
	}{{0, 65535, 1}, {80, 80, 1}, {1024, 65535, 6}, {1025, 65535, 15}, {1600, 1649, 3}, {20, 23, 1}, {1, 65534, 30}} {
		ps := rules.ExpandPortRange(tt.lo, tt.hi)
		if len(ps) != tt.n {
			t.Errorf("%d:%d: %d prefixes, want %d (%v)", tt.lo, tt.hi, len(ps), tt.n, ps)
		}
		// Every port is covered exactly when in range.
		for port := 0; port < 65536; port += 1 + port%7 {
			n := 0
			for _, p := range ps {
				if uint16(port)&p.Mask == p.Value {
					n++
				}
			}
			in := uint16(port) >= tt.lo && uint16(port) <= tt.hi
			if in && n != 1 || !in && n != 0 {
				t.Fatalf("%d:%d: port %d covered %d times", tt.lo, tt.hi, port, n)
			}
		}
	}
	if ps := rules.ExpandPortRange(1024, 65535); ps[0] != (rules.PortPrefix{Value: 0x400, Mask: 0xfc00}) || ps[5] != (rules.PortPrefix{Value: 0x8000, Mask: 0x8000}) {
		t.Errorf("1024:65535 = %v", ps)
	}
}

func TestParseClassBenchErrors(t *testing.T) {
	for _, tt := range []struct {
		in        string
		line, col int
	}{
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\t\n", 0, 0},
		{"\n1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n", 2, 1},
		{"@1.2.3.400/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n", 1, 8},
		{"@1.2.3.4/33\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n", 1, 10},
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 70\t0x06/0xFF\t0x0000/0x0000\n", 1, 39},
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 80\t0x06/0xFF\t0x0000/0x0000\n", 1, 37},
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\n", 1, 51},
	} {
		_, err := rules.ParseClassBench("f", []byte(tt.in))
		if tt.line == 0 {
			if err != nil {
				t.Errorf("%q: %v", tt.in, err)
			}
			continue
		}
		var pe *rules.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, rules.ErrSyntax) {
			t.Fatalf("%q: err = %v, want a ParseError", tt.in, err)
		}
		if pe.Line != tt.line || pe.Col != tt.col || pe.File != "f" {
			t.Errorf("%q: error at %s:%d:%d (%v), want line %d col %d", tt.in, pe.File, pe.Line, pe.Col, err, tt.line, tt.col)
		}
	}
	_, err := rules.ParseClassBenchTrace("tr", []byte("1\t2\t3\t4\t6\t0\t5\n1\t2\t3\t70000\t6\t0\t5\n"))
	var pe *rules.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 7 {
		t.Errorf("trace error = %v, want line 2 col 7", err)
	}
}

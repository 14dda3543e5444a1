package dataplane

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/oracle"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// oracleHits replays c through a linear-scan oracle holding ups (table 0
// and, through goto_table and write_metadata, later tables) and returns
// the packets per (table, flow ID) and the table misses.
func oracleHits(t *testing.T, c *Capture, tables int, ups []rules.Update) (map[[2]int]uint64, uint64) {
	t.Helper()
	o := oracle.NewFlows(tables)
	for i := range ups {
		if _, err := o.Apply(&ups[i], timeZero); err != nil {
			t.Fatalf("oracle: flow %d: %v", ups[i].ID, err)
		}
	}
	hits := map[[2]int]uint64{}
	var misses uint64
	p := NewParser()
	var k rules.Key
	for i := 0; i < c.Len(); i++ {
		h, ok := p.Parse(c.Frame(i), c.Link(i), uint32(c.Iface[i])+1)
		if !ok {
			continue
		}
		h.Key(&k)
		for tb := uint8(0); ; {
			e := o.Lookup(tb, &k)
			if e == nil {
				misses++
				break
			}
			hits[[2]int{int(tb), e.ID}]++
			next := tb
			for _, in := range e.Instructions {
				switch in.Kind {
				case rules.InstApplyActions:
					for _, a := range in.Actions {
						if a.Kind == rules.ActionSetField && slices.ContainsFunc(e.Instructions, func(i rules.Instruction) bool { return i.Kind == rules.InstGotoTable }) {
							t.Fatalf("flow %d: the oracle does not model set_field before goto_table", e.ID)
						}
					}
				case rules.InstWriteMetadata:
					k[4] = k[4]&^in.MetadataMask | in.Metadata&in.MetadataMask
				case rules.InstGotoTable:
					next = in.Table
				}
			}
			if next == tb {
				break
			}
			tb = next
		}
	}
	return hits, misses
}

// TestGoldenRuleHits replays every committed capture and the demo capture
// against the demo rule set on two workers, with each filter kind, and
// requires per-rule hit counts and table misses equal to the oracle's.
func TestGoldenRuleHits(t *testing.T) {
	caps := []*Capture{mustLoad(t, "mix.pcap"), mustLoad(t, "vlan-2if.pcapng"), mustLoad(t, "malformed.pcap"), demoCapture(t)}
	ups, errs := ofctl.ParseFlows("demo.flows", demoFlows(t), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var report strings.Builder
	for _, c := range caps {
		want, wantMiss := oracleHits(t, c, 2, ups)
		if len(want) < 8 {
			t.Errorf("%s: only %d rules hit; the rule set does not exercise the capture", c.Name, len(want))
		}
		for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterCuckoo, rules.FilterNone} {
			pipe, err := rules.New(&rules.Config{Tables: 2, Filter: kind})
			if err != nil {
				t.Fatal(err)
			}
			if res := pipe.ApplyBurst(ups, true); slices.ContainsFunc(res.Errs, func(e error) bool { return e != nil }) {
				t.Fatal(res.Errs)
			}
			sw := NewSwitch(pipe, &Config{Workers: 2, Ports: []uint32{1, 2}})
			if err := sw.Replay(t.Context(), []*Capture{c}, nil); err != nil {
				t.Fatal(err)
			}
			got := map[[2]int]uint64{}
			for tb := range 2 {
				for _, r := range pipe.Rules(uint8(tb)) {
					if n := r.Packets(); n > 0 {
						got[[2]int{tb, r.ID}] = n
					}
				}
			}
			st := sw.Stats()
			for key, n := range want {
				if got[key] != n {
					t.Errorf("%s %v: table %d flow line %d: %d hits, oracle %d", c.Name, kind, key[0], key[1], got[key], n)
				}
			}
			for key, n := range got {
				if _, ok := want[key]; !ok {
					t.Errorf("%s %v: table %d flow line %d: %d hits, oracle none", c.Name, kind, key[0], key[1], n)
				}
			}
			if st.Misses != wantMiss {
				t.Errorf("%s %v: %d misses, oracle %d", c.Name, kind, st.Misses, wantMiss)
			}
			if kind == rules.FilterBloomCuckoo {
				keys := make([][2]int, 0, len(got))
				for k := range got {
					keys = append(keys, k)
				}
				slices.SortFunc(keys, func(a, b [2]int) int { return (a[0]-b[0])*1000 + a[1] - b[1] })
				fmt.Fprintf(&report, "%s: misses=%d", filepath.Base(c.Name), st.Misses)
				for _, k := range keys {
					fmt.Fprintf(&report, " %d:%d=%d", k[0], k[1], got[k])
				}
				report.WriteString("\n")
			}
		}
	}
	readme, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(report.String()), "\n") {
		if !strings.Contains(string(readme), line+"\n") {
			t.Errorf("testdata/pcaps/README.md lacks the line\n%s", line)
		}
	}
}

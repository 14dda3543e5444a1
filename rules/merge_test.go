package rules_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// TestClassBenchMergeChurn loads ClassBench sets with the default merge
// limit and with small ones (so that rules overflow into other merged
// subtables and into their own masks), deletes every rule of odd index
// and then adds them back, and after each step checks every header of the
// trace against a linear scan of the rules then present.
func TestClassBenchMergeChurn(t *testing.T) {
	sets := []cbSet{cbSets[1], cbSets[2]} // fw1_1k, ipc1_1k
	for _, set := range sets {
		for _, limit := range []int{0, 3, 8} {
			t.Run(fmt.Sprintf("%s/limit=%d", filepath.Base(set.rules), limit), func(t *testing.T) {
				rs, err := classbench.Parse(set.rules, readCB(t, set.rules))
				if err != nil {
					t.Fatal(err)
				}
				hs, err := classbench.ParseTrace(set.trace, readCB(t, set.trace))
				if err != nil {
					t.Fatal(err)
				}
				if raceEnabled || testing.Short() {
					hs = hs[:min(len(hs), 1000)]
				}
				p, err := rules.New(&rules.Config{NoPrereqs: true, Filter: rules.FilterBloomCuckoo, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				if limit > 0 {
					rules.SetMergeLimit(p, limit)
				}
				ups, _ := classbench.TupleUpdates(rs, 0, nil)
				live := make([]bool, len(rs))
				apply := func(cmd rules.Command, odd bool) {
					var burst []rules.Update
					for _, u := range ups {
						if odd && u.ID%2 == 0 {
							continue
						}
						u.Command = cmd
						burst = append(burst, u)
						live[u.ID] = cmd == rules.CmdAdd
					}
					for i, err := range p.ApplyBurst(burst, true).Errs {
						if err != nil {
							t.Fatalf("%v of rule %d: %v", cmd, burst[i].ID, err)
						}
					}
				}
				check := func(step string) {
					tbl := p.Table(0)
					if st := tbl.Stats(); st.Flows != countEntries(ups, live) {
						t.Fatalf("%s: %d flows, want %d", step, st.Flows, countEntries(ups, live))
					}
					for i := range hs {
						h := &hs[i]
						k := h.Key()
						got := -1
						if r := tbl.Lookup(&k); r != nil {
							got = r.ID
						}
						want := -1
						for j := range rs {
							if live[j] && rs[j].MatchesHeader(h) {
								want = j
								break
							}
						}
						if got != want {
							t.Fatalf("%s: %s line %d: classifier %d, linear scan %d", step, set.trace, h.Line, got, want)
						}
					}
					t.Logf("%s: %d subtables", step, tbl.Stats().Subtables)
				}
				apply(rules.CmdAdd, false)
				check("loaded")
				apply(rules.CmdDeleteStrict, true)
				check("odd rules deleted")
				apply(rules.CmdAdd, true)
				check("odd rules added back")
				// Adding every entry again replaces each in place: identical
				// must find it wherever link put it.
				apply(rules.CmdAdd, false)
				check("all added again")
			})
		}
	}
}

func countEntries(ups []rules.Update, live []bool) int {
	n := 0
	for _, u := range ups {
		if live[u.ID] {
			n++
		}
	}
	return n
}

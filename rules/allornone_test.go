package rules_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func flowMods(t *testing.T, text string) []rules.Update {
	t.Helper()
	ups, _, err := ofctl.ParseFlowMods("t", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ups
}

// dump returns every rule of p as ovs-ofctl prints it, sorted, with the
// packet counts lookups gave it.
func dump(p *rules.Pipeline) []string {
	var out []string
	for tb := range p.NumTables() {
		for _, r := range p.Rules(uint8(tb)) {
			out = append(out, ofctl.FormatRule(r, time.Time{}))
		}
	}
	slices.Sort(out)
	return out
}

// TestApplyAllToUndoes checks that a burst whose last update fails leaves
// the tables as they were: adds, modifies (of existing and fresh rules)
// and deletes are taken back, counters and timeouts kept, no records
// returned, and lookups at the new version see the old rules.
func TestApplyAllToUndoes(t *testing.T) {
	for _, recycle := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "recycle"}[recycle], func(t *testing.T) {
			testApplyAllToUndoes(t, recycle)
		})
	}
}

func testApplyAllToUndoes(t *testing.T, recycle bool) {
	p, err := rules.New(&rules.Config{Tables: 2, Recycle: recycle})
	if err != nil {
		t.Fatal(err)
	}
	base := flowMods(t, `
add priority=10,in_port=1,actions=output:2
add priority=10,in_port=2,hard_timeout=60,send_flow_rem,actions=output:1
add priority=10,in_port=3,actions=output:1
`)
	if res := p.ApplyBurst(base, true); countErr(res.Errs) != 0 {
		t.Fatal(res.Errs)
	}
	var k rules.Key
	k.Set(rules.FieldInPort, 2)
	r := p.Table(0).Lookup(&k)
	r.Hit(100) // one packet of 100 bytes
	before := dump(p)
	bundle := flowMods(t, `
add priority=20,in_port=4,actions=output:1
modify in_port=1,actions=output:3
add priority=30,in_port=5,actions=output:1
delete in_port=5
delete in_port=2
add priority=10,in_port=3,actions=output:4
add table=1,priority=1,actions=goto_table:1
`)
	var res rules.BurstResult
	hooked := false
	v := p.Version()
	at := p.ApplyAllTo(&res, bundle, nil, func() error { hooked = true; return nil })
	if at != len(bundle)-1 || hooked {
		t.Fatalf("failed at %d (hook %v), want %d without the hook", at, hooked, len(bundle)-1)
	}
	var re *rules.Error
	if !errors.As(res.Errs[at], &re) || re.Code != rules.BadInstBadTableID {
		t.Fatalf("error %v, want OFPBIC_BAD_TABLE_ID", res.Errs[at])
	}
	if n := countErr(res.Errs); n != 1 || len(res.Removed) != 0 {
		t.Fatalf("%d errors, %d records; want 1 and none", n, len(res.Removed))
	}
	if p.Version() == v {
		t.Fatal("a failed burst published nothing: the copies must become visible")
	}
	if got := dump(p); !slices.Equal(got, before) {
		t.Fatalf("after a failed burst:\n%q\nwant\n%q", got, before)
	}
	if r := p.Table(0).Lookup(&k); r == nil || r.Packets() != 1 || r.HardTimeout != 60 {
		t.Fatalf("in_port=2 after the undo: %+v", r)
	}
	// The same burst without its bad update takes effect whole, the
	// hook running before publication.
	res = rules.BurstResult{}
	// A hook that fails undoes a burst whose updates all passed.
	if at := p.ApplyAllTo(&res, bundle[:len(bundle)-1], nil, func() error { return errors.New("later message") }); at != len(bundle)-1 {
		t.Fatalf("failing hook: ApplyAllTo returned %d, want %d", at, len(bundle)-1)
	}
	if got := dump(p); !slices.Equal(got, before) {
		t.Fatalf("after a failing hook:\n%q\nwant\n%q", got, before)
	}
	at = p.ApplyAllTo(&res, bundle[:len(bundle)-1], nil, func() error {
		hooked = true
		if p.Table(0).Lookup(&k) == nil {
			t.Error("the hook ran after publication")
		}
		return nil
	})
	if at != -1 || !hooked || countErr(res.Errs) != 0 {
		t.Fatalf("failed at %d, hook %v, errors %v", at, hooked, res.Errs)
	}
	if len(res.Removed) != 1 || p.Table(0).Lookup(&k) != nil {
		t.Fatalf("records %d, want 1 (in_port=2 deleted)", len(res.Removed))
	}
	want := []string{
		" priority=10,in_port=1 actions=output:3",
		" priority=10,in_port=3 actions=output:4",
		" priority=20,in_port=4 actions=output:1",
	}
	for i, l := range dump(p) {
		if i >= len(want) || !contains(l, want[i]) {
			t.Fatalf("after the burst: %q, want %q", dump(p), want)
		}
	}
}

func countErr(errs []error) int {
	n := 0
	for _, e := range errs {
		if e != nil {
			n++
		}
	}
	return n
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestDeleteByMeter checks the Meter selector of a DELETE.
func TestDeleteByMeter(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 1})
	if err != nil {
		t.Fatal(err)
	}
	p.SetMeterCheck(func(uint32) bool { return true })
	ups := flowMods(t, `
add priority=1,in_port=1,actions=meter:1,output:2
add priority=1,in_port=2,actions=meter:2,output:2
add priority=1,in_port=3,actions=output:2
`)
	ups = append(ups, rules.Update{Command: rules.CmdDelete, Table: rules.TableAll, Meter: 1})
	if res := p.ApplyBurst(ups, true); countErr(res.Errs) != 0 {
		t.Fatal(res.Errs)
	}
	if got := dump(p); len(got) != 2 || contains(got[0], "meter:1") || contains(got[1], "meter:1") {
		t.Fatalf("after deleting meter 1's flows: %q", got)
	}
}

// TestApplyAllToRandom checks ApplyAllTo against ApplyBurstTo on random
// bursts over a small key space (so that adds replace, modifies and
// deletes select several rules, and rules come and go in one burst): a
// burst that succeeds leaves the same tables as ApplyBurstTo's, and the
// same burst with a failing update appended leaves the tables as they
// were, lookups included.
func TestApplyAllToRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	update := func() rules.Update {
		var u rules.Update
		u.Command = []rules.Command{rules.CmdAdd, rules.CmdAdd, rules.CmdModify, rules.CmdModifyStrict, rules.CmdDelete, rules.CmdDeleteStrict}[rng.IntN(6)]
		if rng.IntN(3) > 0 {
			u.Match.SetExact(rules.FieldInPort, uint64(rng.IntN(4)+1))
		}
		if rng.IntN(2) == 0 {
			u.Match.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		}
		u.Priority = uint16(rng.IntN(3))
		u.HardTimeout = uint16(rng.IntN(2) * 100)
		u.OutPort, u.OutGroup = rules.PortAny, rules.GroupAny
		if u.Command == rules.CmdDelete || u.Command == rules.CmdDeleteStrict {
			u.Table = uint8(rng.IntN(2))
		} else {
			u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: uint32(rng.IntN(5) + 1)}}}}
		}
		return u
	}
	bad := rules.Update{Command: rules.CmdAdd, Table: 0, Instructions: []rules.Instruction{{Kind: rules.InstGotoTable, Table: 0}}}
	for _, recycle := range []bool{false, true} {
		a, _ := rules.New(&rules.Config{Tables: 2, Recycle: recycle})
		b, _ := rules.New(&rules.Config{Tables: 2, Recycle: recycle})
		var ra, rb rules.BurstResult
		for round := range 300 {
			ups := make([]rules.Update, rng.IntN(12)+1)
			for i := range ups {
				ups[i] = update()
			}
			before := dump(a)
			var keys []rules.Key
			var hits []*rules.Rule
			for port := range 5 {
				var k rules.Key
				k.Set(rules.FieldInPort, uint64(port))
				k.Set(rules.FieldEthType, rules.EthTypeIPv4)
				keys = append(keys, k)
				hits = append(hits, a.Table(0).Lookup(&k))
			}
			if at := a.ApplyAllTo(&ra, append(slices.Clone(ups), bad), nil, nil); at != len(ups) {
				t.Fatalf("round %d: failed at %d, want %d", round, at, len(ups))
			}
			if got := dump(a); !slices.Equal(got, before) {
				t.Fatalf("round %d (recycle %v): a failed burst changed the tables:\n%q\nwant\n%q", round, recycle, got, before)
			}
			for i := range keys {
				r := a.Table(0).Lookup(&keys[i])
				if (r == nil) != (hits[i] == nil) || r != nil && (r.Priority != hits[i].Priority || r.Match != hits[i].Match) {
					t.Fatalf("round %d: lookup %d after the undo: %v, want %v", round, i, r, hits[i])
				}
			}
			if at := a.ApplyAllTo(&ra, ups, nil, nil); at >= 0 {
				t.Fatalf("round %d: failed at %d: %v", round, at, ra.Errs[at])
			}
			b.ApplyBurstTo(&rb, ups, true, nil)
			if got, want := dump(a), dump(b); !slices.Equal(got, want) {
				var extra, missing []string
				for _, g := range got {
					if !slices.Contains(want, g) {
						extra = append(extra, g)
					}
				}
				for _, w := range want {
					if !slices.Contains(got, w) {
						missing = append(missing, w)
					}
				}
				t.Fatalf("round %d (recycle %v): ApplyAllTo left %d flows, ApplyBurstTo %d; extra %q missing %q; ups %v", round, recycle, len(got), len(want), extra, missing, ups)
			}
			if len(ra.Removed) != len(rb.Removed) {
				t.Fatalf("round %d: %d records, ApplyBurstTo %d", round, len(ra.Removed), len(rb.Removed))
			}
			a.Expire()
			b.Expire()
		}
	}
}

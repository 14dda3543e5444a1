package rules_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// TestRecycleConcurrent: lookups through Readers on three goroutines while
// bursts of adds, deletes and modifies recycle the memory of what they
// remove. Every answer must be the oracle's at the version the lookup read,
// and every rule found must keep its fields for as long as its reader
// stays entered: one reader holds its answers across 16 rounds of lookups
// (and bursts) and checks them again after every round. The pipeline poisons
// what it reclaims, so a rule reused under a reader that still held it
// fails the checks, and under -race the poisoning writes race with the
// reader's reads.
func TestRecycleConcurrent(t *testing.T) {
	for _, ua := range []time.Duration{-1, 50 * time.Microsecond} {
		t.Run(fmt.Sprintf("unlink-after=%v", ua), func(t *testing.T) { testRecycleConcurrent(t, ua) })
	}
}

func testRecycleConcurrent(t *testing.T, unlinkAfter time.Duration) {
	rounds := 400
	if raceEnabled {
		rounds = 100
	}
	p, o, snaps, record := newOracled(t, &rules.Config{FilterBuckets: 4, Seed: 3, UnlinkAfter: unlinkAfter, Recycle: true})
	rules.Poison(p)
	rng := rand.New(rand.NewPCG(7, 8))
	keys := make([]rules.Key, 64)
	for i := range keys {
		keys[i] = randKey(rng)
	}
	// held is what a reader saw of a rule when it found it.
	type held struct {
		r   *rules.Rule
		m   rules.Match
		pri uint16
		seq uint64
	}
	changed := func(h held) bool { return h.r.Match != h.m || h.r.Priority != h.pri || h.r.Seq() != h.seq }
	ck := newCheckers(3)
	for g := range 3 {
		rd := p.NewReader()
		ck.wg.Go(func() {
			defer rd.Close()
			var c rules.Counters
			out := make([]*rules.Rule, 8)
			var hold []held
			for i := 0; !ck.stop.Load(); i++ {
				// Reader 0 enters once in 16 rounds and holds
				// what it finds in between.
				if g != 0 || i%16 == 0 {
					rd.Enter()
				}
				ks := keys[(i*8+g)%56:][:8]
				v := p.Table(0).LookupBatch(ks, out, &c)
				for j := range ks {
					want, ok := snaps.want(v, &ks[j])
					if !ok {
						break // published before it was recorded
					}
					got := out[j]
					if !sameAnswer(got, want) {
						ck.errc <- fmt.Errorf("reader %d: version %d key %v: got %+v, oracle %+v", g, v, ks[j], got, want)
						return
					}
					ck.checked.Add(1)
					if got != nil && g == 0 {
						hold = append(hold, held{got, got.Match, got.Priority, got.Seq()})
					}
				}
				if g == 0 && i%16 != 15 {
					// A pause of up to 1 ms, and the held rules
					// must be as they were.
					time.Sleep(time.Duration(i%3) * 500 * time.Microsecond)
					for _, h := range hold {
						if changed(h) {
							ck.errc <- fmt.Errorf("reader 0: a rule it holds changed: now %v pri %d seq %d, was %v pri %d seq %d",
								h.r.Match, h.r.Priority, h.r.Seq(), h.m, h.pri, h.seq)
							return
						}
					}
					continue
				}
				hold = hold[:0]
				rd.Leave()
			}
		})
	}
	for range rounds {
		ups := make([]rules.Update, 1+rng.IntN(24))
		for i := range ups {
			u := randUpdate(rng, 1)
			u.Flags &^= rules.FlagCheckOverlap | rules.FlagSendFlowRem
			u.IdleTimeout, u.HardTimeout = 0, 0
			ups[i] = u
		}
		p.ApplyBurst(ups, true)
		for i := range ups {
			o.Apply(&ups[i], time.Time{})
		}
		record()
		if rng.IntN(4) == 0 {
			time.Sleep(100 * time.Microsecond)
			p.Rebalance(64) // unlinks and recycles, as the idle maintenance does
		}
	}
	ck.done(t)
	if p.Recycled() == 0 {
		t.Fatal("nothing was recycled")
	}
	t.Logf("%d lookups checked against %d versions; %d rules and nodes recycled", ck.checked.Load(), snaps.len(), p.Recycled())
}

// TestReaderHoldsBack: a rule a reader found is not reused while the
// reader stays entered, even after it is deleted and unlinked and adds
// need memory; once the reader leaves, the next burst reclaims it and an
// add reuses its memory.
func TestReaderHoldsBack(t *testing.T) {
	p, err := rules.New(&rules.Config{Recycle: true, UnlinkAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	adds, keys := exactAddsKeys(8, 0)
	mustApplyAll(t, p, adds)
	rd := p.NewReader()
	defer rd.Close()
	rd.Enter()
	held := p.Table(0).Lookup(&keys[3])
	if held == nil {
		t.Fatal("flow 3 not found")
	}
	m, pri := held.Match, held.Priority
	mustApplyAll(t, p, []rules.Update{{Command: rules.CmdDeleteStrict, Match: adds[3].Match, Priority: adds[3].Priority}})
	more, _ := exactAddsKeys(8, 100)
	mustApplyAll(t, p, more)
	if n := p.Recycled(); n != 0 {
		t.Fatalf("%d rules and nodes recycled while a reader held one", n)
	}
	if held.Match != m || held.Priority != pri {
		t.Fatal("the held rule changed")
	}
	rd.Leave()
	mustApplyAll(t, p, nil) // a burst: the writer looks at its readers again
	if n := p.Recycled(); n != 2 {
		t.Fatalf("%d rules and nodes recycled after the reader left, want 2 (a rule and its node)", n)
	}
	again, akeys := exactAddsKeys(1, 200)
	mustApplyAll(t, p, again)
	if r := p.Table(0).Lookup(&akeys[0]); r != held {
		t.Fatalf("the next add took new memory (%p), not the recycled rule's (%p)", r, held)
	}
	if held.Match != again[0].Match {
		t.Fatal("the reused rule does not carry the new flow's match")
	}
}

// TestRecycleAllocs: with Recycle, a table whose flows are deleted and
// added again takes no new memory for their rules and nodes; without it
// every add does.
func TestRecycleAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	adds, _ := exactAddsKeys(256, 0)
	dels := make([]rules.Update, len(adds))
	for i, u := range adds {
		dels[i] = rules.Update{Command: rules.CmdDeleteStrict, Match: u.Match, Priority: u.Priority}
	}
	for _, recycle := range []bool{false, true} {
		p, err := rules.New(&rules.Config{Recycle: recycle, UnlinkAfter: -1})
		if err != nil {
			t.Fatal(err)
		}
		// A flow of the same mask stays, so that its subtable does
		// too: a subtable emptied is dropped and made again.
		base, _ := exactAddsKeys(1, 1000)
		mustApplyAll(t, p, base)
		mustApplyAll(t, p, adds)
		mustApplyAll(t, p, dels)
		// The results go into one BurstResult, as a switch keeps one
		// per connection: its error slice is made once.
		var res rules.BurstResult
		costs := make([]rules.UpdateCost, len(adds))
		n := testing.AllocsPerRun(20, func() {
			p.ApplyBurstTo(&res, adds, true, costs)
			p.ApplyBurstTo(&res, dels, false, nil)
		})
		if countErrs(res.Errs) != 0 || len(res.Errs) != len(dels) || costs[0].Time <= 0 {
			t.Fatalf("%d errors of %d, first update cost %v", countErrs(res.Errs), len(res.Errs), costs[0].Time)
		}
		if recycle && n != 0 {
			t.Errorf("recycling: %v allocations per 256 adds and deletes, want none", n)
		}
		if !recycle && n < 10 {
			t.Errorf("without recycling: %v allocations per 256 adds and deletes, want 10 or more (the check above would prove nothing)", n)
		}
		t.Logf("recycle=%v: %v allocations per 256 adds and deletes", recycle, n)
	}
}

// exactAddsKeys returns n exact 5-tuple adds from offset on, and a key each
// matches.
func exactAddsKeys(n, offset int) ([]rules.Update, []rules.Key) {
	ups := exactAdds(n, offset)
	keys := make([]rules.Key, n)
	for i := range ups {
		keys[i] = ups[i].Match.Key
	}
	return ups, keys
}

func mustApplyAll(t *testing.T, p *rules.Pipeline, ups []rules.Update) {
	t.Helper()
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
}

func countErrs(errs []error) int {
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
		}
	}
	return n
}

// TestReplacementsConcurrent: lookups on three goroutines while bursts
// replace a handful of flows over and over (adds and strict modifies of
// the same matches, with a new output port each time, and now and then a
// strict delete), in atomic bursts and in bursts of one update published
// one after the other (whose removed versions pile up in the flows' nodes
// within Config.UnlinkAfter). Node copies then leave out removed versions
// early (see rules.Table's prunable); every answer must still be the
// oracle's at the version the lookup read, to the output port.
func TestReplacementsConcurrent(t *testing.T) {
	rounds := 1000
	if raceEnabled {
		rounds = 400
	}
	p, o, snaps, record := newOracled(t, &rules.Config{FilterBuckets: 4, Seed: 5, Recycle: true})
	rules.Poison(p)
	rng := rand.New(rand.NewPCG(9, 10))
	// Four flows: two matches at two priorities, so that their versions
	// share nodes with each other's.
	var pool []rules.Update
	for i := range 2 {
		var m rules.Match
		m.Set(rules.FieldEthType, 0x0800, rules.FieldEthType.FullMask())
		m.SetPrefix(rules.FieldIPv4Dst, 0x0a000000|uint64(i)<<8, 24)
		for _, pri := range []uint16{100, 200} {
			pool = append(pool, rules.Update{Match: m, Priority: pri})
		}
	}
	keys := make([]rules.Key, 8)
	for i := range keys {
		keys[i].Set(rules.FieldEthType, 0x0800)
		keys[i].Set(rules.FieldIPv4Dst, 0x0a000000|uint64(i%2)<<8|uint64(i))
	}
	port := func(r []rules.Instruction) uint32 {
		if len(r) == 0 || len(r[0].Actions) == 0 {
			return 0
		}
		return r[0].Actions[0].Port
	}
	ck := newCheckers(3)
	for g := range 3 {
		rd := p.NewReader()
		ck.wg.Go(func() {
			defer rd.Close()
			var c rules.Counters
			out := make([]*rules.Rule, len(keys))
			for !ck.stop.Load() {
				rd.Enter()
				v := p.Table(0).LookupBatch(keys, out, &c)
				for j := range keys {
					want, ok := snaps.want(v, &keys[j])
					if !ok {
						break // published before it was recorded
					}
					got := out[j]
					if !sameAnswer(got, want) || got != nil && port(got.Instructions) != port(want.Instructions) {
						ck.errc <- fmt.Errorf("reader %d: version %d key %v: got %+v, oracle %+v", g, v, keys[j], got, want)
						rd.Leave()
						return
					}
					ck.checked.Add(1)
				}
				rd.Leave()
			}
		})
	}
	next := uint32(1)
	update := func() rules.Update {
		u := pool[rng.IntN(len(pool))]
		u.Command = [...]rules.Command{rules.CmdAdd, rules.CmdAdd, rules.CmdModifyStrict, rules.CmdDeleteStrict}[rng.IntN(4)]
		next = next%1000 + 1
		u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: next}}}}
		return u
	}
	for round := range rounds {
		if round%2 == 0 {
			ups := make([]rules.Update, 1+rng.IntN(64))
			for i := range ups {
				ups[i] = update()
			}
			p.ApplyBurst(ups, true)
			for i := range ups {
				o.Apply(&ups[i], time.Time{})
			}
			record()
			continue
		}
		for range 1 + rng.IntN(16) {
			u := update()
			p.ApplyBurst([]rules.Update{u}, false)
			o.Apply(&u, time.Time{})
			record()
		}
		if rng.IntN(8) == 0 {
			time.Sleep(100 * time.Microsecond)
			p.Rebalance(64)
		}
	}
	ck.done(t)
	unseen, seen := rules.LeftOut(p)
	if unseen == 0 || seen == 0 {
		t.Errorf("node copies left out %d removed rules no lookup could see and %d whose removal was published: the test misses a path", unseen, seen)
	}
	t.Logf("%d lookups checked against %d versions; %d and %d removed rules left out of node copies", ck.checked.Load(), snaps.len(), unseen, seen)
}

// TestRecycleModifyChurn: with Recycle, a table of a constant number of
// flows modified over and over (and deleted and added back) holds the
// same memory however long it goes on: each version's rule comes from the
// slab and goes back to it, and so does the slot of the counters the
// versions share, once the last version that uses them goes. Before, a
// MODIFY made a rule of its own and kept its predecessor's slot for good,
// pinning slab chunks whose other slots were reused: the live heap grew
// with every round.
func TestRecycleModifyChurn(t *testing.T) {
	if raceEnabled {
		t.Skip("heap sizes are not meaningful under -race")
	}
	adds, keys := exactAddsKeys(2048, 0)
	p, err := rules.New(&rules.Config{Recycle: true, UnlinkAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := exactAddsKeys(1, 1000) // keeps the subtable
	mustApplyAll(t, p, base)
	mustApplyAll(t, p, adds)
	mods := make([][]rules.Update, 4)
	for i := range mods {
		mods[i] = make([]rules.Update, len(adds))
		for j, u := range adds {
			mods[i][j] = rules.Update{Command: rules.CmdModifyStrict, Match: u.Match, Priority: u.Priority,
				Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: uint32(i + 1)}}}}}
			if i == 3 {
				mods[i][j].Flags = rules.FlagResetCounts
			}
		}
	}
	dels := make([]rules.Update, len(adds))
	for i, u := range adds {
		dels[i] = rules.Update{Command: rules.CmdDeleteStrict, Match: u.Match, Priority: u.Priority}
	}
	var res rules.BurstResult
	rng := rand.New(rand.NewPCG(11, 12))
	var mod, del, add []rules.Update
	rounds := func(n int) uint64 {
		for range n {
			// A random half of the flows modified (in two bursts, one
			// atomic), a random quarter deleted and added back.
			for i := range mods {
				mod = mod[:0]
				for j := range adds {
					if rng.IntN(8) == 0 {
						mod = append(mod, mods[i][j])
					}
				}
				p.ApplyBurstTo(&res, mod, i%2 == 0, nil)
				if countErrs(res.Errs) != 0 {
					t.Fatalf("modifies refused: %v", res.Errs)
				}
			}
			del, add = del[:0], add[:0]
			for j := range adds {
				if rng.IntN(4) == 0 {
					del, add = append(del, dels[j]), append(add, adds[j])
				}
			}
			p.ApplyBurstTo(&res, del, true, nil)
			p.ApplyBurstTo(&res, add, true, nil)
		}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := rounds(100)
	after := rounds(1000)
	// 1000 rounds modify about 128,000 flow versions; a 432-byte slot
	// kept for each would be 55 MB.
	if after > before+128<<10 {
		t.Errorf("live heap %d bytes after 100 rounds, %d after 1000 more: it grows", before, after)
	}
	var c rules.Counters
	for i, k := range keys {
		if r, _ := p.Table(0).LookupVersion(&k, &c); r == nil || r.Match != adds[i].Match {
			t.Fatalf("after the rounds, key %v finds %+v, want flow %d", k, r, i)
		}
	}
	t.Logf("live heap %d bytes after 100 rounds, %d after 1000 more", before, after)
}

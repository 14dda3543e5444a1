package rules_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/oracle"
	"github.com/ofswitch/ofswitch/rules"
)

// source is where the random driver gets its choices: a PRNG or fuzz bytes.
type source interface{ IntN(n int) int }

type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) IntN(n int) int {
	if s.i >= len(s.b) {
		return 0
	}
	v := int(s.b[s.i])
	s.i++
	return v % n
}

func (s *byteSource) done() bool { return s.i >= len(s.b) }

// randMatch draws from a small pool of values so that rules overlap, share
// masks and collide on identical matches.
func randMatch(r source) rules.Match {
	var m rules.Match
	switch r.IntN(4) {
	case 0: // L2 only
		if r.IntN(2) == 0 {
			m.SetExact(rules.FieldInPort, uint64(1+r.IntN(3)))
		}
		if r.IntN(2) == 0 {
			m.SetExact(rules.FieldEthDst, uint64(0x020000000000+r.IntN(3)))
		}
	default:
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		if r.IntN(2) == 0 {
			m.SetPrefix(rules.FieldIPv4Src, uint64(10<<24|r.IntN(4)<<8), []int{8, 16, 24, 32}[r.IntN(4)])
		}
		if r.IntN(2) == 0 {
			m.SetPrefix(rules.FieldIPv4Dst, uint64(10<<24|r.IntN(4)), []int{24, 30, 32}[r.IntN(3)])
		}
		if r.IntN(3) > 0 {
			m.SetExact(rules.FieldIPProto, []uint64{6, 17}[r.IntN(2)])
			if r.IntN(2) == 0 {
				m.Set(rules.FieldL4Dst, uint64(80+r.IntN(4)), []uint64{0xffff, 0xfffc, 0xff00}[r.IntN(3)])
			}
		}
		if r.IntN(4) == 0 {
			m.SetExact(rules.FieldInPort, uint64(1+r.IntN(3)))
		}
	}
	return m
}

func randKey(r source) rules.Key {
	var k rules.Key
	k.Set(rules.FieldInPort, uint64(1+r.IntN(3)))
	k.Set(rules.FieldEthDst, uint64(0x020000000000+r.IntN(3)))
	if r.IntN(5) > 0 {
		k.Set(rules.FieldEthType, rules.EthTypeIPv4)
		k.Set(rules.FieldIPv4Src, uint64(10<<24|r.IntN(4)<<8|r.IntN(2)))
		k.Set(rules.FieldIPv4Dst, uint64(10<<24|r.IntN(5)))
		p := []uint64{6, 17, 1}[r.IntN(3)]
		k.Set(rules.FieldIPProto, p)
		if p != 1 {
			k.Set(rules.FieldL4Dst, uint64(78+r.IntN(8)))
			k.Set(rules.FieldL4Src, uint64(r.IntN(6)))
		}
	}
	return k
}

func randUpdate(r source, tables int) rules.Update {
	u := rules.Update{
		Command:  rules.Command(r.IntN(5)),
		Table:    uint8(r.IntN(tables)),
		Match:    randMatch(r),
		Priority: uint16(r.IntN(4) * 100),
		Cookie:   uint64(r.IntN(4)),
	}
	if r.IntN(3) == 0 {
		u.CookieMask = 3
	}
	if u.Command == rules.CmdDelete && r.IntN(4) == 0 {
		u.Table = rules.TableAll
	}
	if r.IntN(3) == 0 {
		u.IdleTimeout = uint16(1 + r.IntN(5))
	}
	if r.IntN(3) == 0 {
		u.HardTimeout = uint16(1 + r.IntN(8))
	}
	for _, f := range []rules.FlowFlags{rules.FlagSendFlowRem, rules.FlagCheckOverlap, rules.FlagResetCounts} {
		if r.IntN(3) == 0 {
			u.Flags |= f
		}
	}
	port := uint32(1 + r.IntN(3))
	if r.IntN(10) == 0 {
		port = 0 // invalid: OFPBAC_BAD_OUT_PORT
	}
	u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: port}}}}
	if r.IntN(4) == 0 {
		u.Instructions = append(u.Instructions, rules.Instruction{Kind: rules.InstGotoTable, Table: uint8(r.IntN(tables + 1))})
	}
	if u.Command == rules.CmdDelete || u.Command == rules.CmdDeleteStrict {
		if r.IntN(3) == 0 {
			u.OutPort = uint32(1 + r.IntN(3))
		}
		if r.IntN(3) == 0 {
			// Delete often goes for everything, so tables drain and refill.
			u.Match = rules.Match{}
		}
	}
	if r.IntN(4) == 0 {
		// Port ranges (Go API only), around the keys' ports: a source
		// range within 0-5, a destination range within 76-89, or both.
		// Without TCP or UDP they break a prerequisite.
		switch r.IntN(3) {
		case 0:
			u.SetPortRange(rules.FieldL4Src, uint16(r.IntN(3)), uint16(2+r.IntN(4)))
		case 1:
			lo := uint16(76 + r.IntN(8))
			u.SetPortRange(rules.FieldL4Dst, lo, lo+uint16(r.IntN(6)))
		default:
			u.SetPortRange(rules.FieldL4Src, 0, uint16(1+r.IntN(4)))
			lo := uint16(76 + r.IntN(8))
			u.SetPortRange(rules.FieldL4Dst, lo, lo+uint16(1+r.IntN(6)))
		}
	}
	if r.IntN(20) == 0 {
		// A match that breaks a prerequisite.
		u.Match.Clear(rules.FieldEthType)
		u.Match.SetExact(rules.FieldIPProto, 6)
	}
	return u
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ea, eb *rules.Error
	return errors.As(a, &ea) && errors.As(b, &eb) && ea.Type == eb.Type && ea.Code == eb.Code
}

type remKey struct {
	m      rules.Match
	pri    uint16
	reason rules.RemovedReason
	pk     uint64
}

// runRandom drives a Pipeline and the oracle with the same operations and
// fails on the first disagreement. With recycle, the pipeline reuses the
// memory of removed rules and nodes (poisoning each as it is reclaimed),
// and removed rules are unlinked in the burst that removes them, so that
// reuse starts at once; the lookups come from the writer's goroutine
// between its calls, which needs no Reader. setup, if any, runs on the new
// pipeline before the first update.
//
// With forced, the tables classify batches subtable by subtable however
// small they are (rules.SetLookupPaths), so that the paths large tables
// take are checked too.
func runRandom(t testing.TB, r source, steps int, kind rules.FilterKind, recycle, forced bool, more func() bool, setup ...func(*rules.Pipeline)) *rules.Pipeline {
	const tables = 3
	clk := &clock{t: time.Unix(1_000_000, 0)}
	cfg := &rules.Config{Tables: tables, Filter: kind, FilterBuckets: 4, Now: clk.now, Seed: 7}
	if recycle {
		cfg.Recycle, cfg.UnlinkAfter = true, -1
	}
	if forced {
		rules.SetLookupPaths(cfg, 1)
	}
	p, err := rules.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if recycle {
		rules.Poison(p)
	}
	for _, f := range setup {
		f(p)
	}
	// Small indexes grow (incrementally, see CheckIndex) at a few flows.
	rules.SmallIndex(p, 16)
	o := oracle.NewFlows(tables)
	type record struct {
		remKey
		r *rules.Rule
	}
	var records []record
	var hits, rangedHits, misses, oks, fails, removed, growing, direct int
	defer func() {
		t.Logf("updates ok %d, refused %d; lookups hit %d (a rule with port ranges %d), missed %d; flow-removed %d; rules and nodes recycled %d; steps with an index growing %d, with a subtable probed without the filter %d",
			oks, fails, hits, rangedHits, misses, removed, p.Recycled(), growing, direct)
	}()
	for step := 0; step < steps && more(); step++ {
		switch op := r.IntN(10); {
		case op < 5: // a burst of updates
			n := 1 + r.IntN(6)
			ups := make([]rules.Update, n)
			for i := range ups {
				ups[i] = randUpdate(r, tables)
			}
			res := p.ApplyBurst(ups, r.IntN(2) == 0)
			var orem []remKey
			for i := range ups {
				rem, oerr := o.Apply(&ups[i], clk.t)
				if !sameErr(res.Errs[i], oerr) {
					t.Fatalf("step %d update %d (%v table %d %v pri %d): err %v, oracle %v", step, i, ups[i].Command, ups[i].Table, ups[i].Match.Key, ups[i].Priority, res.Errs[i], oerr)
				}
				if oerr == nil {
					oks++
				} else {
					fails++
				}
				for _, e := range rem {
					orem = append(orem, remKey{e.Entry.Match, e.Entry.Priority, e.Reason, e.Entry.Packets})
				}
			}
			var got []remKey
			for _, fr := range res.Removed {
				got = append(got, remKey{fr.Rule.Match, fr.Rule.Priority, fr.Reason, fr.Packets})
				records = append(records, record{got[len(got)-1], fr.Rule})
			}
			removed += compareRemoved(t, step, got, orem)
		case op < 9: // lookups, counted as hits
			var (
				bkeys [tables][]rules.Key
				bwant [tables][]*rules.Rule
			)
			for range 4 {
				k := randKey(r)
				tb := uint8(r.IntN(tables))
				got := p.Table(tb).Lookup(&k)
				bkeys[tb], bwant[tb] = append(bkeys[tb], k), append(bwant[tb], got)
				want := o.Lookup(tb, &k)
				if (got == nil) != (want == nil) || got != nil && (got.Match != want.Match || got.Ranges != want.Ranges || got.Priority != want.Priority || got.Seq() != want.Seq || got.Cookie != want.Cookie || got.Instructions[0].Actions[0].Port != want.Instructions[0].Actions[0].Port) {
					t.Fatalf("step %d: table %d key %v: got %+v, oracle %+v", step, tb, k, got, want)
				}
				if got == nil {
					misses++
				} else {
					hits++
					if !got.Ranges.IsZero() {
						rangedHits++
					}
					got.Hit(64)
					o.Hit(want)
					if got.Packets() != want.Packets {
						t.Fatalf("step %d: packets %d, oracle %d", step, got.Packets(), want.Packets)
					}
				}
			}
			// The same keys in one batch per table answer as they did
			// one by one (Hit changes counters, not answers).
			for tb := range bkeys {
				if len(bkeys[tb]) == 0 {
					continue
				}
				out := make([]*rules.Rule, len(bkeys[tb]))
				var c rules.Counters
				p.Table(uint8(tb)).LookupBatch(bkeys[tb], out, &c)
				for j := range out {
					if out[j] != bwant[tb][j] {
						t.Fatalf("step %d: table %d key %v: batch %+v, single %+v", step, tb, bkeys[tb][j], out[j], bwant[tb][j])
					}
				}
			}
		default: // time passes; timeouts fire
			clk.t = clk.t.Add(time.Duration(1+r.IntN(3)) * time.Second)
			var got, want []remKey
			for _, fr := range p.Expire() {
				got = append(got, remKey{fr.Rule.Match, fr.Rule.Priority, fr.Reason, fr.Packets})
				records = append(records, record{got[len(got)-1], fr.Rule})
			}
			for _, e := range o.Expire(clk.t) {
				want = append(want, remKey{e.Entry.Match, e.Entry.Priority, e.Reason, e.Entry.Packets})
			}
			removed += compareRemoved(t, step, got, want)
		}
		if err := rules.CheckOrder(p); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if err := rules.CheckIndex(p); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if rules.IndexGrowing(p) {
			growing++
		}
		for tb := range uint8(tables) {
			if probe, _, _ := rules.SubtableUses(p.Table(tb)); probe > 0 {
				direct++
				break
			}
		}
		for tb := range uint8(tables) {
			got, want := p.Rules(tb), o.Entries(tb)
			if len(got) != len(want) {
				t.Fatalf("step %d table %d: %d rules, oracle %d", step, tb, len(got), len(want))
			}
			if st := p.Table(tb).Stats(); st.Flows != len(want) || st.Rules < st.Flows {
				t.Fatalf("step %d table %d: stats count %d flows, %d present; oracle %d", step, tb, st.Flows, st.Rules, len(want))
			}
			for i := range got {
				if got[i].Match != want[i].Match || got[i].Ranges != want[i].Ranges || got[i].Priority != want[i].Priority || got[i].Seq() != want[i].Seq {
					t.Fatalf("step %d table %d rule %d differs", step, tb, i)
				}
			}
		}
	}
	// A flow-removed record's rule is never recycled: every record taken
	// still describes its rule.
	for i, k := range records {
		if got := (remKey{k.r.Match, k.r.Priority, k.reason, k.pk}); got != k.remKey {
			t.Fatalf("flow-removed record %d changed after it was made: %v, was %v", i, got, k.remKey)
		}
	}
	return p
}

func compareRemoved(t testing.TB, step int, got, want []remKey) int {
	t.Helper()
	key := func(k remKey) string { return fmt.Sprintf("%v/%d/%d/%d", k.m, k.pri, k.reason, k.pk) }
	var g, w []string
	for _, k := range got {
		g = append(g, key(k))
	}
	for _, k := range want {
		w = append(w, key(k))
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Fatalf("step %d: flow-removed records\n got %v\nwant %v", step, g, w)
	}
	return len(want)
}

func TestRandomAgainstOracle(t *testing.T) {
	steps := 3000
	if raceEnabled || testing.Short() {
		steps = 600
	}
	for _, kind := range []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterCuckoo, rules.FilterNone} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s/seed=%d", kind, seed), func(t *testing.T) {
				runRandom(t, rand.New(rand.NewPCG(seed, 99)), steps, kind, false, false, func() bool { return true })
			})
			t.Run(fmt.Sprintf("%s/forced/seed=%d", kind, seed), func(t *testing.T) {
				runRandom(t, rand.New(rand.NewPCG(seed, 99)), steps, kind, false, true, func() bool { return true })
			})
			t.Run(fmt.Sprintf("%s/recycle/seed=%d", kind, seed), func(t *testing.T) {
				p := runRandom(t, rand.New(rand.NewPCG(seed, 99)), steps, kind, true, seed == 1, func() bool { return true })
				if p.Recycled() == 0 {
					t.Errorf("nothing recycled in %d steps", steps)
				}
			})
		}
	}
}

// TestRandomMergeLimit is TestRandomAgainstOracle with merged nodes of at
// most two entries: rules overflow into other merged subtables, their
// relaxed masks at each level and their own masks, and subtables die and
// come back while masks remember where their rules went.
func TestRandomMergeLimit(t *testing.T) {
	steps := 3000
	if raceEnabled || testing.Short() {
		steps = 600
	}
	for _, limit := range []int{1, 2} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("limit=%d/seed=%d", limit, seed), func(t *testing.T) {
				runRandom(t, rand.New(rand.NewPCG(seed, 77)), steps, rules.FilterBloomCuckoo, seed == 2, false, func() bool { return true },
					func(p *rules.Pipeline) { rules.SetMergeLimit(p, limit) })
			})
		}
	}
}

func FuzzPipeline(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("add modify delete lookup expire add add add lookup lookup delete strict"))
	seed := make([]byte, 512)
	for i := range seed {
		seed[i] = byte(i * 131)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		// The first byte's low bit picks a recycling pipeline, the next
		// one the lookup paths of large tables, and a third merged nodes
		// of at most two entries.
		recycle := len(data) > 0 && data[0]&1 == 1
		forced := len(data) > 0 && data[0]&2 == 2
		limit := func(p *rules.Pipeline) {
			if len(data) > 0 && data[0]&4 != 0 {
				rules.SetMergeLimit(p, 2)
			}
		}
		s := &byteSource{b: data}
		runRandom(t, s, 200, rules.FilterBloomCuckoo, recycle, forced, func() bool { return !s.done() }, limit)
	})
}

// TestConcurrentBursts runs lookups on two goroutines while bursts apply;
// every answer must be the oracle's answer at the version the lookup read.
// Removed rules are unlinked at once, after a short grace and after the
// default one.
func TestConcurrentBursts(t *testing.T) {
	for _, ua := range []time.Duration{-1, 50 * time.Microsecond, 0} {
		t.Run(fmt.Sprintf("unlink-after=%v", ua), func(t *testing.T) { testConcurrentBursts(t, ua, false) })
	}
	t.Run("forced-paths", func(t *testing.T) { testConcurrentBursts(t, -1, true) })
}

func testConcurrentBursts(t *testing.T, unlinkAfter time.Duration, forced bool) {
	rounds := 300
	if raceEnabled {
		rounds = 80
	}
	cfg := &rules.Config{FilterBuckets: 4, Seed: 3, UnlinkAfter: unlinkAfter}
	if forced {
		rules.SetLookupPaths(cfg, 1)
	}
	p, o, snaps, record := newOracled(t, cfg)
	// Merged nodes of two entries at most: the few rules of randMatch's
	// pool then make enough filter keys for the filter to fill and be
	// rebuilt, and rules still share merged subtables.
	rules.SetMergeLimit(p, 2)
	// The index starts small, so that it grows, and grows again, while
	// the lookups run.
	rules.SmallIndex(p, 16)
	rng := rand.New(rand.NewPCG(5, 6))
	keys := make([]rules.Key, 64)
	for i := range keys {
		keys[i] = randKey(rng)
	}
	ck := newCheckers(2)
	var retries atomic.Int64
	growing := 0 // bursts after which the index was being copied
	for g := range 2 {
		ck.wg.Add(1)
		go func() {
			defer ck.wg.Done()
			var c rules.Counters
			defer func() { retries.Add(int64(c.Retries)) }()
			out := make([]*rules.Rule, 8)
			for i := 0; !ck.stop.Load(); i++ {
				if !ck.lookupRound(p.Table(0), keys, snaps, g, i, out, &c) {
					return
				}
			}
		}()
	}
	for range rounds {
		ups := make([]rules.Update, 1+rng.IntN(16))
		for i := range ups {
			u := randUpdate(rng, 1)
			u.Flags &^= rules.FlagCheckOverlap
			u.IdleTimeout, u.HardTimeout = 0, 0
			if u.Command == rules.CmdModify || u.Command == rules.CmdModifyStrict {
				u.Command = rules.CmdAdd
			}
			ups[i] = u
		}
		atomicBurst := rng.IntN(2) == 0
		if !atomicBurst {
			// Version by version: record each intermediate state.
			for i := range ups {
				p.ApplyBurst(ups[i:i+1], true)
				o.Apply(&ups[i], time.Time{})
				record()
			}
			continue
		}
		p.ApplyBurst(ups, true)
		for i := range ups {
			o.Apply(&ups[i], time.Time{})
		}
		record()
		if rules.IndexGrowing(p) {
			growing++
		}
	}
	ck.done(t)
	// The filter started with 4 buckets: it must have been rebuilt larger
	// while the lookups ran, without a wrong answer.
	if st := p.Table(0).Stats(); st.Rebuilds == 0 {
		t.Errorf("filter never rebuilt (%+v)", st)
	}
	// So must the index have grown (published a grown copy) while they
	// ran; runs of more rounds also end bursts with a copy under way.
	if st := p.Table(0).Stats(); st.IndexRebuilds < 2 {
		t.Errorf("index grown %d times (%+v)", st.IndexRebuilds, st)
	}
	t.Logf("%d lookups checked against %d versions; %d lookups redone after a cleanup; %d removed rules not yet unlinked; index grown %d times, part-copied after %d bursts",
		ck.checked.Load(), snaps.len(), retries.Load(), p.Table(0).Stats().Rules-len(p.Rules(0)), p.Table(0).Stats().IndexRebuilds, growing)
}

// snapshots holds the oracle's rules of table 0 at each version the writer
// published, for readers on other goroutines to check their answers.
type snapshots struct {
	mu sync.Mutex
	m  map[uint64][]*oracle.Entry
}

func newSnapshots() *snapshots { return &snapshots{m: map[uint64][]*oracle.Entry{}} }

// newOracled returns a pipeline of cfg under test, an oracle of its one
// table, the oracle's answers at the versions recorded, and record, which
// records them at the pipeline's version now; the first version is
// recorded.
func newOracled(t *testing.T, cfg *rules.Config) (*rules.Pipeline, *oracle.Flows, *snapshots, func()) {
	t.Helper()
	p, err := rules.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := oracle.NewFlows(1)
	snaps := newSnapshots()
	record := func() { snaps.record(p.Version(), o) }
	record()
	return p, o, snaps, record
}

// record takes o's rules as those of version v.
func (s *snapshots) record(v uint64, o *oracle.Flows) {
	e := o.Entries(0)
	s.mu.Lock()
	s.m[v] = e
	s.mu.Unlock()
}

// want returns the entry a lookup of k at version v must find (nil: a
// miss); ok is false when v is not recorded (yet: the writer records right
// after it publishes).
func (s *snapshots) want(v uint64, k *rules.Key) (e *oracle.Entry, ok bool) {
	s.mu.Lock()
	snap, ok := s.m[v]
	s.mu.Unlock()
	for _, e := range snap {
		if e.Matches(k) {
			return e, ok
		}
	}
	return nil, ok
}

func (s *snapshots) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// sameAnswer reports whether a lookup's rule is the oracle's entry.
func sameAnswer(got *rules.Rule, want *oracle.Entry) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	return got.Seq() == want.Seq && got.Match == want.Match && got.Ranges == want.Ranges && got.Priority == want.Priority
}

// checkers are the goroutines of a test that check lookups against an
// oracle while its writer applies bursts: each counts what it checked in
// checked, runs until stop, and sends its first wrong answer to errc.
type checkers struct {
	stop    atomic.Bool
	wg      sync.WaitGroup
	checked atomic.Int64
	errc    chan error
}

func newCheckers(n int) *checkers { return &checkers{errc: make(chan error, n)} }

// lookupRound is round i of checker g: a single lookup (even rounds) or a
// batch of 8 (odd ones) of keys from a window that moves with i and g,
// each answer compared with the oracle's at the version the lookup read.
// It reports false after sending a wrong answer to errc.
func (ck *checkers) lookupRound(t *rules.Table, keys []rules.Key, snaps *snapshots, g, i int, out []*rules.Rule, c *rules.Counters) bool {
	var got []*rules.Rule
	var v uint64
	ks := keys[(i*8+g)%56:][:8]
	if i%2 == 0 {
		var r *rules.Rule
		r, v = t.LookupVersion(&ks[0], c)
		got, ks = []*rules.Rule{r}, ks[:1]
	} else {
		v = t.LookupBatch(ks, out, c)
		got = out
	}
	for j := range ks {
		want, ok := snaps.want(v, &ks[j])
		if !ok {
			break // published before it was recorded
		}
		if !sameAnswer(got[j], want) {
			ck.errc <- fmt.Errorf("version %d key %v: got %+v, oracle %+v", v, ks[j], got[j], want)
			return false
		}
		ck.checked.Add(1)
	}
	return true
}

// done stops the checkers once one lookup at least was checked (or 5 s
// passed) and fails t with the first error one sent, or if none checked
// anything.
func (c *checkers) done(t *testing.T) {
	t.Helper()
	awaitCheck(&c.checked)
	c.stop.Store(true)
	c.wg.Wait()
	close(c.errc)
	for err := range c.errc {
		t.Fatal(err)
	}
	if c.checked.Load() == 0 {
		t.Fatal("no lookup was checked")
	}
}

// awaitCheck gives concurrent readers a bounded time to check a lookup: on
// a loaded machine the writer can finish before a reader ran.
func awaitCheck(checked *atomic.Int64) {
	for deadline := time.Now().Add(5 * time.Second); checked.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

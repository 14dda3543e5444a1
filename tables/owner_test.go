package tables

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/rules"
)

// runOwner runs o's background work until the test ends.
func runOwner(t *testing.T, o *Owner) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		o.Run(ctx, nil)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// applyNow applies ups as one burst, as a connection would, and returns
// the result.
func applyNow(o *Owner, ups []rules.Update) *rules.BurstResult {
	res := new(rules.BurstResult)
	o.Apply(res, ups, false, time.Now(), 0)
	return res
}

// TestIdleMaintenance runs an owner whose table's filter a burst fills to
// 94% with t = 0, so that some flows land in the Bloom part, then deletes
// half of the flows. With no further burst, the agent's idle maintenance
// must unlink the deleted rules and move the Bloom elements back into
// the freed cuckoo slots; every remaining flow must still be found.
func TestIdleMaintenance(t *testing.T) {
	p, err := rules.New(&rules.Config{FilterBuckets: 64, MaxOccupancy: 0.99, BloomAfter: 0})
	if err != nil {
		t.Fatal(err)
	}
	a := New(p, nil)
	stats := func() rules.TableStats { return a.Stats()[0] }
	ups := flowgen.Exact(240, 0)
	if res := applyNow(a, ups); countErrs(res.Errs) != 0 {
		t.Fatalf("adds refused: %v", res.Errs)
	}
	// Read before Run starts: its idle work would begin to move the
	// Bloom elements back 2 ms after the burst.
	full := stats()
	if full.FilterBloomLen == 0 || full.FilterBuckets != 64 {
		t.Fatalf("setup: want Bloom elements in a 64-bucket filter, have %+v", full)
	}
	runOwner(t, a)
	dels := make([]rules.Update, 120)
	for i := range dels {
		dels[i] = rules.Update{Command: rules.CmdDeleteStrict, Match: ups[i].Match, Priority: ups[i].Priority}
	}
	if res := applyNow(a, dels); countErrs(res.Errs) != 0 {
		t.Fatalf("deletes refused: %v", res.Errs)
	}
	var st rules.TableStats
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if st = stats(); st.Rules == 120 && st.FilterBloomLen == 0 {
			break
		}
	}
	if st.Flows != 120 || st.Rules != 120 || st.FilterLen != 120 {
		t.Fatalf("after idle: %d flows, %d rules present, %d filter elements; want 120 of each", st.Flows, st.Rules, st.FilterLen)
	}
	// At 47% every Bloom element's buckets have room (the keys and the
	// seed are fixed); without the maintenance they stay where they are.
	if st.FilterBloomLen != 0 {
		t.Fatalf("Bloom part still holds %d elements (had %d at 94%%, now at %.0f%%)", st.FilterBloomLen, full.FilterBloomLen, 100*st.Occupancy)
	}
	for i, u := range ups {
		got := p.Table(0).Lookup(&u.Match.Key)
		if (got != nil) != (i >= 120) {
			t.Fatalf("flow %d: lookup found %v, want found=%v", i, got, i >= 120)
		}
	}
	t.Logf("Bloom part %d -> %d elements", full.FilterBloomLen, st.FilterBloomLen)
}

// TestRunPrefaults: Run keeps the memory of the next burst's rules made
// after every burst. A pipeline that keeps a burst of 64 adds ahead: after
// a burst, its spare chunks are made without another call, and the flows
// of a burst that took them are found.
func TestRunPrefaults(t *testing.T) {
	p, err := rules.New(&rules.Config{PrefaultRules: 64, Recycle: true})
	if err != nil {
		t.Fatal(err)
	}
	a := New(p, nil)
	runOwner(t, a)
	ready := func(what string) int {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if n := a.pipe.Prefaulted(); n > 0 {
				return n
			}
		}
		t.Fatalf("%s: no spare chunk made within 5s", what)
		return 0
	}
	if n := a.pipe.Prefaulted(); n != 0 {
		t.Fatalf("%d spare chunks before any burst", n)
	}
	ups := flowgen.Exact(128, 0)
	if res := applyNow(a, ups[:64]); countErrs(res.Errs) != 0 {
		t.Fatalf("adds refused: %v", res.Errs)
	}
	full := ready("after the first burst")
	// Prefault makes the chunks one after another: the first may show
	// before the last is made.
	for deadline := time.Now().Add(5 * time.Second); full < 9 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		full = a.pipe.Prefaulted()
	}
	// Spares for 64 rules: 6 chunks of rules (11 a chunk) and 3 of nodes
	// (27 a chunk).
	if full != 9 {
		t.Errorf("%d spare chunks for a burst of 64 adds, want 9", full)
	}
	if res := applyNow(a, ups[64:]); countErrs(res.Errs) != 0 {
		t.Fatalf("adds refused: %v", res.Errs)
	}
	for i, u := range ups {
		if r := a.pipe.Table(0).Lookup(&u.Match.Key); r == nil {
			t.Fatalf("flow %d not found", i)
		}
	}
}

// TestMaintainWakes: the first burst after the idle maintenance has caught
// up wakes it, wherever the burst falls against its steps. In each of 60
// rounds a burst deletes flows that only the maintenance unlinks, after a
// random pause of up to 3 ms (the idle time is 2 ms) since the burst that
// added them; each round must see them unlinked well before the expiry's
// next pass would.
func TestMaintainWakes(t *testing.T) {
	p, err := rules.New(&rules.Config{})
	if err != nil {
		t.Fatal(err)
	}
	a := New(p, nil)
	runOwner(t, a)
	present := func() int { return a.Stats()[0].Rules }
	rng := rand.New(rand.NewPCG(7, 8))
	const rounds, per = 60, 4
	ups := flowgen.Exact(rounds*per, 0)
	for round := range rounds {
		adds := ups[round*per : (round+1)*per]
		if res := applyNow(a, adds); countErrs(res.Errs) != 0 {
			t.Fatalf("round %d: adds refused: %v", round, res.Errs)
		}
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		dels := make([]rules.Update, per)
		for i, u := range adds {
			dels[i] = rules.Update{Command: rules.CmdDeleteStrict, Match: u.Match, Priority: u.Priority}
		}
		if res := applyNow(a, dels); countErrs(res.Errs) != 0 {
			t.Fatalf("round %d: deletes refused: %v", round, res.Errs)
		}
		// Within 400 ms: the expiry, once a second, unlinks them too.
		n := present()
		for deadline := time.Now().Add(400 * time.Millisecond); n != 0 && time.Now().Before(deadline); n = present() {
			time.Sleep(200 * time.Microsecond)
		}
		if n != 0 {
			t.Fatalf("round %d: %d deleted rules still in the index 400 ms after the burst", round, n)
		}
	}
}

// TestNoUpdateCosts: an owner records what each update of a burst cost,
// as Apply and ApplyBundle apply it (in OnBurst's Costs and in Bursts'
// distributions), unless Config.NoUpdateCosts, with which both are empty
// while the rest of the burst's record stays.
func TestNoUpdateCosts(t *testing.T) {
	ups := func(n int) []rules.Update {
		us := make([]rules.Update, n)
		for i := range us {
			us[i] = rules.Update{Command: rules.CmdAdd, Priority: 10}
			us[i].Match.SetExact(rules.FieldInPort, uint64(i+1))
		}
		return us
	}
	for _, off := range []bool{false, true} {
		p, err := rules.New(&rules.Config{Tables: 1})
		if err != nil {
			t.Fatal(err)
		}
		var seen []int // len(Costs) of each burst OnBurst saw
		o := New(p, &Config{NoUpdateCosts: off, OnBurst: func(b Burst) { seen = append(seen, len(b.Costs)) }})
		if res := applyNow(o, ups(8)); countErrs(res.Errs) != 0 {
			t.Fatalf("NoUpdateCosts %v: %v", off, res.Errs)
		}
		more := ups(16)[8:]
		if err := o.ApplyBundle(new(rules.BurstResult), more, nil, time.Now(), 0); err != nil {
			t.Fatalf("NoUpdateCosts %v: bundle: %v", off, err)
		}
		bs := o.Bursts()
		if len(bs) != 2 {
			t.Fatalf("NoUpdateCosts %v: %d bursts recorded, want 2", off, len(bs))
		}
		for i, b := range bs {
			want, wantCosts := 8, 8
			if off {
				want, wantCosts = 0, 0
			}
			if b.Updates != 8 || b.UpdateNs.N != want || seen[i] != wantCosts {
				t.Errorf("NoUpdateCosts %v: burst %d: %d updates, update ns %+v, %d costs to OnBurst; want 8, N %d, %d",
					off, i, b.Updates, b.UpdateNs, seen[i], want, wantCosts)
			}
		}
	}
}

package filter

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// view is what a reader could load for one key at one instant.
type view struct {
	w1, w2 uint64
	v1, v2 uint32
	g      uint32 // the store count, which Contains validates a no by
}

func (f *Filter) viewOf(h uint64) (v view, fp uint64) {
	i1, fp := f.split(h)
	i2 := f.alt(i1, fp)
	return view{
		w1: f.load(i1), w2: f.load(i2),
		v1: f.stripe(i1).Load(), v2: f.stripe(i2).Load(),
		g: f.gen.Load(),
	}, fp
}

// TestEveryInstant checks, after every single store the writer makes, that
// every live key is visible (the ordering of a walk's stores alone keeps
// every element visible), and that a reader whose two bucket loads straddle
// a store either still finds the key or sees a version change and retries.
func TestEveryInstant(t *testing.T) {
	for _, cfg := range []Config{
		{Buckets: 64, FingerprintBits: 8, BloomAfter: -1},
		{Buckets: 64, FingerprintBits: 8, BloomAfter: 3},
		{Buckets: 64, FingerprintBits: 5, BloomAfter: 0, BloomBits: 2},
		{Buckets: 64, FingerprintBits: 12, BloomAfter: 3, Packed: true},
		{Buckets: 64, FingerprintBits: 5, BloomAfter: 0, BloomBits: 2, Packed: true},
	} {
		f := mustNew(t, cfg)
		c := newChecker(t, f)
		stores, straddles := 0, 0
		prev := map[uint64]view{}
		f.setAfterStore(func() {
			stores++
			for h, n := range c.count {
				if n <= 0 {
					continue
				}
				if !f.Contains(h) {
					t.Fatalf("after store %d: live key %#x invisible", stores, h)
				}
				now, fp := f.viewOf(h)
				i1, _ := f.split(h)
				i2 := f.alt(i1, fp)
				if p, ok := prev[h]; ok && f.stashLen() == 0 {
					bm := f.bloomBit(fp)
					// Load bucket 1 before the store and bucket 2
					// after it, then the other way round.
					for _, r := range [2]view{{p.w1, now.w2, p.v1, p.v2, p.g}, {now.w1, p.w2, p.v1, p.v2, p.g}} {
						found := f.hit(r.w1, r.w2, fp)
						if found != (f.has(r.w1, fp) || f.has(r.w2, fp) || r.w1&r.w2&bm != 0) {
							t.Fatalf("after store %d: hit(%#x, %#x, %#x) = %v, want the contrary", stores, r.w1, r.w2, fp, found)
						}
						// The reader re-reads the stripes now, with
						// the versions it read before its loads.
						if !found && f.settled(stripeRead{f.stripe(i1), f.stripe(i2), r.v1, r.v2}) {
							t.Fatalf("after store %d: a reader straddling it misses %#x without noticing", stores, h)
						}
						// Contains re-reads the store count instead.
						if !found && f.gen.Load() == p.g {
							t.Fatalf("after store %d: a Contains straddling it misses %#x without noticing", stores, h)
						}
						if !found {
							straddles++
						}
					}
				}
				prev[h] = now
			}
		})
		ops := scale(3000, 2)
		if cfg.Packed {
			ops /= 2 // a packed store has a torn instant to check as well
		}
		c.run(rand.New(rand.NewPCG(5, 6)), ops, 600)
		if st := f.Stats(); stores < ops/2 || st.Kicks == 0 || straddles == 0 {
			t.Fatalf("only %d stores, %d kicks and %d caught straddles observed", stores, st.Kicks, straddles)
		}
	}
}

// TestSettled checks the validation of a negative lookup: it stands only
// if neither version stripe moved since the reader read it and the stash is
// empty, whatever the values of the counters.
func TestSettled(t *testing.T) {
	f := mustNew(t, Config{Buckets: 1 << 12})
	r := rand.New(rand.NewPCG(3, 4))
	s1, s2 := f.stripe(1), f.stripe(2)
	for range 20000 {
		s1.Store(r.Uint32() >> r.UintN(32))
		s2.Store(r.Uint32() >> r.UintN(32))
		v1, v2 := s1.Load(), s2.Load()
		if !f.settled(stripeRead{s1, s2, v1, v2}) {
			t.Fatalf("versions %d, %d unchanged: not settled", v1, v2)
		}
		d1, d2 := uint32(r.IntN(3)), uint32(r.IntN(3))
		s1.Add(d1)
		s2.Add(d2)
		if got, want := f.settled(stripeRead{s1, s2, v1, v2}), d1 == 0 && d2 == 0; got != want {
			t.Fatalf("versions %d, %d then %d, %d: settled = %v, want %v", v1, v2, s1.Load(), s2.Load(), got, want)
		}
		f.stashN.Store(1)
		if f.settled(f.readStripes(1, 2)) {
			t.Fatal("settled with a key in the stash")
		}
		f.stashN.Store(0)
	}
}

// stashLen returns the stash size; straddle checks skip instants with
// a stash, whose own version guards it.
func (f *Filter) stashLen() int { return int(f.stashN.Load()) }

// TestConcurrent runs one writer doing bursts of 1024 deletes and 1024
// inserts at 97% occupancy (with Rebalance between bursts) against two
// readers that check every live key continuously. A key's state word holds
// a generation and a live bit; a reader that sees the same live state before
// and after a negative lookup has found a false negative.
func TestConcurrent(t *testing.T) {
	for _, cfg := range []Config{
		{Buckets: 1 << 12, BloomAfter: 10, Seed: 11},
		{Buckets: 1 << 12, BloomAfter: -1, Seed: 12},
		{Buckets: 1 << 12, BloomAfter: 10, Seed: 13, Packed: true},
		{Buckets: 1 << 12, BloomAfter: -1, Seed: 14, Packed: true},
		// Walks this short keep the stash full: readers race Rebalance
		// draining it into buckets.
		{Buckets: 1 << 12, BloomAfter: -1, Seed: 15, MaxIterations: 3},
	} {
		t.Run(fmt.Sprintf("t=%d,%s,iter=%d", cfg.BloomAfter, layoutName(cfg.Packed), cfg.MaxIterations), func(t *testing.T) {
			f := mustNew(t, cfg)
			universe := 2 * f.Capacity()
			state := make([]atomic.Uint64, universe) // gen<<1 | live
			key := func(i int) uint64 { return mix(uint64(i) + 1<<50) }
			r := rand.New(rand.NewPCG(9, 9))
			var live []int
			dead := r.Perm(universe)
			setLive := func(i int, on bool) {
				s := state[i].Load()
				n := (s>>1 + 1) << 1
				if on {
					n |= 1
				}
				state[i].Store(n)
			}
			// stashed holds (index+1 of) keys that went to the stash,
			// the ones Rebalance drains, for reader 2 to look up.
			var stashed [StashSize]atomic.Int64
			nstashed := 0
			insert := func() bool {
				i := dead[len(dead)-1]
				dead = dead[:len(dead)-1]
				switch f.Insert(key(i)).Placement {
				case Full:
					dead = append(dead, i)
					return false
				case Stash:
					stashed[nstashed%StashSize].Store(int64(i) + 1)
					nstashed++
				}
				setLive(i, true)
				live = append(live, i)
				return true
			}
			// To 97%, or as high as short walks get with a full stash.
			for full := 0; f.Occupancy() < 0.97 && full < 100; {
				if !insert() {
					full++
				}
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var misses, checks atomic.Int64
			// Reader 2 looks up the keys that went to the stash, over and
			// over, with Contains.
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					if n%1024 == 0 {
						select {
						case <-stop:
							return
						default:
						}
					}
					j := int(stashed[n%StashSize].Load()) - 1
					if j < 0 {
						continue
					}
					s1 := state[j].Load()
					if s1&1 == 0 {
						continue
					}
					ok := f.Contains(key(j))
					checks.Add(1)
					if !ok && state[j].Load() == s1 {
						misses.Add(1)
					}
				}
			}()
			// Reader 0 uses Contains, reader 1 ContainsBatch.
			for reader := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var (
						idx  []int
						st   []uint64
						hs   []uint64
						out  = make([]bool, 32)
						last = -1
					)
					for j := reader; ; j = (j + 7) % universe {
						if j%1024 == 0 {
							select {
							case <-stop:
								return
							default:
							}
						}
						s1 := state[j].Load()
						if s1&1 == 0 || j == last {
							continue
						}
						if reader == 0 {
							ok := f.Contains(key(j))
							checks.Add(1)
							if !ok && state[j].Load() == s1 {
								misses.Add(1)
							}
							continue
						}
						last = j
						idx, st, hs = append(idx, j), append(st, s1), append(hs, key(j))
						if len(hs) < cap(out) {
							continue
						}
						f.ContainsBatch(hs, out)
						checks.Add(int64(len(hs)))
						for k, i := range idx {
							if !out[k] && state[i].Load() == st[k] {
								misses.Add(1)
							}
						}
						idx, st, hs = idx[:0], st[:0], hs[:0]
					}
				}()
			}
			deadline := time.Now().Add(2 * time.Second)
			bursts, drained := 0, 0
			for ; bursts < 40 && time.Now().Before(deadline); bursts++ {
				for range 1024 {
					k := r.IntN(len(live))
					i := live[k]
					live[k] = live[len(live)-1]
					live = live[:len(live)-1]
					setLive(i, false)
					if !f.Delete(key(i)) {
						t.Errorf("Delete of live key %d failed", i)
					}
					dead = append(dead, i)
				}
				r.Shuffle(len(dead), func(a, b int) { dead[a], dead[b] = dead[b], dead[a] })
				for range 1024 {
					insert()
				}
				drained += f.Stats().StashLen
				f.Rebalance(1024)
				drained -= f.Stats().StashLen
			}
			close(stop)
			wg.Wait()
			if m := misses.Load(); m != 0 {
				t.Fatalf("%d false negatives in %d checks over %d bursts", m, checks.Load(), bursts)
			}
			if checks.Load() == 0 || bursts == 0 {
				t.Fatalf("stress test did nothing: %d checks, %d bursts", checks.Load(), bursts)
			}
			t.Logf("%d bursts, %d concurrent checks, stash %d (%d drained), bloom %d", bursts, checks.Load(), f.Stats().StashLen, drained, f.BloomLen())
			if cfg.MaxIterations != 0 && drained == 0 {
				t.Fatal("no stashed key was drained while readers ran")
			}
			if f.Len() != len(live) {
				t.Fatalf("Len = %d, want %d", f.Len(), len(live))
			}
		})
	}
}

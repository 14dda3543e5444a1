package filter

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// mix is a 64-bit finalizer (splitmix64) used to turn counters into
// well-mixed hashes in tests and benchmarks.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// scale returns n, or n/div under the race detector.
func scale(n, div int) int {
	if raceEnabled {
		return max(n/div, 1)
	}
	return n
}

// layouts are the bucket layouts the tests run over: a word per bucket,
// and packed.
var layouts = []bool{false, true}

func layoutName(packed bool) string {
	if packed {
		return "packed"
	}
	return "word"
}

func mustNew(t testing.TB, c Config) *Filter {
	t.Helper()
	f, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestNewConfig(t *testing.T) {
	for _, tt := range []struct {
		c     Config
		field string
	}{
		{Config{Buckets: 3}, "Buckets"},
		{Config{Buckets: -4}, "Buckets"},
		{Config{Buckets: 1 << 31}, "Buckets"},
		{Config{FingerprintBits: 3}, "FingerprintBits"},
		{Config{FingerprintBits: 16}, "FingerprintBits"},
		{Config{MaxIterations: -1}, "MaxIterations"},
		{Config{BloomBits: 3}, "BloomBits"},
	} {
		_, err := New(tt.c)
		var ce *ConfigError
		if !errors.Is(err, ErrConfig) || !errors.As(err, &ce) || ce.Field != tt.field {
			t.Errorf("New(%+v) = %v, want a ConfigError naming %s", tt.c, err, tt.field)
		}
	}
	f := mustNew(t, Config{})
	if f.Buckets() != DefaultBuckets || f.fbits != DefaultFingerprintBits || f.maxIter != DefaultMaxIterations || f.BloomAfter() != 0 {
		t.Errorf("zero Config gave m=%d f=%d maxIter=%d t=%d", f.Buckets(), f.fbits, f.maxIter, f.BloomAfter())
	}
}

// TestLanes checks the word-parallel compare against a loop over slots.
func TestLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, fb := range []int{4, 7, 8, 12, 15} {
		f := mustNew(t, Config{Buckets: 16, FingerprintBits: fb})
		for range 20000 {
			var w uint64
			for s := range SlotsPerBucket {
				v := r.Uint64() & f.fpMask
				if r.IntN(3) == 0 {
					v = 0
				}
				w = f.set(w, s, v)
			}
			w |= r.Uint64() & (3 << 62) // Bloom bits must not disturb lanes
			fp := r.Uint64() & f.fpMask
			if r.IntN(2) == 0 {
				fp = f.get(w, r.IntN(SlotsPerBucket))
			}
			want := -1
			for s := range SlotsPerBucket {
				if f.get(w, s) == fp {
					want = s
					break
				}
			}
			if got := f.slotOf(w, fp); got != want {
				t.Fatalf("f=%d slotOf(%#x, %#x) = %d, want %d", fb, w, fp, got, want)
			}
		}
	}
}

// checker compares a filter with a multiset of hashes.
type checker struct {
	t     testing.TB
	f     *Filter
	count map[uint64]int
	live  []uint64 // keys with count > 0, possibly repeated
	n     int
}

func newChecker(t testing.TB, f *Filter) *checker {
	return &checker{t: t, f: f, count: map[uint64]int{}}
}

func (c *checker) insert(h uint64) InsertResult {
	r := c.f.Insert(h)
	if r.Placement != Full {
		c.count[h]++
		c.live = append(c.live, h)
		c.n++
	}
	if r.Iterations < 1 || r.Iterations > c.f.maxIter {
		c.t.Fatalf("Insert(%#x) iterations = %d, want 1..%d", h, r.Iterations, c.f.maxIter)
	}
	return r
}

func (c *checker) delete(i int) {
	h := c.live[i]
	c.live[i] = c.live[len(c.live)-1]
	c.live = c.live[:len(c.live)-1]
	c.count[h]-- // first: a test hook may look while Delete runs
	c.n--
	if !c.f.Delete(h) {
		c.t.Fatalf("Delete(%#x) of an inserted key = false", h)
	}
}

func (c *checker) verify() {
	c.t.Helper()
	if got := c.f.Len(); got != c.n {
		c.t.Fatalf("Len = %d, want %d", got, c.n)
	}
	for h, n := range c.count {
		if n > 0 && !c.f.Contains(h) {
			c.t.Fatalf("false negative: Contains(%#x) = false with %d copies inserted", h, n)
		}
	}
	s := c.f.Stats()
	if s.CuckooLen+s.BloomLen+s.StashLen != c.n || s.BloomLen != len(c.f.bloom) {
		c.t.Fatalf("Stats parts %d+%d+%d (bloom table %d) do not add up to %d", s.CuckooLen, s.BloomLen, s.StashLen, len(c.f.bloom), c.n)
	}
}

// run applies n random operations; keys come from a small pool so that
// duplicates and fingerprint collisions happen.
func (c *checker) run(r *rand.Rand, ops int, pool uint64) {
	for i := range ops {
		switch op := r.IntN(10); {
		case op < 6 || len(c.live) == 0:
			c.insert(mix(r.Uint64N(pool)))
		case op < 9:
			c.delete(r.IntN(len(c.live)))
		default:
			c.f.Rebalance(r.IntN(8))
		}
		if i%251 == 0 {
			c.verify()
		}
	}
	c.verify()
}

func TestOracle(t *testing.T) {
	for _, cfg := range []Config{
		{Buckets: 64, FingerprintBits: 4, BloomAfter: -1},
		{Buckets: 64, FingerprintBits: 4, BloomAfter: 0},
		{Buckets: 128, FingerprintBits: 8, BloomAfter: 2, MaxIterations: 30},
		{Buckets: 256, FingerprintBits: 12, BloomAfter: 5, BloomBits: 2},
		{Buckets: 32, FingerprintBits: 15, BloomAfter: 1, MaxIterations: 8},
		{Buckets: 1, FingerprintBits: 6, BloomAfter: 0},
	} {
		for _, packed := range layouts {
			t.Run(fmt.Sprintf("m=%d,f=%d,t=%d,bits=%d,%s", cfg.Buckets, cfg.FingerprintBits, cfg.BloomAfter, cfg.BloomBits, layoutName(packed)), func(t *testing.T) {
				cfg.Seed = 7
				cfg.Packed = packed
				c := newChecker(t, mustNew(t, cfg))
				r := rand.New(rand.NewPCG(3, uint64(cfg.Buckets)))
				// Enough keys to overfill: walks, Bloom, stash and Full all happen.
				c.run(r, scale(8000, 4), uint64(cfg.Buckets*5))
			})
		}
	}
}

func TestFullKeepsEverything(t *testing.T) {
	for _, packed := range layouts {
		t.Run(layoutName(packed), func(t *testing.T) { testFullKeepsEverything(t, packed) })
	}
}

func testFullKeepsEverything(t *testing.T, packed bool) {
	f := mustNew(t, Config{Buckets: 4, FingerprintBits: 12, BloomAfter: -1, MaxIterations: 50, Packed: packed})
	c := newChecker(t, f)
	full := 0
	for i := range uint64(200) {
		if c.insert(mix(i)).Placement == Full {
			full++
		}
	}
	c.verify()
	if full == 0 || f.Stats().StashLen != StashSize {
		t.Fatalf("Full %d times, stash %d: want Full reported once the stash (%d) is full", full, f.Stats().StashLen, StashSize)
	}
	if want := 4*SlotsPerBucket + StashSize; f.Len() != want {
		t.Fatalf("Len = %d, want %d (all slots and the stash)", f.Len(), want)
	}
	// Deleting frees room, and Rebalance drains the stash into it.
	for len(c.live) > 2*SlotsPerBucket {
		c.delete(0)
	}
	f.Rebalance(StashSize)
	c.verify()
	if f.Stats().StashLen != 0 {
		t.Errorf("stash holds %d after Rebalance into a half-empty filter", f.Stats().StashLen)
	}
}

// fill inserts distinct keys from base upward until occupancy o.
func fill(f *Filter, base uint64, o float64) uint64 {
	n := uint64(o * float64(f.Capacity()))
	k := base
	for uint64(f.Len()) < n {
		f.Insert(mix(k))
		k++
	}
	return k
}

// TestFPR measures the false-positive rate against the analysis, for the
// cuckoo part alone and with a populated Bloom part.
func TestFPR(t *testing.T) {
	queries := scale(1<<20, 4)
	for _, fb := range []int{8, 12, 15} {
		for _, bits := range []int{1, 2} {
			packed := bits == 1 && fb != 8 || bits == 2 && fb == 8 // half of the cases packed, each layout with both Bloom widths
			t.Run(fmt.Sprintf("f=%d,bloombits=%d,%s", fb, bits, layoutName(packed)), func(t *testing.T) {
				f := mustNew(t, Config{Buckets: 1 << 14, FingerprintBits: fb, BloomAfter: -1, BloomBits: bits, Seed: 1, Packed: packed})
				next := fill(f, 0, 0.95)
				check := func(phase string) {
					got, want := f.MeasureFPR(queries, 1<<40), f.TheoreticalFPR()
					if got > 1.5*want || got < want/1.5 {
						t.Errorf("%s: measured FPR %.3g, theory %.3g: not within 1.5x", phase, got, want)
					}
				}
				check("cuckoo only")
				f.SetBloomAfter(0)
				for f.BloomLen() < 1024 {
					f.Insert(mix(next))
					next++
				}
				check(fmt.Sprintf("bloom part %d", f.BloomLen()))
			})
		}
	}
}

func TestBloomBurstAndRebalance(t *testing.T) {
	for _, packed := range layouts {
		t.Run(layoutName(packed), func(t *testing.T) { testBloomBurstAndRebalance(t, packed) })
	}
}

func testBloomBurstAndRebalance(t *testing.T, packed bool) {
	f := mustNew(t, Config{Buckets: 1 << 12, BloomAfter: -1, Seed: 3, Packed: packed})
	c := newChecker(t, f)
	for f.Occupancy() < 0.96 {
		c.insert(mix(uint64(len(c.live))))
	}
	f.SetBloomAfter(10)
	f.ResetStats()
	for i := range 256 {
		r := c.insert(mix(1<<32 + uint64(i)))
		if r.Iterations > 20 {
			t.Errorf("burst insert %d took %d iterations with t=10", i, r.Iterations)
		}
	}
	c.verify()
	if f.BloomLen() == 0 {
		t.Fatal("a burst at 96% with t=10 put nothing in the Bloom part")
	}
	// Make room, then move the Bloom part back.
	for range 512 {
		c.delete(0)
	}
	before := f.BloomLen()
	moved := f.Rebalance(before)
	c.verify()
	if moved != before || f.BloomLen() != 0 {
		t.Fatalf("Rebalance moved %d of %d, %d left", moved, before, f.BloomLen())
	}
	for i := range uint64(f.Buckets()) {
		if f.load(i)>>(SlotsPerBucket*f.fbits) != 0 {
			t.Fatalf("bucket %d still has a Bloom bit after Rebalance", i)
		}
	}
}

func TestContainsBatch(t *testing.T) {
	for _, packed := range layouts {
		t.Run(layoutName(packed), func(t *testing.T) { testContainsBatch(t, packed) })
	}
}

func testContainsBatch(t *testing.T, packed bool) {
	f := mustNew(t, Config{Buckets: 1 << 10, BloomAfter: 0, Packed: packed})
	next := fill(f, 0, 0.97)
	hs := make([]uint64, 1000)
	for i := range hs {
		hs[i] = mix(uint64(i) * (next / 500)) // half inserted, half not
	}
	out := make([]bool, len(hs))
	f.ContainsBatch(hs, out)
	for i, h := range hs {
		if out[i] != f.Contains(h) {
			t.Fatalf("ContainsBatch[%d] = %v, Contains = %v", i, out[i], !out[i])
		}
	}
}

// TestZeroFilter checks that the zero Filter answers lookups: nothing is
// in it.
func TestZeroFilter(t *testing.T) {
	var f Filter
	if f.Contains(mix(1)) {
		t.Error("zero Filter contains a key")
	}
	out := []bool{true, true}
	f.ContainsBatch([]uint64{mix(1), mix(2)}, out)
	if out[0] || out[1] {
		t.Errorf("zero Filter: ContainsBatch = %v, want all false", out)
	}
}

func TestNoAllocs(t *testing.T) {
	for _, packed := range layouts {
		t.Run(layoutName(packed), func(t *testing.T) { testNoAllocs(t, packed) })
	}
}

func testNoAllocs(t *testing.T, packed bool) {
	f := mustNew(t, Config{Buckets: 1 << 12, BloomAfter: 5, Packed: packed})
	next := fill(f, 0, 0.97)
	hs := make([]uint64, 64)
	out := make([]bool, 64)
	for i := range hs {
		hs[i] = mix(uint64(i))
	}
	k := next
	for name, fn := range map[string]func(){
		"Contains":      func() { f.Contains(mix(k)); k++ },
		"ContainsBatch": func() { f.ContainsBatch(hs, out) },
		"InsertDelete":  func() { f.Insert(mix(k)); f.Delete(mix(k)); k++ },
	} {
		if a := testing.AllocsPerRun(1000, fn); a != 0 {
			t.Errorf("%s: %v allocs/op, want 0", name, a)
		}
	}
}

func FuzzFilter(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(4), int8(0))
	f.Add([]byte("insert delete lookup at high occupancy"), uint8(8), int8(-1))
	f.Add([]byte{255, 0, 255, 0, 17, 34, 51}, uint8(12), int8(3))
	f.Add([]byte("packed buckets straddle words"), uint8(64+8), int8(2))
	f.Add([]byte{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 200, 250, 255}, uint8(128+64+11), int8(0))
	f.Fuzz(func(t *testing.T, ops []byte, fbits uint8, bloomAfter int8) {
		fb := 4 + int(fbits)%12
		flt := mustNew(t, Config{Buckets: 8, FingerprintBits: fb, BloomAfter: int(bloomAfter), MaxIterations: 20, BloomBits: 1 + int(fbits)/128, Packed: fbits&64 != 0})
		c := newChecker(t, flt)
		for i, op := range ops {
			switch {
			case op < 150 || len(c.live) == 0:
				c.insert(mix(uint64(op) % 61))
			case op < 250:
				c.delete(i % len(c.live))
			default:
				flt.Rebalance(int(op & 3))
			}
		}
		c.verify()
	})
}

func TestTheoreticalFPRFormula(t *testing.T) {
	f := mustNew(t, Config{Buckets: 1 << 10, FingerprintBits: 12, BloomAfter: -1})
	if got := f.TheoreticalFPR(); got != 0 {
		t.Fatalf("empty filter FPR = %v", got)
	}
	fill(f, 0, 0.5)
	want := 8 * 0.5 / 4096
	if got := f.TheoreticalFPR(); math.Abs(got-want) > 1e-4 {
		t.Fatalf("FPR at o=0.5 = %v, want %v", got, want)
	}
}

// TestPackedBits checks the size of the packed table: B = 4f + BloomBits
// bits a bucket, and at most 13 bits an item at 95% with f = 12 and one
// Bloom bit, where a word a bucket needs 16.8.
func TestPackedBits(t *testing.T) {
	const m = 1 << 14
	for _, tt := range []struct {
		fb, bloom int
		packed    bool
		bits      int // table bits
	}{
		{12, 1, true, (m*49 + 63) / 64 * 64},
		{12, 2, true, (m*50 + 63) / 64 * 64},
		{15, 2, true, m * 62},
		{4, 1, true, m * 17},
		{12, 1, false, m * 64},
	} {
		f := mustNew(t, Config{Buckets: m, FingerprintBits: tt.fb, BloomBits: tt.bloom, BloomAfter: -1, Packed: tt.packed})
		if f.TableBits() != tt.bits || f.Packed() != tt.packed {
			t.Errorf("f=%d bloom=%d packed=%v: TableBits %d Packed %v, want %d", tt.fb, tt.bloom, tt.packed, f.TableBits(), f.Packed(), tt.bits)
		}
	}
	f := mustNew(t, Config{Buckets: m, FingerprintBits: 12, BloomAfter: -1, Packed: true, Seed: 1})
	fill(f, 0, 0.95)
	if bpi := float64(f.TableBits()) / float64(f.Len()); bpi > 13 || f.Occupancy() < 0.9499 {
		t.Fatalf("packed f=12 at occupancy %.4f: %.2f bits/item, want <= 13", f.Occupancy(), bpi)
	}
}

// TestPackedNeighbours writes random values to random packed buckets, the
// way the writer does, and checks every bucket against a plain array after
// each write: a read-modify-write of a shared word keeps the neighbour's
// bits exactly, and nothing is written past the last bucket.
func TestPackedNeighbours(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, fb := range []int{4, 5, 7, 8, 11, 12, 13, 15} {
		for _, bloom := range []int{1, 2} {
			m := 1 << r.IntN(7)
			f := mustNew(t, Config{Buckets: m, FingerprintBits: fb, BloomBits: bloom, Packed: true})
			want := make([]uint64, m)
			width := uint64(4*fb + bloom)
			for n := range scale(4000, 4) {
				i := r.Uint64N(uint64(m))
				v := r.Uint64() & f.bmask
				switch n % 3 {
				case 0: // a slot, as set does
					v = f.set(want[i], r.IntN(SlotsPerBucket), r.Uint64()&f.fpMask)
				case 1: // a Bloom bit
					v = want[i] ^ f.bloomBit(r.Uint64())
				}
				if v>>width != 0 {
					t.Fatalf("f=%d bloom=%d: value %#x wider than %d bits", fb, bloom, v, width)
				}
				f.store(i, v)
				want[i] = v
				for j := range want {
					if got := f.load(uint64(j)); got != want[j] {
						t.Fatalf("f=%d bloom=%d m=%d: after storing %#x to bucket %d, bucket %d = %#x, want %#x", fb, bloom, m, v, i, j, got, want[j])
					}
				}
				last := f.words[len(f.words)-1].Load()
				if used := uint64(m) * width % 64; used != 0 && last>>used != 0 {
					t.Fatalf("f=%d bloom=%d m=%d: bits %#x set past the last bucket", fb, bloom, m, last>>used)
				}
			}
		}
	}
}

// TestPrefetch checks that Prefetch accepts any hash in every layout and
// size, the zero Filter included, and changes no answer.
func TestPrefetch(t *testing.T) {
	var zero Filter
	zero.Prefetch(^uint64(0))
	for _, c := range []Config{
		{Buckets: 1},
		{Buckets: 1, Packed: true},
		{Buckets: 64, FingerprintBits: 15, Packed: true},
		{Buckets: 1 << 10, FingerprintBits: 4},
		{Buckets: 1 << 10, FingerprintBits: 13, Packed: true, BloomBits: 2},
	} {
		f, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		var in []uint64
		for i := range uint64(2 * f.Capacity()) {
			h := i*0x9e3779b97f4a7c15 ^ i<<61
			f.Prefetch(h)
			if i%2 == 0 && f.Insert(h).Placement != Full {
				in = append(in, h)
			}
		}
		for _, h := range in {
			f.Prefetch(h)
			if !f.Contains(h) {
				t.Fatalf("%+v: false negative for %#x after Prefetch", c, h)
			}
		}
	}
}

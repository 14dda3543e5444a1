package filter

import (
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
)

// Defaults for the zero values of Config.
const (
	DefaultBuckets         = 1 << 16
	DefaultFingerprintBits = 12
	DefaultMaxIterations   = 500
	DefaultBloomBits       = 1

	// SlotsPerBucket is b, the number of fingerprints in one bucket.
	SlotsPerBucket = 4

	// StashSize is the number of keys the stash holds before Insert
	// reports Full.
	StashSize = 32

	maxBuckets = 1 << 30
)

// ErrConfig is returned by New for a Config it cannot use.
var ErrConfig = errors.New("filter: bad config")

// ConfigError names the Config field New refused and why.
type ConfigError struct {
	Field string
	Value int
	Why   string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("filter: Config.%s = %d: %s", e.Field, e.Value, e.Why)
}

// Unwrap returns ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }

// Config sets up a Filter. The zero value of every field means its default.
type Config struct {
	// Buckets is m, the number of buckets: a power of two up to 2^30.
	// Zero means DefaultBuckets.
	Buckets int
	// FingerprintBits is f, from 4 to 15. Zero means 12.
	FingerprintBits int
	// BloomAfter is the paper's t: the number of kicks an insertion makes
	// before the element it carries may take the Bloom bits of its two
	// buckets. Zero lets a new element take them at once when both of its
	// buckets are full; a negative value disables the Bloom part, which
	// gives the plain cuckoo filter.
	BloomAfter int
	// MaxIterations bounds the walk of one insertion, counted as the paper
	// counts iterations (the first attempt is one, each kick adds one).
	// Zero means 500.
	MaxIterations int
	// Seed seeds the random choices of the kick walk, so that runs repeat.
	Seed uint64
	// BloomBits is the number of Bloom bits per bucket: 1 (the paper's
	// filter, the default) or 2 (the paper's future-work variant, in which
	// an element owns one of the two bits, chosen by its fingerprint).
	BloomBits int
}

// Placement says where Insert put an element.
type Placement uint8

// Placements.
const (
	// Cuckoo: in a slot of one of its two buckets.
	Cuckoo Placement = iota
	// Bloom: in the Bloom part (the Bloom bits of its two buckets). With
	// BloomAfter > 0 the element that went there is usually one kicked by
	// the walk, not the new key.
	Bloom
	// Stash: the walk failed, the key waits in the stash.
	Stash
	// Full: the walk failed and the stash is full; the key was not
	// inserted. Nothing inserted earlier was lost. Rebuild a larger filter.
	Full
)

var placementNames = [...]string{Cuckoo: "cuckoo", Bloom: "bloom", Stash: "stash", Full: "full"}

func (p Placement) String() string {
	if int(p) < len(placementNames) {
		return placementNames[p]
	}
	return fmt.Sprintf("Placement(%d)", uint8(p))
}

// InsertResult reports one insertion.
type InsertResult struct {
	Placement Placement
	// Iterations is the paper's cost: the first attempt counts one and
	// each kick of the walk adds one.
	Iterations int
}

// Stats is a snapshot of the writer's counters.
type Stats struct {
	Buckets         int
	FingerprintBits int
	BloomAfter      int
	Len             int // elements: cuckoo slots + Bloom part + stash
	CuckooLen       int // elements in cuckoo slots
	BloomLen        int // elements in the Bloom part
	StashLen        int // keys in the stash
	Inserts         uint64
	Kicks           uint64 // fingerprints moved by insertion walks
	Rebalanced      uint64 // Bloom elements moved back to cuckoo slots
	Failed          uint64 // insertions that went to the stash or failed
	// Iterations[i] counts the insertions that took i iterations;
	// Iterations[0] is unused.
	Iterations []uint64
	// MaxIterationsSeen is the largest iteration count of any insertion.
	MaxIterationsSeen int
}

// Filter is a Bloom-Cuckoo filter (or, with BloomAfter < 0, a plain cuckoo
// filter) over 64-bit hashes.
//
// # Concurrency
//
// Contains, ContainsBatch, Len, Occupancy and BloomLen are safe from any
// number of goroutines and never block. Insert, Delete, Rebalance,
// SetBloomAfter, Stats and ResetStats must be called by one goroutine at a time.
type Filter struct {
	buckets []atomic.Uint64
	mask    uint64 // m-1

	// version stripes; a reader validates the two of its buckets.
	ver     []atomic.Uint32
	verMask uint64

	fbits     uint
	fpMask    uint64 // low f bits
	ones      uint64 // lowest bit of each lane
	highs     uint64 // highest bit of each lane
	slotsMask uint64 // bits [0, 4f)
	bloomBits int

	cuckooN atomic.Int64
	bloomN  atomic.Int64
	stashN  atomic.Int32
	stash   [StashSize]atomic.Uint64 // stashKey of each key; see stashKey
	stashV  atomic.Uint32

	// Writer-only state below.
	t       int
	maxIter int
	rng     uint64
	bloom   map[uint32]bloomEntry // key: lower bucket<<1 | bit
	sim     sim
	scratch []uint32
	hist    []uint64
	stats   Stats

	// afterStore, when set by a test, runs after every store to a bucket,
	// so the test can check the invariants at every instant a reader sees.
	afterStore func()
}

// bloomEntry is an element of the Bloom part: the partner of the bucket in
// its key, and its fingerprint.
type bloomEntry struct {
	other uint32
	fp    uint16
}

// New returns an empty filter.
func New(c Config) (*Filter, error) {
	if c.Buckets == 0 {
		c.Buckets = DefaultBuckets
	}
	if c.Buckets < 1 || c.Buckets > maxBuckets || c.Buckets&(c.Buckets-1) != 0 {
		return nil, &ConfigError{"Buckets", c.Buckets, "want a power of two from 1 to 2^30"}
	}
	if c.FingerprintBits == 0 {
		c.FingerprintBits = DefaultFingerprintBits
	}
	if c.FingerprintBits < 4 || c.FingerprintBits > 15 {
		return nil, &ConfigError{"FingerprintBits", c.FingerprintBits, "want 4 to 15"}
	}
	if c.MaxIterations == 0 {
		c.MaxIterations = DefaultMaxIterations
	}
	if c.MaxIterations < 1 || c.MaxIterations > 1<<20 {
		return nil, &ConfigError{"MaxIterations", c.MaxIterations, "want 1 to 2^20"}
	}
	if c.BloomBits == 0 {
		c.BloomBits = DefaultBloomBits
	}
	if c.BloomBits != 1 && c.BloomBits != 2 {
		return nil, &ConfigError{"BloomBits", c.BloomBits, "want 1 or 2"}
	}
	f := &Filter{
		buckets:   make([]atomic.Uint64, c.Buckets),
		mask:      uint64(c.Buckets - 1),
		fbits:     uint(c.FingerprintBits),
		fpMask:    1<<uint(c.FingerprintBits) - 1,
		bloomBits: c.BloomBits,
		t:         c.BloomAfter,
		maxIter:   c.MaxIterations,
		rng:       c.Seed ^ 0x9e3779b97f4a7c15,
		bloom:     make(map[uint32]bloomEntry),
	}
	stripes := min(c.Buckets, 4096)
	f.ver = make([]atomic.Uint32, stripes)
	f.verMask = uint64(stripes - 1)
	for i := range SlotsPerBucket {
		f.ones |= 1 << (uint(i) * f.fbits)
	}
	f.highs = f.ones << (f.fbits - 1)
	f.slotsMask = 1<<(SlotsPerBucket*f.fbits) - 1
	f.sim.init(c.MaxIterations)
	f.hist = make([]uint64, c.MaxIterations+1)
	f.stats = Stats{Buckets: c.Buckets, FingerprintBits: c.FingerprintBits}
	return f, nil
}

// Buckets returns m.
func (f *Filter) Buckets() int { return len(f.buckets) }

// Capacity returns the number of cuckoo slots, 4m.
func (f *Filter) Capacity() int { return len(f.buckets) * SlotsPerBucket }

// Len returns the number of elements: in cuckoo slots, in the Bloom part and
// in the stash.
func (f *Filter) Len() int {
	return int(f.cuckooN.Load() + f.bloomN.Load() + int64(f.stashN.Load()))
}

// BloomLen returns the number of elements in the Bloom part.
func (f *Filter) BloomLen() int { return int(f.bloomN.Load()) }

// Occupancy returns Len / 4m, the occupancy as the Bloom-Cuckoo paper counts
// it (Bloom-part elements included).
func (f *Filter) Occupancy() float64 {
	return float64(f.Len()) / float64(f.Capacity())
}

// BloomAfter returns the current t.
func (f *Filter) BloomAfter() int { return f.t }

// SetBloomAfter changes t between phases: the paper fills the filter with
// plain cuckoo insertion (t < 0) and bursts with the t under test.
func (f *Filter) SetBloomAfter(t int) { f.t = t }

// split returns the primary bucket and the fingerprint of h: the index from
// the low bits, the fingerprint from the high bits; 0 is reserved for empty.
func (f *Filter) split(h uint64) (uint64, uint64) {
	fp := h >> (64 - f.fbits)
	if fp == 0 {
		fp = 1
	}
	return h & f.mask, fp
}

// alt returns the partner bucket of i for fingerprint fp.
func (f *Filter) alt(i, fp uint64) uint64 {
	return i ^ ((fp * 0x9e3779b97f4a7c15 >> 32) & f.mask)
}

// bloomBit returns the Bloom bit that an element with fingerprint fp owns
// (or that a query for fp tests) in each of its buckets.
func (f *Filter) bloomBit(fp uint64) uint64 {
	if f.bloomBits == 1 {
		return 1 << 63
	}
	return 1 << (62 + (fp * 0x9e3779b97f4a7c15 >> 63))
}

// bloomMask returns the Bloom bit that Contains tests for fp, or 0 when the
// Bloom part is unused.
func (f *Filter) bloomMask(fp uint64) uint64 {
	if f.bloomN.Load() == 0 {
		return 0
	}
	return f.bloomBit(fp)
}

// lanes returns a word whose lane i has its top bit set if lane i of w holds
// fp. Only the lowest flagged lane is exact; a higher flag can be a borrow.
func (f *Filter) lanes(w, fp uint64) uint64 {
	x := (w ^ (fp * f.ones)) & f.slotsMask
	return (x - f.ones) &^ x & f.highs
}

func (f *Filter) has(w, fp uint64) bool { return f.lanes(w, fp) != 0 }

// slotOf returns the first slot of w holding fp, or -1.
func (f *Filter) slotOf(w, fp uint64) int {
	l := f.lanes(w, fp)
	if l == 0 {
		return -1
	}
	return bits.TrailingZeros64(l) / int(f.fbits)
}

func (f *Filter) get(w uint64, s int) uint64 {
	return w >> (uint(s) * f.fbits) & f.fpMask
}

func (f *Filter) set(w uint64, s int, fp uint64) uint64 {
	sh := uint(s) * f.fbits
	return w&^(f.fpMask<<sh) | fp<<sh
}

// store publishes a new word for bucket i, bumping its version stripe first
// so that a reader whose two loads straddle the store retries.
func (f *Filter) store(i, w uint64) {
	f.ver[i&f.verMask].Add(1)
	f.buckets[i].Store(w)
	if f.afterStore != nil {
		f.afterStore()
	}
}

// Contains reports whether h may be in the filter. It never returns false
// for a hash that was inserted and not deleted.
func (f *Filter) Contains(h uint64) bool {
	i1, fp := f.split(h)
	return f.probe(i1, f.alt(i1, fp), fp)
}

// stashKey names the class of keys that a cuckoo filter cannot tell apart:
// the same two buckets and the same fingerprint. The stash holds classes,
// not hashes, so that deleting one key of a class is the same operation
// wherever the filter keeps it.
func stashKey(i1, i2, fp uint64) uint64 { return min(i1, i2)<<16 | fp }

// probe looks fp up in buckets i1 and i2, the Bloom bits and the stash. A
// positive answer needs no validation: a fingerprint seen anywhere belongs
// to a live element (a walk copies before it overwrites). A negative answer
// is confirmed by re-reading the version stripes of both buckets; if a store
// hit either while the buckets were being read, the probe runs again.
func (f *Filter) probe(i1, i2, fp uint64) bool {
	v1p, v2p := &f.ver[i1&f.verMask], &f.ver[i2&f.verMask]
	for {
		v1, v2 := v1p.Load(), v2p.Load()
		w1, w2 := f.buckets[i1].Load(), f.buckets[i2].Load()
		if f.lanes(w1, fp)|f.lanes(w2, fp)|w1&w2&f.bloomMask(fp) != 0 { // one predictable branch
			return true
		}
		if f.stashN.Load() != 0 && f.inStash(i1, i2, fp) {
			return true
		}
		if v1p.Load() == v1 && v2p.Load() == v2 {
			return false
		}
	}
}

// inStash reports whether the stash holds fp's class, reading it between
// two reads of its version.
func (f *Filter) inStash(i1, i2, fp uint64) bool {
	sk := stashKey(i1, i2, fp)
	for {
		sv := f.stashV.Load()
		n := int(f.stashN.Load())
		for i := range n {
			if f.stash[i].Load() == sk {
				return true
			}
		}
		if f.stashV.Load() == sv {
			return false
		}
	}
}

// batchChunk is how many lookups ContainsBatch has in flight at once.
const batchChunk = 16

// ContainsBatch sets out[i] = Contains(hs[i]) for every i; out must be at
// least as long as hs. It loads the buckets of a chunk of keys before it
// looks at any of them, so their cache misses overlap.
func (f *Filter) ContainsBatch(hs []uint64, out []bool) {
	out = out[:len(hs)]
	var (
		i1s, i2s, fps [batchChunk]uint64
		w1s, w2s      [batchChunk]uint64
	)
	for len(hs) > 0 {
		n := min(len(hs), batchChunk)
		for j := 0; j < n; j++ {
			i1, fp := f.split(hs[j])
			i1s[j], fps[j] = i1, fp
			i2s[j] = f.alt(i1, fp)
		}
		for j := 0; j < n; j++ {
			w1s[j] = f.buckets[i1s[j]].Load()
			w2s[j] = f.buckets[i2s[j]].Load()
		}
		for j := 0; j < n; j++ {
			fp := fps[j]
			if f.lanes(w1s[j], fp)|f.lanes(w2s[j], fp)|w1s[j]&w2s[j]&f.bloomMask(fp) != 0 {
				out[j] = true
				continue
			}
			out[j] = f.probe(i1s[j], i2s[j], fp)
		}
		hs, out = hs[n:], out[n:]
	}
}

// Insert adds h. It never loses an element already in the filter; see
// Placement for where h went.
func (f *Filter) Insert(h uint64) InsertResult {
	i1, fp := f.split(h)
	i2 := f.alt(i1, fp)
	f.stats.Inserts++
	for _, i := range [2]uint64{i1, i2} {
		w := f.buckets[i].Load()
		if s := f.slotOf(w, 0); s >= 0 {
			f.store(i, f.set(w, s, fp))
			f.cuckooN.Add(1)
			return f.done(Cuckoo, 1)
		}
	}
	p, iters := f.walk(fp, i1, i2, f.t)
	switch p {
	case Cuckoo:
		f.cuckooN.Add(1)
		fallthrough
	case Bloom:
		f.stats.Kicks += uint64(iters - 1)
		return f.done(p, iters)
	}
	f.stats.Failed++
	n := int(f.stashN.Load())
	if n == StashSize {
		return f.done(Full, iters)
	}
	f.stashV.Add(1)
	f.stash[n].Store(stashKey(i1, i2, fp))
	f.stashN.Store(int32(n + 1))
	return f.done(Stash, iters)
}

func (f *Filter) done(p Placement, iters int) InsertResult {
	f.hist[min(iters, len(f.hist)-1)]++
	f.stats.MaxIterationsSeen = max(f.stats.MaxIterationsSeen, iters)
	return InsertResult{Placement: p, Iterations: iters}
}

// Delete removes one element equal to h (Algorithm 1: from a cuckoo slot if
// its fingerprint is in one of its buckets, else from the Bloom part, else
// from the stash) and reports whether it found one. Delete only hashes that
// were inserted: a cuckoo filter cannot tell two keys with the same
// fingerprint and buckets apart.
func (f *Filter) Delete(h uint64) bool {
	i1, fp := f.split(h)
	i2 := f.alt(i1, fp)
	for _, i := range [2]uint64{i1, i2} {
		w := f.buckets[i].Load()
		if s := f.slotOf(w, fp); s >= 0 {
			f.store(i, f.set(w, s, 0))
			f.cuckooN.Add(-1)
			return true
		}
	}
	if f.bloomN.Load() > 0 {
		lo, hi := min(i1, i2), max(i1, i2)
		key := f.bloomKey(lo, fp)
		if e, ok := f.bloom[key]; ok && uint64(e.fp) == fp && uint64(e.other) == hi {
			f.clearBloom(lo, hi, fp)
			delete(f.bloom, key)
			f.bloomN.Add(-1)
			return true
		}
	}
	n := int(f.stashN.Load())
	sk := stashKey(i1, i2, fp)
	for i := range n {
		if f.stash[i].Load() == sk {
			// Copy the last key over this one before shrinking, so
			// that a reader never misses the moved key.
			f.stashV.Add(1)
			f.stash[i].Store(f.stash[n-1].Load())
			f.stashN.Store(int32(n - 1))
			return true
		}
	}
	return false
}

func (f *Filter) bloomKey(lo, fp uint64) uint32 {
	k := uint32(lo) << 1
	if f.bloomBit(fp) == 1<<62 {
		k |= 1
	}
	return k
}

func (f *Filter) setBloom(a, b, fp uint64) {
	bit := f.bloomBit(fp)
	f.store(a, f.buckets[a].Load()|bit)
	if b != a {
		f.store(b, f.buckets[b].Load()|bit)
	}
}

func (f *Filter) clearBloom(a, b, fp uint64) {
	bit := f.bloomBit(fp)
	f.store(a, f.buckets[a].Load()&^bit)
	if b != a {
		f.store(b, f.buckets[b].Load()&^bit)
	}
}

// Rebalance moves up to budget elements from the stash and the Bloom part
// back into cuckoo slots, kicking with plain cuckoo walks where needed, and
// returns how many it moved. Call it when the writer is idle, to free Bloom bits for the
// next burst. Every element stays visible to lookups throughout: its
// fingerprint is written to a slot before its Bloom bits are cleared.
func (f *Filter) Rebalance(budget int) int {
	if budget <= 0 {
		return 0
	}
	moved := f.drainStash(budget)
	keys := f.scratch[:0]
	for k := range f.bloom {
		if len(keys) == budget-moved {
			break
		}
		keys = append(keys, k)
	}
	f.scratch = keys
	for _, k := range keys {
		e := f.bloom[k]
		lo, hi, fp := uint64(k>>1), uint64(e.other), uint64(e.fp)
		if !f.relocate(fp, lo, hi) {
			continue
		}
		f.clearBloom(lo, hi, fp)
		delete(f.bloom, k)
		f.bloomN.Add(-1)
		f.stats.Rebalanced++
		moved++
	}
	return moved
}

// relocate writes fp into a free slot of bucket a or b, or places it by a
// plain cuckoo walk, and reports whether it did. It counts the element as a
// cuckoo one; the caller then removes it from where it was.
func (f *Filter) relocate(fp, a, b uint64) bool {
	for _, i := range [2]uint64{a, b} {
		w := f.buckets[i].Load()
		if s := f.slotOf(w, 0); s >= 0 {
			f.store(i, f.set(w, s, fp))
			f.cuckooN.Add(1)
			return true
		}
	}
	if p, _ := f.walk(fp, a, b, -1); p != Cuckoo {
		return false
	}
	f.cuckooN.Add(1)
	return true
}

// drainStash moves up to budget stashed keys into cuckoo slots. The slot is
// written before the stash entry goes, so a reader sees the key throughout.
func (f *Filter) drainStash(budget int) int {
	moved := 0
	for i := int(f.stashN.Load()) - 1; i >= 0 && moved < budget; i-- {
		sk := f.stash[i].Load()
		lo, fp := sk>>16, sk&0xffff
		if !f.relocate(fp, lo, f.alt(lo, fp)) {
			continue
		}
		n := int(f.stashN.Load())
		f.stashV.Add(1)
		f.stash[i].Store(f.stash[n-1].Load())
		f.stashN.Store(int32(n - 1))
		moved++
	}
	return moved
}

// Stats returns a snapshot of the counters.
func (f *Filter) Stats() Stats {
	s := f.stats
	s.BloomAfter = f.t
	s.CuckooLen = int(f.cuckooN.Load())
	s.BloomLen = int(f.bloomN.Load())
	s.StashLen = int(f.stashN.Load())
	s.Len = f.Len()
	s.Iterations = append([]uint64(nil), f.hist...)
	return s
}

// ResetStats zeroes the insertion counters and the iteration histogram, so
// that a measurement can start after a warm-up phase.
func (f *Filter) ResetStats() {
	clear(f.hist)
	f.stats = Stats{Buckets: f.stats.Buckets, FingerprintBits: f.stats.FingerprintBits}
}

// TheoreticalFPR returns the false-positive rate the analysis predicts for
// the current contents: 2b·o/2^f for the cuckoo part (o its occupancy) plus
// the chance that both Bloom bits a query tests are set, (2n/m)^2 for one
// Bloom bit per bucket and (n/m)^2 for two, n the Bloom part's size.
func (f *Filter) TheoreticalFPR() float64 {
	m := float64(len(f.buckets))
	o := float64(f.cuckooN.Load()) / float64(f.Capacity())
	cuckoo := 2 * SlotsPerBucket * o / float64(uint64(1)<<f.fbits)
	d := 2 * float64(f.bloomN.Load()) / m / float64(f.bloomBits)
	return cuckoo + d*d
}

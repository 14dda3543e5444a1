package filter

import (
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/prefetch"
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

	// verStripes is the number of version counters a filter keeps at
	// most (4 KiB of them), few enough to stay in the first-level cache
	// of the core that runs the lookups.
	verStripes = 1024

	// altMul is the multiplier that hashes a fingerprint into the offset
	// of its partner bucket (and, with two Bloom bits, chooses the bit).
	altMul = 0x9e3779b97f4a7c15
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
	// Packed stores the buckets back to back, B = 4f + BloomBits bits
	// each (49 for f = 12), instead of one 64-bit word per bucket: the
	// table shrinks by B/64 (12.9 bits per item at 95% with f = 12,
	// against 16.8), so more of it stays in the caches. It trades that for
	// a few more instructions per bucket access: a bucket that straddles
	// two words is read with two loads and a shift, and each store to it
	// is a read-modify-write of one or two words. Lookups stay lock-free
	// and never see a false negative. Measured on a shared 2-core AMD EPYC
	// VM (both tables in its last-level cache), a packed filter of 2^20 or
	// 2^22 buckets at 95% answered lookups that find their key at 0.5-0.65×
	// the rate of the word layout, misses and inserts at about the same
	// rate: choose it where memory matters more than lookup speed.
	Packed bool
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
	// Read by every lookup and written only when the stash changes: kept
	// together at the front, away from the counters the writer bumps.
	buckets []atomic.Uint64 // one word a bucket; empty if packed
	// words holds the packed buckets, bucket i in bits [i·bw, i·bw+bw);
	// nil unless Config.Packed.
	words   []atomic.Uint64
	bw      uint64 // bits per packed bucket, 4f + Bloom bits
	bmask   uint64 // low bw bits
	nb      int    // m
	mask    uint64 // m-1
	fpShift uint64 // 64-f: the fingerprint is the top f bits of a hash
	ones    uint64 // lowest bit of each lane
	highs   uint64 // highest bit of each lane
	// bloomOne is 1 with one Bloom bit per bucket and 0 with two; see
	// bloomShift.
	bloomOne uint64
	// bloomBase + 1 is the position of the single Bloom bit, or bloomBase
	// and bloomBase + 1 those of the two: 62 in a word of its own, 4f +
	// BloomBits - 2 (just above the lanes) in a packed bucket.
	bloomBase uint64
	fbits     uint
	fpMask    uint64 // low f bits
	bloomBits int
	stashN    atomic.Int32
	stashV    atomic.Uint32
	stash     [StashSize]atomic.Uint64 // stashKey of each key; see stashKey
	_         [64]byte                 // a cache line between readers' and writer's fields

	// ver holds the version stripes, bumped by the writer before every
	// store to a bucket; a reader validates the two of its buckets. Bucket
	// i has stripe i mod verStripes: a fixed array, so a lookup indexes it
	// with a constant mask and no bounds check.
	ver [verStripes]atomic.Uint32

	cuckooN atomic.Int64
	bloomN  atomic.Int64

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
		nb:        c.Buckets,
		mask:      uint64(c.Buckets - 1),
		fpShift:   uint64(64 - c.FingerprintBits),
		fbits:     uint(c.FingerprintBits),
		fpMask:    1<<uint(c.FingerprintBits) - 1,
		bloomBits: c.BloomBits,
		t:         c.BloomAfter,
		maxIter:   c.MaxIterations,
		rng:       c.Seed ^ 0x9e3779b97f4a7c15,
		bloom:     make(map[uint32]bloomEntry),
	}
	if c.BloomBits == 1 {
		f.bloomOne = 1
	}
	f.bloomBase = 62
	if c.Packed {
		f.bw = uint64(SlotsPerBucket*c.FingerprintBits + c.BloomBits)
		f.bmask = 1<<f.bw - 1
		f.bloomBase = f.bw - 2
		f.words = make([]atomic.Uint64, (uint64(c.Buckets)*f.bw+63)/64)
	} else {
		f.buckets = make([]atomic.Uint64, c.Buckets)
	}
	for i := range SlotsPerBucket {
		f.ones |= 1 << (uint(i) * f.fbits)
	}
	f.highs = f.ones << (f.fbits - 1)
	f.sim.init(c.MaxIterations)
	f.hist = make([]uint64, c.MaxIterations+1)
	f.stats = Stats{Buckets: c.Buckets, FingerprintBits: c.FingerprintBits}
	return f, nil
}

// Buckets returns m.
func (f *Filter) Buckets() int { return f.nb }

// Capacity returns the number of cuckoo slots, 4m.
func (f *Filter) Capacity() int { return f.nb * SlotsPerBucket }

// Packed reports whether the buckets are packed; see Config.Packed.
func (f *Filter) Packed() bool { return f.words != nil }

// TableBits returns the size of the bucket table in bits: 64m, or with
// Config.Packed m·(4f + BloomBits) rounded up to whole words.
func (f *Filter) TableBits() int { return 64 * (len(f.buckets) + len(f.words)) }

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
	fp := h >> (f.fpShift & 63)
	if fp == 0 {
		fp = 1
	}
	return h & f.mask, fp
}

// alt returns the partner bucket of i for fingerprint fp.
func (f *Filter) alt(i, fp uint64) uint64 {
	return i ^ (fp * altMul >> 32 & f.mask)
}

// bloomShift returns the position of the Bloom bit that an element with
// fingerprint fp owns (or that a query for fp tests) in each of its buckets:
// 63 with one Bloom bit; 62 or 63, chosen by the fingerprint, with two
// (4f+1, or 4f and 4f+1, in a packed bucket: bloomBase + 1 and bloomBase).
func (f *Filter) bloomShift(fp uint64) uint64 {
	return f.bloomBase + (fp*altMul>>63 | f.bloomOne)
}

// bloomBit returns the Bloom bit of fp; see bloomShift.
func (f *Filter) bloomBit(fp uint64) uint64 {
	return 1 << (f.bloomShift(fp) & 63)
}

// lanes returns a word whose lane i has its top bit set if lane i of w holds
// fp. Only the lowest flagged lane is exact; a higher flag can be a borrow
// (from a lane that does hold fp, so the word is nonzero exactly when some
// lane matches). The Bloom bits above the lanes need no masking: a borrow
// only moves upwards, and the result keeps the lanes' top bits alone.
func (f *Filter) lanes(w, fp uint64) uint64 {
	x := w ^ fp*f.ones
	return (x - f.ones) &^ x & f.highs
}

func (f *Filter) has(w, fp uint64) bool { return f.lanes(w, fp) != 0 }

// hit reports whether buckets w1 and w2 answer yes for fp: a lane of either
// holds fp, or both have fp's Bloom bit set. One branch for the caller, no
// loop over slots. The Bloom bits need no check of the Bloom part's size:
// they are set only while it holds an element that owns them.
func (f *Filter) hit(w1, w2, fp uint64) bool {
	q := fp * f.ones
	x1, x2 := w1^q, w2^q
	l := ((x1-f.ones)&^x1 | (x2-f.ones)&^x2) & f.highs
	return l|(w1&w2)>>(f.bloomShift(fp)&63)&1 != 0
}

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

// stripe returns the version stripe of bucket i.
func (f *Filter) stripe(i uint64) *atomic.Uint32 { return &f.ver[i&(verStripes-1)] }

// load returns the value of bucket i: its word, or its packed bits
// shifted down, the same value either way.
func (f *Filter) load(i uint64) uint64 {
	if f.words != nil {
		return f.loadPacked(i)
	}
	return f.buckets[i].Load()
}

// loadPacked returns the bits of packed bucket i, from the word its first bit
// is in and the word its last bit is in: two loads of the same word if it
// does not straddle (the second hits the cache line the first brought in),
// so there is no branch and no load beyond the bucket's own words. The
// second word needs no masking when it is the first: shifted up by 64 -
// offset it lands at or above bit bw, which the mask clears, and at offset 0
// the shift is 0 and it ORs in the same bits.
func (f *Filter) loadPacked(i uint64) uint64 {
	return packedAt(f.words, i*f.bw, f.bw, f.bmask)
}

// packedAt returns the bw bits at bit p of w, masked by bm; see loadPacked.
// The lookups call it with the filter's fields in locals, so that the
// compiler need not reload them after each atomic load.
func packedAt(w []atomic.Uint64, p, bw, bm uint64) uint64 {
	s, e := p>>6, (p+bw-1)>>6
	lo := w[s].Load() >> (p & 63)
	hi := w[e].Load() << ((64 - p) & 63)
	return (lo | hi) & bm
}

// store publishes a new value for bucket i, bumping its version stripe
// first so that a reader whose two loads straddle the store retries.
func (f *Filter) store(i, w uint64) {
	f.stripe(i).Add(1)
	if f.words != nil {
		f.storePacked(i, w)
	} else {
		f.buckets[i].Store(w)
	}
	if f.afterStore != nil {
		f.afterStore()
	}
}

// storePacked writes w into the bits of packed bucket i: a read-modify-write
// of each of its one or two words that keeps the bits of the neighbours
// sharing them (only the writer stores, so no update is lost). A reader
// between the two stores sees a bucket torn in the one field the store
// changes: the old value there belongs to an element that a walk has already
// copied elsewhere or that is deleted, and the new one to an element still
// at its source, so the tear can only add a false positive; and the stripe,
// bumped before both stores, makes a reader's no retry.
func (f *Filter) storePacked(i, w uint64) {
	p := i * f.bw
	s, e, off := p>>6, (p+f.bw-1)>>6, p&63
	f.words[s].Store(f.words[s].Load()&^(f.bmask<<off) | w<<off)
	if e == s {
		return
	}
	if f.afterStore != nil {
		f.afterStore() // a test looks at the torn instant too
	}
	f.words[e].Store(f.words[e].Load()&^(f.bmask>>(64-off)) | w>>(64-off))
}

// Contains reports whether h may be in the filter. It never returns false
// for a hash that was inserted and not deleted.
//
// A yes needs one look at the two buckets: two independent loads, so that
// their cache misses overlap, and those of consecutive lookups overlap too.
// Contains reads the buckets' version stripes (first-level cache hits)
// before those loads, so that a no is one seqlock read: it stands if the
// stripes are settled afterwards, with no second look at the buckets.
func (f *Filter) Contains(h uint64) bool {
	b := f.buckets
	if len(b) == 0 { // packed or the zero Filter; it also drops the bounds checks
		return f.words != nil && f.containsPacked(h)
	}
	m := uint64(len(b) - 1)
	fp := h >> (f.fpShift & 63)
	if fp == 0 {
		fp = 1
	}
	i1, i2 := h&m, (h^fp*altMul>>32)&m // as split and alt compute them
	s := f.readStripes(i1, i2)
	w1, w2 := b[i1].Load(), b[i2].Load()
	if f.hit(w1, w2, fp) {
		return true
	}
	if f.settled(s) {
		return false
	}
	return f.probe(i1, i2, fp)
}

// Prefetch starts loading the two buckets of h into the cache without
// waiting for them, for a writer that will insert h a little later (or a
// reader that will look it up): the misses then overlap its other work.
// It changes nothing and may be called from any goroutine.
func (f *Filter) Prefetch(h uint64) {
	fp := h >> (f.fpShift & 63)
	if fp == 0 {
		fp = 1
	}
	if b := f.buckets; len(b) > 0 {
		m := uint64(len(b) - 1)
		prefetch.Line(unsafe.Pointer(&b[h&m]))
		prefetch.Line(unsafe.Pointer(&b[(h^fp*altMul>>32)&m]))
		return
	}
	if w := f.words; len(w) > 0 {
		m, bw, n := f.mask, f.bw, uint64(len(w))
		prefetch.Line(unsafe.Pointer(&w[min((h&m)*bw>>6, n-1)]))
		prefetch.Line(unsafe.Pointer(&w[min(((h^fp*altMul>>32)&m)*bw>>6, n-1)]))
	}
}

// containsPacked is Contains for packed buckets: the same stripes and
// match on the same bucket values, each read by loadPacked.
func (f *Filter) containsPacked(h uint64) bool {
	m := f.mask
	fp := h >> (f.fpShift & 63)
	if fp == 0 {
		fp = 1
	}
	i1, i2 := h&m, (h^fp*altMul>>32)&m
	w, bw, bm := f.words, f.bw, f.bmask
	s := f.readStripes(i1, i2)
	w1, w2 := packedAt(w, i1*bw, bw, bm), packedAt(w, i2*bw, bw, bm)
	if f.hit(w1, w2, fp) {
		return true
	}
	if f.settled(s) {
		return false
	}
	return f.probe(i1, i2, fp)
}

// stripeRead is what a lookup read from the version stripes of its two
// buckets: the stripes and the versions they showed.
type stripeRead struct {
	p1, p2 *atomic.Uint32
	v1, v2 uint32
}

// readStripes reads the version stripes of buckets i1 and i2.
func (f *Filter) readStripes(i1, i2 uint64) stripeRead {
	p1, p2 := f.stripe(i1), f.stripe(i2)
	return stripeRead{p1, p2, p1.Load(), p2.Load()}
}

// settled reports whether a negative answer from buckets read after their
// stripes showed s stands: the stash, which the answer did not look at, is
// empty, and neither stripe has changed since (no store hit the buckets
// while they were read).
//
// The stash must be read first. Rebalance moves a stashed key into a
// bucket (bumping its stripe) and only then takes it out of the stash. A
// reader that re-read the stripes before that move and the stash count
// after it would see neither the move nor the key: a false negative. Read
// in this order, a count of zero means the key had left the stash already,
// so its bucket store came before and the stripes show it (or the bucket
// loads did).
func (f *Filter) settled(s stripeRead) bool {
	if f.stashN.Load() != 0 {
		return false
	}
	return (s.p1.Load()^s.v1)|(s.p2.Load()^s.v2) == 0
}

// stashKey names the class of keys that a cuckoo filter cannot tell apart:
// the same two buckets and the same fingerprint. The stash holds classes,
// not hashes, so that deleting one key of a class is the same operation
// wherever the filter keeps it.
func stashKey(i1, i2, fp uint64) uint64 { return min(i1, i2)<<16 | fp }

// probe looks fp up in buckets i1 and i2, the Bloom bits and the stash, for
// a lookup whose no settled could not confirm. A positive answer needs no
// validation: a fingerprint seen anywhere belongs to a live element (a walk
// copies before it overwrites). A negative answer is confirmed
// seqlock-style: the version stripes of both buckets are read before and
// after the buckets; if a store hit either in between, the probe runs
// again.
//
//go:noinline
func (f *Filter) probe(i1, i2, fp uint64) bool {
	for {
		s := f.readStripes(i1, i2)
		if f.hit(f.load(i1), f.load(i2), fp) {
			return true
		}
		if f.stashN.Load() != 0 && f.inStash(i1, i2, fp) {
			return true
		}
		if s.p1.Load() == s.v1 && s.p2.Load() == s.v2 {
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
// least as long as hs. It works through hs in chunks: first the bucket
// indices, fingerprints and version stripes of the whole chunk, then all
// its bucket loads in a tight loop, so that their cache misses are in
// flight together, and only then the matches (and, for a no, the second
// read of the stripes). The stripes are read in the first loop, not the
// load loop: there they cost a third of the throughput of positive lookups
// at 2^20 buckets, since fewer misses fit in flight.
func (f *Filter) ContainsBatch(hs []uint64, out []bool) {
	out = out[:len(hs)]
	var (
		i1s, i2s, fps [batchChunk]uint64
		w1s, w2s      [batchChunk]uint64
		v1s, v2s      [batchChunk]uint32
	)
	b := f.buckets
	if len(b) == 0 {
		if f.words != nil {
			f.containsBatchPacked(hs, out)
		} else {
			clear(out)
		}
		return
	}
	m := uint64(len(b) - 1)
	for len(hs) > 0 {
		n := min(len(hs), batchChunk)
		for j, h := range hs[:n] {
			fp := h >> (f.fpShift & 63)
			if fp == 0 {
				fp = 1
			}
			i1, i2 := h&m, (h^fp*altMul>>32)&m
			i1s[j], i2s[j], fps[j] = i1, i2, fp
			v1s[j], v2s[j] = f.ver[i1&(verStripes-1)].Load(), f.ver[i2&(verStripes-1)].Load()
		}
		for j := range n {
			w1s[j], w2s[j] = b[i1s[j]&m].Load(), b[i2s[j]&m].Load() // &m: no bounds checks
		}
		for j := range n {
			fp := fps[j]
			i1, i2, w1, w2 := i1s[j], i2s[j], w1s[j], w2s[j]
			out[j] = f.hit(w1, w2, fp) ||
				!f.settled(stripeRead{f.stripe(i1), f.stripe(i2), v1s[j], v2s[j]}) && f.probe(i1, i2, fp)
		}
		hs, out = hs[n:], out[n:]
	}
}

// containsBatchPacked is ContainsBatch for packed buckets. Its load loop
// only loads: the word indices are computed before it and the bucket bits
// extracted after it, so that the loop is short and more of the chunk's
// cache misses fit in the processor's window at once.
func (f *Filter) containsBatchPacked(hs []uint64, out []bool) {
	var (
		i1s, i2s, fps      [batchChunk]uint64
		s1s, e1s, s2s, e2s [batchChunk]uint64 // words of each bucket
		a1s, b1s, a2s, b2s [batchChunk]uint64 // and their contents
		v1s, v2s           [batchChunk]uint32 // and their stripes' versions
	)
	m, w, bw, bm := f.mask, f.words, f.bw, f.bmask
	for len(hs) > 0 {
		n := min(len(hs), batchChunk)
		for j, h := range hs[:n] {
			fp := h >> (f.fpShift & 63)
			if fp == 0 {
				fp = 1
			}
			i1, i2 := h&m, (h^fp*altMul>>32)&m
			i1s[j], i2s[j], fps[j] = i1, i2, fp
			p1, p2 := i1*bw, i2*bw
			s1s[j], e1s[j], s2s[j], e2s[j] = p1>>6, (p1+bw-1)>>6, p2>>6, (p2+bw-1)>>6
			v1s[j], v2s[j] = f.ver[i1&(verStripes-1)].Load(), f.ver[i2&(verStripes-1)].Load()
		}
		for j := range n {
			a1s[j], b1s[j], a2s[j], b2s[j] = w[s1s[j]].Load(), w[e1s[j]].Load(), w[s2s[j]].Load(), w[e2s[j]].Load()
		}
		for j := range n {
			fp := fps[j]
			i1, i2 := i1s[j], i2s[j]
			p1, p2 := i1*bw, i2*bw
			w1 := (a1s[j]>>(p1&63) | b1s[j]<<((64-p1)&63)) & bm // see packedAt
			w2 := (a2s[j]>>(p2&63) | b2s[j]<<((64-p2)&63)) & bm
			out[j] = f.hit(w1, w2, fp) ||
				!f.settled(stripeRead{f.stripe(i1), f.stripe(i2), v1s[j], v2s[j]}) && f.probe(i1, i2, fp)
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
		w := f.load(i)
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
		w := f.load(i)
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
	if f.bloomShift(fp) == f.bloomBase {
		k |= 1
	}
	return k
}

func (f *Filter) setBloom(a, b, fp uint64) {
	bit := f.bloomBit(fp)
	f.store(a, f.load(a)|bit)
	if b != a {
		f.store(b, f.load(b)|bit)
	}
}

func (f *Filter) clearBloom(a, b, fp uint64) {
	bit := f.bloomBit(fp)
	f.store(a, f.load(a)&^bit)
	if b != a {
		f.store(b, f.load(b)&^bit)
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
		w := f.load(i)
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
	m := float64(f.nb)
	o := float64(f.cuckooN.Load()) / float64(f.Capacity())
	cuckoo := 2 * SlotsPerBucket * o / float64(uint64(1)<<f.fbits)
	d := 2 * float64(f.bloomN.Load()) / m / float64(f.bloomBits)
	return cuckoo + d*d
}

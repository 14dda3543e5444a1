package filter

import (
	"errors"
	"fmt"
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
	// and never see a false negative. Where both layouts fit in the last
	// level cache, lookups that find their key run at roughly half to two
	// thirds the rate of the word layout, misses and inserts at about the
	// same rate (BenchmarkContains and BenchmarkInsert compare the two):
	// choose it where memory matters more than lookup speed.
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

	// gen counts stores to buckets, bumped by the writer before every
	// store with the bucket's stripe: Contains reads it before its bucket
	// loads and again after a miss, and the no stands if it has not moved.
	// It is on a line of its own, so its bumps invalidate nothing else a
	// reader holds.
	gen atomic.Uint32
	_   [60]byte

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

	// afterStore, when a test sets it (setAfterStore, in export_test.go),
	// runs after every store to a bucket, so the test can check the
	// invariants at every instant a reader sees. Nothing else sets it.
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

// MeasureFPR looks up n hashes of a splitmix64 stream seeded by seed and
// returns the share the filter passes: its false-positive rate as queries
// of absent keys see it, within about sqrt(p/n) of the true rate p. A
// uniform 64-bit hash equals a stored one with probability Len/2^64, so
// every pass counts as a false positive. Unlike the rate of a stream of
// packets, which repeats a few absent keys, this samples the whole filter.
// Safe from any goroutine; it writes nothing.
func (f *Filter) MeasureFPR(n int, seed uint64) float64 {
	if n <= 0 {
		return 0
	}
	pass := 0
	for range n {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		if f.Contains(z ^ z>>31) {
			pass++
		}
	}
	return float64(pass) / float64(n)
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

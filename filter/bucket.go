package filter

import (
	"math/bits"
	"sync/atomic"
)

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

// store publishes a new value for bucket i, bumping the store count and
// its version stripe first so that a reader whose two loads straddle the
// store retries.
func (f *Filter) store(i, w uint64) {
	f.gen.Add(1)
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

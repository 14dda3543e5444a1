package rules

import "sync/atomic"

// How a lookup treats a subtable it visits (subtable.use, copied in its
// orderEntry), decided per
// subtable from what the filter saves there (tableState.note), as
// "Subtables" in doc.go describes:
//
//   - useFilter: check the filter first; a negative skips the probe.
//   - useFilterAhead: as useFilter, and start loading the key's home slot
//     before the check, so that a key the subtable holds waits for one
//     cache miss, not two in a row (large indexes only).
//   - useProbe: probe without the filter.
//
// A new subtable starts at useFilter.
const (
	useFilter uint32 = iota
	useFilterAhead
	useProbe
	useNone // no subtable's use: what lookups compare with under filterAll
)

// filterEvidence is what lookups tell a subtable about the keys that
// visit it: of sampled visits, how many found the key absent. It lives in
// a line of its own, away from what every lookup reads, and lookups write
// it for about one lookup in sampleEvery only.
//
// A visit knows whether the subtable holds the key whether or not it
// checked the filter: a filter negative is a certain miss, and otherwise
// the probe tells. So the evidence costs no extra probe, and it is the
// same whichever use the subtable has.
type filterEvidence struct {
	_      [64]byte
	visits atomic.Uint32
	misses atomic.Uint32
	_      [56]byte
}

// Sampling: a reader's lookup is sampled when sampleBits low bits of the
// sum of its count of lookups (Counters, kept per reader) and the key's
// IPv4 addresses word are zero; every visit of a sampled lookup is noted.
// A reader that keeps its Counters (the dataplane's workers, Walk,
// LookupBatch within a batch, benchmarks) samples one lookup in
// sampleEvery whatever the keys; one that starts from zero Counters every
// lookup (Lookup) samples the keys of one address in sampleEvery, or none
// where the word is zero. The decision is made once a lookup, before its
// first visit, and a sampled lookup runs a copy of the lookup loop of its
// own (lookupSampled, out of line), so that the visits of the others carry
// no sampling at all: no flag kept across the calls a visit makes and
// tested after every probe. A LookupBatch chunk samples a pass over a
// subtable by the first key's hash there and the reader's visits
// (sampled), and notes all its keys. After sampleWindow noted visits of a
// subtable, the lookup that noted the last one decides the subtable's use
// and starts a new window: a subtable visited a million times a second is
// re-decided about every 8 ms.
const (
	sampleBits   = 5
	sampleEvery  = 1 << sampleBits
	sampleWindow = 256
)

// sampledLookup reports whether the reader's n-th lookup, of k, is
// sampled.
func sampledLookup(n uint32, k *Key) bool {
	return (n+uint32(k[0]))&(sampleEvery-1) == 0
}

// sampled reports whether a chunk's pass over a subtable, whose first key
// hashes to h there, after the reader's visited visits, is sampled.
func sampled(h, visited uint64) bool {
	return (h>>32+visited)&(sampleEvery-1) == 0
}

// The thresholds of the rule, in sampled misses of sampleWindow. The
// filter pays where the share s of visits that find the key absent is
// above the ratio of a filter check's cost C to a missing probe's P (a
// negative saves the probe and pays the check; a hit pays the check on
// top of the probe): s*(P-C) > (1-s)*C, that is s > C/P. C is about two
// bucket loads of a filter that is smaller than the index (a few bytes a
// key against 32-128 bytes of slots a key), P a slot load and the tests
// of what it finds; both grow with the index as their lines fall out of
// the caches, P sooner:
//
//   - probeMissesSmall, an index of fewer than prefetchSlots slots (1 MB:
//     the second-level cache holds it): 50%.
//   - probeMissesLarge, from prefetchSlots on, where a probe's first slot
//     is likely a miss of the second-level cache and the filter's bucket
//     less likely: 25%.
//
// The shares are measured ("Subtables" in doc.go). aheadMisses: below it
// a subtable of a large index behind the filter loads the slot ahead of
// the check (useFilterAhead); where most checks are negatives the line
// would go unused. hysteresis: the share must cross a threshold by this
// much to change the use, so that a subtable near it does not flip every
// window (one window's share has a standard deviation of at most 3%).
var (
	probeMissesSmall = sampleWindow * 50 / 100
	probeMissesLarge = sampleWindow * 25 / 100
	aheadMisses      = sampleWindow * 75 / 100
	hysteresis       = sampleWindow * 5 / 100
)

// note records n sampled visits of oe's subtable st, of which miss found
// their key absent, in a lookup of s, and at the end of a window decides
// st's use: the caller whose visits complete the window does. It writes
// st.use and oe's copy, which lookups read, only when the use changes; an
// order published meanwhile copied the old use, and the next window puts
// it right. Concurrent readers may lose a few counts at a
// window's end; the evidence is a sample anyway.
//
//go:noinline
func (s *tableState) note(oe *orderEntry, n, miss uint32) {
	st := oe.st
	ev := &st.evidence
	if miss > 0 {
		ev.misses.Add(miss)
	}
	v := ev.visits.Add(n)
	if v < sampleWindow || v-n >= sampleWindow {
		return
	}
	m := ev.misses.Swap(0)
	ev.visits.Store(0)
	old := st.use.Load()
	if u := decideUse(old, int(uint64(m)*sampleWindow/uint64(v)), len(s.slots)); u != old {
		st.use.Store(u)
		atomic.StoreUint32(&oe.use, u)
	}
}

// decideUse returns the use of a subtable whose use is old, of whose
// last sampleWindow sampled visits m missed, in an index of slots slots.
func decideUse(old uint32, m, slots int) uint32 {
	large := slots >= prefetchSlots
	th := probeMissesSmall
	if large {
		th = probeMissesLarge
	}
	filtered := old != useProbe
	switch {
	case m > th+hysteresis:
		filtered = true
	case m < th-hysteresis:
		filtered = false
	}
	switch {
	case !filtered:
		return useProbe
	case large && m < aheadMisses:
		return useFilterAhead
	}
	return useFilter
}

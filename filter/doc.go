// Package filter implements the Bloom-Cuckoo filter: a cuckoo filter whose
// buckets each carry one (or two) extra Bloom bits, so that a burst of
// insertions at high occupancy finishes after a bounded number of bucket
// accesses instead of a long cuckoo kick chain.
//
// The package knows nothing about packets or OpenFlow. Its keys are 64-bit
// hashes that the caller computes once; the filter splits each hash into a
// bucket index (low bits) and a fingerprint (high bits).
//
// # Layout
//
// A filter has m buckets, m a power of two. A bucket is one uint64 word that
// holds four fingerprints of f bits each (f = 4..15, 0 marks an empty slot)
// in bits [0, 4f), and the Bloom bit in bit 63 (the two-bit variant uses bits
// 62 and 63). An element with fingerprint fp lives in bucket i1 = h mod m or
// in its partner i2 = i1 XOR (hash(fp) mod m) (partial-key cuckoo hashing). A
// lookup is two loads and a word-parallel compare of all four lanes.
//
// With Config.Packed the buckets lie back to back in a []uint64, B = 4f +
// BloomBits bits each (49 for f = 12, Bloom bits just above the lanes), so a
// bucket spans one or two words: 12.9 bits per item at 95% instead of 16.8.
// A packed bucket is read with two loads (of the same word when it does not
// straddle) into the same value a word-per-bucket lookup matches, so the
// match and the Bloom test are shared; a store is a read-modify-write of its
// one or two words that keeps the neighbours' bits.
//
// # Insertion
//
// Insert follows Algorithm 2 of the Bloom-Cuckoo paper. If either bucket has
// a free slot the element goes there (one iteration). Otherwise a random walk
// kicks fingerprints out of full buckets, as a plain cuckoo filter does; once
// the walk has made BloomAfter (the paper's t) kicks, the element it carries
// may instead set the Bloom bits of its two buckets, provided both are clear.
// An element therefore owns the Bloom bits it sets, and deleting it
// (Algorithm 1) clears them without touching anyone else. The Bloom part
// records each of its elements (bucket pair and fingerprint) so that
// Rebalance can move them back into cuckoo slots while the writer is idle.
// With BloomAfter < 0 the Bloom part is never used and the same code is a
// plain cuckoo filter, which keeps comparisons between the two fair.
//
// An insertion never evicts an element it cannot place: the walk is first
// simulated without writing anything, and only a walk that succeeds is
// carried out. A key whose walk fails goes to a small stash that lookups also
// check; when the stash is full Insert reports Full and the caller rebuilds a
// larger filter from its authoritative table.
//
// # Concurrency
//
// One goroutine at a time may call the writer methods (Insert, Delete,
// Rebalance, SetBloomAfter, Stats). Any number of goroutines may call
// Contains, ContainsBatch, Len and Occupancy at the same time; they never
// lock, never write shared memory and never report a false negative for a key
// that was inserted and not deleted, also while a kick walk or a Rebalance is
// moving fingerprints. The writer carries out a walk from its end, so each
// store copies a fingerprint to its new slot before the next store overwrites
// its old one, and it bumps a version counter (one of 1024 stripes, chosen by
// bucket) and the filter's store count before every store. A lookup that
// finds its fingerprint in one of its two buckets answers yes at once: a
// fingerprint seen anywhere belongs to a live element. A no must be
// confirmed before it stands, as in MemC3's optimistic cuckoo hashing:
// Contains reads the store count before it loads its two buckets and again
// after a miss (ContainsBatch, the stripes of the two buckets), and the no
// stands if no store happened meanwhile (no store hit either stripe) and
// the stash is empty. Otherwise the lookup falls back to a probe that reads
// the stripes before and after the buckets and the stash, and repeats until
// no store intervened.
//
// # Performance
//
// Contains, ContainsBatch, Insert and Delete allocate nothing. A lookup's
// two bucket loads are independent, so the cache misses of one lookup, and
// of consecutive lookups, overlap; the version stripes fit in the
// first-level cache, and ContainsBatch reads them outside its load loop,
// so that the loop stays short. ContainsBatch computes
// the buckets of a chunk of keys, then issues all their loads back to back,
// and only then inspects them, so that many more misses are in flight.
package filter

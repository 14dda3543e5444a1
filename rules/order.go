package rules

import (
	"slices"
)

// orderEntry is one subtable in lookup order, with what hashing a key for
// it needs (its seed and packed mask) copied in, so that a lookup walking
// the order reads one array front to back and touches a subtable itself
// only when the filter lets a key through.
type orderEntry struct {
	maxRank uint64
	st      *subtable
	seed    uint64
	nw      uint8 // masked words, or wideMask when there are more than orderWords
	words   [orderWords]uint8
	mask    [orderWords]uint64 // mask words, packed
	gmask   [len(guardWords)]uint64
	gval    [len(guardWords)]uint64
}

// guarded reports whether k fails oe's guard: then no rule of the
// subtable can match k.
func (oe *orderEntry) guarded(k *Key) bool {
	return (k[guardWords[0]]&oe.gmask[0]^oe.gval[0])|(k[guardWords[1]]&oe.gmask[1]^oe.gval[1]) != 0
}

// orderWords is the most mask words an orderEntry holds (an IPv6 5-tuple
// takes 7).
const orderWords = 7

const wideMask = 0xff

func newOrderEntry(st *subtable) orderEntry {
	oe := orderEntry{maxRank: st.maxRank, st: st, seed: st.seed, nw: wideMask, gmask: st.gmask, gval: st.gval}
	if st.nw <= orderWords {
		oe.nw = uint8(st.nw)
		for i, w := range st.words[:st.nw] {
			oe.words[i], oe.mask[i] = w, st.mask[w]
		}
	}
	return oe
}

// hash is st.hash(k), from the entry's copy of the mask.
func (oe *orderEntry) hash(k *Key) uint64 {
	if oe.nw == wideMask {
		return oe.st.hash(k)
	}
	h := oe.seed
	for i := range oe.nw {
		h ^= k[oe.words[i]] & oe.mask[i]
		h *= 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	return fmix(h)
}

// hash2 is hash of two keys at once: the two multiply chains are
// independent, so the processor runs them side by side.
func (oe *orderEntry) hash2(k1, k2 *Key) (uint64, uint64) {
	if oe.nw == wideMask {
		return oe.st.hash(k1), oe.st.hash(k2)
	}
	h1, h2 := oe.seed, oe.seed
	for i := range oe.nw {
		w, m := oe.words[i], oe.mask[i]
		h1 ^= k1[w] & m
		h2 ^= k2[w] & m
		h1 *= 0x9e3779b97f4a7c15
		h2 *= 0x9e3779b97f4a7c15
		h1 ^= h1 >> 29
		h2 ^= h2 >> 29
	}
	return fmix(h1), fmix(h2)
}

// publishOrder stores a fresh subtable order if it changed.
func (t *Table) publishOrder() {
	if !t.orderDirty {
		return
	}
	t.orderDirty = false
	order := make([]orderEntry, 0, len(t.subs))
	for _, st := range t.subs {
		order = append(order, newOrderEntry(st))
	}
	slices.SortFunc(order, func(a, b orderEntry) int {
		switch {
		case a.maxRank > b.maxRank:
			return -1
		case a.maxRank < b.maxRank:
			return 1
		}
		return int(a.st.id) - int(b.st.id)
	})
	ns := *t.state.Load()
	ns.order = order
	t.state.Store(&ns)
}

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
	// use is st.use as lookups read it: copied from st when the order is
	// published, and written with st.use by the lookup that decides it
	// (note), so that a visit reads the line it reads anyway, not the
	// subtable's. Atomic in a published order; zero in the writer's.
	use   uint32
	mask  [orderWords]uint64 // mask words, packed
	gmask [len(guardWords)]uint64
	gval  [len(guardWords)]uint64
}

// same reports whether a and b are the same entry but for use, which
// lookups may be writing in a published one.
func (a *orderEntry) same(b *orderEntry) bool {
	return a.maxRank == b.maxRank && a.st == b.st && a.seed == b.seed && a.nw == b.nw &&
		a.words == b.words && a.mask == b.mask && a.gmask == b.gmask && a.gval == b.gval
}

// sameOrder reports whether a and b hold the same entries, but for use;
// it copies no entry of a, which may be published.
func sameOrder(a, b []orderEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].same(&b[i]) {
			return false
		}
	}
	return true
}

// guarded reports whether k fails oe's guard: then no rule of the
// subtable can match k.
func (oe *orderEntry) guarded(k *Key) bool {
	return (k[guardWord0]&oe.gmask[0]^oe.gval[0])|(k[guardWord1]&oe.gmask[1]^oe.gval[1])|(k[guardWord2]&oe.gmask[2]^oe.gval[2]) != 0
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
	for i, w := range oe.words[:oe.nw] {
		h = hashStep(h, keyWord(k, w)&oe.mask[i])
	}
	return hashFinish(h)
}

// hash2 is hash of two keys at once: the two multiply chains are
// independent, so the processor runs them side by side.
func (oe *orderEntry) hash2(k1, k2 *Key) (uint64, uint64) {
	if oe.nw == wideMask {
		return oe.st.hash(k1), oe.st.hash(k2)
	}
	h1, h2 := oe.seed, oe.seed
	for i, w := range oe.words[:oe.nw] {
		m := oe.mask[i]
		h1 = hashStep(h1, keyWord(k1, w)&m)
		h2 = hashStep(h2, keyWord(k2, w)&m)
	}
	return hashFinish(h1), hashFinish(h2)
}

// touch marks st for the next publishOrder: its entry in the order (its
// best rank, its guard), or whether it has one, may have changed. Every
// change of what newOrderEntry reads of a subtable, and every subtable
// made or deleted, must touch it before the next publish.
func (t *Table) touch(st *subtable) {
	if !st.touched {
		st.touched = true
		t.touched = append(t.touched, st)
	}
}

// orderBefore reports whether the entry of best rank ra and subtable id
// ia comes before that of rb and ib: best rank descending, then subtable
// id ascending (the order of creation), so that the order is total.
func orderBefore(ra, ia, rb, ib uint64) bool {
	return ra > rb || ra == rb && ia < ib
}

// orderPos returns the index in t.ord at which the entry of best rank r and
// subtable id id is, or would be inserted.
func (t *Table) orderPos(r, id uint64) int {
	lo, hi := 0, len(t.ord)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if oe := &t.ord[m]; orderBefore(oe.maxRank, oe.st.id, r, id) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// publishOrder brings the subtable order up to date with the subtables
// touched since the last call and, if that changed an entry, publishes a
// copy of it. t.ord, the writer's copy, holds newOrderEntry of every
// subtable of t.subs as of the last call, sorted (orderBefore); a touched
// subtable moves by one delete and one insert, so a publish costs a binary
// search and a copy of the order per touched subtable, not a sort of
// newly built entries. Lookups keep the order they loaded: the published
// slice is never written again.
func (t *Table) publishOrder() {
	if len(t.touched) == 0 {
		return
	}
	if len(t.touched) > maxOrderMoves {
		t.sortOrder()
		return
	}
	changed := false
	for _, st := range t.touched {
		st.touched = false
		live := t.subs[st.mask] == st
		var ne orderEntry
		if live {
			ne = newOrderEntry(st)
		}
		if st.ordered {
			i := t.orderPos(st.ordRank, st.id)
			if i == len(t.ord) || t.ord[i].st != st {
				panic("rules: a subtable is missing from its order")
			}
			if live && t.ord[i] == ne {
				continue
			}
			t.ord = append(t.ord[:i], t.ord[i+1:]...)
			t.ord[len(t.ord) : len(t.ord)+1][0] = orderEntry{} // no stale pointer past the end
			st.ordered = false
			changed = true
		}
		if live {
			i := t.orderPos(ne.maxRank, st.id)
			t.ord = append(t.ord, orderEntry{})
			copy(t.ord[i+1:], t.ord[i:])
			t.ord[i] = ne
			st.ordered, st.ordRank = true, ne.maxRank
			changed = true
		}
	}
	clear(t.touched)
	t.touched = t.touched[:0]
	if !changed {
		return
	}
	t.storeOrder()
}

// storeOrder publishes a copy of t.ord. With Config.Recycle the copy
// reuses the array of an order published before, which it retires (see
// ordLimbo), and the order it replaces is retired.
func (t *Table) storeOrder() {
	old := *t.state.Load()
	ns := old
	var buf []orderEntry
	if n := len(t.ordFree); n > 0 {
		buf = t.ordFree[n-1]
		t.ordFree[n-1] = nil
		t.ordFree = t.ordFree[:n-1]
	}
	if cap(buf) >= len(t.ord) {
		ns.order = append(buf[:0], t.ord...)
	} else {
		ns.order = slices.Clone(t.ord)
	}
	for i := range ns.order {
		ns.order[i].use = ns.order[i].st.use.Load()
	}
	t.state.Store(&ns)
	if t.p.cfg.Recycle && old.order != nil {
		t.ordLimbo = append(t.ordLimbo, retired[[]orderEntry]{old.order, t.p.epoch.Load()})
	}
}

// reclaimOrders moves the retired orders of epochs before oldest to
// t.ordFree, for storeOrder to reuse, and calls poison, if not nil, on
// each. It returns how many it reclaimed. Writer only.
func (t *Table) reclaimOrders(oldest uint64, poison func([]orderEntry)) int {
	// A lookup reads no entry past an order's length; the reuse
	// overwrites them all, and clears none of the pointers the garbage
	// collector then sees in it past its length.
	return reclaimRetired(&t.ordLimbo, &t.ordFree, oldest, poison)
}

// maxOrderMoves is the most touched subtables publishOrder moves one by
// one; past it (a burst that changed many), it sorts the order anew,
// which costs no more than a sort did before it moved entries.
const maxOrderMoves = 16

// sortOrder is publishOrder for many touched subtables: it builds the
// order from scratch and publishes it if it differs.
func (t *Table) sortOrder() {
	for _, st := range t.touched {
		st.touched, st.ordered = false, false
	}
	clear(t.touched)
	t.touched = t.touched[:0]
	n := len(t.ord)
	t.ord = t.fullOrder(t.ord[:0])
	if n > len(t.ord) {
		clear(t.ord[len(t.ord):n]) // no stale pointer past the end
	}
	for i := range t.ord {
		t.ord[i].st.ordered, t.ord[i].st.ordRank = true, t.ord[i].maxRank
	}
	if sameOrder(t.state.Load().order, t.ord) {
		return
	}
	t.storeOrder()
}

// fullOrder appends to buf the order publishOrder keeps, built from
// scratch, and returns it.
func (t *Table) fullOrder(buf []orderEntry) []orderEntry {
	order := buf[:0]
	for _, st := range t.subs {
		order = append(order, newOrderEntry(st))
	}
	slices.SortFunc(order, func(a, b orderEntry) int {
		switch {
		case orderBefore(a.maxRank, a.st.id, b.maxRank, b.st.id):
			return -1
		case orderBefore(b.maxRank, b.st.id, a.maxRank, a.st.id):
			return 1
		}
		return 0
	})
	return order
}

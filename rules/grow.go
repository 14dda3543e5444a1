package rules

import "unsafe"

// The index grows, or sheds its tombstones, incrementally: no update pays
// for moving every node at once. When its slots in use (nodes and
// tombstones) pass 3/8 of the published array, startGrow allocates the
// next array, which lookups do not see, and every addNode after it copies
// a share of the published slots into it (stepGrow), sized so that the
// copy is complete before the published array is half full. Until then
// every change to a slot already copied is made in both arrays (addNode,
// replaceNode, removeNode), so when the copy ends the next array holds
// exactly the published array's nodes; finishGrow publishes it with one
// atomic store. Lookups never see the next array before it is complete,
// and keep the old one, still correct, if they loaded it before: its nodes
// are the same, and what changes after the swap is invisible at the
// version they loaded before it (see doc.go, "Versions"). Copying a slot
// reads and writes slots only, never the node, so the nodes' slot indices
// (inode.si) go stale and slotOf finds a node by its hash.

// startGrow allocates the next index: four slots per node or more, and
// room for the adds the copy may overlap (an eighth of the published
// array) at half load.
func (t *Table) startGrow() {
	s := t.state.Load()
	nb := t.growSize(t.nodes, len(s.slots))
	t.wantNext.Store(0)
	if pre := t.nextMade.Swap(nil); pre != nil && len(*pre) == nb {
		t.next = *pre
		t.prefaulted++
	} else {
		t.next = make([]slot, nb)
	}
	t.nmask = uint64(nb - 1)
	t.moved = 0
	t.nused = 0
}

// growSize is the length of the next index of a table of nodes nodes
// whose published index has cur slots.
func (t *Table) growSize(nodes, cur int) int {
	nb := t.minSlots
	for nb < 4*(nodes+1) || nb < 2*(nodes+cur/8+1) {
		nb *= 2
	}
	return nb
}

// minPrefaulted is the smallest published index whose next one the
// writer asks Prefault to make (256 KB of slots): making the next array
// zeroes memory the heap reuses, or faults in pages fresh from the
// system, about a millisecond for 16 MB; smaller arrays cost little.
const minPrefaulted = 1 << 14

// prefaultIndex makes the next index the writer asked for (wantNext),
// with each of its pages written, for startGrow to take (nextMade). It
// runs on Prefault's goroutine and shares only those two atomics with
// the writer.
func (t *Table) prefaultIndex() int {
	nb := int(t.wantNext.Load())
	if nb == 0 {
		return 0
	}
	if pre := t.nextMade.Load(); pre != nil && len(*pre) == nb {
		return 0
	}
	a := make([]slot, nb)
	const pageSlots = 4096 / int(unsafe.Sizeof(slot{}))
	for i := 0; i < len(a); i += pageSlots {
		a[i].h.Store(0)
	}
	t.nextMade.Store(&a)
	return 1
}

// stepGrow copies the next share of the published slots into the next
// index: the slots left over the adds left before the published array is
// half full, so that the copy always ends first. It publishes the next
// index when the copy is complete.
func (t *Table) stepGrow() {
	s := t.state.Load()
	left := len(s.slots) - t.moved
	adds := max(1, len(s.slots)/2-t.used)
	end := t.moved + (left+adds-1)/adds
	for i := t.moved; i < end; i++ {
		n := s.slots[i].n.Load()
		if n == nil || n == tomb {
			continue
		}
		t.nextInsert(s.slots[i].h.Load(), n)
	}
	t.moved = end
	if t.moved == len(s.slots) {
		t.finishGrow()
	}
}

// nextInsert puts node n of hash h into the next index.
func (t *Table) nextInsert(h uint64, n *inode) {
	putSlot(t.next, t.nmask, h, n, &t.nused)
}

// putSlot stores n, of hash h, in the first free slot (empty or a
// tombstone) of h's probe sequence in slots, mask len(slots)-1, and
// returns its index; *used counts the empty slots taken. The hash is
// stored first: a lookup that sees the node sees its hash.
func putSlot(slots []slot, mask, h uint64, n *inode, used *int) uint64 {
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &slots[i]
		x := sl.n.Load()
		if x == nil || x == tomb {
			if x == nil {
				*used++
			}
			sl.h.Store(h)
			sl.n.Store(n)
			return i
		}
	}
}

// nextFind returns n's slot in the next index, h its hash; n must be
// there.
func (t *Table) nextFind(h uint64, n *inode) *slot {
	for j := h & t.nmask; ; j = (j + 1) & t.nmask {
		sl := &t.next[j]
		x := sl.n.Load()
		if x == nil {
			panic("rules: a node is missing from the next index")
		}
		if x == n {
			return sl
		}
	}
}

// finishGrow publishes the next index, complete.
func (t *Table) finishGrow() {
	ns := *t.state.Load()
	ns.slots, ns.smask = t.next, t.nmask
	t.used = t.nused
	t.next = nil
	t.indexBuilds++
	t.state.Store(&ns)
}

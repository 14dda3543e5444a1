package rules

import (
	"slices"
	"sync/atomic"
	"unsafe"
)

// inode is one distinct (subtable, masked key) in the lookup index, with its
// rules rank descending. The ranked rules of a node never change: adding
// one replaces the node in its slot, or, in a node with room for it, puts
// it after them, in the node's tail (see appendEntry), which lookups read
// up to the count the writer published. Only the removal versions change
// in place (atomically), so marking a rule removed allocates nothing; a
// lookup that reads an entry at version v sees a removal version that is
// either final or greater than v.
//
// Layout: the fields a lookup reads (subtable, entries, the first entry and
// the packed key) fill the node's first two cache lines. Every link zeroes
// a node, so the rest is kept small: 32-bit positions, the checks, which
// only nodes of merged rules have, as a pointer (see scanChecks), and no hash
// (its slot has it). The tail's count and bound (nt, tmax) sit beside
// chk, which a lookup that scans checks reads anyway.
type inode struct {
	st   *subtable
	ents []entry // rank descending, room for slackOf(len) more; one[:] when there is one rule
	one  [1]entry
	key  [packedWords]uint64 // the masked key words st.words[:st.nw], packed: the first packedWords of them
	pos  int32               // writer only: index in st.nodes, -1 once replaced or removed
	si   uint32              // writer only: index of its slot
	// nt is how many entries the node holds past ents, in the room
	// after them (its tail, see appendEntry): published by the
	// writer after it wrote them, read by lookups before they read
	// them. Only a node with checks (chk) and room has a tail. tmax is
	// the best rank of its tail's entries, raised before nt: a lookup
	// that loads it after nt has a bound on the entries nt counts.
	nt   atomic.Int32
	tmax atomic.Uint64
	chk  *check // nil, or the first of one check per entry, when some entry is not exact
	// own is the check of a node of one entry that needs one (chk then
	// points to it): a lookup reads it at an offset of the node, not
	// through chk, so that its line loads beside the node's own, not
	// after them. A node of several entries keeps its checks in a block
	// from the table's slab.
	own check
}

// packedWords is how many packed key words a node holds. A subtable whose
// mask tests more words (it would need registers or tunnel addresses as
// well as most packet headers) keeps the rest in its rules: every rule of
// a node has the node's masked key, so word st.words[i], i >= packedWords,
// of the node's key is n.ents[0].r.Match.Key[w] & st.mask[w] (see wide).
// Holding all KeyWords would make every node 72 bytes larger, one cache
// line more, for subtables that are rare.
const packedWords = 18

// wide returns the packed key word i >= packedWords of n.
func (n *inode) wide(i int) uint64 {
	w := n.st.words[i]
	return n.ents[0].r.Match.Key[w] & n.st.mask[w]
}

// packed returns n's whole packed key, st.pack of its rules' keys.
func (n *inode) packed() (pk [KeyWords]uint64) {
	n.packInto(&pk)
	return pk
}

// packInto writes n's packed key into the first st.nw words of pk.
func (n *inode) packInto(pk *[KeyWords]uint64) {
	nw := n.st.nw
	copy(pk[:min(nw, packedWords)], n.key[:])
	for i := packedWords; i < nw; i++ {
		pk[i] = n.wide(i)
	}
}

// setKey sets the key of n, a zeroed node of n.st, to the first st.nw
// words of pk (st.pack of its rules' keys): the key words past them stay
// zero, whatever pk holds there.
func (n *inode) setKey(pk *[KeyWords]uint64) {
	copy(n.key[:], pk[:min(n.st.nw, packedWords)])
}

// entry is a rule as the lookup path needs it, copied into its node so that
// a probe touches one allocation.
type entry struct {
	rank    uint64
	added   uint64
	removed atomic.Uint64
	r       *Rule
	exact   bool // no full-match check needed
	// unlinked marks the entry of a rule cleanup unlinked while the
	// node stayed in the index with it (see Table.unlink): the rule is
	// out of its subtable's counts, its node is nil, and it goes to
	// recycling with the node. Written and read by the writer only.
	unlinked bool
}

func (e *entry) set(r *Rule) {
	e.rank, e.added, e.r, e.exact, e.unlinked = r.rankOf(), r.added, r, r.exact, false
	e.removed.Store(r.removed.Load())
}

// tomb marks a slot whose node was removed: probes go on past it.
var tomb = &inode{}

// newNode returns a copy of old, a node of st for the packed key pk,
// holding rs (rank descending) instead: rs[i] is old's entry from[i] (of
// old.all()), or a rule new to the node where from[i] is -1. A kept entry is copied from
// old whole, its removal version too: a kept rule's node is old (link
// and unlink keep no other), and remove stores a rule's removal version
// into the entry of its node (refresh), so old's entry holds the rule's.
// The copy loads no kept rule.
func (t *Table) newNode(st *subtable, pk *[KeyWords]uint64, rs []*Rule, old *inode, from []int32) *inode {
	t.copies++
	n := t.nodeSlab.next()
	n.st = st
	n.setKey(pk)
	if len(rs) == 1 {
		n.ents = n.one[:]
	} else if x := t.entPool.get(len(rs)); x != nil {
		n.ents = unsafe.Slice(x, len(rs)+slackOf(len(rs)))[:len(rs)]
	} else {
		n.ents = t.entSlab.take(len(rs) + slackOf(len(rs)))[:len(rs)]
	}
	var oe []entry
	if old != nil {
		oe = old.all()
	}
	for i, r := range rs {
		e := &n.ents[i]
		if f := from[i]; f >= 0 {
			o := &oe[f]
			e.rank, e.added, e.r, e.exact, e.unlinked = o.rank, o.added, r, o.exact, false
			e.removed.Store(o.removed.Load())
		} else {
			e.set(r)
		}
	}
	n.setChecks(t, old, from)
	return n
}

// slot is one cell of the open-addressing index: the node's hash (so that
// a probe skips other keys without touching their nodes) and the node. An
// empty slot has a nil node; a slot never becomes empty again.
type slot struct {
	h atomic.Uint64
	n atomic.Pointer[inode]
}

// find returns the node of (st, masked k) with hash h, or nil.
func (s *tableState) find(h uint64, st *subtable, k *Key) *inode {
	for i := h & s.smask; ; i = (i + 1) & s.smask {
		sl := &s.slots[i]
		n := sl.n.Load()
		if n == nil {
			return nil
		}
		if sl.h.Load() == h && n.st == st && keyEqual(n, st, k) && (st.nw <= packedWords || wideEqual(n, st, k)) {
			return n
		}
	}
}

// findPacked is find for a packed masked key; it returns the slot too.
func (s *tableState) findPacked(h uint64, st *subtable, pk *[KeyWords]uint64) (*slot, *inode) {
	for i := h & s.smask; ; i = (i + 1) & s.smask {
		sl := &s.slots[i]
		n := sl.n.Load()
		if n == nil {
			return nil, nil
		}
		if sl.h.Load() == h && n.st == st && packedEqual(n, pk, st.nw) {
			return sl, n
		}
	}
}

// pendingCopy is the copy of one index node that link is making: the
// rules of the node it replaces, old, that it keeps, and the rules added
// since, rank descending. link adds a rule whose node is old to it
// instead of copying old again, so that the entries a rule's port ranges
// expand into, added one after another into one node of a subtable
// without ports, cost one copy of the node and not one each (quadratic in
// the entries). The copy takes old's place in its slot when the writer
// next does anything but such an add (flushPending): until then old
// stays in the index, correct for every published version (the rules
// added are not published yet), and identical and hasRoom look at the
// copy's rules instead of old's.
type pendingCopy struct {
	old  *inode // nil: none
	sl   *slot  // old's slot, in the published index: no add grows it until the flush
	st   *subtable
	pk   [KeyWords]uint64
	rs   []*Rule
	from []int32 // rs[i] is old's entry from[i], or new (-1)
}

// flushPending puts the copy link is making, if any, in place of the
// node it copies.
func (t *Table) flushPending() {
	pd := &t.pend
	old := pd.old
	if old == nil {
		return
	}
	pd.old = nil
	// old goes with the rules of its entries unlink left in it (which
	// link's copy drops), not with those link kept or left out early
	// (unlink retires them in their turn): see retireNode.
	t.retireNode(old)
	t.replaceNode(pd.sl, old, t.newNode(pd.st, &pd.pk, pd.rs, old, pd.from))
	clear(pd.rs)
	pd.rs, pd.from = pd.rs[:0], pd.from[:0]
}

// flushPending flushes the pending node copy of the table that has one.
func (p *Pipeline) flushPending() {
	if t := p.pendTable; t != nil {
		p.pendTable = nil
		t.flushPending()
	}
}

// extendPending adds r, new, to the pending copy. It leaves out the rules
// added before r into the copy that were removed in this same version
// (link does so for old's), which no lookup can ever see: a flow replaced
// over and over in one burst keeps one entry.
func (t *Table) extendPending(r *Rule, rank uint64) {
	pd := &t.pend
	kept := 0
	for j, x := range pd.rs {
		if pd.from[j] < 0 {
			if rv := x.removed.Load(); rv != never && rv == x.added {
				t.p.leftOut[0]++
				x.early = true
				t.forget(x)
				continue
			}
		}
		pd.rs[kept], pd.from[kept] = x, pd.from[j]
		kept++
	}
	clear(pd.rs[kept:])
	pd.rs, pd.from = pd.rs[:kept], pd.from[:kept]
	pd.rs, pd.from = insertByRank(pd.rs, pd.from, pd.old, r, -1, rank)
}

// insertByRank inserts x, of rank rank, into rs, rank descending, with
// its from (entry f of old.all(), or -1 for a rule new to the node), and
// returns both: after the entries of rank above it, before the others.
// It reads the ranks of the entries it passes from old's entries, and
// those of new rules from the rules.
func insertByRank(rs []*Rule, from []int32, old *inode, x *Rule, f int32, rank uint64) ([]*Rule, []int32) {
	oe := old.all()
	i := len(rs)
	for i > 0 {
		var rk uint64
		if g := from[i-1]; g >= 0 {
			rk = oe[g].rank
		} else {
			rk = rs[i-1].rankOf()
		}
		if rk > rank {
			break
		}
		i--
	}
	return slices.Insert(rs, i, x), slices.Insert(from, i, f)
}

// link makes r physically present (not yet visible unless its added version
// is published).
func (t *Table) link(r *Rule, hint *nodeHint) error {
	// The maskInfo of r's mask, and the subtable of the mask if it has
	// one: identical found them already when it filled the hint in.
	var mi *maskInfo
	if hint != nil {
		mi = hint.mi
	}
	if mi == nil || mi.gone {
		mi = t.maskFor(&r.Match.Mask)
	}
	own := mi.own
	var st *subtable
	// hasRoom probes the merged subtables it tries into t.room, for r's
	// key: the one it found room in is probed already.
	t.room.st = nil
	ranged := !r.Ranges.IsZero()
	host := mi.host && !ranged // a host rule: its mask's home decides
	if host {
		t.countHost(mi, 1)
	}
	if !t.p.cfg.NoMerge && !mi.stay[b2i(ranged)] && (!host || mi.merged) {
		st = t.mergeTarget(r, mi)
	}
	if st == nil {
		if own == nil {
			own = t.subtableFor(mi)
		}
		st = own
	}
	r.st = st
	// own is the subtable of mi, the maskInfo of r's mask: its mask is
	// r's without the 288-byte compare.
	r.exact = (st == own || st.mask == r.Match.Mask) && r.Ranges.IsZero()
	st.n++
	t.rules++
	rank := r.rankOf()
	if rank > st.maxRank || st.n == 1 {
		st.maxRank = rank
		t.touch(st)
	}
	// The probe of r's key in st: identical's, hasRoom's, or one made
	// now. (hash, pack and find mask the key by st's mask themselves.)
	pr := hint
	if pr == nil || pr.st != st {
		pr = &t.room
		if pr.st != st {
			t.probe(st, &r.Match.Key, pr)
		}
	}
	h, sl, old := pr.h, pr.sl, pr.n
	if old != nil && old == t.pend.old {
		t.extendPending(r, rank)
		return nil
	}
	// Whatever comes next changes the index or copies another node.
	t.p.flushPending()
	if old == nil {
		n := t.nodeSlab.next()
		n.st = st
		n.setKey(&pr.pk)
		n.ents = n.one[:]
		n.one[0].set(r)
		n.setChecks(t, nil, nil)
		r.node = n
		if st.guardNode(n) {
			t.touch(st)
		}
		t.addNode(n, h)
		return t.filterInsert(h)
	}
	if t.appendEntry(old, r, rank) {
		return nil
	}
	// The new node leaves out the entries of removed rules no lookup
	// needs (see prunable). It reads old's entries, not their rules:
	// every rule of a node in the index has it as its node (unlink and
	// link's copies leave out the rules they unlink), and its entry
	// holds its versions (see newNode). The ranked entries come in
	// order, r placed among them; the tail's are put in place by rank.
	prune := t.prunable(old)
	published := t.p.next - 1
	var seen uint64 // the latest removal version of a left-out rule some lookup may have seen
	rs, from := t.pend.rs[:0], t.pend.from[:0]
	placed := false
	all := old.all()
	for i := range all {
		e := &all[i]
		if !placed && (e.rank <= rank || i == len(old.ents)) {
			rs, from = append(rs, r), append(from, -1)
			placed = true
		}
		if e.unlinked {
			continue // unlinked already: old is retired with it (flushPending)
		}
		x := e.r
		if rv := e.removed.Load(); rv != never && (rv == e.added || prune && rv <= published) {
			seenBy := 0
			if rv != e.added {
				seen = max(seen, rv)
				seenBy = 1
			}
			t.p.leftOut[seenBy]++
			x.node, x.early = nil, true
			t.forget(x)
			continue
		}
		if i < len(old.ents) {
			rs, from = append(rs, x), append(from, int32(i))
		} else {
			rs, from = insertByRank(rs, from, old, x, int32(i), e.rank)
		}
	}
	if !placed {
		rs, from = append(rs, r), append(from, -1)
	}
	// A lookup at a version before seen that reads the new node would
	// miss a rule it may see: it must retry (see Pipeline.unlinked).
	if seen > t.p.unlinked.Load() {
		t.p.unlinked.Store(seen)
	}
	// The copy waits for the adds of more rules into old (pendingCopy).
	pd := &t.pend
	pd.old, pd.sl, pd.st, pd.rs, pd.from = old, sl, st, rs, from
	copy(pd.pk[:st.nw], pr.pk[:st.nw])
	t.p.pendTable = t
	return nil
}

// addNode puts a new node, of hash h, into the first free slot of its probe
// sequence (the caller knows its key is absent).
func (t *Table) addNode(n *inode, h uint64) {
	s := t.state.Load()
	if t.next == nil {
		if 8*(t.used+1) > 3*len(s.slots) {
			t.startGrow()
		} else if 16*(t.used+1) > 5*len(s.slots) && len(s.slots) >= minPrefaulted && t.wantNext.Load() == 0 {
			// A sixteenth of the array before startGrow: ask Prefault
			// for the next index, of the size it will have if the adds
			// until then fill empty slots.
			t.wantNext.Store(int64(t.growSize(t.nodes+3*len(s.slots)/8-t.used, len(s.slots))))
			t.p.prefaultLow.Store(true)
		}
	}
	i := putSlot(s.slots, s.smask, h, n, &t.used)
	n.si = uint32(i)
	if t.next != nil && int(i) < t.moved {
		t.nextInsert(h, n)
	}
	st := n.st
	n.pos = int32(len(st.nodes))
	st.nodes = append(st.nodes, n)
	t.nodes++
	if t.next != nil {
		t.stepGrow()
	}
}

// slotIndex returns the index of sl in s.slots.
func (s *tableState) slotIndex(sl *slot) uint64 {
	return uint64((uintptr(unsafe.Pointer(sl)) - uintptr(unsafe.Pointer(&s.slots[0]))) / unsafe.Sizeof(slot{}))
}

// slotOf returns the published slot holding n, a node in the index, and
// its index. n.si is where n was put, a hint only: an index that finishGrow
// swapped in since has n elsewhere (moving a slot does not write its
// node), and then slotOf finds it by its hash, and notes it in n.si.
func (t *Table) slotOf(n *inode) (uint64, *slot) {
	s := t.state.Load()
	if i := uint64(n.si); i < uint64(len(s.slots)) && s.slots[i].n.Load() == n {
		return i, &s.slots[i]
	}
	pk := n.packed()
	h := n.st.hashPacked(&pk)
	for i := h & s.smask; ; i = (i + 1) & s.smask {
		sl := &s.slots[i]
		x := sl.n.Load()
		if x == nil {
			panic("rules: an index node is missing from its index")
		}
		if x == n {
			n.si = uint32(i)
			return i, sl
		}
	}
}

// hashPacked is st.hash of a key whose packed masked words are pk
// (st.pack): what the slot of the key's node holds.
func (st *subtable) hashPacked(pk *[KeyWords]uint64) uint64 {
	h := st.seed
	for _, w := range pk[:st.nw] {
		h = hashStep(h, w)
	}
	return hashFinish(h)
}

// replaceNode puts n into the slot of old, a node of the same key.
func (t *Table) replaceNode(sl *slot, old, n *inode) {
	if old.nt.Load() != 0 {
		t.tailed--
		old.st.tailed--
	}
	s := t.state.Load()
	i := s.slotIndex(sl)
	n.pos, n.si = old.pos, uint32(i)
	old.pos = -1
	n.st.nodes[n.pos] = n
	for i := range n.ents {
		n.ents[i].r.node = n
	}
	sl.n.Store(n)
	if t.next != nil && int(i) < t.moved {
		t.nextFind(sl.h.Load(), old).n.Store(n)
	}
}

// removeNode leaves a tombstone in old's slot, or empties it when the next
// slot is empty (no probe sequence of a present key then passes through it),
// and then the tombstones before it. Called only inside a cleanup window.
func (t *Table) removeNode(sl *slot, old *inode) {
	if old.nt.Load() != 0 {
		t.tailed--
		old.st.tailed--
	}
	s := t.state.Load()
	i := s.slotIndex(sl)
	if t.next != nil && int(i) < t.moved {
		t.nextFind(sl.h.Load(), old).n.Store(tomb)
	}
	if s.slots[(i+1)&s.smask].n.Load() == nil {
		for {
			s.slots[i].n.Store(nil)
			t.used--
			i = (i - 1) & s.smask
			if s.slots[i].n.Load() != tomb {
				break
			}
		}
	} else {
		sl.n.Store(tomb)
	}
	st := old.st
	last := st.nodes[len(st.nodes)-1]
	st.nodes[old.pos] = last
	last.pos, old.pos = old.pos, -1
	st.nodes[len(st.nodes)-1] = nil
	st.nodes = st.nodes[:len(st.nodes)-1]
	t.nodes--
}

// maxDeadEntries is how many entries of removed rules a node copy keeps
// before it leaves out those whose removal is published (see prunable).
const maxDeadEntries = 4

// prunable reports whether a copy of n may leave out, besides the rules
// no lookup can ever see (added and removed in one unpublished version),
// the removed rules whose removal is published: when n holds more than
// maxDeadEntries removed rules. Leaving those out makes the lookups still
// running at an earlier version retry, which unlinking them after
// Config.UnlinkAfter avoids; but a flow replaced over and over within one
// burst (N adds or modifies of one match) would otherwise put all of its
// N versions into each of N node copies: O(N^2) time and memory.
func (t *Table) prunable(n *inode) bool {
	dead := 0
	all := n.all()
	for i := range all {
		// Its rule's removal (see link); an unlinked entry goes from
		// every copy anyway.
		if e := &all[i]; e.removed.Load() != never && !e.unlinked {
			dead++
		}
	}
	return dead > maxDeadEntries
}

// unlink removes the rules of ds physically: one rule, or rules of one
// node (each one's node is ds[0]'s). Called only inside a cleanup window.
func (t *Table) unlink(ds []deadRule) {
	r := ds[0].r
	old := r.node
	if old == nil {
		if r.early {
			// link left r out of its node's copy (see prunable), and
			// forgot it then; its memory waited for this turn in the
			// dead list.
			r.early = false
			t.p.retireRule(r)
		}
		return
	}
	for _, d := range ds {
		d.r.node = nil
	}
	// Mark ds' entries unlinked (their removal versions are set: remove
	// refreshed them) and count the entries still linked, from the
	// entries alone: loading their rules costs a cache miss each.
	live, gone := 0, 0
	all := old.all()
	for j := range all {
		e := &all[j]
		if !e.unlinked && e.removed.Load() != never {
			for _, d := range ds {
				if d.r == e.r {
					e.unlinked = true
					break
				}
			}
		}
		if e.unlinked {
			gone++
		} else {
			live++
		}
	}
	switch {
	case live == 0:
		_, sl := t.slotOf(old)
		h := sl.h.Load()
		t.removeNode(sl, old)
		t.retireNode(old) // with ds' rules and the rules unlinked before them
		if f := t.state.Load().filter; f != nil {
			f.Delete(h)
		}
	case gone*unlinkedShare <= live:
		// A node that keeps many rules keeps ds' entries too, marked
		// unlinked, until it is next copied (an add into it, or an
		// unlink past the share), which drops them, or removed: a
		// copy of a merged node per unlinked rule was most of what
		// unlinking cost under churn. Lookups see the entries as
		// before, removed at a published version, and pass over them
		// (a check each, in a scan of the node's checks); their rules
		// go to recycling with the node, so the memory held back is
		// at most 1/unlinkedShare of the node's live rules.
	default:
		// Other rules still use the node (a MODIFY's successor, a rule
		// added back): a copy without the unlinked rules takes its
		// place, so that they go back to the slab now (retireNode).
		// Left in the node until the flow next changed, a rule would
		// hold a rule and an entry pair for each flow modified once and
		// then left alone, a table's worth of memory under churn. The
		// copy of a node of one rule left takes no entry (inode.one);
		// the old node is retired with the unlinked rules.
		t.recopy(old)
	}
	for _, d := range ds {
		t.forget(d.r)
	}
}

// unlinkedEntries returns how many entries of n are marked unlinked (see
// unlink): the next copy of n leaves them out. Writer only.
func (n *inode) unlinkedEntries() int {
	k := 0
	all := n.all()
	for i := range all {
		if all[i].unlinked {
			k++
		}
	}
	return k
}

// unlinkedShare bounds the entries of unlinked rules a node keeps (see
// unlink): at most its live entries over unlinkedShare, so a node of
// fewer live entries than unlinkedShare is copied at every unlink.
const unlinkedShare = 4

// forget takes r, which has left the index, out of its subtable's and
// table's counts.
func (t *Table) forget(r *Rule) {
	st := r.st
	st.n--
	t.rules--
	if st.n == 0 {
		if cap(st.nodes) > cap(t.spareNodes) {
			t.spareNodes = st.nodes[:0] // writer only: no lookup reads it
		}
		delete(t.subs, st.mask)
		st.dead = true
		t.dropped++
		if st.mi.own == st {
			t.dropMask(st.mi)
		}
		t.touch(st)
	} else if r.rankOf() == st.maxRank {
		// maxRank only bounds the early exit, so a stale (too high) value
		// is safe; recompute it once per cleanup, and for large subtables
		// only after many removals, so that deletions stay O(1).
		st.staleMax++
		if st.staleMax == 1 {
			t.staleSubs = append(t.staleSubs, st)
		}
	}
}

// refreshMaxRanks recomputes the best rank of subtables whose best rule
// left, amortized: a subtable of n rules is rescanned after n/8 such
// removals at the most once per cleanup.
func (t *Table) refreshMaxRanks() {
	kept := t.staleSubs[:0]
	for _, st := range t.staleSubs {
		if st.n == 0 || t.subs[st.mask] != st {
			st.staleMax = 0
			continue
		}
		if st.n > 4096 && st.staleMax < st.n/8 {
			kept = append(kept, st)
			continue
		}
		st.maxRank = 0
		for _, n := range st.nodes {
			// The first ranked entry still linked: the rule of an
			// unlinked one has left (see unlink). A node may keep
			// only tail entries linked, of any rank below the first.
			all := n.all()
			for i := range all {
				if e := &all[i]; !e.unlinked {
					st.maxRank = max(st.maxRank, e.rank)
					if i < len(n.ents) {
						break
					}
				}
			}
		}
		st.staleMax = 0
		t.touch(st)
	}
	clear(t.staleSubs[len(kept):])
	t.staleSubs = kept
}

// refresh copies r's removal mark into its index node, in place.
func (t *Table) refresh(r *Rule) {
	n := r.node
	if n == nil {
		return
	}
	all := n.all()
	for i := range all {
		if all[i].r == r {
			all[i].removed.Store(r.removed.Load())
			return
		}
	}
}

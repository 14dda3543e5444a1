package rules

import "unsafe"

// A merged node's tail: the room after a node's ranked entries where
// single adds go in place (appendEntry), and the copies that rank it
// again (at a large burst's end, rankFresh; in idle time, compactTails).

// all returns n's entries, those of its tail (nt) after the ranked ones.
// The writer's view: the tail is in the order its entries came.
func (n *inode) all() []entry {
	return n.ents[:len(n.ents)+int(n.nt.Load())]
}

// A node of several entries is made with room for nodeSlack entries more
// (and their checks): an add of a rule into a node with checks that has
// room, below the node's first rank, writes the rule's entry and check
// into that room in place and publishes it by raising nt, where it would
// otherwise copy the node. Under single updates into merged nodes
// (ClassBench's 1k sets copy nodes of 18-24 entries) the copies were most
// of an add's cost; now one add in nodeSlack+1 copies its node, and the
// copy puts the tail's entries in rank order. A lookup that reaches a
// node with a tail tests the tail's entries after the ranked ones, each
// against the best found (scanTail); a node holds nodeSlack more entries'
// memory (some 480 bytes). A node of one entry (its rule's own, inode.one)
// gets no room; one of two or three does: ClassBench's sets hold many, and
// an add into one copied it (some 1-3% more heap loaded, no change in a
// static lookup's count).
const (
	nodeSlack = 4
	slackMin  = 2
)

// tailBurst is the most updates a burst may have and leave the tails it
// made for the idle work to rank (compactTails). A larger burst ranks
// them at its end (rankFresh), one copy per node it gave a tail, so that
// a table loaded in bursts leaves lookups no tail to scan, where one
// loaded rule by rule would have a tail in most of its merged nodes
// (ClassBench's acl1_1k so: 12% more instructions a lookup); its adds
// into a node copy it once a tail's room, not once an add.
const tailBurst = 16

// slackOf is the room after the entries of a node of n entries.
func slackOf(n int) int {
	if n < slackMin {
		return 0
	}
	return nodeSlack
}

// appendEntry adds r, of rank rank, to n in place, as the next entry of its
// tail, if n has checks, room for it and a first rank above r's (a lookup
// that found a rule of that rank or better passes the node over without
// reading it, tail and all: see scanChecks), and reports whether it did.
// The entry, its check and its packed addresses are written first, then
// published with nt: a lookup reads no entry past the count it loaded.
// r's added version is not yet published, so that no lookup sees r
// before the burst's publication, as in a copy of n.
func (t *Table) appendEntry(n *inode, r *Rule, rank uint64) bool {
	if n.chk == nil || len(n.ents) < 2 || rank >= n.ents[0].rank {
		return false
	}
	i := len(n.ents) + int(n.nt.Load())
	if i >= cap(n.ents) {
		return false
	}
	n.ents[:i+1][i].set(r)
	c := &unsafe.Slice(n.chk, i+1)[i]
	c.set(r)
	n.addrsTo(i + 1)[i] = addrPair{c.k[1], c.m[1]}
	r.node = n
	if rank > n.tmax.Load() {
		n.tmax.Store(rank)
	}
	if i == len(n.ents) {
		t.tailed++
		n.st.tailed++
		if !t.p.tails {
			t.fresh = append(t.fresh, n)
		}
	}
	n.nt.Store(int32(i + 1 - len(n.ents)))
	return true
}

// compactCost is the work Rebalance counts for a node whose tail it
// ranks, a node copy, in filter elements moved (or nodes looked at, a
// line or two each): a move is a few cache lines, a copy of a merged node
// some tens.
const compactCost = 32

// compactTails replaces nodes that have tails by copies of them with
// every entry ranked and no tail, until its work reaches budget, and
// returns the work: compactCost a copy, one a node it looked at. It is
// what Pipeline.Rebalance does with the writer's idle time, so that
// lookups in a table that single updates changed and then left alone
// scan no tails. It walks the nodes of the subtables that have tailed
// nodes (subtable.tailed), in the published order, from where its last
// call stopped.
func (t *Table) compactTails(budget int) int {
	if t.tailed == 0 || budget <= 0 {
		return 0
	}
	t.p.flushPending()
	order := t.state.Load().order
	work := 0
	for seen := 0; seen <= len(order) && t.tailed > 0 && work < budget; seen++ {
		if t.tailCursor.sub >= len(order) {
			t.tailCursor.sub, t.tailCursor.node = 0, 0
		}
		st := order[t.tailCursor.sub].st
		for st.tailed > 0 && t.tailCursor.node < len(st.nodes) && work < budget {
			n := st.nodes[t.tailCursor.node]
			t.tailCursor.node++
			work++
			if n.nt.Load() != 0 {
				t.recopy(n)
				work += compactCost
			}
		}
		if st.tailed == 0 || t.tailCursor.node >= len(st.nodes) {
			t.tailCursor.sub, t.tailCursor.node = t.tailCursor.sub+1, 0
		}
	}
	return work
}

// rankFresh ranks the tails of the nodes that the burst ending now gave
// one (t.fresh), those still in the index: a node replaced or removed
// since has pos -1, and is not reused before the burst's end.
func (t *Table) rankFresh() {
	if len(t.fresh) == 0 {
		return
	}
	t.p.flushPending()
	for _, n := range t.fresh {
		if n.pos >= 0 && n.nt.Load() != 0 {
			t.recopy(n)
		}
	}
	clear(t.fresh)
	t.fresh = t.fresh[:0]
}

// recopy replaces n, a node in the index, by a copy of its entries that
// are not unlinked, rank descending: the rules of the unlinked go to
// recycling with n.
func (t *Table) recopy(old *inode) {
	_, sl := t.slotOf(old)
	all := old.all()
	rs, from := t.rs[:0], t.from[:0]
	for j := range all {
		if e := &all[j]; e.unlinked {
			continue
		} else if j < len(old.ents) {
			rs, from = append(rs, e.r), append(from, int32(j))
		} else {
			rs, from = insertByRank(rs, from, old, e.r, int32(j), e.rank)
		}
	}
	pk := &t.scratch.pk
	old.packInto(pk)
	t.retireNode(old)
	t.replaceNode(sl, old, t.newNode(old.st, pk, rs, old, from))
	clear(rs)
	t.rs, t.from = rs, from
}

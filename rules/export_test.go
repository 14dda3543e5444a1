package rules

import (
	"fmt"
	"time"
	"unsafe"
)

// The test hooks of Pipeline: its unexported fields that only tests set or
// read are set and read here.

// Poison makes p overwrite every rule and index node it reclaims for reuse
// with values no flow has, so that a reader that still held one fails its
// oracle (and the race detector sees the writes).
func Poison(p *Pipeline) {
	p.poisonRule, p.poisonNode, p.poisonOrder = poisonRule, poisonNode, poisonOrder
}

// PrepHits returns how many updates p has applied with the subtable and
// hash that prefetch worked out for them while it applied the update
// before.
func PrepHits(p *Pipeline) int { return p.prepHits }

// NodeCopies returns how many index nodes p's tables have copied
// (newNode): a node's copy replaces it when an add or an unlink changes
// its ranked entries, or when its tail is ranked.
func NodeCopies(p *Pipeline) int {
	n := 0
	for _, t := range p.tables {
		n += t.copies
	}
	return n
}

// LeftOut returns how many removed rules p's node copies left out before
// their turn to be unlinked: those no lookup could see, and those whose
// removal was published.
func LeftOut(p *Pipeline) (unseen, seen int) { return p.leftOut[0], p.leftOut[1] }

// HeldPrepared returns the indices of p's prefetch slots that still hold
// an update: none may between bursts, since the caller may reuse its
// updates.
func HeldPrepared(p *Pipeline) []int {
	var held []int
	for i := range p.pre {
		if p.pre[i].u != nil {
			held = append(held, i)
		}
	}
	return held
}

// poisonRule and poisonNode overwrite what lookups read of a reclaimed rule
// or node with values no flow has (set by Poison), so that a
// reader that still held one gives an answer an oracle refuses, and the
// race detector sees the writes.
func poisonRule(x *ruleWithStats) {
	x.r.Priority, x.r.Cookie, x.r.seq = 0xdead, 0xdeaddeaddeaddead, 1<<46
	for i := range x.r.Match.Key {
		x.r.Match.Key[i], x.r.Match.Mask[i] = ^uint64(0), ^uint64(0)
	}
	x.s.packets.Store(1 << 60)
}

// poisonOrder makes every entry of a reclaimed order one that a lookup
// takes for a subtable whose every rule outranks any other and that no
// guard skips, with no subtable behind it: a reader that walked it would
// crash.
func poisonOrder(o []orderEntry) {
	for i := range o {
		o[i] = orderEntry{maxRank: ^uint64(0), nw: wideMask}
	}
}

func poisonNode(n *inode) {
	for i := range n.key {
		n.key[i] = ^uint64(0)
	}
	for i := range n.ents {
		n.ents[i].rank, n.ents[i].added = ^uint64(0), ^uint64(0)
		n.ents[i].removed.Store(^uint64(0))
	}
	if n.chk != nil {
		// A value outside a zero mask: no key meets the check.
		cs := unsafe.Slice(n.chk, len(n.ents))
		for i := range cs {
			cs[i].k, cs[i].m = [len(relaxedWords)]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, [len(relaxedWords)]uint64{}
		}
		if len(n.ents) > 1 {
			as := n.addrs()
			for i := range as {
				as[i] = addrPair{^uint64(0), 0}
			}
		}
	}
	n.one[0].rank, n.one[0].added = ^uint64(0), ^uint64(0)
	n.one[0].removed.Store(^uint64(0))
}

// SetMergeLimit makes every table of p merge at most n entries into one
// node of a merged subtable, so that tests reach the limit with few rules.
// Call it before the first update.
func SetMergeLimit(p *Pipeline, n int) {
	for _, t := range p.tables {
		t.mergeLimit = n
	}
}

// CheckOrder returns an error if the subtable order a table of p
// publishes differs from the one built from scratch from its subtables;
// call it between bursts, when every change is published.
func CheckOrder(p *Pipeline) error {
	for _, t := range p.tables {
		got, want := t.state.Load().order, t.fullOrder(nil)
		if len(got) != len(want) {
			return fmt.Errorf("table %d: %d subtables in the published order, %d in the table", t.id, len(got), len(want))
		}
		for i := range got {
			if !got[i].same(&want[i]) {
				return fmt.Errorf("table %d: order entry %d is subtable %d (best rank %#x), want %d (%#x)",
					t.id, i, got[i].st.id, got[i].maxRank, want[i].st.id, want[i].maxRank)
			}
		}
	}
	return nil
}

// CheckIndex returns an error if a table of p's flow index is
// inconsistent: the published slots hold exactly the table's nodes, each
// found by a lookup's probe and by slotOf, used counts the slots in use,
// a next index being built holds exactly the nodes of the published
// slots copied so far, and every node's checks are its rules' (with their
// addresses packed after them, see addrPair).
func CheckIndex(p *Pipeline) error {
	for _, t := range p.tables {
		s := t.state.Load()
		inUse, found := 0, map[*inode]bool{}
		for i := range s.slots {
			n := s.slots[i].n.Load()
			if n == nil {
				continue
			}
			inUse++
			if n == tomb {
				continue
			}
			if found[n] {
				return fmt.Errorf("table %d: node in two slots", t.id)
			}
			found[n] = true
			pk := n.packed()
			if h := s.slots[i].h.Load(); h != n.st.hashPacked(&pk) {
				return fmt.Errorf("table %d slot %d: hash %#x, node's %#x", t.id, i, h, n.st.hashPacked(&pk))
			}
			if x, _ := s.findPacked(s.slots[i].h.Load(), n.st, &pk); x != &s.slots[i] {
				return fmt.Errorf("table %d slot %d: a probe for its node does not find it", t.id, i)
			}
			if _, sl := t.slotOf(n); sl != &s.slots[i] {
				return fmt.Errorf("table %d slot %d: slotOf finds another slot", t.id, i)
			}
			if err := checkNodeChecks(n); err != nil {
				return fmt.Errorf("table %d slot %d: %v", t.id, i, err)
			}
			if err := checkNodeEntries(n); err != nil {
				return fmt.Errorf("table %d slot %d: %v", t.id, i, err)
			}
		}
		if inUse != t.used {
			return fmt.Errorf("table %d: %d slots in use, counted %d", t.id, inUse, t.used)
		}
		nodes, tailed := 0, 0
		for _, st := range t.subs {
			linked, stTailed := 0, 0
			for j, n := range st.nodes {
				if !found[n] || n.pos != int32(j) || n.st != st {
					return fmt.Errorf("table %d: node %d of subtable %d not in the index", t.id, j, st.id)
				}
				nodes++
				if n.nt.Load() != 0 {
					tailed++
					stTailed++
				}
				live, gone := 0, 0
				all := n.all()
				for i := range all {
					if all[i].unlinked {
						gone++
					} else {
						live++
					}
				}
				if live == 0 || gone*unlinkedShare > live {
					return fmt.Errorf("table %d: node %d of subtable %d keeps %d unlinked entries beside %d linked", t.id, j, st.id, gone, live)
				}
				linked += live
			}
			if stTailed != st.tailed {
				return fmt.Errorf("table %d: subtable %d has %d nodes with tails, counted %d", t.id, st.id, stTailed, st.tailed)
			}
			if linked != st.n {
				return fmt.Errorf("table %d: subtable %d counts %d rules, its nodes link %d", t.id, st.id, st.n, linked)
			}
		}
		if tailed != t.tailed {
			return fmt.Errorf("table %d: %d nodes with tails, counted %d", t.id, tailed, t.tailed)
		}
		if nodes != len(found) || nodes != t.nodes {
			return fmt.Errorf("table %d: %d nodes in subtables, %d in the index, counted %d", t.id, nodes, len(found), t.nodes)
		}
		if t.next == nil {
			continue
		}
		want := map[*inode]bool{}
		for i := range s.slots[:t.moved] {
			if n := s.slots[i].n.Load(); n != nil && n != tomb {
				want[n] = true
			}
		}
		nused, got := 0, 0
		for i := range t.next {
			n := t.next[i].n.Load()
			if n == nil {
				continue
			}
			nused++
			if n == tomb {
				continue
			}
			if !want[n] {
				return fmt.Errorf("table %d: next index slot %d holds a node not copied", t.id, i)
			}
			got++
		}
		if got != len(want) || nused != t.nused {
			return fmt.Errorf("table %d: next index holds %d nodes of %d copied; %d slots in use, counted %d", t.id, got, len(want), nused, t.nused)
		}
	}
	return nil
}

// IndexGrowing reports whether a table of p is building a next index.
func IndexGrowing(p *Pipeline) bool {
	for _, t := range p.tables {
		if t.next != nil {
			return true
		}
	}
	return false
}

// SmallIndex gives every table of p, which must be empty, an index of n
// slots (a power of two) that grows from n, so that tests of few flows
// see the index grow.
func SmallIndex(p *Pipeline, n int) {
	for _, t := range p.tables {
		if t.nodes != 0 {
			panic("SmallIndex of a table in use")
		}
		t.minSlots = n
		ns := *t.state.Load()
		ns.slots, ns.smask = make([]slot, n), uint64(n-1)
		t.state.Store(&ns)
	}
}

// PrefaultedIndexes returns how many times a table of p grew its index
// into an array Prefault had made.
func PrefaultedIndexes(p *Pipeline) int {
	n := 0
	for _, t := range p.tables {
		n += t.prefaulted
	}
	return n
}

// SetChunkPasses makes the batches of pipelines built from c go on one
// key at a time after n subtables visited by chunk (zero: the default).
func SetChunkPasses(c *Config, n int) { c.paths.chunkPasses = n }

// SetLookupPaths makes the pipelines built from c classify batches
// subtable by subtable from overlapSlots slots (zero: the default), so
// that tests run every lookup path on small tables. With overlapSlots set,
// batches go by chunks however many subtables their first key visited.
func SetLookupPaths(c *Config, overlapSlots int) {
	c.paths = lookupPaths{overlapSlots: overlapSlots, chunkPasses: c.paths.chunkPasses}
	if overlapSlots != 0 {
		c.paths.overlapVisits = 1 << 30
	}
}

// LookupPathsTime looks keys (a multiple of 32 of them) up in t at its
// published version along one path and returns how long that took, for
// benchmarks that compare the paths on one table, interleaved. The paths:
// "single" and "batch" are Lookup and LookupBatch (32 keys a call), which
// choose their strategy as lookupPaths says; "single-none",
// "single-filter", "chunk-none" and "chunk-filter" force one, whatever
// the index size: with or without the filter, one by one or in chunks
// subtable by subtable. "single-filter" follows each subtable's use (as
// "single" does), "single-allfilter" puts every subtable behind the
// filter. The forced single paths
// load the version, the state and the unlinked version per key as
// LookupVersion does, so that they differ from "single" only in the path.
func LookupPathsTime(t *Table, keys []Key, out []*Rule, path string) time.Duration {
	s := *t.state.Load()
	switch path {
	case "single-none", "chunk-none":
		s.filter = nil
	case "single-allfilter":
		s.filterAll = true
	}
	p := t.p
	v := p.version.Load()
	var c Counters
	start := time.Now()
	switch path {
	case "single":
		for i := range keys {
			out[i], _ = t.LookupVersion(&keys[i], &c)
		}
	case "batch":
		for i := 0; i+batchChunk <= len(keys); i += batchChunk {
			t.LookupBatch(keys[i:i+batchChunk], out[i:i+batchChunk], &c)
		}
	case "chunk-none", "chunk-filter":
		for i := 0; i+batchChunk <= len(keys); i += batchChunk {
			lookupChunk(keys[i:i+batchChunk], out[i:i+batchChunk], v, &s, &c, false)
		}
	default:
		for i := range keys {
			out[i] = lookupLike(t, &s, &keys[i], &c)
		}
	}
	return time.Since(start)
}

// lookupLike is LookupVersion along the path s says: it loads what
// LookupVersion loads and looks k up in s instead of the published state.
func lookupLike(t *Table, s *tableState, k *Key, c *Counters) *Rule {
	p := t.p
	for {
		v := p.version.Load()
		if t.state.Load() == nil {
			panic("rules: table without state")
		}
		r := lookup(k, v, s, c)
		if p.unlinked.Load() <= v {
			c.Lookups++
			return r
		}
		c.Retries++
	}
}

// SubtableUses returns how many of t's subtables in its published order
// lookups probe without the filter, check against it, and check against
// it with the slot loaded ahead.
func SubtableUses(t *Table) (probe, filter, ahead int) {
	order := t.state.Load().order
	for i := range order {
		switch order[i].st.use.Load() {
		case useProbe:
			probe++
		case useFilter:
			filter++
		case useFilterAhead:
			ahead++
		}
	}
	return probe, filter, ahead
}

// Slots returns the number of slots of t's published index.
func Slots(t *Table) int { return len(t.state.Load().slots) }

// checkNodeEntries returns an error if an entry of n, a node in the index
// between bursts, is not a copy of its rule (rank, versions) or its rule
// does not name n as its node: link, newNode and identicalIn read a node's
// entries instead of its rules on that ground.
func checkNodeEntries(n *inode) error {
	all := n.all()
	if nt := len(all) - len(n.ents); nt > 0 && (n.chk == nil || len(n.ents) < 2) {
		return fmt.Errorf("node of %d entries, checks %v: a tail of %d", len(n.ents), n.chk != nil, nt)
	}
	for i := range all {
		e := &all[i]
		if i > 0 && i < len(n.ents) && e.rank > all[i-1].rank {
			return fmt.Errorf("entry %d: rank %#x after %#x", i, e.rank, all[i-1].rank)
		}
		if i >= len(n.ents) && e.rank >= all[0].rank {
			return fmt.Errorf("tail entry %d: rank %#x, the node's first %#x", i, e.rank, all[0].rank)
		}
		r := e.r
		if e.unlinked {
			// Unlinked, kept until the node's next copy (see unlink).
			if r.node != nil || e.removed.Load() == never || e.removed.Load() != r.removed.Load() {
				return fmt.Errorf("entry %d: unlinked, its rule's node %p, removed %d (entry %d)", i, r.node, r.removed.Load(), e.removed.Load())
			}
			continue
		}
		if r.node != n {
			return fmt.Errorf("entry %d: its rule's node is another", i)
		}
		if e.rank != r.rankOf() || e.added != r.added || e.removed.Load() != r.removed.Load() {
			return fmt.Errorf("entry %d: rank %#x added %d removed %d, its rule's %#x %d %d",
				i, e.rank, e.added, e.removed.Load(), r.rankOf(), r.added, r.removed.Load())
		}
	}
	return nil
}

// HostHome reports whether mask is a host mask of table 0 of p and
// whether its host rules' home is merged subtables.
func HostHome(p *Pipeline, mask *Key) (host, merged bool) {
	mi := p.tables[0].maskOf(mask)
	if mi == nil {
		return false, false
	}
	return mi.host, mi.merged
}

// LookupChunkForTest classifies up to 32 keys of t in one chunk,
// subtable by subtable (lookupChunk, without hitFirst), at the published
// version, adding what it did to c.
func LookupChunkForTest(t *Table, keys []Key, out []*Rule, c *Counters) {
	lookupChunk(keys, out[:len(keys)], t.p.version.Load(), t.state.Load(), c, false)
}

// LookupSampledForTest looks k up in t at the published version as a
// sampled lookup does (lookupSampled: every visit noted), adding what it
// did to c. t must have a filter.
func LookupSampledForTest(t *Table, k *Key, c *Counters) *Rule {
	return lookupSampled(k, t.p.version.Load(), t.state.Load(), c, 0, nil, 0)
}

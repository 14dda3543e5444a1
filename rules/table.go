package rules

import (
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/ofswitch/ofswitch/filter"
)

// FilterKind selects what sits in front of a table's subtables.
type FilterKind uint8

// Filter kinds.
const (
	FilterBloomCuckoo FilterKind = iota // Bloom-Cuckoo filter with t = Config.BloomAfter
	FilterCuckoo                        // plain cuckoo filter (the same code, Bloom part off)
	FilterNone                          // no filter: every visited subtable is probed
)

// String returns "bcf", "cf" or "none".
func (k FilterKind) String() string {
	switch k {
	case FilterBloomCuckoo:
		return "bcf"
	case FilterCuckoo:
		return "cf"
	case FilterNone:
		return "none"
	}
	return fmt.Sprintf("FilterKind(%d)", uint8(k))
}

// ParseFilterKind parses "bcf", "cf" or "none".
func ParseFilterKind(s string) (FilterKind, error) {
	switch s {
	case "bcf":
		return FilterBloomCuckoo, nil
	case "cf":
		return FilterCuckoo, nil
	case "none":
		return FilterNone, nil
	}
	return 0, fmt.Errorf("rules: filter kind %q: want bcf, cf or none", s)
}

// Counters count what lookups did. Each goroutine keeps its own and merges
// them with Add; the table itself writes no counters on the lookup path.
type Counters struct {
	Lookups         uint64 // keys looked up
	Visited         uint64 // subtables visited (filter consulted, or probed without filter)
	Guarded         uint64 // subtables passed over because the key fails their guard words
	FilterNegatives uint64 // subtables skipped because the filter said absent
	FalsePositives  uint64 // filter said present, the subtable had no such key
	Probes          uint64 // hash-table probes of a subtable
	Retries         uint64 // lookups redone because a rule they could see was unlinked meanwhile
}

// Add adds o to c.
func (c *Counters) Add(o *Counters) {
	c.Lookups += o.Lookups
	c.Visited += o.Visited
	c.FilterNegatives += o.FilterNegatives
	c.FalsePositives += o.FalsePositives
	c.Probes += o.Probes
	c.Retries += o.Retries
	c.Guarded += o.Guarded
}

// subtable holds the rules of one mask. Its identity fields are immutable
// and read by lookups; the rest belongs to the writer.
type subtable struct {
	id    uint64
	seed  uint64
	mask  Key
	words [KeyWords]uint8 // indices of the non-zero mask words
	nw    int

	// writer only
	noRelax  bool     // coarseMask leaves mask as it is at every level
	nodes    []*inode // its index nodes, each at its pos
	n        int      // rules physically present
	maxRank  uint64   // at least the best rank present
	staleMax int      // removals of the best rule since maxRank was computed
	// gmask and gval are the subtable's guard: on the bits gmask sets in
	// guardWords, every node's key equals gval (see guardNode).
	gmask, gval [len(guardWords)]uint64
}

// guardWords are the key words a subtable guard covers: in_port, eth_type
// and vlan_vid (word 1) and ip_proto (word 3), the fields on which a
// subtable's rules most often all agree (an IPv4 TCP subtable, say) and
// on which packets of other kinds differ.
var guardWords = [...]uint8{1, 3}

// guardNode narrows st's guard to the bits on which n's key agrees with
// every node before it, and reports whether it changed. Call it before n
// joins st.nodes and publish the order before n can be visible. The guard
// never widens again when nodes leave: a narrower guard only skips fewer
// subtables.
func (st *subtable) guardNode(n *inode) bool {
	var v [len(guardWords)]uint64
	for i, w := range st.words[:st.nw] {
		for g, gw := range guardWords {
			if w == gw {
				v[g] = n.key[i]
			}
		}
	}
	if len(st.nodes) == 0 {
		for g, gw := range guardWords {
			st.gmask[g] = st.mask[gw]
			st.gval[g] = v[g] & st.gmask[g]
		}
		return true
	}
	changed := false
	for g := range guardWords {
		if d := (v[g] ^ st.gval[g]) & st.gmask[g]; d != 0 {
			st.gmask[g] &^= d
			st.gval[g] &= st.gmask[g]
			changed = true
		}
	}
	return changed
}

func (st *subtable) hash(k *Key) uint64 {
	h := st.seed
	for _, w := range st.words[:st.nw] {
		h ^= k[w] & st.mask[w]
		h *= 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	return fmix(h)
}

func fmix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// inode is one distinct (subtable, masked key) in the lookup index, with its
// rules rank descending. The rules of a node never change: adding one
// replaces the node in its slot. Only the removal versions change, in place
// (atomically), so marking a rule removed allocates nothing; a lookup that
// reads an entry at version v sees a removal version that is either final
// or greater than v.
//
// Layout: the fields a lookup reads (subtable, entries, the first entry and
// the packed key) fill the node's first two cache lines. Every link zeroes
// a node, so the rest is kept small: 32-bit positions, the checks, which
// few nodes have, as a pointer (see checkOf), and no hash (its slot has
// it). That makes a node 192 bytes, three cache lines, so all the nodes of
// a slab chunk sit alike on cache lines; Go's allocator starts an 8 KB
// chunk 8 bytes into a line (after its header), and then what a lookup
// reads, up to key[6], is in two lines for every node.
type inode struct {
	st   *subtable
	ents []entry // rank descending; one[:] when there is one rule
	one  [1]entry
	key  [KeyWords]uint64 // the masked key words st.words[:st.nw], packed
	pos  int32            // writer only: index in st.nodes
	si   uint32           // writer only: index of its slot
	chk  *check           // nil, or the first of one check per entry, when some entry is not exact
}

// relaxedWords are the Key words coarseMask can change (IPv4 addresses, L4
// ports, ARP addresses): on every other word a rule's mask equals its
// subtable's, so a node whose key matches has checked them already.
var relaxedWords = [3]uint8{4, 9, 10}

// check is what a lookup must still test of a rule whose mask is not its
// subtable's: the rule's value and mask on the relaxed words. Kept in the
// node, so that the test does not load the rule.
type check struct {
	k, m [len(relaxedWords)]uint64
}

func (c *check) set(r *Rule) {
	for i, w := range relaxedWords {
		c.k[i], c.m[i] = r.Match.Key[w], r.Match.Mask[w]
	}
}

func (c *check) matches(k *Key) bool {
	return k[4]&c.m[0] == c.k[0] && k[9]&c.m[1] == c.k[1] && k[10]&c.m[2] == c.k[2]
}

// checkOf returns the check of n's entry i. n must have checks.
func (n *inode) checkOf(i int) *check {
	return &unsafe.Slice(n.chk, len(n.ents))[i]
}

// setChecks gives n its checks if one of its rules needs them.
func (n *inode) setChecks() {
	for i := range n.ents {
		if !n.ents[i].exact {
			chk := make([]check, len(n.ents))
			for j := range n.ents {
				chk[j].set(n.ents[j].r)
			}
			n.chk = &chk[0]
			return
		}
	}
}

// entry is a rule as the lookup path needs it, copied into its node so that
// a probe touches one allocation.
type entry struct {
	rank    uint64
	added   uint64
	removed atomic.Uint64
	r       *Rule
	exact   bool // no full-match check needed
}

func (e *entry) set(r *Rule) {
	e.rank, e.added, e.r, e.exact = r.rankOf(), r.added, r, r.exact
	e.removed.Store(r.removed.Load())
}

// tomb marks a slot whose node was removed: probes go on past it.
var tomb = &inode{}

// newNode returns a node of st for the packed key pk holding rs (rank
// descending), with old's slot position.
func (t *Table) newNode(st *subtable, pk *[KeyWords]uint64, rs []*Rule) *inode {
	n := t.nodeSlab.next()
	n.st, n.key = st, *pk
	if len(rs) == 1 {
		n.ents = n.one[:]
	} else {
		n.ents = t.entSlab.take(len(rs))
	}
	for i, r := range rs {
		n.ents[i].set(r)
	}
	n.setChecks()
	return n
}

// slot is one cell of the open-addressing index: the node's hash (so that
// a probe skips other keys without touching their nodes) and the node. An
// empty slot has a nil node; a slot never becomes empty again.
type slot struct {
	h atomic.Uint64
	n atomic.Pointer[inode]
}

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

// tableState is what lookups load with one atomic pointer read.
type tableState struct {
	order  []orderEntry // subtables by decreasing best rank
	filter *filter.Filter
	slots  []slot // linear probing by hash
	smask  uint64
}

// find returns the node of (st, masked k) with hash h, or nil.
func (s *tableState) find(h uint64, st *subtable, k *Key) *inode {
	for i := h & s.smask; ; i = (i + 1) & s.smask {
		sl := &s.slots[i]
		n := sl.n.Load()
		if n == nil {
			return nil
		}
		if sl.h.Load() == h && n.st == st && keyEqual(n, st, k) {
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
		if sl.h.Load() == h && n.st == st && packedEqual(&n.key, pk, st.nw) {
			return sl, n
		}
	}
}

// Table is one flow table: a tuple-space classifier whose subtables (one per
// mask) sit behind one filter keyed by hash(subtable, masked key).
//
// # Concurrency
//
// Lookup, LookupBatch and their variants are safe from any number of
// goroutines, never block and allocate nothing. Changes come only through
// the owning Pipeline's writer methods.
type Table struct {
	id    uint8
	p     *Pipeline
	state atomic.Pointer[tableState]
	_     [64]byte // keep the writer's fields off the readers' cache line

	// writer only
	subs       map[Key]*subtable
	lastSub    *subtable   // the subtable subtableFor returned last
	probed     []*subtable // subtables created during one link
	staleSubs  []*subtable // subtables whose maxRank may be too high
	nextSubID  uint64
	dropped    uint64 // subtables deleted from subs so far
	nodes      int    // live index nodes
	used       int    // index slots holding a node or a tombstone
	rules      int    // physically present
	flows      int    // not removed: visible once the writer publishes
	orderDirty bool
	fcfg       filter.Config
	kind       FilterKind
	rebuilds   int
	nodeSlab   slab[inode] // the index nodes link makes
	// entSlab holds the entries of nodes of several rules (a rule added
	// back while its removed predecessor awaits unlink makes one).
	entSlab slab[entry]
	rs      []*Rule // link's buffer
	// spareNodes is the emptied nodes list of the last subtable dropped,
	// for the next subtable made: a table emptied and refilled (a
	// controller's delete of all flows, then its adds) then does not grow
	// the list from nothing again.
	spareNodes []*inode
}

func newTable(p *Pipeline, id uint8) (*Table, error) {
	t := &Table{id: id, p: p, subs: map[Key]*subtable{}, kind: p.cfg.Filter}
	t.nodeSlab.keepSpare(p.cfg.PrefaultRules, &p.prefaultLow)
	t.entSlab.keepSpare(p.cfg.PrefaultRules, &p.prefaultLow)
	nb := 64
	s := &tableState{slots: make([]slot, nb), smask: uint64(nb - 1)}
	if t.kind != FilterNone {
		t.fcfg = filter.Config{
			Buckets:         p.cfg.FilterBuckets,
			FingerprintBits: p.cfg.FingerprintBits,
			BloomAfter:      p.cfg.BloomAfter,
			Seed:            p.cfg.Seed + uint64(id),
		}
		if t.fcfg.Buckets == 0 {
			t.fcfg.Buckets = 256
		}
		if t.kind == FilterCuckoo {
			t.fcfg.BloomAfter = -1
		}
		f, err := filter.New(t.fcfg)
		if err != nil {
			return nil, err
		}
		s.filter = f
	}
	t.state.Store(s)
	return t, nil
}

// ID returns the table number.
func (t *Table) ID() uint8 { return t.id }

// Lookup returns the highest-priority rule matching k at the published
// version, or nil (a table miss with no table-miss entry).
func (t *Table) Lookup(k *Key) *Rule {
	var c Counters
	r, _ := t.LookupVersion(k, &c)
	return r
}

// LookupCount is Lookup that adds what it did to c.
func (t *Table) LookupCount(k *Key, c *Counters) *Rule {
	r, _ := t.LookupVersion(k, c)
	return r
}

// LookupVersion is LookupCount that also returns the version the answer
// belongs to: the answer is the rule a linear scan of the rules visible at
// that version would return.
func (t *Table) LookupVersion(k *Key, c *Counters) (*Rule, uint64) {
	p := t.p
	for {
		v := p.version.Load()
		s := t.state.Load()
		r := lookup(k, v, s, c)
		if p.unlinked.Load() <= v {
			c.Lookups++
			return r, v
		}
		c.Retries++
	}
}

// LookupBatch looks up every key of keys at one version and stores the
// answers in out, which must be at least as long.
func (t *Table) LookupBatch(keys []Key, out []*Rule) {
	var c Counters
	t.LookupBatchCount(keys, out, &c)
}

// LookupBatchCount is LookupBatch that adds what it did to c, and returns the
// version all answers belong to.
func (t *Table) LookupBatchCount(keys []Key, out []*Rule, c *Counters) uint64 {
	p := t.p
	out = out[:len(keys)]
	for {
		v := p.version.Load()
		s := t.state.Load()
		var local Counters
		if len(keys) > 1 {
			for i := 0; i < len(keys); i += batchChunk {
				j := min(i+batchChunk, len(keys))
				lookupChunk(keys[i:j], out[i:j], v, s, &local)
			}
		} else {
			for i := range keys {
				out[i] = lookup(&keys[i], v, s, &local)
			}
		}
		if p.unlinked.Load() <= v {
			local.Lookups += uint64(len(keys))
			c.Add(&local)
			return v
		}
		c.Retries++
	}
}

func lookup(k *Key, v uint64, s *tableState, c *Counters) *Rule {
	var best *Rule
	var bestRank uint64
	f := s.filter
	for i := range s.order {
		oe := &s.order[i]
		if best != nil && oe.maxRank < bestRank {
			break
		}
		if oe.guarded(k) {
			c.Guarded++
			continue
		}
		c.Visited++
		h := oe.hash(k)
		if f != nil && !f.Contains(h) {
			c.FilterNegatives++
			continue
		}
		c.Probes++
		n := s.find(h, oe.st, k)
		if n == nil {
			if f != nil {
				c.FalsePositives++
			}
			continue
		}
		for i := range n.ents {
			e := &n.ents[i]
			if best != nil && e.rank <= bestRank {
				break
			}
			if e.added <= v && v < e.removed.Load() && (e.exact || n.checkOf(i).matches(k)) {
				best, bestRank = e.r, e.rank
				break
			}
		}
	}
	return best
}

const batchChunk = 32

// lookupChunk classifies up to batchChunk keys subtable by subtable, so that
// the filter probes of all keys still undecided in one subtable go out
// together (ContainsBatch overlaps their cache misses).
func lookupChunk(keys []Key, out []*Rule, v uint64, s *tableState, c *Counters) {
	var (
		active [batchChunk]uint8
		hs     [batchChunk]uint64
		hit    [batchChunk]bool
		rank   [batchChunk]uint64
		idx    [batchChunk]uint8
	)
	na := len(keys)
	for i := range keys {
		active[i] = uint8(i)
		out[i] = nil
	}
	f := s.filter
	for oi := range s.order {
		if na == 0 {
			break
		}
		oe := &s.order[oi]
		st := oe.st
		// Drop keys whose best already beats everything from here on.
		m := 0
		for _, a := range active[:na] {
			if out[a] != nil && oe.maxRank < rank[a] {
				continue
			}
			active[m] = a
			m++
		}
		na = m
		if na == 0 {
			break
		}
		// The keys that pass the subtable's guard; the others stay active
		// for the subtables after it.
		g := 0
		for _, a := range active[:na] {
			if oe.guarded(&keys[a]) {
				c.Guarded++
				continue
			}
			idx[g] = a
			g++
		}
		j := 0
		for ; j+1 < g; j += 2 {
			hs[j], hs[j+1] = oe.hash2(&keys[idx[j]], &keys[idx[j+1]])
		}
		if j < g {
			hs[j] = oe.hash(&keys[idx[j]])
		}
		if g == 0 {
			continue
		}
		c.Visited += uint64(g)
		if f != nil {
			f.ContainsBatch(hs[:g], hit[:g])
		} else {
			for j := range g {
				hit[j] = true
			}
		}
		// Load the home slots of all hits, then the first words of the
		// nodes found there, each loop issuing independent loads so that
		// their cache misses overlap; the probes then mostly hit the cache.
		var (
			heads [batchChunk]*inode
			sts   [batchChunk]*subtable
			k0    [batchChunk]uint64
		)
		for j := range g {
			if !hit[j] {
				continue
			}
			for i := hs[j] & s.smask; ; i = (i + 1) & s.smask {
				sl := &s.slots[i]
				n := sl.n.Load()
				if n == nil {
					break
				}
				if sl.h.Load() == hs[j] {
					heads[j] = n
					break
				}
			}
		}
		for j := range g {
			if n := heads[j]; n != nil {
				sts[j], k0[j] = n.st, n.key[0]
			}
		}
		for j := range g {
			if !hit[j] {
				c.FilterNegatives++
				continue
			}
			a := idx[j]
			c.Probes++
			var n *inode
			if x := heads[j]; x != nil && sts[j] == st &&
				(st.nw == 0 || k0[j] == keys[a][st.words[0]]&st.mask[st.words[0]]) && keyEqual(x, st, &keys[a]) {
				n = x
			} else {
				n = s.find(hs[j], st, &keys[a])
			}
			if n == nil {
				if f != nil {
					c.FalsePositives++
				}
				continue
			}
			for i := range n.ents {
				e := &n.ents[i]
				if out[a] != nil && e.rank <= rank[a] {
					break
				}
				if e.added <= v && v < e.removed.Load() && (e.exact || n.checkOf(i).matches(&keys[a])) {
					out[a], rank[a] = e.r, e.rank
					break
				}
			}
		}
	}
}

func keyEqual(n *inode, st *subtable, k *Key) bool {
	for i, w := range st.words[:st.nw] {
		if n.key[i] != k[w]&st.mask[w] {
			return false
		}
	}
	return true
}

func packedEqual(a, b *[KeyWords]uint64, nw int) bool {
	for i := range nw {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// pack returns the masked words of k that st tests, packed.
func (st *subtable) pack(k *Key) (pk [KeyWords]uint64) {
	for i, w := range st.words[:st.nw] {
		pk[i] = k[w] & st.mask[w]
	}
	return pk
}

// --- writer side ---

// sub returns the subtable of mask, or nil.
func (t *Table) sub(mask *Key) *subtable {
	if st := t.lastSub; st != nil && st.mask == *mask {
		return st
	}
	return t.subs[*mask]
}

func (t *Table) subtableFor(mask *Key) *subtable {
	if st := t.lastSub; st != nil && st.mask == *mask {
		return st
	}
	if st := t.subs[*mask]; st != nil {
		t.lastSub = st
		return st
	}
	t.nextSubID++
	st := &subtable{id: t.nextSubID, mask: *mask, nodes: t.spareNodes}
	t.spareNodes = nil
	st.seed = fmix(st.id*0x9e3779b97f4a7c15 + uint64(t.id)<<56 + 1)
	for w := range mask {
		if mask[w] != 0 {
			st.words[st.nw] = uint8(w)
			st.nw++
		}
	}
	// A mask that the coarsest level leaves alone, the finer levels leave
	// alone too (a multiple of 16 is a multiple of 8 and of 4).
	st.noRelax = coarseMask(mask, mergeLevels[0]) == *mask
	t.subs[*mask] = st
	t.lastSub = st
	t.probed = append(t.probed, st)
	t.orderDirty = true
	return st
}

// mergeLimit is the most rules one node of a merged subtable takes before a
// rule goes to the subtable of its own mask instead (TupleMerge's collision
// limit).
const mergeLimit = 40

// mergeLevels are the prefix-length granularities link tries, coarsest
// first.
var mergeLevels = [...]int{16, 8, 4}

// coarseMask relaxes a mask the way TupleMerge does, so that rules of
// similar masks share a subtable. Lookups then check each candidate's full
// match. The prefix length of every IPv4, ARP
// address and L4 port mask is rounded down to a multiple of g.
func coarseMask(m *Key, g int) Key {
	c := *m
	for _, f := range [...]Field{FieldIPv4Src, FieldIPv4Dst, FieldL4Src, FieldL4Dst, FieldARPSPA, FieldARPTPA} {
		v := m.Get(f)
		full := f.FullMask()
		if v == 0 || v == full {
			continue
		}
		w := f.Bits()
		p := bits.LeadingZeros64(^(v << (64 - w)))
		if prefixMask(w, p) != v {
			continue // not a prefix: keep it
		}
		c.Set(f, prefixMask(w, p&^(g-1)))
	}
	return c
}

// nodeOf returns the hash, packed key, slot and node of (st, key), key
// masked by st's mask; slot and node are nil when there is none.
func (t *Table) nodeOf(st *subtable, key *Key) (uint64, [KeyWords]uint64, *slot, *inode) {
	h := st.hash(key)
	pk := st.pack(key)
	sl, n := t.state.Load().findPacked(h, st, &pk)
	return h, pk, sl, n
}

// link makes r physically present (not yet visible unless its added version
// is published).
func (t *Table) link(r *Rule, hint *nodeHint) error {
	// The subtable of r's own mask: identical found it already when it
	// filled the hint in.
	var own *subtable
	if hint != nil && hint.st != nil {
		own = hint.st
		t.lastSub = own
	} else {
		own = t.subtableFor(&r.Match.Mask)
	}
	st := own
	key := r.Match.Key
	if !t.p.cfg.NoMerge && !st.noRelax {
		// Coarsest first: a rule joins the first relaxed subtable whose
		// node for it is not yet full.
		for _, g := range mergeLevels {
			cm := coarseMask(&r.Match.Mask, g)
			if cm == r.Match.Mask {
				break
			}
			cst := t.subtableFor(&cm)
			ck := r.Match.Key.And(&cm)
			if _, _, _, n := t.nodeOf(cst, &ck); n == nil || len(n.ents) < mergeLimit {
				st, key = cst, ck
				break
			}
		}
		if len(t.probed) > 0 {
			t.dropIfEmpty(st)
		}
	} else {
		t.probed = t.probed[:0]
	}
	r.st = st
	r.exact = st == own // one subtable per mask
	st.n++
	t.rules++
	rank := r.rankOf()
	if rank > st.maxRank || st.n == 1 {
		st.maxRank = rank
		t.orderDirty = true
	}
	var (
		h   uint64
		pk  [KeyWords]uint64
		sl  *slot
		old *inode
	)
	if hint != nil && hint.st == st {
		h, pk, sl, old = hint.h, hint.pk, hint.sl, hint.n
	} else {
		h, pk, sl, old = t.nodeOf(st, &key)
	}
	if old == nil {
		n := t.nodeSlab.next()
		n.st, n.key = st, pk
		n.ents = n.one[:]
		n.one[0].set(r)
		n.setChecks()
		r.node = n
		if st.guardNode(n) {
			t.orderDirty = true
		}
		t.addNode(n, h)
		return t.filterInsert(h)
	}
	// The new node leaves out the entries of rules already unlinked (see
	// unlink).
	rs := t.rs[:0]
	placed := false
	for i := range old.ents {
		x := old.ents[i].r
		if !placed && old.ents[i].rank <= rank {
			rs = append(rs, r)
			placed = true
		}
		if x.node == old {
			rs = append(rs, x)
		}
	}
	if !placed {
		rs = append(rs, r)
	}
	// Retired before replaceNode points the rules it keeps at their new
	// node: old's unlinked rules are those that do not point at it.
	t.retireNode(old)
	t.replaceNode(sl, old, t.newNode(st, &pk, rs))
	clear(rs)
	t.rs = rs
	return nil
}

// addNode puts a new node, of hash h, into the first free slot of its probe
// sequence (the caller knows its key is absent).
func (t *Table) addNode(n *inode, h uint64) {
	s := t.state.Load()
	if 2*(t.used+1) > len(s.slots) {
		t.growIndex()
		s = t.state.Load()
	}
	for i := h & s.smask; ; i = (i + 1) & s.smask {
		sl := &s.slots[i]
		x := sl.n.Load()
		if x == nil || x == tomb {
			if x == nil {
				t.used++
			}
			// The hash first: a lookup that sees the node sees its hash.
			sl.h.Store(h)
			sl.n.Store(n)
			n.si = uint32(i)
			break
		}
	}
	st := n.st
	n.pos = int32(len(st.nodes))
	st.nodes = append(st.nodes, n)
	t.nodes++
}

// replaceNode puts n into the slot of old, a node of the same key.
func (t *Table) replaceNode(sl *slot, old, n *inode) {
	n.pos, n.si = old.pos, old.si
	n.st.nodes[n.pos] = n
	for i := range n.ents {
		n.ents[i].r.node = n
	}
	sl.n.Store(n)
}

// removeNode leaves a tombstone in old's slot, or empties it when the next
// slot is empty (no probe sequence of a present key then passes through it),
// and then the tombstones before it. Called only inside a cleanup window.
func (t *Table) removeNode(sl *slot, old *inode) {
	s := t.state.Load()
	if i := uint64(old.si); &s.slots[i] == sl && s.slots[(i+1)&s.smask].n.Load() == nil {
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
	last.pos = old.pos
	st.nodes[len(st.nodes)-1] = nil
	st.nodes = st.nodes[:len(st.nodes)-1]
	t.nodes--
}

// dropIfEmpty forgets subtables created by link's probing that got no rule.
func (t *Table) dropIfEmpty(keep *subtable) {
	for _, st := range t.probed {
		if st != keep && st.n == 0 {
			delete(t.subs, st.mask)
			t.dropped++
			if t.lastSub == st {
				t.lastSub = nil
			}
		}
	}
	t.probed = t.probed[:0]
}

// unlink removes r physically. Called only inside a cleanup window.
func (t *Table) unlink(r *Rule) {
	st := r.st
	old := r.node
	if old == nil {
		return
	}
	r.node = nil
	sl := &t.state.Load().slots[old.si]
	h := sl.h.Load()
	i := 0
	for i < len(old.ents) && old.ents[i].r != r {
		i++
	}
	if i == len(old.ents) {
		return
	}
	linked := false
	for j := range old.ents {
		linked = linked || old.ents[j].r.node == old
	}
	if !linked {
		t.removeNode(sl, old)
		t.retireNode(old) // with r and the rules unlinked before it
		if f := t.state.Load().filter; f != nil {
			f.Delete(h)
		}
	}
	// Otherwise r's entry stays in the node, which other rules still use:
	// lookups skip it by its removal version, and the next copy of the
	// node (when a rule joins it) leaves it out. Copying the node now
	// would cost an allocation per removal, and a rule removed and added
	// back within Config.UnlinkAfter makes such nodes all the time.
	st.n--
	t.rules--
	if st.n == 0 {
		if cap(st.nodes) > cap(t.spareNodes) {
			t.spareNodes = st.nodes[:0] // writer only: no lookup reads it
		}
		delete(t.subs, st.mask)
		t.dropped++
		if t.lastSub == st {
			t.lastSub = nil
		}
		t.orderDirty = true
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
			st.maxRank = max(st.maxRank, n.ents[0].rank)
		}
		st.staleMax = 0
		t.orderDirty = true
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
	for i := range n.ents {
		if n.ents[i].r == r {
			n.ents[i].removed.Store(r.removed.Load())
			return
		}
	}
}

// growIndex publishes an index of at least four slots per node, without
// tombstones. Lookups on the old one stay correct: its nodes are the same.
func (t *Table) growIndex() {
	s := t.state.Load()
	nb := 64
	for nb < 4*(t.nodes+1) {
		nb *= 2
	}
	ns := *s
	ns.slots = make([]slot, nb)
	ns.smask = uint64(nb - 1)
	for i := range s.slots {
		n := s.slots[i].n.Load()
		if n == nil || n == tomb {
			continue
		}
		h := s.slots[i].h.Load()
		for j := h & ns.smask; ; j = (j + 1) & ns.smask {
			sl := &ns.slots[j]
			if sl.n.Load() == nil {
				sl.h.Store(h)
				sl.n.Store(n)
				n.si = uint32(j)
				break
			}
		}
	}
	t.used = t.nodes
	t.state.Store(&ns)
}

func (t *Table) filterInsert(h uint64) error {
	s := t.state.Load()
	if s.filter == nil {
		return nil
	}
	r := s.filter.Insert(h)
	t.p.iters += r.Iterations
	if r.Placement != filter.Full {
		return nil
	}
	return t.rebuildFilter(s.filter.Buckets() * 2)
}

// rebuildFilter builds a filter of at least nb buckets holding every node of
// the index and publishes it; lookups keep using the old one until then.
func (t *Table) rebuildFilter(nb int) error {
	s := t.state.Load()
	for {
		cfg := t.fcfg
		cfg.Buckets = nb
		cfg.Seed = t.fcfg.Seed + uint64(t.rebuilds+1)*0x51ed27
		f, err := filter.New(cfg)
		if err != nil {
			return &Error{Type: ErrTypeFlowModFailed, Code: FlowModTableFull, Why: err.Error()}
		}
		// Refill with plain cuckoo insertion: the Bloom part is for bursts.
		f.SetBloomAfter(-1)
		ok := true
		for i := range s.slots {
			n := s.slots[i].n.Load()
			if n == nil || n == tomb {
				continue
			}
			if f.Insert(s.slots[i].h.Load()).Placement == filter.Full {
				ok = false
				break
			}
		}
		if ok {
			f.SetBloomAfter(cfg.BloomAfter)
			f.ResetStats()
			t.rebuilds++
			t.fcfg.Buckets = nb
			ns := *s
			ns.filter = f
			t.state.Store(&ns)
			return nil
		}
		nb *= 2
	}
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

// TableStats describes a table's shape.
type TableStats struct {
	Flows          int           // visible at the published version (what OpenFlow counts)
	Rules          int           // physically present (visible or removed and awaiting unlink)
	Subtables      int           // distinct masks
	Keys           int           // distinct (subtable, masked key) pairs: elements of the filter
	Filter         string        // bcf, cf or none
	FilterBuckets  int           // 0 without filter
	FilterLen      int           // elements in the filter
	FilterBloomLen int           // elements in its Bloom part
	Occupancy      float64       // filter occupancy
	Rebuilds       int           // times the filter was rebuilt larger
	FilterStats    *filter.Stats // the filter's own counters; nil without filter
}

// Stats returns the table's shape. Call it from the writer goroutine.
func (t *Table) Stats() TableStats {
	s := t.state.Load()
	ts := TableStats{Flows: t.flows, Rules: t.rules, Subtables: len(t.subs), Keys: t.nodes, Filter: t.kind.String(), Rebuilds: t.rebuilds}
	if s.filter != nil {
		fs := s.filter.Stats()
		ts.FilterBuckets = s.filter.Buckets()
		ts.FilterLen = s.filter.Len()
		ts.FilterBloomLen = s.filter.BloomLen()
		ts.Occupancy = s.filter.Occupancy()
		ts.FilterStats = &fs
	}
	return ts
}

// ResetFilterStats zeroes the filter's insertion counters, so that the
// iterations of one burst can be read from Stats afterwards. Writer only.
func (t *Table) ResetFilterStats() {
	if f := t.state.Load().filter; f != nil {
		f.ResetStats()
	}
}

// maybeGrow rebuilds the filter at twice the size when the occupancy after
// a burst is above max.
func (t *Table) maybeGrow(max float64) error {
	s := t.state.Load()
	if s.filter == nil || s.filter.Occupancy() <= max {
		return nil
	}
	return t.rebuildFilter(s.filter.Buckets() * 2)
}

// ensureFilterCapacity rebuilds the filter ahead of a known load of n keys so
// that occupancy stays near target; used by bulk loads.
func (t *Table) ensureFilterCapacity(n int, target float64) error {
	s := t.state.Load()
	if s.filter == nil {
		return nil
	}
	need := int(float64(n)/(4*target)) + 1
	nb := 1 << bits.Len(uint(need-1))
	if nb <= s.filter.Buckets() {
		return nil
	}
	return t.rebuildFilter(nb)
}

package rules

import (
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

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
	FilterNegatives uint64 // subtables skipped because the filter said absent
	FalsePositives  uint64 // filter said present, the subtable had no such key
	Probes          uint64 // hash-table probes of a subtable
	Retries         uint64 // lookups redone because a cleanup ran meanwhile
}

// Add adds o to c.
func (c *Counters) Add(o *Counters) {
	c.Lookups += o.Lookups
	c.Visited += o.Visited
	c.FilterNegatives += o.FilterNegatives
	c.FalsePositives += o.FalsePositives
	c.Probes += o.Probes
	c.Retries += o.Retries
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
	keys     map[Key][]*Rule // masked key → rules, rank descending (physically present)
	n        int
	maxRank  uint64 // at least the best rank present
	staleMax int    // removals of the best rule since maxRank was computed
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

// inode is one distinct (subtable, masked key) in the lookup index. Nodes are
// immutable once linked: a change replaces the node (copying the chain before
// it), so a lookup walking an old chain sees a consistent old list.
type inode struct {
	h    uint64
	st   *subtable
	next *inode
	ents []entry // rank descending
	key  Key
}

// entry is a rule as the lookup path needs it, copied into its node so that
// a probe touches one allocation: the node is replaced whenever a rule of
// it is added or marked removed.
type entry struct {
	rank    uint64
	added   uint64
	removed uint64
	r       *Rule
	exact   bool // no full-match check needed
}

// inode1 and inode2 hold a node and its entries in one allocation.
type inode1 struct {
	inode
	arr [1]entry
}

type inode2 struct {
	inode
	arr [2]entry
}

func newNode(h uint64, st *subtable, key *Key, next *inode, rs []*Rule) *inode {
	var n *inode
	var es []entry
	switch len(rs) {
	case 1:
		x := &inode1{}
		n, es = &x.inode, x.arr[:]
	case 2:
		x := &inode2{}
		n, es = &x.inode, x.arr[:]
	default:
		n, es = &inode{}, make([]entry, len(rs))
	}
	n.h, n.st, n.next, n.key, n.ents = h, st, next, *key, es
	for i, r := range rs {
		es[i] = entry{rank: r.rank, added: r.added, removed: r.removed.Load(), r: r, exact: r.exact}
	}
	return n
}

// copyNode returns a copy of n with a different next pointer; the entries
// are shared (they are immutable).
func copyNode(n *inode, next *inode) *inode {
	c := &inode{h: n.h, st: n.st, next: next, ents: n.ents, key: n.key}
	return c
}

type orderEntry struct {
	st      *subtable
	maxRank uint64
}

// tableState is what lookups load with one atomic pointer read.
type tableState struct {
	order   []orderEntry // subtables by decreasing best rank
	filter  *filter.Filter
	buckets []atomic.Pointer[inode]
	bmask   uint64
}

func (s *tableState) find(h uint64, st *subtable, k *Key) *inode {
	for n := s.buckets[h&s.bmask].Load(); n != nil; n = n.next {
		if n.h != h || n.st != st {
			continue
		}
		ok := true
		for _, w := range st.words[:st.nw] {
			if n.key[w] != k[w]&st.mask[w] {
				ok = false
				break
			}
		}
		if ok {
			return n
		}
	}
	return nil
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

	// writer only
	subs       map[Key]*subtable
	byMatch    map[Match][]*Rule // rules physically present, by exact match
	probed     []*subtable       // subtables created during one link
	staleSubs  []*subtable       // subtables whose maxRank may be too high
	nextSubID  uint64
	nodes      int
	rules      int // physically present
	orderDirty bool
	fcfg       filter.Config
	kind       FilterKind
	rebuilds   int
}

func newTable(p *Pipeline, id uint8) (*Table, error) {
	t := &Table{id: id, p: p, subs: map[Key]*subtable{}, byMatch: map[Match][]*Rule{}, kind: p.cfg.Filter}
	nb := 64
	s := &tableState{buckets: make([]atomic.Pointer[inode], nb), bmask: uint64(nb - 1)}
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
		g := p.gen.Load()
		v := p.version.Load()
		s := t.state.Load()
		r := lookup(k, v, s, c)
		if p.gen.Load() == g {
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
		g := p.gen.Load()
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
		if p.gen.Load() == g {
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
		c.Visited++
		st := oe.st
		h := st.hash(k)
		if f != nil && !f.Contains(h) {
			c.FilterNegatives++
			continue
		}
		c.Probes++
		n := s.find(h, st, k)
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
			if e.added <= v && v < e.removed && (e.exact || e.r.Match.Matches(k)) {
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
		for j, a := range active[:na] {
			hs[j] = st.hash(&keys[a])
			idx[j] = a
		}
		c.Visited += uint64(na)
		if f != nil {
			f.ContainsBatch(hs[:na], hit[:na])
		} else {
			for j := range na {
				hit[j] = true
			}
		}
		// Load the bucket heads of all hits first, then one word of each
		// node, so that their cache misses overlap before the walks.
		var heads [batchChunk]*inode
		var sum uint64
		for j := range na {
			if hit[j] {
				heads[j] = s.buckets[hs[j]&s.bmask].Load()
			}
		}
		for j := range na {
			if heads[j] != nil {
				sum += heads[j].h
			}
		}
		_ = sum
		for j := range na {
			if !hit[j] {
				c.FilterNegatives++
				continue
			}
			a := idx[j]
			c.Probes++
			var n *inode
			for x := heads[j]; x != nil; x = x.next {
				if x.h == hs[j] && x.st == st && keyEqual(x, st, &keys[a]) {
					n = x
					break
				}
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
				if e.added <= v && v < e.removed && (e.exact || e.r.Match.Matches(&keys[a])) {
					out[a], rank[a] = e.r, e.rank
					break
				}
			}
		}
	}
}

func keyEqual(n *inode, st *subtable, k *Key) bool {
	for _, w := range st.words[:st.nw] {
		if n.key[w] != k[w]&st.mask[w] {
			return false
		}
	}
	return true
}

// --- writer side ---

func (t *Table) subtableFor(mask *Key) *subtable {
	if st := t.subs[*mask]; st != nil {
		return st
	}
	t.nextSubID++
	st := &subtable{id: t.nextSubID, mask: *mask, keys: map[Key][]*Rule{}}
	st.seed = fmix(st.id*0x9e3779b97f4a7c15 + uint64(t.id)<<56 + 1)
	for w := range mask {
		if mask[w] != 0 {
			st.words[st.nw] = uint8(w)
			st.nw++
		}
	}
	t.subs[*mask] = st
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

// link makes r physically present (not yet visible unless its added version
// is published).
func (t *Table) link(r *Rule) error {
	st := t.subtableFor(&r.Match.Mask)
	key := r.Match.Key
	if !t.p.cfg.NoMerge {
		// Coarsest first: a rule joins the first relaxed subtable whose
		// node for it is not yet full.
		for _, g := range mergeLevels {
			cm := coarseMask(&r.Match.Mask, g)
			if cm == r.Match.Mask {
				break
			}
			cst := t.subtableFor(&cm)
			ck := r.Match.Key.And(&cm)
			if len(cst.keys[ck]) < mergeLimit {
				st, key = cst, ck
				break
			}
		}
		t.dropIfEmpty(st)
	}
	r.st = st
	r.exact = st.mask == r.Match.Mask
	t.byMatch[r.Match] = append(t.byMatch[r.Match], r)
	old := st.keys[key]
	ents := make([]*Rule, 0, len(old)+1)
	i := 0
	for i < len(old) && old[i].rank > r.rank {
		i++
	}
	ents = append(ents, old[:i]...)
	ents = append(ents, r)
	ents = append(ents, old[i:]...)
	st.keys[key] = ents
	st.n++
	t.rules++
	if r.rank > st.maxRank || st.n == 1 {
		st.maxRank = r.rank
		t.orderDirty = true
	}
	h := st.hash(&key)
	t.setNode(h, st, &key, ents)
	if len(old) == 0 {
		return t.filterInsert(h)
	}
	return nil
}

// dropIfEmpty forgets subtables created by link's probing that got no rule.
func (t *Table) dropIfEmpty(keep *subtable) {
	for _, st := range t.probed {
		if st != keep && st.n == 0 {
			delete(t.subs, st.mask)
		}
	}
	t.probed = t.probed[:0]
}

// unlink removes r physically. Called only inside a cleanup window.
func (t *Table) unlink(r *Rule) {
	st := r.st
	key := r.Match.Key.And(&st.mask)
	if bm := t.byMatch[r.Match]; len(bm) > 0 {
		if i := slices.Index(bm, r); i >= 0 {
			bm = slices.Delete(bm, i, i+1)
			if len(bm) == 0 {
				delete(t.byMatch, r.Match)
			} else {
				t.byMatch[r.Match] = bm
			}
		}
	}
	old := st.keys[key]
	i := slices.Index(old, r)
	if i < 0 {
		return
	}
	ents := make([]*Rule, 0, len(old)-1)
	ents = append(ents, old[:i]...)
	ents = append(ents, old[i+1:]...)
	h := st.hash(&key)
	if len(ents) == 0 {
		delete(st.keys, key)
		ents = nil
	} else {
		st.keys[key] = ents
	}
	t.setNode(h, st, &key, ents)
	if ents == nil {
		if f := t.state.Load().filter; f != nil {
			f.Delete(h)
		}
	}
	st.n--
	t.rules--
	if st.n == 0 {
		delete(t.subs, st.mask)
		t.orderDirty = true
	} else if r.rank == st.maxRank {
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
		for _, es := range st.keys {
			st.maxRank = max(st.maxRank, es[0].rank)
		}
		st.staleMax = 0
		t.orderDirty = true
	}
	clear(t.staleSubs[len(kept):])
	t.staleSubs = kept
}

// refresh rewrites the index node holding r after r's removal mark changed,
// so that lookups see the mark in the node's copy of the entry.
func (t *Table) refresh(r *Rule) {
	st := r.st
	key := r.Match.Key.And(&st.mask)
	t.setNode(st.hash(&key), st, &key, st.keys[key])
}

// setNode replaces the index node of (st, key) by one holding ents, or
// removes it if ents is empty.
func (t *Table) setNode(h uint64, st *subtable, key *Key, ents []*Rule) {
	s := t.state.Load()
	b := &s.buckets[h&s.bmask]
	head := b.Load()
	var prefix []*inode
	var found *inode
	for n := head; n != nil; n = n.next {
		if n.h == h && n.st == st && n.key == *key {
			found = n
			break
		}
		prefix = append(prefix, n)
	}
	var tail *inode
	if found != nil {
		tail = found.next
	} else {
		tail = head
		prefix = nil
	}
	if len(ents) > 0 {
		tail = newNode(h, st, key, tail, ents)
	}
	for i := len(prefix) - 1; i >= 0; i-- {
		tail = copyNode(prefix[i], tail)
	}
	b.Store(tail)
	switch {
	case found == nil && len(ents) > 0:
		t.nodes++
		if t.nodes > len(s.buckets) {
			t.growIndex()
		}
	case found != nil && len(ents) == 0:
		t.nodes--
	}
}

func (t *Table) growIndex() {
	s := t.state.Load()
	nb := len(s.buckets) * 2
	ns := *s
	ns.buckets = make([]atomic.Pointer[inode], nb)
	ns.bmask = uint64(nb - 1)
	for i := range s.buckets {
		for n := s.buckets[i].Load(); n != nil; n = n.next {
			b := &ns.buckets[n.h&ns.bmask]
			b.Store(copyNode(n, b.Load()))
		}
	}
	t.state.Store(&ns)
}

func (t *Table) filterInsert(h uint64) error {
	s := t.state.Load()
	if s.filter == nil {
		return nil
	}
	if s.filter.Insert(h).Placement != filter.Full {
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
	scan:
		for i := range s.buckets {
			for n := s.buckets[i].Load(); n != nil; n = n.next {
				if f.Insert(n.h).Placement == filter.Full {
					ok = false
					break scan
				}
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
		order = append(order, orderEntry{st: st, maxRank: st.maxRank})
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
	Rules          int           // physically present (visible or awaiting cleanup)
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
	ts := TableStats{Rules: t.rules, Subtables: len(t.subs), Keys: t.nodes, Filter: t.kind.String(), Rebuilds: t.rebuilds}
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

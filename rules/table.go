package rules

import (
	"math/bits"
	"sync/atomic"

	"github.com/ofswitch/ofswitch/filter"
)

// Table is one flow table: a tuple-space classifier whose subtables (one per
// mask) sit behind one filter keyed by hash(subtable, masked key).
//
// # Concurrency
//
// Lookup, LookupVersion and LookupBatch are safe from any number of
// goroutines, never block and allocate nothing. Changes come only through
// the owning Pipeline's writer methods.
type Table struct {
	id    uint8
	p     *Pipeline
	state atomic.Pointer[tableState]
	_     [64]byte // keep the writer's fields off the readers' cache line

	// writer only
	subs        map[Key]*subtable
	lastSub     *subtable   // the subtable subtableFor returned last
	probed      []*subtable // subtables created during one link
	staleSubs   []*subtable // subtables whose maxRank may be too high
	nextSubID   uint64
	dropped     uint64 // subtables deleted from subs so far
	nodes       int    // live index nodes
	used        int    // index slots holding a node or a tombstone
	rules       int    // physically present
	flows       int    // not removed: visible once the writer publishes
	orderDirty  bool
	fcfg        filter.Config
	kind        FilterKind
	rebuilds    int
	indexBuilds int         // times growIndex rebuilt the flow index
	nodeSlab    slab[inode] // the index nodes link makes
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

// tableState is what lookups load with one atomic pointer read.
type tableState struct {
	order  []orderEntry // subtables by decreasing best rank
	filter *filter.Filter
	slots  []slot // linear probing by hash
	smask  uint64
	// paths says from which index size lookups consult the filter and
	// batches overlap their keys; set once in newTable and copied into
	// every later state.
	paths lookupPaths
}

func newTable(p *Pipeline, id uint8) (*Table, error) {
	t := &Table{id: id, p: p, subs: map[Key]*subtable{}, kind: p.cfg.Filter}
	t.nodeSlab.keepSpare(p.cfg.PrefaultRules, &p.prefaultLow)
	t.entSlab.keepSpare(p.cfg.PrefaultRules, &p.prefaultLow)
	nb := 64
	s := &tableState{slots: make([]slot, nb), smask: uint64(nb - 1), paths: p.cfg.paths.orDefaults()}
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

// pack returns the masked words of k that st tests, packed.
func (st *subtable) pack(k *Key) (pk [KeyWords]uint64) {
	for i, w := range st.words[:st.nw] {
		pk[i] = k[w] & st.mask[w]
	}
	return pk
}

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

// each calls fn for every physically present rule until fn returns false.
func (t *Table) each(fn func(*Rule) bool) {
	for _, st := range t.subs {
		for _, n := range st.nodes {
			for i := range n.ents {
				if !fn(n.ents[i].r) {
					return
				}
			}
		}
	}
}

package rules

import (
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"

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
	staleSubs   []*subtable // subtables whose maxRank may be too high
	nextSubID   uint64
	dropped     uint64 // subtables deleted from subs so far
	nodes       int    // live index nodes
	used        int    // index slots holding a node or a tombstone
	rules       int    // physically present
	flows       int    // not removed: visible once the writer publishes
	fcfg        filter.Config
	kind        FilterKind
	rebuilds    int
	indexBuilds int         // times a grown flow index was published (finishGrow)
	nodeSlab    slab[inode] // the index nodes link makes
	// entSlab holds the entries of nodes of several rules (a rule added
	// back while its removed predecessor awaits unlink makes one).
	entSlab slab[entry]
	// chkSlab holds the checks of nodes of merged rules (inode.chk):
	// no pointers, so its chunks cost the garbage collector no scan.
	chkSlab slab[check]
	// entPool and chkPool hold the entry and check arrays of reclaimed
	// nodes, for reuse (Config.Recycle only).
	entPool arrayPool[entry]
	chkPool arrayPool[check]
	rs      []*Rule // link's buffer
	from    []int32 // link's buffer: where rs[i] was in the node copied
	pend    pendingCopy
	// room is hasRoom's last probe, which link takes for the subtable
	// mergeTarget chose; scratch is identicalIn's probe when it keeps
	// no hint, and unlink's packed key.
	room, scratch nodeHint
	copies        int                     // node copies made (newNode): tests count them
	tailed        int                     // nodes in the index with a tail (appendEntry), which compactTails ranks
	tailCursor    struct{ sub, node int } // where compactTails goes on: subtable (in the order) and node
	fresh         []*inode                // nodes a burst of more than tailBurst updates gave a tail (rankFresh)
	// spareNodes is the emptied nodes list of the last subtable dropped,
	// for the next subtable made: a table emptied and refilled (a
	// controller's delete of all flows, then its adds) then does not grow
	// the list from nothing again.
	spareNodes []*inode
	// masks maps a mask to what the writer knows of it (maskInfo): its
	// subtable and the merged subtables link put rules of it in; targets
	// are the subtables a rule may merge into (all made while merging is
	// on), oldest first; dead ones leave when mergeTarget next walks them.
	// masks is keyed by maskHash, masks of one hash chained by
	// maskInfo.next: a map of a whole Key hashes and compares 144 bytes
	// at every update, where maskHash folds the words in three
	// independent multiply chains and the map is one of uint64 keys.
	masks    map[uint64]*maskInfo
	lastMask *maskInfo
	// hostMasks are the maskInfos of the host masks (dropMask takes
	// them out), dirty those whose count of live host rules doubled or
	// halved since their home was decided, and evalFlows is flows when
	// rehome last decided them all (see rehome).
	hostMasks []*maskInfo
	dirty     []*maskInfo
	evalFlows int
	moveBuf   []*Rule // rehome's buffers
	evalBuf   []*maskInfo
	moving    bool          // rehome is moving host rules to merged subtables
	checkBuf  []*maskInfo   // rehome's merged masks to check,
	joinBuf   []*maskInfo   // its masks to join merged subtables,
	joinCount map[Key]int32 // and their count by relaxed mask; reused
	// grownFrom is the filter's buckets before an insertion of the
	// burst under way first found it full and grew it (0: none did).
	grownFrom  int
	targets    []*subtable
	mergeLimit int // mergeLimit, or less in tests
	// ord is the subtable order as the writer keeps it, and touched the
	// subtables whose entries in it may be stale (see publishOrder).
	ord     []orderEntry
	touched []*subtable
	// ordLimbo holds the published orders storeOrder replaced, oldest
	// first, and ordFree those no reader can hold any more, for reuse
	// (Config.Recycle only).
	ordLimbo []retired[[]orderEntry]
	ordFree  [][]orderEntry
	// next is the index being built to replace the published one, nil
	// when none is (see startGrow): the published slots below moved are
	// copied into it, and it has nused slots in use.
	next  []slot
	nmask uint64
	moved int
	nused int
	// wantNext is the length of the next index the writer asks Prefault
	// to make ahead (0: none), and nextMade the one Prefault made; they
	// are the only fields Prefault and the writer share (prefaultIndex).
	// prefaulted counts the next indexes startGrow took from Prefault.
	wantNext   atomic.Int64
	nextMade   atomic.Pointer[[]slot]
	prefaulted int
	// minSlots is the smallest index, a power of two: 64, or less in
	// tests, so that small tables grow.
	minSlots int
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
	// filterAll puts every subtable behind the filter, whatever its
	// use says: for benchmarks that compare the rule with it
	// (LookupPathsTime); false in every state the table publishes.
	filterAll bool
}

func newTable(p *Pipeline, id uint8) (*Table, error) {
	t := &Table{id: id, p: p, subs: map[Key]*subtable{}, kind: p.cfg.Filter, mergeLimit: mergeLimit, minSlots: 64}
	t.nodeSlab.keepSpare(p.cfg.PrefaultRules, &p.prefaultLow)
	t.entSlab.keepSpare(p.cfg.PrefaultRules, &p.prefaultLow)
	nb := t.minSlots
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
//
// A lookup that finds a node compares its key (keyEqual): it reads nw,
// words and the mask words, so nw and words come before mask, in the
// first cache line with seed; mask's words up to 16 take the next two.
type subtable struct {
	id   uint64
	seed uint64
	// use is how lookups treat the subtable (useFilter, useFilterAhead,
	// useProbe; see direct.go), written by the lookups that decide it
	// from evidence; visits read its copy in the orderEntry.
	use   atomic.Uint32
	nw    int
	words [KeyWords]uint8 // indices of the non-zero mask words
	mask  Key

	// writer only
	dead     bool      // deleted from its table's subs
	mi       *maskInfo // its mask's, whose own it is
	nodes    []*inode  // its index nodes, each at its pos
	n        int       // rules physically present
	maxRank  uint64    // at least the best rank present
	staleMax int       // removals of the best rule since maxRank was computed
	// gmask and gval are the subtable's guard: on the bits gmask sets in
	// guardWords, every node's key equals gval (see guardNode).
	gmask, gval [len(guardWords)]uint64
	// gpos[g] is 1 + the index in words of guardWords[g], 0 when the
	// mask has no bit in it: guardNode reads a node's key there.
	gpos    [len(guardWords)]uint8
	tailed  int    // its nodes in the index with a tail (appendEntry)
	touched bool   // in its table's touched list
	ordered bool   // in its table's ord, at best rank ordRank
	ordRank uint64 // see ordered

	// evidence is what sampled lookups found here (see direct.go).
	evidence filterEvidence
}

// guardWords are the key words a subtable guard covers: in_port, eth_type
// and vlan_vid (word 1) and ip_proto (word 3), the fields on which a
// subtable's rules most often all agree (an IPv4 TCP subtable, say) and
// on which packets of other kinds differ, and the IPv4 addresses (word
// 0), on whose high bits the nodes of a subtable often agree beyond its
// mask: a firewall's rules of one prefix pair name hosts in a few
// networks, and packets from elsewhere pass over their subtable for a
// few instructions, without hash or filter check. On ClassBench's sets
// that takes a lookup's subtables visited from 8.6 to 4.0 on fw1_1k, 9.2
// to 5.2 on fw1_1k_ps, 11.1 to 7.5 on ipc1_1k, 8.4 to 6.5 on fw1_10k.
// Lookups' guard test (orderEntry.guarded) indexes the key by the
// constants, which the compiler folds into the loads; guardWords lists the
// same words for the code that walks them.
var guardWords = [...]uint8{guardWord0, guardWord1, guardWord2}

const guardWord0, guardWord1, guardWord2 = 1, 3, 0

// guardNode narrows st's guard to the bits on which n's key agrees with
// every node before it, and reports whether it changed. Call it before n
// joins st.nodes and publish the order before n can be visible. The guard
// never widens again when nodes leave: a narrower guard only skips fewer
// subtables.
func (st *subtable) guardNode(n *inode) bool {
	var v [len(guardWords)]uint64
	for g, i := range st.gpos {
		if i != 0 {
			v[g] = n.key[i-1]
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

// hash is the hash of k masked by st's mask: what the filter and the
// index key st's node of it by. Every hash of a masked key (hash,
// orderEntry.hash and hash2, hashPacked) is hashStep over the masked
// words in order, from st.seed, then hashFinish.
func (st *subtable) hash(k *Key) uint64 {
	h := st.seed
	for _, w := range st.words[:st.nw] {
		h = hashStep(h, keyWord(k, w)&keyWord(&st.mask, w))
	}
	return hashFinish(h)
}

// keyWord is k[w] without the bounds test, for the hashes' loops over a
// subtable's words: every w they pass is one of a subtable's words, each
// below len(Key) (they index its mask, a Key, where they are set).
func keyWord(k *Key, w uint8) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(k), uintptr(w)*unsafe.Sizeof(k[0])))
}

// hashStep folds the masked word w into h: one multiply, so that a
// lookup's hash of a subtable's two or three words is a short chain.
// A word's bit i reaches only bits i and up of the product; hashFinish
// folds the high half back down.
func hashStep(h, w uint64) uint64 { return (h ^ w) * 0x9e3779b97f4a7c15 }

// hashFinish mixes the high bits of a hashStep chain into the low ones,
// which index the slots and the filter's buckets (its fingerprint comes
// from the high bits): a fold, a multiply and a fold, where fmix has
// two multiplies and three folds.
func hashFinish(h uint64) uint64 {
	h ^= h >> 32
	h *= 0xff51afd7ed558ccd
	return h ^ h>>29
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
	st.packInto(k, &pk)
	return pk
}

// packInto is pack into the first st.nw words of pk, leaving the rest.
func (st *subtable) packInto(k *Key, pk *[KeyWords]uint64) {
	for i, w := range st.words[:st.nw] {
		pk[i] = k[w] & st.mask[w]
	}
}

// subtableFor returns mi's subtable, made if it has none.
func (t *Table) subtableFor(mi *maskInfo) *subtable {
	if mi.own != nil {
		return mi.own
	}
	mask := &mi.mask
	t.nextSubID++
	st := &subtable{id: t.nextSubID, mask: *mask, nodes: t.spareNodes, mi: mi}
	mi.own = st
	t.spareNodes = nil
	st.seed = fmix(st.id*0x9e3779b97f4a7c15 + uint64(t.id)<<56 + 1)
	for w := range mask {
		if mask[w] != 0 {
			st.words[st.nw] = uint8(w)
			st.nw++
		}
	}
	for g, gw := range guardWords {
		for i, w := range st.words[:st.nw] {
			if w == gw {
				st.gpos[g] = uint8(i + 1)
			}
		}
	}
	if !t.p.cfg.NoMerge {
		t.targets = append(t.targets, st)
	}
	t.subs[*mask] = st
	t.touch(st)
	return st
}

// maskInfo is what the writer knows of one mask of the rules it links:
// the subtable of the mask, the merged subtables link put rules of it in
// (so that identical finds them there), and whether relaxMask leaves it
// as it is. An update looks its mask up once (maskOf; prefetch does it
// ahead, see prepared), a map lookup by a whole Key, and reaches the rest
// through it. A mask has one while it has a subtable or a merged
// subtable took rules of it; dead subtables stay in subs until the next
// link of the mask drops them.
type maskInfo struct {
	mask Key
	own  *subtable // the subtable of mask, nil when none
	subs []*subtable
	// stay[1] says whether relaxMask(&mask, 0, true) == mask, stay[0]
	// the same for a rule without port ranges.
	stay [2]bool
	gone bool // deleted from its table's masks
	// passed says which mask checks of validation the mask passed
	// (validateCached): bit 0 without StrictPorts, bit 1 with; present is
	// then the fields it tests.
	passed  uint8
	present uint64
	hash    uint64    // maskHash(&mask)
	next    *maskInfo // the next mask of the same hash in masks
	// host says that mask is a host mask (hostMask): its rules without
	// port ranges (host rules) live in one home, merged says which: the
	// merged subtables mergeTarget chooses, or own. n counts its live
	// host rules, evalN is n when rehome last decided the home, and
	// dirty says that mi is on its table's dirty list (see rehome).
	host, merged, dirty bool
	n, evalN            int
}

// maskHash is the key of a mask in Table.masks: three hashStep chains over
// every third word, folded, so that the multiplies overlap.
// KeyWords is a multiple of three (else the constant below is negative and
// does not compile).
const _ uint = -(KeyWords % 3)

func maskHash(mask *Key) uint64 {
	a, b, c := uint64(1), uint64(2), uint64(3)
	for i := 0; i+2 < len(mask); i += 3 {
		a = hashStep(a, mask[i])
		b = hashStep(b, mask[i+1])
		c = hashStep(c, mask[i+2])
	}
	return hashFinish(a ^ b<<21 ^ b>>43 ^ c<<42 ^ c>>22)
}

// maskOf returns the maskInfo of mask, or nil.
func (t *Table) maskOf(mask *Key) *maskInfo {
	if mi := t.lastMask; mi != nil && mi.mask == *mask {
		return mi
	}
	for mi := t.masks[maskHash(mask)]; mi != nil; mi = mi.next {
		if mi.mask == *mask {
			t.lastMask = mi
			return mi
		}
	}
	return nil
}

// maskFor returns the maskInfo of mask, made if it has none.
func (t *Table) maskFor(mask *Key) *maskInfo {
	if mi := t.maskOf(mask); mi != nil {
		return mi
	}
	mi := &maskInfo{mask: *mask, hash: maskHash(mask)}
	mi.stay[0] = relaxMask(mask, 0, false) == *mask
	mi.stay[1] = relaxMask(mask, 0, true) == *mask
	if mi.host = hostMask(mask); mi.host {
		t.hostMasks = append(t.hostMasks, mi)
	}
	if t.masks == nil {
		t.masks = map[uint64]*maskInfo{}
	}
	mi.next = t.masks[mi.hash]
	t.masks[mi.hash] = mi
	t.lastMask = mi
	return mi
}

// dropMask deletes mi, whose subtable went, unless merged subtables
// hold rules of it.
func (t *Table) dropMask(mi *maskInfo) {
	mi.own = nil
	if len(mi.subs) > 0 {
		return
	}
	pp := t.masks[mi.hash]
	if pp == mi {
		if mi.next == nil {
			delete(t.masks, mi.hash)
		} else {
			t.masks[mi.hash] = mi.next
		}
	} else {
		for pp.next != mi {
			pp = pp.next
		}
		pp.next = mi.next
	}
	mi.next = nil
	mi.gone = true
	if mi.host {
		// A host mask made and dropped over and over (a rule of its own
		// added and deleted) leaves no trail in hostMasks.
		if i := slices.Index(t.hostMasks, mi); i >= 0 {
			t.hostMasks = slices.Delete(t.hostMasks, i, i+1)
		}
	}
	if t.lastMask == mi {
		t.lastMask = nil
	}
}

// mergeLimit is the most entries one node of a merged subtable takes
// before a rule goes elsewhere (TupleMerge's collision limit; Table's
// mergeLimit, which tests lower). A lookup that reaches a node tests its
// entries' checks one by one, best first, until one matches, and an add
// copies the node: the limit bounds both. It is higher than TupleMerge's
// 10 rules because a ClassBench rule's port ranges, expanded into prefixes
// (classbench.PortPrefixes), make up to 36 entries, which share one node
// of a subtable without ports; a rule with ranges (Update.Ranges) is one
// entry. Measured on ClassBench's fw1_1k in the prefix form: with 32 a lookup visits 29.5 subtables; with 64,
// 11.2, and the set loads as fast as with fixed-granularity merging; with
// 160, 7.8, and the set loads 2x slower (an add copies its node). With
// the ranges as ranges (one entry a rule) and the scan that tests packed
// addresses first (scanChecks), BenchmarkMergeLimit's lookups, bcf, take
// 1.01-1.11x the time of 64 at 32 and 1.02-1.27x at 16 on every set
// (more subtables visited), and 0.97-1.00x at 128, which an add pays for
// with larger node copies.
const mergeLimit = 64

// relaxedTarget returns the first subtable of r's mask relaxed
// (relaxMask, level 0 then 1) whose node for r has room, skipping those its
// mask's rules went to already (mergeTarget tried them); stop reports that
// relaxMask leaves the mask as it is at a level reached, and r does not
// merge.
func (t *Table) relaxedTarget(r *Rule, l *maskInfo, ranged bool) (target *subtable, stop bool) {
	m := &r.Match.Mask
	for level := range relaxLevels {
		cm := relaxMask(m, level, ranged)
		if cm == *m {
			return nil, true
		}
		cmi := t.maskFor(&cm)
		st := cmi.own
		if st == nil {
			st = t.subtableFor(cmi)
		} else if l.has(st) {
			continue // tried: full
		}
		if t.hasRoom(st, r) {
			return st, false
		}
	}
	return nil, false
}

// mergeTarget chooses the merged subtable for r, whose mask's maskInfo is
// l, TupleMerge's way, and
// returns it with r's key masked by its mask; nil when r must go to the
// subtable of its own mask. In order it tries the merged subtables that
// rules of r's mask went to before, then every subtable whose mask r's
// mask covers (compatible), oldest first, then the subtables of r's mask
// relaxed (relaxMask, level 0 then 1); the first whose node for r holds
// fewer than mergeLimit entries takes it. Oldest first is TupleMerge's
// first fit in priority order when rules come best first, as ClassBench's
// do. A rule whose mask relaxMask leaves alone never merges, so that
// identical need look only in its own subtable; a ranged rule of such a
// mask may (relaxMask), and identical looks in the mask's list for every
// ranged rule, which holds only ranged rules' subtables then.
func (t *Table) mergeTarget(r *Rule, l *maskInfo) *subtable {
	m := &r.Match.Mask
	ranged := !r.Ranges.IsZero()
	if l.stay[b2i(ranged)] {
		return nil
	}
	{
		live := l.subs[:0]
		for _, st := range l.subs {
			if !st.dead {
				live = append(live, st)
			}
		}
		clear(l.subs[len(live):])
		l.subs = live
		for _, st := range l.subs {
			if t.hasRoom(st, r) {
				return st
			}
		}
	}
	var target *subtable
	// A host rule that rehome moves tries the relaxed subtables first
	// (see Table.move): its mask's rules placed where they would have
	// gone had they come first.
	relaxedFirst := t.moving && l.host && !ranged
	if relaxedFirst {
		var stop bool
		if target, stop = t.relaxedTarget(r, l, ranged); stop {
			return nil
		}
	}
	live := t.targets[:0]
	for _, st := range t.targets {
		if st.dead {
			continue
		}
		live = append(live, st)
		if target == nil && st.mask != *m && compatible(&st.mask, m) && !l.has(st) {
			if t.hasRoom(st, r) {
				target = st
			}
		}
	}
	clear(t.targets[len(live):])
	t.targets = live
	if !relaxedFirst && target == nil {
		var stop bool
		if target, stop = t.relaxedTarget(r, l, ranged); stop {
			return nil
		}
	}
	if target == nil {
		return nil
	}
	l.subs = append(l.subs, target)
	return target
}

func (l *maskInfo) has(st *subtable) bool {
	if l == nil {
		return false
	}
	for _, x := range l.subs {
		if x == st {
			return true
		}
	}
	return false
}

// hasRoom reports whether st's node for r holds fewer than t.mergeLimit
// entries. Its probe of r's key in st stays in t.room, for link.
func (t *Table) hasRoom(st *subtable, r *Rule) bool {
	t.probe(st, &r.Match.Key, &t.room)
	n := t.room.n
	if n != nil && n == t.pend.old {
		return len(t.pend.rs) < t.mergeLimit
	}
	if n == nil {
		return true
	}
	k := len(n.all())
	return k < t.mergeLimit || k-n.unlinkedEntries() < t.mergeLimit
}

// compatible reports whether a rule of mask m may live in a subtable of
// mask c: c equals m on every word but the relaxed ones, and tests no bit
// m does not on those. Then a key matches the rule exactly when it matches
// the rule's node's key under c and the rule's check.
func compatible(c, m *Key) bool {
	for w := range c {
		if relaxedWord[w] {
			if c[w]&^m[w] != 0 {
				return false
			}
		} else if c[w] != m[w] {
			return false
		}
	}
	return true
}

// relaxedWord says which words relaxedWords lists.
var relaxedWord = func() (r [KeyWords]bool) {
	for _, w := range relaxedWords {
		r[w] = true
	}
	return r
}()

// relaxLevels is how many relaxed masks of its own mask a rule tries,
// coarsest first, when no merged subtable has room for it.
const relaxLevels = 2

// relaxedFields are the address and port fields relaxMask shortens, all
// on relaxed words: IPv4 source and destination, L4 source and destination,
// ARP SPA and TPA.
var relaxedFields = [...]Field{FieldIPv4Src, FieldIPv4Dst, FieldL4Src, FieldL4Dst, FieldARPSPA, FieldARPTPA}

// relaxMask is the mask of a merged subtable that a rule of mask m starts
// when no merged subtable takes it, after TupleMerge's relaxed tuples. At
// level 0 the ports and ip_proto go; at level 1 they stay. At both, an
// address prefix more than 4 bits shorter than the other address goes, and
// the address prefixes lose a few bits (32 to 28, 25..31 three, 17..24
// two, 9..16 one), so that rules of nearby lengths share a subtable. An
// address mask that is not a prefix stays.
//
// The mask of an exact flow is left as it is: IPv4 and ARP addresses and
// ports each exact or absent, and either no IPv4 or ARP address (an IPv6
// or L2 flow) or a microflow (both ARP addresses, or both IPv4 addresses
// and both L4 ports or ICMP type and code): its subtable's nodes hold one
// rule each and need no check, where a relaxed one would gather the flows
// of 16 neighbouring addresses, or of all ports of a host pair, in a node,
// to be copied on each add and scanned on each lookup.
//
// A rule of exact IPv4 addresses that tests one of them or one port or
// none (ClassBench's rules of exact addresses) is relaxed: such rules are
// few beside the rules of prefixes, and their subtables of one rule a
// node, one per pair of address lengths and port tests, each cost every
// lookup that passes their guard a hash and a filter check. Relaxed, they
// join the prefixes' merged subtables: the subtables a lookup visits go
// from 6.5 to 3.5 on fw1_10k, 3.8 to 2.7 on acl1_10k, 12.1 to 8.7 on
// ipc1_10k, 5.2 to 4.3 on fw1_1k_ps, and single lookups are 1.05-1.36x
// faster on every ClassBench set, with and without the filter, fw1_10k
// 1.6-1.7x. Where such rules make the table (a host's rules for 100,000
// hosts), a node would gather up to 16 neighbouring hosts and a lookup
// scan their addresses (scanChecks) instead of finding one rule a node:
// so link merges them only while rehome says their mask's home is merged
// (BenchmarkHostRoutes). The price is in updates: such a rule's
// add or delete copies a merged node of up to mergeLimit entries where it
// made a node of its own (BenchmarkClassBenchChurn, acl1_10k: 0.82-0.89x
// the rules a CPU second).
//
// A rule with port ranges (ranged) is no exact flow, whatever its mask:
// its ports are a range, not absent, and its node holds a check anyway;
// relaxed like the others, ClassBench's ranged rules of exact addresses
// join merged subtables instead of one subtable per pair of address
// lengths, as their prefix-expanded entries did (fw1_10k: 25 subtables,
// 6.8 visited a lookup, instead of 31 and 9.1).
func relaxMask(m *Key, level int, ranged bool) Key {
	var plen [len(relaxedFields)]int
	partial, addr := false, false
	for i, f := range relaxedFields {
		v, w := m.Get(f), f.Bits()
		plen[i] = -1
		if p := bits.LeadingZeros64(^(v << (64 - w))); prefixMask(w, p) == v {
			plen[i] = p
		}
		partial = partial || v != 0 && v != f.FullMask()
		addr = addr || v != 0 && f != FieldL4Src && f != FieldL4Dst
	}
	if !partial && !ranged && (!addr || microflow(m)) {
		return *m
	}
	c := *m
	if level == 0 {
		c.Set(FieldIPProto, 0)
		c.Set(FieldL4Src, 0)
		c.Set(FieldL4Dst, 0)
	}
	for _, i := range [...]int{0, 4} { // IPv4, then ARP addresses
		a, b := plen[i], plen[i+1]
		if a >= 0 && b >= 0 {
			if a > b+4 {
				b = 0
			} else if b > a+4 {
				a = 0
			}
		}
		for j, p := range [2]int{a, b} {
			if p >= 0 {
				f := relaxedFields[i+j]
				c.Set(f, prefixMask(f.Bits(), shorten(p)))
			}
		}
	}
	return c
}

// microflow reports whether m, whose IPv4 or ARP addresses are each
// exact or absent, names one flow between two hosts: both ARP addresses
// exact, or both IPv4 addresses and both L4 ports, or ICMP type and code.
func microflow(m *Key) bool {
	exact := func(f Field) bool { return m.Get(f) == f.FullMask() }
	return exact(FieldARPSPA) && exact(FieldARPTPA) ||
		exact(FieldIPv4Src) && exact(FieldIPv4Dst) &&
			(exact(FieldL4Src) && exact(FieldL4Dst) || exact(FieldICMPType) && exact(FieldICMPCode))
}

// hostMask reports whether m is a host mask: an exact flow (IPv4 and ARP
// addresses and ports each exact or absent) that tests an IPv4 or ARP
// address and is no microflow. relaxMask relaxes it, but where its rules
// go is the table's choice (see rehome).
func hostMask(m *Key) bool {
	partial, addr := false, false
	for _, f := range relaxedFields {
		v := m.Get(f)
		partial = partial || v != 0 && v != f.FullMask()
		addr = addr || v != 0 && f != FieldL4Src && f != FieldL4Dst
	}
	return !partial && addr && !microflow(m)
}

// shorten is TupleMerge's shortening of an address prefix length.
func shorten(p int) int {
	switch {
	case p == 32:
		return 28
	case p > 24:
		return p - 3
	case p > 16:
		return p - 2
	case p > 8:
		return p - 1
	}
	return p
}

// each calls fn for every physically present rule until fn returns false.
func (t *Table) each(fn func(*Rule) bool) {
	for _, st := range t.subs {
		for _, n := range st.nodes {
			all := n.all()
			for i := range all {
				if e := &all[i]; !e.unlinked && !fn(e.r) {
					return
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

package rules

import (
	"sync/atomic"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/prefetch"
)

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

	// sample counts the reader's lookups in tables with a filter, to
	// choose the ones whose visits tell their subtables what they found
	// (sampledLookup); Add leaves it alone.
	sample uint32
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

// Lookup returns the highest-priority rule matching k at the published
// version, or nil (a table miss with no table-miss entry). It is
// LookupVersion for a caller that wants only the answer: it counts into
// Counters of its own and drops the version.
func (t *Table) Lookup(k *Key) *Rule {
	var c Counters
	r, _ := t.LookupVersion(k, &c)
	return r
}

// LookupVersion returns the highest-priority rule matching k at the
// published version, or nil, and the version the answer belongs to: the
// answer is the rule a linear scan of the rules visible at that version
// would return. It adds what it did to c.
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

// LookupBatch looks up every key of keys at one version, stores the
// answers in out, which must be at least as long, adds what it did to c,
// and returns the version all answers belong to. Where the table's index
// is large and its lookups end after few subtables (see lookupPaths) it
// classifies the keys in chunks of 32, subtable by subtable, so that their
// cache misses overlap; elsewhere one by one, as Lookup does.
func (t *Table) LookupBatch(keys []Key, out []*Rule, c *Counters) uint64 {
	p := t.p
	out = out[:len(keys)]
	for {
		v := p.version.Load()
		s := t.state.Load()
		var local Counters
		i := 0
		if len(keys) > 2 && len(s.slots) >= s.paths.overlapSlots {
			// The first key, alone, measures how many subtables this
			// batch's lookups visit.
			out[0] = lookup(&keys[0], v, s, &local)
			i = 1
			// If it found its rule in the first subtable it visited,
			// the batch's keys likely will too: their first pass skips
			// the filter, which could not save them a probe.
			first := out[0] != nil && local.Visited == 1 && local.Probes == 1 && local.FalsePositives == 0
			if local.Visited <= uint64(s.paths.overlapVisits) {
				for ; i < len(keys); i += batchChunk {
					j := min(i+batchChunk, len(keys))
					lookupChunk(keys[i:j], out[i:j], v, s, &local, first)
				}
			}
		}
		for ; i < len(keys); i++ {
			out[i] = lookup(&keys[i], v, s, &local)
		}
		if p.unlinked.Load() <= v {
			local.Lookups += uint64(len(keys))
			c.Add(&local)
			return v
		}
		c.Retries++
	}
}

// lookupPaths holds the index sizes, in slots, at which batch lookups
// change strategy. The rule compares what a strategy saves, cache misses,
// with what it costs in instructions, and misses are what a small index
// does not have.
//
// Whether a lookup consults the filter is decided per subtable, from the
// share of sampled visits that find the key absent there, against a
// threshold that depends on the index size (direct.go); the measurements
// behind that rule are in "Subtables" in doc.go. The benchmarks behind
// these rules replay traces in reshuffled copies (replayBlocks, in
// bench_test.go; BenchmarkClassBench's "-shuffled" variants): one block
// replayed in the same order lets the branch predictor learn the probes'
// branches more than the checks', which traffic that does not repeat in a
// fixed cycle does not let it.
//
//   - overlapSlots and overlapVisits: LookupBatch classifies chunks
//     subtable by subtable (lookupChunk) only in a table whose index has
//     at least overlapSlots slots, and only if the batch's first key,
//     looked up alone, visited at most overlapVisits subtables. A chunk
//     pays a pass over its undecided keys for every subtable any of them
//     visits; that pays for itself only where the probes it overlaps miss
//     the caches and the keys are decided after few subtables. Size alone
//     does not tell: fw1_10k (9,178 keys, 17 subtables visited a lookup)
//     and 10,000 exact flows (1 visited) both have 2^16 slots, and chunks
//     run at 0.83x and 1.4x of single lookups there.
//   - chunkPasses: a chunk goes subtable by subtable for this many
//     subtables that some of its keys visit, and its keys still undecided
//     then go on one by one (lookupFrom). Most of what overlapping saves
//     is in the first subtables (a table of exact flows decides its keys
//     in the first), and so the chunk's passes cost little where the
//     first key misjudged the batch.
//   - If the batch's first key found its rule in the first subtable it
//     visited, with one probe, the chunk's first pass skips the filter:
//     its keys likely hit there too, and the filter cannot save a probe
//     of a subtable that holds the key (Counters: those probes come
//     without filter negatives). On tables of exact flows, all hit, that
//     made batches 1.06-1.17x faster; on the ClassBench sets it changed
//     nothing measurable.
//
// overlapSlots depends only on the published index, and overlapVisits on
// the batch's own first lookup, so a lookup decides from the state it
// already loaded and writes nothing. The slot count is a measure of size
// within a factor of 4: the index holds 2 to 8 slots per distinct masked
// key, depending on when it last grew.
type lookupPaths struct {
	overlapSlots  int
	overlapVisits int
	chunkPasses   int
}

// Default strategy thresholds; see lookupPaths. Chunks from 2^14 slots
// on, or after a first key that visited 2 subtables, cost acl1_10k (16,384
// slots) 1-4% against single lookups, while they would gain 1.5x on 5,000
// exact flows at the same size: the batch rule keeps to where it never
// lost (BenchmarkLookupPaths).
const (
	defaultOverlapSlots  = 1 << 16 // 1 MB of slots
	defaultOverlapVisits = 1
	defaultChunkPasses   = 2
)

// prefetchSlots is the index size from which a probe is taken to miss the
// second-level cache (1 MB of slots): the filter's threshold is lower
// there (probeMissesLarge), and a subtable behind the filter that finds
// the key in more than a quarter of its visits loads the key's first
// slot ahead of the filter check (useFilterAhead). Below it the prefetch cost up to 5% on the 10k
// ClassBench sets (16,384 slots) and saved little. Where most checks are
// negatives the line loaded ahead goes unused: without the prefetch in
// front of the subtables that hold few keys, acl1_10k's rules in front
// of 100,000 exact flows look up 1.14x faster, the exact tables 1.01x.
const prefetchSlots = 1 << 16

// orDefaults returns lp with the defaults where it has zeros.
func (lp lookupPaths) orDefaults() lookupPaths {
	if lp.overlapSlots == 0 {
		lp.overlapSlots = defaultOverlapSlots
	}
	if lp.overlapVisits == 0 {
		lp.overlapVisits = defaultOverlapVisits
	}
	if lp.chunkPasses == 0 {
		lp.chunkPasses = defaultChunkPasses
	}
	return lp
}

func lookup(k *Key, v uint64, s *tableState, c *Counters) *Rule {
	return lookupFrom(k, v, s, c, 0, nil, 0)
}

// lookupFrom is lookup from s.order[from] on, for a key whose best match
// in the subtables before it is best (nil if none), of rank bestRank.
//
// Each visited subtable is checked against the filter or probed without
// it as its use says (direct.go). Whether the lookup is sampled (its
// visits tell their subtables whether the key was there) is decided once,
// here, before the first visit: a sampled lookup, about one in
// sampleEvery, goes through lookupSampled, out of line, and the loop here
// holds no sampling test and no note. With the test and the notes in this
// loop (a flag tested after every probe and every filter negative, kept
// in the frame across the calls a visit makes), single lookups of 1,000
// to 100,000 exact flows, one visit each, ran 3-10% slower with the
// filter than the same table without it; see Sampling in direct.go.
func lookupFrom(k *Key, v uint64, s *tableState, c *Counters, from int, best *Rule, bestRank uint64) *Rule {
	f := s.filter
	if f != nil {
		c.sample++
		if sampledLookup(c.sample, k) {
			return lookupSampled(k, v, s, c, from, best, bestRank)
		}
	}
	// probe is the use that skips the filter; none does with filterAll.
	probe := useProbe
	if s.filterAll {
		probe = useNone
	}
	for i := from; i < len(s.order); i++ {
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
		checked := false
		if f != nil {
			if u := atomic.LoadUint32(&oe.use); u != probe {
				if u == useFilterAhead {
					prefetch.Line(unsafe.Pointer(&s.slots[h&s.smask]))
				}
				if !f.Contains(h) {
					c.FilterNegatives++
					continue
				}
				checked = true
			}
		}
		c.Probes++
		n := s.find(h, oe.st, k)
		if n == nil {
			if checked {
				c.FalsePositives++
			}
			continue
		}
		if n.chk != nil {
			best, bestRank = n.scanChecks(k, v, best, bestRank)
			continue
		}
		for i := range n.ents {
			e := &n.ents[i]
			if best != nil && e.rank <= bestRank {
				break
			}
			if e.added <= v && v < e.removed.Load() {
				best, bestRank = e.r, e.rank
				break
			}
		}
	}
	return best
}

// lookupSampled is lookupFrom for a sampled lookup: the same visits, and
// every visit tells its subtable whether the key was there (note). It is
// kept out of line so that lookupFrom's loop carries nothing of sampling.
//
//go:noinline
func lookupSampled(k *Key, v uint64, s *tableState, c *Counters, from int, best *Rule, bestRank uint64) *Rule {
	f := s.filter
	probe := useProbe
	if s.filterAll {
		probe = useNone
	}
	for i := from; i < len(s.order); i++ {
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
		checked := false
		if u := atomic.LoadUint32(&oe.use); u != probe {
			if u == useFilterAhead {
				prefetch.Line(unsafe.Pointer(&s.slots[h&s.smask]))
			}
			if !f.Contains(h) {
				c.FilterNegatives++
				s.note(oe, 1, 1)
				continue
			}
			checked = true
		}
		c.Probes++
		n := s.find(h, oe.st, k)
		if n == nil {
			if checked {
				c.FalsePositives++
			}
			s.note(oe, 1, 1)
			continue
		}
		s.note(oe, 1, 0)
		best, bestRank = n.bestMatch(k, v, best, bestRank)
	}
	return best
}

// bestMatch returns the better of best (of rank bestRank) and n's
// highest-ranked rule matching k that is visible at version v, with its
// rank. n holds the key's masked value in a subtable that k visits.
// lookupFrom has the same inline: a call there costs every hit.
func (n *inode) bestMatch(k *Key, v uint64, best *Rule, bestRank uint64) (*Rule, uint64) {
	if n.chk != nil {
		return n.scanChecks(k, v, best, bestRank)
	}
	for i := range n.ents {
		e := &n.ents[i]
		if best != nil && e.rank <= bestRank {
			break
		}
		if e.added <= v && v < e.removed.Load() {
			return e.r, e.rank
		}
	}
	return best, bestRank
}

const batchChunk = 32

// lookupChunk classifies up to batchChunk keys subtable by subtable, so that
// the filter probes of all keys still undecided in one subtable go out
// together (ContainsBatch overlaps their cache misses).
//
// With hitFirst, the first subtable any of the keys visits is probed for
// all of them without the filter; the others are checked against it or
// not as their use says (direct.go). A pass is sampled as a lookup's
// visit is (sampled, on its first key), and then tells the subtable how
// many of the pass's keys it lacked.
func lookupChunk(keys []Key, out []*Rule, v uint64, s *tableState, c *Counters, hitFirst bool) {
	var (
		active [batchChunk]uint8
		hs     [batchChunk]uint64
		hit    [batchChunk]bool
		rank   [batchChunk]uint64
		idx    [batchChunk]uint8
		// What the slot loads found for each key: set for every key a
		// subtable visits, so never cleared.
		heads [batchChunk]*inode
		sts   [batchChunk]*subtable
		k0    [batchChunk]uint64
	)
	na := len(keys)
	for i := range keys {
		active[i] = uint8(i)
		out[i] = nil
	}
	lf := s.filter
	probe := useProbe // as in lookupFrom
	if s.filterAll {
		probe = useNone
	}
	passes := 0
	for oi := range s.order {
		if na == 0 {
			break
		}
		if passes == s.paths.chunkPasses {
			// The keys still undecided go on one by one.
			for _, a := range active[:na] {
				out[a] = lookupFrom(&keys[a], v, s, c, oi, out[a], rank[a])
			}
			return
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
		f := lf
		if f != nil && (hitFirst && passes == 0 || atomic.LoadUint32(&oe.use) == probe) {
			f = nil
		}
		smp := lf != nil && sampled(hs[0], c.Visited)
		misses := 0
		passes++
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
		for j := range g {
			heads[j] = nil
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
				misses++
				continue
			}
			a := idx[j]
			c.Probes++
			var n *inode
			if x := heads[j]; x != nil && sts[j] == st &&
				(st.nw == 0 || k0[j] == keys[a][st.words[0]]&st.mask[st.words[0]]) && keyEqual(x, st, &keys[a]) &&
				(st.nw <= packedWords || wideEqual(x, st, &keys[a])) {
				n = x
			} else {
				n = s.find(hs[j], st, &keys[a])
			}
			if n == nil {
				misses++
				if f != nil {
					c.FalsePositives++
				}
				continue
			}
			if n.chk != nil {
				out[a], rank[a] = n.scanChecks(&keys[a], v, out[a], rank[a])
				continue
			}
			for i := range n.ents {
				e := &n.ents[i]
				if out[a] != nil && e.rank <= rank[a] {
					break
				}
				if e.added <= v && v < e.removed.Load() {
					out[a], rank[a] = e.r, e.rank
					break
				}
			}
		}
		if smp {
			s.note(oe, uint32(g), uint32(misses))
		}
	}
}

// keyEqual reports whether n's packed key holds k masked by st's mask,
// on st's first packedWords words: all of them, unless st.nw >
// packedWords, when wideEqual must agree too. It is small enough to be
// inlined in the probe loops (find, lookupChunk); the wide words stay out
// of it, a call that only subtables of more than packedWords words make.
func keyEqual(n *inode, st *subtable, k *Key) bool {
	ws := st.words[:min(st.nw, packedWords)]
	key := n.key[:len(ws)]
	for i, w := range ws {
		if key[i] != keyWord(k, w)&keyWord(&st.mask, w) {
			return false
		}
	}
	return true
}

// wideEqual reports whether n's key holds k masked by st's mask on st's
// words after the first packedWords (see inode.wide). Not inlined: the
// probe loops keep their code for the common subtables.
//
//go:noinline
func wideEqual(n *inode, st *subtable, k *Key) bool {
	for i := packedWords; i < st.nw; i++ {
		w := st.words[i]
		if n.wide(i) != k[w]&st.mask[w] {
			return false
		}
	}
	return true
}

// packedEqual reports whether n's packed key is pk, of nw words.
func packedEqual(n *inode, pk *[KeyWords]uint64, nw int) bool {
	for i := range min(nw, packedWords) {
		if n.key[i] != pk[i] {
			return false
		}
	}
	for i := packedWords; i < nw; i++ {
		if n.wide(i) != pk[i] {
			return false
		}
	}
	return true
}

// Walk classifies k through the pipeline, all tables at one version: it
// starts at table 0, applies each hit's write_metadata to k's metadata and
// follows its goto_table, and stops at a rule without goto_table or at a
// miss (nil in the result when no table-miss entry caught the packet). It
// appends the rules hit to out and returns it; with a large enough out it
// allocates nothing. k is updated in place (metadata).
func (p *Pipeline) Walk(k *Key, out []*Rule, c *Counters) []*Rule {
	base := len(out)
	orig := k.Get(FieldMetadata)
	for {
		v := p.version.Load()
		out = out[:base]
		k.Set(FieldMetadata, orig)
		t := p.tables[0]
		for {
			r := lookup(k, v, t.state.Load(), c)
			c.Lookups++
			out = append(out, r)
			if r == nil {
				break
			}
			next := -1
			for i := range r.Instructions {
				in := &r.Instructions[i]
				switch in.Kind {
				case InstWriteMetadata:
					md := k.Get(FieldMetadata)
					k.Set(FieldMetadata, md&^in.MetadataMask|in.Metadata&in.MetadataMask)
				case InstGotoTable:
					next = int(in.Table)
				}
			}
			if next < 0 || next >= len(p.tables) {
				break
			}
			t = p.tables[next]
		}
		if p.unlinked.Load() <= v {
			return out
		}
		c.Retries++
	}
}

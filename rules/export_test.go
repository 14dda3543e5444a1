package rules

import "time"

// The test hooks of Pipeline: its unexported fields that only tests set or
// read are set and read here.

// Poison makes p overwrite every rule and index node it reclaims for reuse
// with values no flow has, so that a reader that still held one fails its
// oracle (and the race detector sees the writes).
func Poison(p *Pipeline) { p.poisonRule, p.poisonNode = poisonRule, poisonNode }

// PrepHits returns how many updates p has applied with the subtable and
// hash that prefetch worked out for them while it applied the update
// before.
func PrepHits(p *Pipeline) int { return p.prepHits }

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

func poisonNode(n *inode) {
	for i := range n.key {
		n.key[i] = ^uint64(0)
	}
	n.one[0].rank, n.one[0].added = ^uint64(0), ^uint64(0)
	n.one[0].removed.Store(^uint64(0))
}

// SetChunkPasses makes the batches of pipelines built from c go on one
// key at a time after n subtables visited by chunk (zero: the default).
func SetChunkPasses(c *Config, n int) { c.paths.chunkPasses = n }

// SetLookupPaths makes the pipelines built from c consult their filters
// in tables whose index has at least filterSlots slots and classify batches
// subtable by subtable from overlapSlots slots (zero: the default), so
// that tests run every lookup path on small tables. With overlapSlots set,
// batches go by chunks however many subtables their first key visited.
func SetLookupPaths(c *Config, filterSlots, overlapSlots int) {
	c.paths = lookupPaths{filterSlots: filterSlots, overlapSlots: overlapSlots, chunkPasses: c.paths.chunkPasses}
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
// subtable by subtable.
func LookupPathsTime(t *Table, keys []Key, out []*Rule, path string) time.Duration {
	s := *t.state.Load()
	s.paths.filterSlots = 1
	if path == "single-none" || path == "chunk-none" {
		s.filter = nil
	}
	v := t.p.version.Load()
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
			out[i] = lookup(&keys[i], v, &s, &c)
		}
	}
	return time.Since(start)
}

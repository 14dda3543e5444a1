package dataplane

import "sync/atomic"

// TableCount is what the workers counted for one flow table: the
// OpenFlow 1.3.5 table statistics (§7.3.5.4, ofp_table_stats) that come
// from the data plane.
type TableCount struct {
	// Lookups counts the frames looked up in the table, those that found
	// no entry included, and the lookups of resubmits to the table.
	Lookups uint64
	// Matched counts the lookups that found an entry. A table-miss entry
	// (priority 0, matches everything) is an entry: a frame it catches is
	// matched, as Open vSwitch counts it; a frame that finds no entry at
	// all is not.
	Matched uint64
}

// tableCount is one worker's counters of one table. Only the worker that
// owns it writes it, once per table per vector (a load and a store, no
// read-modify-write); readers load it at any time. The per-worker slice
// is padded so that no other worker's line is touched (newWorker).
type tableCount struct {
	lookups atomic.Uint64
	matched atomic.Uint64
}

// tablePad is the number of tableCounts (16 bytes each) that fill a cache
// line: a worker's table counters are allocated with that many spare on
// each side, so that no other allocation shares their first and last
// lines.
const tablePad = 4

// newTableCounts returns n table counters padded on both sides.
func newTableCounts(n int) []tableCount {
	tc := make([]tableCount, n+2*tablePad)
	return tc[tablePad : tablePad+n]
}

// countTable adds a vector's lookups in one table and the misses among
// them to the worker's counters of that table.
func (w *Worker) countTable(t int, lookups, misses uint64) {
	c := &w.tables[t]
	c.lookups.Store(c.lookups.Load() + lookups)
	c.matched.Store(c.matched.Load() + lookups - misses)
}

// countLookup adds one lookup in table t, a resubmit's, to the worker's
// counters of that table, and a match if hit.
func (w *Worker) countLookup(t uint8, hit bool) {
	c := &w.tables[t]
	c.lookups.Store(c.lookups.Load() + 1) // before matched: see TableCount.add
	if hit {
		c.matched.Store(c.matched.Load() + 1)
	}
}

// TableCount returns the sum over the workers (and PacketOut's) of what
// they counted for table t so far; the zero TableCount for a table the
// pipeline does not have. Safe to call at any time, also while the
// workers run: each worker's counters are current up to its last vector.
func (s *Switch) TableCount(t uint8) TableCount {
	var c TableCount
	if int(t) >= s.pipe.NumTables() {
		return c
	}
	for _, w := range s.workers {
		c.add(&w.tables[t])
	}
	c.add(&s.pktout.tables[t])
	return c
}

// TableCounts returns TableCount for every table of the pipeline, in
// table order.
func (s *Switch) TableCounts() []TableCount {
	out := make([]TableCount, s.pipe.NumTables())
	for t := range out {
		out[t] = s.TableCount(uint8(t))
	}
	return out
}

func (c *TableCount) add(w *tableCount) {
	// matched is loaded first: the worker stores lookups first, so a
	// reader never sees more matches than lookups.
	m := w.matched.Load()
	c.Lookups += w.lookups.Load()
	c.Matched += m
}

package rules

import (
	"github.com/ofswitch/ofswitch/filter"
)

// FilterSummary is the state of a pipeline's filters, its tables' summed.
type FilterSummary struct {
	Len       int     // elements in the filters
	BloomLen  int     // of which in their Bloom parts
	Occupancy float64 // the occupancy of the fullest filter
}

// Filters returns the state of the tables' filters (zero without filters).
// Safe from any goroutine; while the writer works, each table's figures
// are read at slightly different instants.
func (p *Pipeline) Filters() FilterSummary {
	var fs FilterSummary
	for _, t := range p.tables {
		if f := t.state.Load().filter; f != nil {
			fs.Len += f.Len()
			fs.BloomLen += f.BloomLen()
			fs.Occupancy = max(fs.Occupancy, f.Occupancy())
		}
	}
	return fs
}

// TableStats describes a table's shape.
type TableStats struct {
	Flows          int     // visible at the published version (what OpenFlow counts)
	Rules          int     // physically present (visible or removed and awaiting unlink)
	Subtables      int     // distinct masks
	Keys           int     // distinct (subtable, masked key) pairs: elements of the filter
	Filter         string  // bcf, cf or none
	FilterBuckets  int     // 0 without filter
	FilterLen      int     // elements in the filter
	FilterBloomLen int     // elements in its Bloom part
	Occupancy      float64 // filter occupancy
	Rebuilds       int     // times the filter was rebuilt larger
	// IndexRebuilds counts the times the flow index was rebuilt, to grow
	// or to clear the tombstones deletes leave: the writer rehashes every
	// node then, the slowest step an update can take in a large table.
	IndexRebuilds int
	FilterStats   *filter.Stats // the filter's own counters; nil without filter
}

// Stats returns the table's shape. Call it from the writer goroutine.
func (t *Table) Stats() TableStats {
	s := t.state.Load()
	ts := TableStats{Flows: t.flows, Rules: t.rules, Subtables: len(t.subs), Keys: t.nodes, Filter: t.kind.String(), Rebuilds: t.rebuilds, IndexRebuilds: t.indexBuilds}
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

// FilterFPR measures the false-positive rate of the table's filter with n
// queries of random absent keys (filter.Filter.MeasureFPR with seed), and
// reports false for a table without a filter. Safe from any goroutine.
func (t *Table) FilterFPR(n int, seed uint64) (float64, bool) {
	f := t.state.Load().filter
	if f == nil {
		return 0, false
	}
	return f.MeasureFPR(n, seed), true
}

// ResetFilterStats zeroes the filter's insertion counters, so that the
// iterations of one burst can be read from Stats afterwards. Writer only.
func (t *Table) ResetFilterStats() {
	if f := t.state.Load().filter; f != nil {
		f.ResetStats()
	}
}

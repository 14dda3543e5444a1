package rules

import (
	"fmt"
	"math/bits"

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
	if t.grownFrom == 0 {
		t.grownFrom = s.filter.Buckets()
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

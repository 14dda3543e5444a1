package classbench

import (
	"fmt"

	"github.com/ofswitch/ofswitch/rules"
)

// CheckReport is what Check found.
type CheckReport struct {
	Expansion  Expansion      // the rules' prefix expansion into flow entries
	Subtables  int            // subtables of the table the entries went into
	Filter     string         // the filter in front of them: bcf, cf or none
	Checked    int            // headers classified
	Mismatches []Mismatch     // the headers that failed, in trace order
	Counters   rules.Counters // the classifier's work over every lookup
	Notes      []Note         // what the rules' OpenFlow flows (Updates) cannot express
}

// PerLookup returns the subtables visited, the hash-table probes and the
// filter false positives per lookup (0 without lookups).
func (r *CheckReport) PerLookup() (visited, probes, falsePositives float64) {
	c := &r.Counters
	n := float64(max(c.Lookups, 1))
	return float64(c.Visited) / n, float64(c.Probes) / n, float64(c.FalsePositives) / n
}

// Mismatch is a header of a trace that failed Check.
type Mismatch struct {
	Line  int    // the header's line in the trace file
	Got   int    // the classifier's answer: a rule index, or -1 for none
	Want  int    // the linear scan's answer (First)
	Label int    // the trace's label: the rule that generated the header
	Why   string // what failed, e.g. "answer 3, linear scan 2"
}

// Check loads rs over ClassBench's five independent fields (TupleUpdates,
// no instructions) into table 0 of an empty pipeline of cfg with
// NoPrereqs set, and classifies every header of trace. Each answer must
// equal the linear scan's over the rules as written (First), and the
// header's label must be a rule that matches it (MatchesHeader) and must
// not come before the answer, since the rule that generated a header
// matches it and the first match wins. A header that fails is a Mismatch
// of the report, not an error; Check fails only if the pipeline cannot be
// made or refuses a rule ("rule N: ...").
func Check(rs []Rule, trace []Header, cfg *rules.Config) (*CheckReport, error) {
	var c rules.Config
	if cfg != nil {
		c = *cfg
	}
	c.NoPrereqs = true
	p, err := rules.New(&c)
	if err != nil {
		return nil, err
	}
	ups, ex := TupleUpdates(rs, 0, nil)
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			return nil, fmt.Errorf("rule %d: %w", ups[i].ID, err)
		}
	}
	tbl := p.Table(0)
	st := tbl.Stats()
	rep := &CheckReport{Expansion: ex, Subtables: st.Subtables, Filter: st.Filter, Checked: len(trace), Notes: Notes(rs)}
	for i := range trace {
		h := &trace[i]
		k := h.Key()
		got := -1
		if r, _ := tbl.LookupVersion(&k, &rep.Counters); r != nil {
			got = r.ID
		}
		want := First(rs, h)
		var why string
		switch {
		case got != want:
			why = fmt.Sprintf("answer %d, linear scan %d", got, want)
		case h.Label < 0 || h.Label >= len(rs):
			why = fmt.Sprintf("label %d is not a rule index", h.Label)
		case !rs[h.Label].MatchesHeader(h):
			why = fmt.Sprintf("label %d does not match the header", h.Label)
		case got < 0 || got > h.Label:
			why = fmt.Sprintf("answer %d comes after label %d", got, h.Label)
		}
		if why != "" {
			rep.Mismatches = append(rep.Mismatches, Mismatch{Line: h.Line, Got: got, Want: want, Label: h.Label, Why: why})
		}
	}
	return rep, nil
}

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
	// FlowsDiffer counts the headers that the OpenFlow flows answer
	// otherwise than the five-field classification, as Notes says they
	// may; 0 without notes, where flows and entries are the same.
	FlowsDiffer int
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
//
// When some rule's OpenFlow flows differ from it (Notes), Check also loads
// the flows (Updates) into a second pipeline of cfg: each of their answers
// must equal FirstPacket's (else a Mismatch too), and the report counts the
// headers they answer otherwise than the five fields (FlowsDiffer).
func Check(rs []Rule, trace []Header, cfg *rules.Config) (*CheckReport, error) {
	tbl, ex, err := load(rs, cfg, true)
	if err != nil {
		return nil, err
	}
	st := tbl.Stats()
	rep := &CheckReport{Expansion: ex, Subtables: st.Subtables, Filter: st.Filter, Checked: len(trace), Notes: Notes(rs)}
	var flows *rules.Table // only where some rule's flows differ from it
	if len(rep.Notes) > 0 {
		if flows, _, err = load(rs, cfg, false); err != nil {
			return nil, err
		}
	}
	answer := func(t *rules.Table, k *rules.Key, c *rules.Counters) int {
		if r, _ := t.LookupVersion(k, c); r != nil {
			return r.ID
		}
		return -1
	}
	for i := range trace {
		h := &trace[i]
		k := h.Key()
		got := answer(tbl, &k, &rep.Counters)
		want := First(rs, h)
		flowsGot, flowsWant := got, want
		if flows != nil {
			var c rules.Counters
			flowsGot, flowsWant = answer(flows, &k, &c), FirstPacket(rs, h)
			if flowsGot != got {
				rep.FlowsDiffer++
			}
		}
		var why string
		switch {
		case got != want:
			why = fmt.Sprintf("answer %d, linear scan %d", got, want)
		case flowsGot != flowsWant:
			why = fmt.Sprintf("OpenFlow flows answer %d, linear scan by packet %d", flowsGot, flowsWant)
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

// load puts rs into table 0 of a new pipeline of cfg: over the five fields
// (TupleUpdates, with NoPrereqs) or as OpenFlow flows (Updates).
func load(rs []Rule, cfg *rules.Config, tuple bool) (*rules.Table, Expansion, error) {
	var c rules.Config
	if cfg != nil {
		c = *cfg
	}
	c.NoPrereqs = tuple
	p, err := rules.New(&c)
	if err != nil {
		return nil, Expansion{}, err
	}
	ups, ex := Updates(rs, 0, nil)
	if tuple {
		ups, ex = TupleUpdates(rs, 0, nil)
	}
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			return nil, ex, fmt.Errorf("rule %d: %w", ups[i].ID, err)
		}
	}
	return p.Table(0), ex, nil
}

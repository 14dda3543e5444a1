package replay

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// Filter is one filter configuration a replay measures.
type Filter struct {
	Kind rules.FilterKind
	T    int // the Bloom-Cuckoo filter's t (BloomAfter); ignored for cf and none
}

// String returns "bcf t=5", "cf" or "none".
func (f Filter) String() string {
	if f.Kind == rules.FilterBloomCuckoo {
		return fmt.Sprintf("bcf t=%d", f.T)
	}
	return f.Kind.String()
}

// ParseFilters expands filter kinds ("bcf", "cf", "none"; each may be
// a comma-separated list) and Bloom-Cuckoo thresholds into the list of
// configurations to measure: one bcf entry per t, one entry per other kind.
func ParseFilters(kinds []string, ts []int) ([]Filter, error) {
	if len(ts) == 0 {
		ts = []int{0}
	}
	var out []Filter
	for _, ks := range kinds {
		for _, k := range strings.Split(ks, ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			kind, err := rules.ParseFilterKind(k)
			if err != nil {
				return nil, err
			}
			if kind != rules.FilterBloomCuckoo {
				if !slices.Contains(out, Filter{Kind: kind}) {
					out = append(out, Filter{Kind: kind})
				}
				continue
			}
			for _, t := range ts {
				if t < 0 {
					return nil, fmt.Errorf("filter bcf: t=%d must not be negative", t)
				}
				if s := (Filter{Kind: kind, T: t}); !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no filter kind given")
	}
	return out, nil
}

// ParseInts parses a comma-separated list of integers ("0,5,10").
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q: not an integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// Config describes a replay with bursts of rule updates, run once
// per filter configuration.
type Config struct {
	Rules    []rules.Update       // the rule set, applied before the replay
	Tables   int                  // flow tables; zero means 1
	Filters  []Filter             // zero means bcf t=0
	Captures []*dataplane.Capture // replayed one after the other, Loops times (LoadCaptures)
	Workers  int                  // zero means 1
	Ports    []uint32             // switch ports; nil means 1..(most capture interfaces)
	Speed    float64              // 0: as fast as possible; else a multiple of capture time

	// Burst is the number of rule updates per burst; zero means no bursts.
	Burst int
	// Bursts is the number of bursts per filter configuration; zero means 5.
	Bursts int
	// Every is the time from one burst to the next (half of it is the
	// "before" window, half the "after" window). Used when AtPackets is 0;
	// zero means 20ms.
	Every time.Duration
	// AtPackets, if set, triggers a burst every AtPackets frames replayed
	// instead; the "after" window is AtPackets/2 frames.
	AtPackets uint64
	// Loops is the least number of times the captures are replayed; the
	// replay goes on (repeating the captures) until all bursts are done.
	// Zero means 1.
	Loops int
	// Seed seeds the synthetic controller.
	Seed uint64
	// Occupancy is the filter occupancy at which bursts find table 0:
	// the filter gets the fewest buckets that hold the rules' filter
	// elements plus one burst at this occupancy, and the synthetic controller pre-installs
	// flows up to it (the same number for every filter kind). Zero means
	// 0.9. High occupancy makes insertions kick and, with bcf, use the
	// Bloom part, as in the Bloom-Cuckoo paper's experiments.
	Occupancy float64
	// BurstFromRules makes the synthetic controller draw its flows from
	// the rule set instead of random TCP 5-tuples and the captures' flows:
	// each added flow takes the mask, eth_type and ip_proto of a random
	// table-0 rule and random values under its mask, at priority 0, so
	// that bursts churn the subtables the rule set uses and, below every
	// rule of a ClassBench set (whose priorities are at least 1), never
	// change the answer for a packet that some rule matches.
	BurstFromRules bool
	// TableFlows is the least number of elements table 0's filter is
	// sized for: with more than the rule set has, the synthetic
	// controller pre-installs exact 5-tuple flows up to Occupancy of a
	// filter that holds TableFlows, so that the bursts meet a table and a
	// filter of a realistic size (the built-in demo: 100,000). Zero sizes
	// the filter by the rule set alone.
	TableFlows int
	// TableTraffic is the number of frames synthesized from the
	// pre-installed flows (each a random one of them) and replayed after
	// the captures, so that lookups hit the large table too. Zero adds none.
	TableTraffic int
	// Repeats is the number of times each filter configuration is run;
	// the runs interleave (every configuration once, then again), so slow
	// drift of a shared machine spreads over all of them, and the summary
	// reports medians and spreads over the repeats. Repeat r seeds the
	// filter and the bursts with Seed+r; the table and the traffic are the
	// same in all. Zero means 1.
	Repeats int
	// TopN is the number of rules listed by hits; zero means 10.
	TopN int
	// Progress, if set, is called with the runs done (configurations
	// times repeats) and their total.
	Progress func(done, total int)
}

// LoadRules returns the rule set of a replay and the number of flow
// tables it needs: the ClassBench filters of classBenchFile in table 0
// with output:2 if it is set, else the flows of flowFile (ovs-ofctl
// add-flows syntax) if it is set, else the demo flows (DemoFlows).
func LoadRules(flowFile, classBenchFile string) ([]rules.Update, int, error) {
	switch {
	case classBenchFile != "":
		data, err := os.ReadFile(classBenchFile)
		if err != nil {
			return nil, 0, err
		}
		rs, err := classbench.Parse(classBenchFile, data)
		if err != nil {
			return nil, 0, err
		}
		out := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}
		// One entry per rule and protocol, its port ranges checked
		// after the hash match: the Go API takes ranges, and the
		// switch's classifier is faster with them (rules, "Port
		// ranges").
		ups, _ := classbench.UpdatesWith(rs, 0, out, classbench.PortRanges)
		return ups, 1, nil
	case flowFile != "":
		data, err := os.ReadFile(flowFile)
		if err != nil {
			return nil, 0, err
		}
		return parseFlows(flowFile, data)
	}
	return parseFlows("demo.flows", DemoFlows())
}

// parseFlows parses a flow file and counts the tables its flows use or go
// to.
func parseFlows(name string, data []byte) ([]rules.Update, int, error) {
	ups, errs := ofctl.ParseFlows(name, data, nil)
	if len(errs) > 0 {
		return nil, 0, errors.Join(errs...)
	}
	tables := 1
	for _, u := range ups {
		tables = max(tables, int(u.Table)+1)
		for _, in := range u.Instructions {
			if in.Kind == rules.InstGotoTable {
				tables = max(tables, int(in.Table)+1)
			}
		}
	}
	return ups, tables, nil
}

// LoadCaptures loads the captures at paths, or returns the demo capture
// (DemoCapture) if there are none, with the number of frames they hold.
// A capture that cannot be read completely keeps the frames read before
// the failure, and err names every such file and its byte offset
// (dataplane.LoadFiles): with frames > 0 the captures can still be
// replayed. A file that is a ClassBench trace or filter set rather than a
// capture gets an error naming the flag that reads it (--trace or
// --classbench).
func LoadCaptures(paths []string) (caps []*dataplane.Capture, frames int, err error) {
	if len(paths) == 0 {
		c := DemoCapture()
		return []*dataplane.Capture{c}, c.Len(), nil
	}
	caps = make([]*dataplane.Capture, len(paths))
	var errs []error
	for i, p := range paths {
		c, err := dataplane.LoadFile(p)
		caps[i] = c
		if err != nil && (c == nil || c.Len() == 0) {
			// A ClassBench file given as a capture: say which flag reads it.
			if hint := notCaptureError(p); hint != nil {
				err = hint
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
		if c != nil {
			frames += c.Len()
		}
	}
	return caps, frames, errors.Join(errs...)
}

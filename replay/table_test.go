package replay

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestTableCapture: every frame of the table traffic parses, and its key
// matches one of the pre-installed flows it was drawn from.
func TestTableCapture(t *testing.T) {
	ctl := newController(&Config{Seed: 9}, nil)
	pre := ctl.prefill(500)
	c := tableCapture(rand.New(rand.NewPCG(1, 2)), pre, 2000)
	if c.Len() != 2000 || c.Name != tableCaptureName {
		t.Fatalf("%d frames named %q", c.Len(), c.Name)
	}
	p := dataplane.NewParser()
	var k rules.Key
	hit := map[int]bool{}
	for f := range c.Len() {
		h, ok := p.Parse(c.Frame(f), c.Link(f), 1)
		if !ok {
			t.Fatalf("frame %d does not parse", f)
		}
		h.Key(&k)
		found := false
		for i := range pre {
			if pre[i].Match.Matches(&k) {
				found, hit[i] = true, true
				break
			}
		}
		if !found {
			t.Fatalf("frame %d matches no pre-installed flow", f)
		}
	}
	if len(hit) < 400 {
		t.Errorf("2000 frames hit only %d of 500 flows", len(hit))
	}
}

// TestRunRepeatsAndTable: a replay with a table of TableFlows, its
// traffic and repeats sizes the filter for the table at the occupancy,
// fills it, replays the table's frames after the captures, runs each
// configuration Repeats times and summarizes them.
func TestRunRepeatsAndTable(t *testing.T) {
	ups, errs := ofctl.ParseFlows("demo.flows", DemoFlows(), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	specs, _ := ParseFilters([]string{"bcf,cf"}, []int{0})
	demo := DemoCapture()
	var progress []int
	rep, err := Run(t.Context(), &Config{Rules: ups, Tables: 2, Filters: specs, Captures: []*dataplane.Capture{demo},
		Workers: 1, Burst: 64, Bursts: 2, Every: 4 * time.Millisecond, Seed: 2, Occupancy: 0.95,
		TableFlows: 4096, TableTraffic: 2048, Repeats: 2, Progress: func(done, total int) { progress = append(progress, done, total) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Repeats != 2 || len(rep.Summary) != 2 || len(rep.Kinds) != 2 {
		t.Fatalf("repeats %d, %d summaries, %d kinds", rep.Repeats, len(rep.Summary), len(rep.Kinds))
	}
	if len(progress) != 8 || progress[6] != 4 || progress[7] != 4 {
		t.Errorf("progress calls %v, want 1..4 of 4", progress)
	}
	// (4096 + 64) / (4 * 0.95) = 1095 buckets: 2048, filled to 95%.
	if rep.FilterBuckets != 2048 {
		t.Errorf("filter buckets %d, want 2048", rep.FilterBuckets)
	}
	if rep.Frames != demo.Len()+2048 || rep.Captures[len(rep.Captures)-1] != tableCaptureName {
		t.Errorf("frames %d, captures %v", rep.Frames, rep.Captures)
	}
	for i, s := range rep.Summary {
		k := &rep.Kinds[i]
		if s.Filter != k.Filter || s.Runs != 2 || s.Bursts != 4 {
			t.Errorf("%s: summary %+v", k.Filter, s)
		}
		if occ := k.Table.Occupancy; occ < 0.93 || occ > 0.97 {
			t.Errorf("%s: occupancy %.3f at the end, want about 0.95", k.Filter, occ)
		}
		if el := k.Bursts[0].FilterLen; el < rep.FilterBuckets*4*93/100 {
			t.Errorf("%s: %d filter elements after the first burst", k.Filter, el)
		}
		if s.UpdateP50Ns.Median <= 0 || s.UpdateMaxNs.Min < s.UpdateP99Ns.Min || s.IterationsMax.Median < 1 ||
			s.IdleMpps.Median <= 0 || s.ApplyMs.Median <= 0 || s.Slowest.Ns < s.UpdateMaxNs.Max {
			t.Errorf("%s: summary figures %+v", k.Filter, s)
		}
		if s.Occupancy.Min < 0.93 {
			t.Errorf("%s: occupancy after bursts %+v", k.Filter, s.Occupancy)
		}
		// The table's frames hit its flows: with 2048 frames over the
		// flows, many more rules than the demo's have packets.
		if k.Counters.Hits < uint64(2048) {
			t.Errorf("%s: %d hits", k.Filter, k.Counters.Hits)
		}
	}
	if len(rep.Findings) == 0 || !strings.HasPrefix(rep.Findings[0], "Plain cuckoo's longest filter walk") {
		t.Errorf("findings %q", rep.Findings)
	}
}

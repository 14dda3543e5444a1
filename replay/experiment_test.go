package replay

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func TestParseFilters(t *testing.T) {
	got, err := ParseFilters([]string{"bcf,cf", "none", "bcf"}, []int{0, 5})
	if err != nil {
		t.Fatal(err)
	}
	want := []Filter{{rules.FilterBloomCuckoo, 0}, {rules.FilterBloomCuckoo, 5}, {rules.FilterCuckoo, 0}, {rules.FilterNone, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got[1].String() != "bcf t=5" || got[3].String() != "none" {
		t.Errorf("names %v %v", got[1], got[3])
	}
	for _, bad := range [][]string{{"bloom"}, {}, {" , "}} {
		if _, err := ParseFilters(bad, nil); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := ParseFilters([]string{"bcf"}, []int{-1}); err == nil {
		t.Error("t=-1: no error")
	}
	if v, err := ParseInts("0, 5,10"); err != nil || len(v) != 3 || v[2] != 10 {
		t.Errorf("ParseInts = %v, %v", v, err)
	}
	if _, err := ParseInts("1,x"); err == nil {
		t.Error("ParseInts(1,x): no error")
	}
}

func TestRun(t *testing.T) {
	ups, errs := ofctl.ParseFlows("demo.flows", DemoFlows(), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	specs, _ := ParseFilters([]string{"bcf,cf,none"}, []int{0, 10})
	c := DemoCapture()
	const burst, bursts = 64, 3
	rep, err := Run(t.Context(), &Config{Rules: ups, Tables: 2, Filters: specs, Captures: []*dataplane.Capture{c},
		Workers: 2, Burst: burst, Bursts: bursts, AtPackets: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Kinds) != 4 || rep.Frames != c.Len() {
		t.Fatalf("%d kinds, %d frames", len(rep.Kinds), rep.Frames)
	}
	for _, k := range rep.Kinds {
		if k.Packets < uint64(c.Len()) || k.Counters.Parse.Read != k.Packets || k.PPS <= 0 || len(k.MppsPerWorker) != 2 {
			t.Errorf("%s: packets %d pps %v mpps %v", k.Filter, k.Packets, k.PPS, k.MppsPerWorker)
		}
		if k.MissRate <= 0 || k.MissRate >= 1 || len(k.Top) == 0 || k.Top[0].Packets < k.Top[len(k.Top)-1].Packets {
			t.Errorf("%s: miss rate %v top %v", k.Filter, k.MissRate, k.Top)
		}
		if k.Filter == "none" && (k.FPR != 0 || k.Table.FilterStats != nil) {
			t.Errorf("none: fpr %v", k.FPR)
		}
		if len(k.Bursts) != bursts || len(k.UpdateNs) != burst*bursts {
			t.Fatalf("%s: %d bursts, %d update costs", k.Filter, len(k.Bursts), len(k.UpdateNs))
		}
		for i, b := range k.Bursts {
			if b.Updates != burst || b.Adds+b.Deletes != burst || b.Errors != 0 || b.ApplyNs <= 0 || b.UpdateNs.N != burst {
				t.Errorf("%s burst %d: %+v", k.Filter, i, b)
			}
			if b.Adds != rep.Kinds[0].Bursts[i].Adds {
				t.Errorf("%s burst %d: %d adds, first kind %d: the controller is not deterministic", k.Filter, i, b.Adds, rep.Kinds[0].Bursts[i].Adds)
			}
			if b.Before.Packets == 0 || b.After.Packets == 0 || b.Before.LookupNs.N == 0 || b.After.LookupNs.P99 < b.After.LookupNs.P50 {
				t.Errorf("%s burst %d: before %+v after %+v", k.Filter, i, b.Before, b.After)
			}
			if k.Filter != "none" && !b.Rebuilt && (b.Iterations.N == 0 || b.Iterations.P50 < 1 || b.Occupancy <= 0) {
				t.Errorf("%s burst %d: iterations %+v occupancy %v", k.Filter, i, b.Iterations, b.Occupancy)
			}
			if fpr := b.FilterFPRBefore + b.FilterFPRAfter; k.Filter == "none" && fpr != 0 || k.Filter != "none" && !b.Rebuilt && (fpr <= 0 || fpr > 1) {
				t.Errorf("%s burst %d: filter false-positive rate %v before, %v after", k.Filter, i, b.FilterFPRBefore, b.FilterFPRAfter)
			}
			if k.Filter == "cf" && b.FilterBloomLen != 0 {
				t.Errorf("cf burst %d: %d elements in the Bloom part", i, b.FilterBloomLen)
			}
		}
	}
	// Capture flows added by bursts take packets from the demo rules, so
	// per-rule hits differ from a plain replay; but every packet classified
	// is a hit or a miss.
	for _, k := range rep.Kinds {
		if k.Counters.Hits+k.Counters.Misses != k.Counters.Lookup.Lookups {
			t.Errorf("%s: hits %d + misses %d != lookups %d", k.Filter, k.Counters.Hits, k.Counters.Misses, k.Counters.Lookup.Lookups)
		}
	}
}

func TestReportTextAndPlots(t *testing.T) {
	ups, _ := ofctl.ParseFlows("demo.flows", DemoFlows(), nil)
	specs, _ := ParseFilters([]string{"bcf,none"}, []int{0})
	rep, err := Run(t.Context(), &Config{Rules: ups, Tables: 2, Filters: specs,
		Captures: []*dataplane.Capture{DemoCapture()}, Workers: 2, Burst: 32, Bursts: 2, Every: 4 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"demo.pcap", "bcf t=0", "none", "top 10 rules", "bursts (apply", "port 1:", "malformed:"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	files, err := rep.Plot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(PlotFiles) {
		t.Fatalf("plots %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || strings.HasSuffix(f, ".svg") && !strings.Contains(string(data), "<svg") {
			t.Errorf("%s: not an SVG (%v)", f, err)
		}
	}
	var js strings.Builder
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"apply_ns"`) {
		t.Errorf("json: %v", err)
	}
}

package replay

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func TestTimelineBuckets(t *testing.T) {
	prev := -1
	for _, v := range []int64{-5, 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 100, 999, 1000, 1 << 20, 3<<20 + 7, tlMaxNs, tlMaxNs + 1, math.MaxInt64} {
		b := tlBucket(v)
		if b < prev || b < 0 || b >= tlBuckets {
			t.Fatalf("tlBucket(%d) = %d after %d (of %d)", v, b, prev, tlBuckets)
		}
		prev = b
		want := float64(min(max(v, 0), tlMaxNs))
		if got := tlBucketValue(b); math.Abs(got-want) > 0.125*want+0.5 {
			t.Errorf("bucket %d of %d ns stands for %v ns", b, v, got)
		}
	}
	// Every bucket is reached and buckets follow one another.
	seen := make([]bool, tlBuckets)
	for v := int64(0); v <= tlMaxNs; v += 1 + v/64 {
		seen[tlBucket(v)] = true
	}
	for b, ok := range seen {
		if !ok {
			t.Errorf("bucket %d never used", b)
		}
		if b > 0 && tlBucketValue(b) <= tlBucketValue(b-1) {
			t.Errorf("bucket %d value %v ≤ bucket %d's %v", b, tlBucketValue(b), b-1, tlBucketValue(b-1))
		}
	}
}

// TestTimelineWholeRun records lookups over a run far longer than the
// first bins cover: the timeline coarsens, keeps every lookup and the
// shape over time (slow lookups in the second half).
func TestTimelineWholeRun(t *testing.T) {
	a, b := newTimelineAcc(), newTimelineAcc()
	const run = int64(10 * time.Second)
	const n = 100_000
	for i := range int64(n) {
		at := i * run / n
		d := int64(200)
		if at > run/2 {
			d = 20_000
		}
		if i%2 == 0 {
			a.observe(at, d)
		} else {
			b.observe(at, d)
		}
	}
	b.observe(int64(time.Second), 5e6) // one outlier, in b only
	tl := mergeTimelines([]*timelineAcc{&a, &b})
	if got := float64(tl.Bins()) * tl.BinSeconds; got < 10 || got > 10*(1+2.0/tlBins)+tl.BinSeconds {
		t.Errorf("%d bins of %v s cover %v s, want 10 s", tl.Bins(), tl.BinSeconds, got)
	}
	if tl.Bins() < tlBins/2 || tl.Bins() > tlBins {
		t.Errorf("%d bins, want %d..%d", tl.Bins(), tlBins/2, tlBins)
	}
	pts := tl.Points(200)
	if len(pts) > 200 || len(pts) < 100 {
		t.Fatalf("%d points, want ≤ 200 and no gaps", len(pts))
	}
	var total uint64
	var worst float64
	for _, p := range pts {
		total += p.Lookups
		worst = max(worst, p.Max)
		want := 200.0
		if p.T > 5.1 {
			want = 20_000
		}
		if p.T+p.Seconds < 4.9 || p.T > 5.1 {
			if math.Abs(p.P50-want) > 0.125*want {
				t.Errorf("t=%.3f s: p50 %v, want %v", p.T, p.P50, want)
			}
		}
		if p.P50 > p.P99 || p.P99 > p.Max {
			t.Errorf("t=%.3f s: p50 %v p99 %v max %v out of order", p.T, p.P50, p.P99, p.Max)
		}
	}
	if total != n+1 {
		t.Errorf("%d lookups in the points, want %d", total, n+1)
	}
	if worst < 4e6 || worst > 6e6 {
		t.Errorf("max %v ns, want the 5 ms outlier", worst)
	}
	if got := len(tl.Points(0)); got != tl.Bins() {
		t.Errorf("Points(0) = %d points, want one per bin (%d)", got, tl.Bins())
	}
	var empty *Timeline
	if empty.Bins() != 0 || empty.Points(10) != nil {
		t.Error("nil timeline is not empty")
	}
}

func newBenchProbe() *probe {
	var state atomic.Int64
	state.Store(stateIdle)
	return &probe{state: &state, base: time.Now(), timeline: newTimelineAcc()}
}

func TestObserveLookupAllocs(t *testing.T) {
	p := newBenchProbe()
	var c rules.Counters
	start := p.base
	if n := testing.AllocsPerRun(1000, func() {
		start = start.Add(time.Millisecond) // crosses bins and coarsens
		p.ObserveLookup(start, 300*time.Nanosecond, 32, &c)
	}); n != 0 {
		t.Errorf("ObserveLookup: %v allocations per call, want 0", n)
	}
	if p.timeline.shift == tlInitShift {
		t.Error("a second of lookups did not coarsen the timeline")
	}
}

func BenchmarkObserveLookup(b *testing.B) {
	p := newBenchProbe()
	var c rules.Counters
	start := p.base
	b.ReportAllocs()
	for b.Loop() {
		start = start.Add(time.Microsecond)
		p.ObserveLookup(start, 300*time.Nanosecond, 32, &c)
	}
}

// TestRunTimeline checks that a replay's timeline covers the whole run
// and holds every lookup its burst windows measured.
func TestRunTimeline(t *testing.T) {
	ups, errs := ofctl.ParseFlows("demo.flows", DemoFlows(), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	specs, _ := ParseFilters([]string{"bcf"}, []int{0})
	rep, err := Run(t.Context(), &Config{Rules: ups, Tables: 2, Filters: specs, Captures: []*dataplane.Capture{DemoCapture()},
		Workers: 2, Burst: 32, Bursts: 3, Loops: 3, Every: 20 * time.Millisecond, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	k := rep.Kinds[0]
	tl := k.Timeline
	if covered := float64(tl.Bins()) * tl.BinSeconds; covered < 0.8*k.Seconds || covered > k.Seconds+tl.BinSeconds {
		t.Errorf("timeline covers %.3f s (%d bins of %.3g s) of a %.3f s run", covered, tl.Bins(), tl.BinSeconds, k.Seconds)
	}
	var total uint64
	for _, p := range tl.Points(0) {
		total += p.Lookups
	}
	var windows int64
	for _, b := range k.Bursts {
		windows += b.Before.LookupNs.N + b.During.LookupNs.N + b.After.LookupNs.N
	}
	if windows == 0 || total < uint64(windows) {
		t.Errorf("timeline holds %d lookups, the burst windows %d", total, windows)
	}
	if last := k.Bursts[len(k.Bursts)-1]; float64(tl.Bins())*tl.BinSeconds < last.At {
		t.Errorf("timeline ends before the last burst at %.3f s", last.At)
	}
}

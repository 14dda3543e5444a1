package replay

import (
	"math"
	"math/bits"
)

// Lookup latency over time is kept as one small log-bucketed histogram per
// time bin: a fixed number of bins whose width doubles (adjacent bins
// merged pairwise) whenever the run outlasts them, so the timeline covers
// the whole run in bounded memory (tlBins × tlBuckets counters per worker)
// and recording a lookup costs a shift, a bits.Len64 and an increment,
// with no allocation. Coarsening (about 50,000 additions) happens in the
// worker that overflows its bins, after its lookup was timed, once per
// doubling of the run's length: log2(run / 134 ms) times.
const (
	tlBins       = 1024
	tlSubBuckets = 4 // per power of two: buckets are at most 25% wide
	tlMaxNs      = 1<<27 - 1
	// tlBuckets covers 0 .. tlMaxNs ns: 4 exact buckets for 0..3, then
	// tlSubBuckets per power of two from 4 up to 2^27.
	tlBuckets   = tlSubBuckets * 26
	tlInitShift = 17 // first bin width 2^17 ns = 131 µs
)

// tlBucket returns the histogram bucket of a latency in ns.
func tlBucket(ns int64) int {
	v := uint64(min(max(ns, 0), tlMaxNs))
	if v < tlSubBuckets {
		return int(v)
	}
	exp := bits.Len64(v) - 1 // ≥ 2
	return (exp-1)*tlSubBuckets + int(v>>(exp-2)&(tlSubBuckets-1))
}

// tlBucketValue returns the middle of a bucket's range of ns.
func tlBucketValue(b int) float64 {
	if b < tlSubBuckets {
		return float64(b)
	}
	exp := b/tlSubBuckets + 1
	lo := uint64(tlSubBuckets+b%tlSubBuckets) << (exp - 2)
	return float64(lo) + float64(uint64(1)<<(exp-2))/2
}

// timelineAcc is one worker's timeline; owned by one probe.
type timelineAcc struct {
	shift  uint     // bin width is 1<<shift ns
	counts []uint32 // tlBins × tlBuckets, bin-major
	used   int      // bins up to the last one recorded into
}

func newTimelineAcc() timelineAcc {
	return timelineAcc{shift: tlInitShift, counts: make([]uint32, tlBins*tlBuckets)}
}

// observe records one lookup of d ns that started t ns after the base.
func (a *timelineAcc) observe(t, d int64) {
	b := uint64(max(t, 0)) >> a.shift
	for b >= tlBins {
		a.coarsen()
		b >>= 1
	}
	a.counts[int(b)*tlBuckets+tlBucket(d)]++
	a.used = max(a.used, int(b)+1)
}

// coarsen doubles the bin width: bin i becomes bins 2i and 2i+1.
func (a *timelineAcc) coarsen() {
	for i := range tlBins / 2 {
		dst := a.counts[i*tlBuckets : (i+1)*tlBuckets]
		lo := a.counts[2*i*tlBuckets : (2*i+1)*tlBuckets]
		hi := a.counts[(2*i+1)*tlBuckets : (2*i+2)*tlBuckets]
		for k := range dst {
			dst[k] = lo[k] + hi[k]
		}
	}
	clear(a.counts[tlBins/2*tlBuckets:])
	a.shift++
	a.used = (a.used + 1) / 2
}

// Timeline is lookup latency over a whole run: per time bin, a histogram
// of the latency of one table-0 LookupBatch (up to 32 keys), merged over
// the workers. Bins are BinSeconds wide and start at 0 (the replay's
// start); their histograms have buckets at most 25% wide.
type Timeline struct {
	BinSeconds float64
	counts     []uint32 // Bins() × tlBuckets
}

// mergeTimelines sums the workers' timelines at the coarsest bin width
// among them; it coarsens the accumulators in place.
func mergeTimelines(accs []*timelineAcc) *Timeline {
	shift, used := uint(tlInitShift), 0
	for _, a := range accs {
		shift = max(shift, a.shift)
	}
	for _, a := range accs {
		for a.shift < shift {
			a.coarsen()
		}
		used = max(used, a.used)
	}
	tl := &Timeline{BinSeconds: float64(uint64(1)<<shift) / 1e9, counts: make([]uint32, used*tlBuckets)}
	for _, a := range accs {
		for i, c := range a.counts[:used*tlBuckets] {
			tl.counts[i] += c
		}
	}
	return tl
}

// Bins returns the number of time bins, up to the last one with a lookup.
func (tl *Timeline) Bins() int {
	if tl == nil {
		return 0
	}
	return len(tl.counts) / tlBuckets
}

// Points summarises the timeline in at most maxPoints points (adjacent
// bins merged to fit; maxPoints ≤ 0 means one per bin), skipping bins
// without lookups.
func (tl *Timeline) Points(maxPoints int) []LatencyPoint {
	n := tl.Bins()
	if n == 0 {
		return nil
	}
	k := 1
	if maxPoints > 0 {
		k = (n + maxPoints - 1) / maxPoints
	}
	var out []LatencyPoint
	var h [tlBuckets]uint64
	for start := 0; start < n; start += k {
		clear(h[:])
		var total uint64
		for b := start; b < min(start+k, n); b++ {
			for i, c := range tl.counts[b*tlBuckets : (b+1)*tlBuckets] {
				h[i] += uint64(c)
				total += uint64(c)
			}
		}
		if total == 0 {
			continue
		}
		w := tl.BinSeconds * float64(k)
		out = append(out, LatencyPoint{T: float64(start) * tl.BinSeconds, Seconds: w, Lookups: total,
			P50: tlQuantile(&h, total, 0.50), P99: tlQuantile(&h, total, 0.99), Max: tlQuantile(&h, total, 1)})
	}
	return out
}

// tlQuantile returns the value at quantile q of a histogram of total counts.
func tlQuantile(h *[tlBuckets]uint64, total uint64, q float64) float64 {
	rank := max(uint64(math.Ceil(q*float64(total))), 1)
	var sum uint64
	for i, c := range h {
		sum += c
		if sum >= rank {
			return tlBucketValue(i)
		}
	}
	return tlBucketValue(tlBuckets - 1)
}

package tables

import (
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// Burst records one burst of updates applied to the flow tables, with the
// figures of docs/DESIGN.md "Update latency during bursts" that the owner
// of the tables can know: the data plane's lookup latency is not timed on
// the live path (ofswitch replay measures it).
type Burst struct {
	Start   time.Time     // when its first update was read (Owner.Apply's start)
	Updates int           // updates in the burst
	Errors  int           // of which failed
	Apply   time.Duration // time in the tables, to publication
	Latency time.Duration // from the first update read to publication
	Version uint64        // the table version that published it

	// UpdateNs is the distribution of the updates' costs in ns, each from
	// the end of the update before (rules.UpdateCost).
	UpdateNs Dist
	// Iterations is the distribution of filter iterations over the
	// updates that inserted into a filter.
	Iterations Dist
	// The flow tables' filters after the burst (rules.Pipeline.Filters):
	// elements, of which in the Bloom part, and the fullest's occupancy.
	FilterLen, BloomLen int
	Occupancy           float64
	// Lookups per second of the data plane (Config.Lookups; zero without
	// it): LookupsBefore from the publication of the burst before (or the
	// owner's start) to this burst's start, LookupsDuring from its start
	// to its publication. The next burst's LookupsBefore is the rate after
	// this one.
	LookupsBefore, LookupsDuring float64

	// Costs is what each update cost, in the burst's order. Only
	// Config.OnBurst sees it, and only until it returns: the bursts
	// Owner.Bursts returns have none.
	Costs []rules.UpdateCost
}

// Dist summarises a distribution of N values.
type Dist struct {
	N        int
	P50, P99 float64 // by rank, as HdrHistogram defines percentiles
	Max      float64
	Mean     float64
}

// selectDist returns the distribution of vs, which it reorders: the ranks
// it needs are put in place by selection, in time linear in len(vs), not
// by sorting (every burst is summarised this way).
func selectDist(vs []int64) Dist {
	n := len(vs)
	if n == 0 {
		return Dist{}
	}
	var sum float64
	hi := vs[0]
	for _, v := range vs {
		sum += float64(v)
		hi = max(hi, v)
	}
	rank := func(q float64) int { return min(max(int(q*float64(n)+0.5), 1), n) }
	r50, r99 := rank(0.5), rank(0.99)
	selectNth(vs, r50-1)
	// Every value from r50 on is at least vs[r50-1]; r99 >= r50.
	if r99 > r50 {
		selectNth(vs[r50:], r99-1-r50)
	}
	return Dist{N: n, P50: float64(vs[r50-1]), P99: float64(vs[r99-1]), Max: float64(hi), Mean: sum / float64(n)}
}

// selectNth reorders vs so that vs[k] is the value a sort would put there,
// with none greater before it and none smaller after it: quickselect with
// a median-of-three pivot and a three-way partition (a burst's iteration
// counts are mostly equal), sorting what is left once the range is small
// or the partitions keep coming out lopsided.
func selectNth(vs []int64, k int) {
	lo, hi := 0, len(vs) // vs[:lo] <= vs[lo:hi] <= vs[hi:], k in [lo, hi)
	for budget := 2 * bits.Len(uint(len(vs))); hi-lo > 16 && budget > 0; budget-- {
		m := lo + (hi-lo)/2
		if vs[m] < vs[lo] {
			vs[m], vs[lo] = vs[lo], vs[m]
		}
		if vs[hi-1] < vs[m] {
			vs[hi-1], vs[m] = vs[m], vs[hi-1]
			if vs[m] < vs[lo] {
				vs[m], vs[lo] = vs[lo], vs[m]
			}
		}
		pivot := vs[m]
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch v := vs[i]; {
			case v < pivot:
				vs[lt], vs[i] = v, vs[lt]
				lt++
				i++
			case v > pivot:
				gt--
				vs[gt], vs[i] = v, vs[gt]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return // vs[lt:gt] all equal the pivot
		}
	}
	slices.Sort(vs[lo:hi])
}

// burstFigures fills in b's per-update distributions from costs, using
// buf (returned, grown) for the values.
func burstFigures(b *Burst, costs []rules.UpdateCost, buf []int64) []int64 {
	buf = buf[:0]
	for _, c := range costs {
		buf = append(buf, c.Time.Nanoseconds())
	}
	b.UpdateNs = selectDist(buf)
	buf = buf[:0]
	for _, c := range costs {
		if c.Iterations > 0 {
			buf = append(buf, int64(c.Iterations))
		}
	}
	b.Iterations = selectDist(buf)
	return buf
}

// rate returns n per second over d, or 0 if d is not positive.
func rate(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// burstRing keeps the most recent bursts.
type burstRing struct {
	// mu guards the fields below.
	mu   sync.Mutex
	buf  []Burst
	next int
	full bool
}

func (r *burstRing) init(n int) { r.buf = make([]Burst, n) }

func (r *burstRing) record(b Burst) {
	b.Costs = nil
	r.mu.Lock()
	r.buf[r.next] = b
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
	r.mu.Unlock()
}

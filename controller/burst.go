package controller

import (
	"slices"
	"sync"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// Burst records one batch of FLOW_MODs applied to the flow tables, with
// the figures of DESIGN.md "Update latency during bursts" that the agent
// can know: the data plane's lookup latency is not timed on the live path
// (ofswitch replay measures it).
type Burst struct {
	Start   time.Time     // when its first FLOW_MOD was read
	Updates int           // FLOW_MODs in the burst
	Errors  int           // of which failed
	Apply   time.Duration // time in ApplyBatch, to publication
	Latency time.Duration // from the first FLOW_MOD read to publication
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
	// agent's start) to this burst's start, LookupsDuring from its start
	// to its publication. The next burst's LookupsBefore is the rate after
	// this one.
	LookupsBefore, LookupsDuring float64

	// Costs is what each update cost, in the burst's order. Only OnBurst
	// sees it, and only until it returns: the bursts Bursts returns have
	// none.
	Costs []rules.UpdateCost
}

// Dist summarises a distribution of N values.
type Dist struct {
	N        int
	P50, P99 float64 // by rank, as HdrHistogram defines percentiles
	Max      float64
	Mean     float64
}

// distOf returns the distribution of vs, which it sorts.
func distOf(vs []int64) Dist {
	if len(vs) == 0 {
		return Dist{}
	}
	slices.Sort(vs)
	var sum float64
	for _, v := range vs {
		sum += float64(v)
	}
	at := func(q float64) float64 {
		rank := min(max(int(q*float64(len(vs))+0.5), 1), len(vs))
		return float64(vs[rank-1])
	}
	return Dist{N: len(vs), P50: at(0.5), P99: at(0.99), Max: float64(vs[len(vs)-1]), Mean: sum / float64(len(vs))}
}

// burstFigures fills in b's per-update distributions from costs, using
// buf (returned, grown) for the values.
func burstFigures(b *Burst, costs []rules.UpdateCost, buf []int64) []int64 {
	buf = buf[:0]
	for _, c := range costs {
		buf = append(buf, c.Time.Nanoseconds())
	}
	b.UpdateNs = distOf(buf)
	buf = buf[:0]
	for _, c := range costs {
		if c.Iterations > 0 {
			buf = append(buf, int64(c.Iterations))
		}
	}
	b.Iterations = distOf(buf)
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

// Bursts returns the most recent bursts (up to 1024), oldest first.
func (a *Agent) Bursts() []Burst {
	r := &a.bursts
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]Burst(nil), r.buf[:r.next]...)
	}
	return append(append([]Burst(nil), r.buf[r.next:]...), r.buf[:r.next]...)
}

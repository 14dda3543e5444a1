package bridge

import (
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/ofswitch/ofswitch/tables"
)

// burstStats gathers the bursts of FLOW_MODs of one interval for
// Config.Stats: their latencies, every update's cost and filter
// iterations, and the lookup rates around them. Safe for concurrent use.
type burstStats struct {
	mu      sync.Mutex
	since   time.Time
	bursts  int
	updates int
	errors  int
	latency *hdrhistogram.Histogram // µs, first FLOW_MOD read to publication
	cost    *hdrhistogram.Histogram // ns per update
	iters   *hdrhistogram.Histogram // per filter insertion
	// sums of the bursts' lookup rates, and how many bursts had one
	before, during float64
	nBefore        int
	last           tables.Burst
}

func newBurstStats() *burstStats {
	return &burstStats{
		since:   time.Now(),
		latency: hdrhistogram.New(1, 60_000_000, 2),
		cost:    hdrhistogram.New(1, 60_000_000_000, 2),
		iters:   hdrhistogram.New(1, 100_000, 2),
	}
}

// add records b; called from the tables' OnBurst.
func (s *burstStats) add(b tables.Burst) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bursts++
	s.updates += b.Updates
	s.errors += b.Errors
	s.latency.RecordValue(max(b.Latency.Microseconds(), 1))
	for _, c := range b.Costs {
		s.cost.RecordValue(max(c.Time.Nanoseconds(), 1))
		if c.Iterations > 0 {
			s.iters.RecordValue(int64(c.Iterations))
		}
	}
	s.during += b.LookupsDuring
	if b.LookupsBefore > 0 {
		s.before += b.LookupsBefore
		s.nBefore++
	}
	b.Costs = nil // the tables' buffer: not kept past OnBurst
	s.last = b
}

// report logs what the bursts since the last report cost, if there were
// any, and starts a new interval.
func (s *burstStats) report(log *slog.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.bursts > 0 {
		attrs := []any{
			"seconds", now.Sub(s.since).Round(time.Millisecond).Seconds(),
			"bursts", s.bursts, "updates", s.updates, "errors", s.errors,
			slog.Group("latency_us", "p50", s.latency.ValueAtQuantile(50), "p99", s.latency.ValueAtQuantile(99), "max", s.latency.Max()),
			slog.Group("update_ns", "p50", s.cost.ValueAtQuantile(50), "p99", s.cost.ValueAtQuantile(99), "max", s.cost.Max(), "mean", int64(s.cost.Mean())),
		}
		if s.iters.TotalCount() > 0 {
			attrs = append(attrs, slog.Group("iterations", "p50", s.iters.ValueAtQuantile(50), "p99", s.iters.ValueAtQuantile(99), "max", s.iters.Max(), "mean", roundTo(s.iters.Mean(), 2)))
		}
		b := s.last
		share := 0.0
		if b.FilterLen > 0 {
			share = float64(b.BloomLen) / float64(b.FilterLen)
		}
		attrs = append(attrs, slog.Group("filter", "elements", b.FilterLen, "bloom", b.BloomLen, "bloom_share", roundTo(share, 4), "occupancy", roundTo(b.Occupancy, 4)))
		lk := []any{"during", roundTo(s.during/float64(s.bursts), 1)}
		if s.nBefore > 0 {
			lk = append(lk, "before", roundTo(s.before/float64(s.nBefore), 1))
		}
		attrs = append(attrs, slog.Group("lookups_per_s", lk...))
		log.Info("bursts", attrs...)
	}
	s.since, s.bursts, s.updates, s.errors = now, 0, 0, 0
	s.before, s.during, s.nBefore, s.last = 0, 0, 0, tables.Burst{}
	s.latency.Reset()
	s.cost.Reset()
	s.iters.Reset()
}

// roundTo rounds x to n decimals, for logs.
func roundTo(x float64, n int) float64 {
	p := math.Pow10(n)
	return math.Round(x*p) / p
}

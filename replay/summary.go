package replay

import (
	"math"
	"slices"

	"github.com/ofswitch/ofswitch/rules"
)

// Stat is one figure of a configuration over its repeats: the median, the
// least and greatest, and the quartiles (nearest rank: with three runs
// the least and greatest, with five the second and fourth) of the per-run
// values.
type Stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
}

// Spread returns (Max-Min)/Median, or 0 if the median is 0.
func (s Stat) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return (s.Max - s.Min) / s.Median
}

// Overlaps reports whether the interquartile ranges of s and o share a
// value: the repeats cannot tell the two apart. The quartiles rather than
// the extremes, so that one run that a busy host slowed does not make a
// tie of a difference the other runs agree on.
func (s Stat) Overlaps(o Stat) bool { return s.Q1 <= o.Q3 && o.Q1 <= s.Q3 }

// RunFigures is what one run of a filter configuration measured, the
// figures its summary is made of.
type RunFigures struct {
	IdleMpps  float64 // lookups outside bursts: packets over the before and after windows
	BurstMpps float64 // packets over the during windows
	// Per-update cost over all updates of all bursts, ns.
	UpdateP50, UpdateP99, UpdateP999, UpdateMax float64
	// Filter iterations of the updates that inserted into the filter.
	IterP99, IterMax float64
	ApplyMs          float64 // median over bursts: first update applied to last visible
	CPUMs            float64 // median over bursts: the controller's time on a CPU (0 where not measured)
	// ApplyRatio is CPUMs (ApplyMs where CPU time is not measured) over
	// the baseline configuration's in the same round of runs (relate);
	// IdleRatio is IdleMpps over the baseline's.
	ApplyRatio, IdleRatio float64
	FPRBefore             float64 // mean over bursts, the filter just before a burst (BurstReport.FilterFPRBefore)
	FPRAfter              float64 // mean over bursts, the filter just after a burst
	BloomShare            float64 // greatest Bloom part share after a burst
	Occupancy             float64 // mean occupancy after a burst
	Steal                 float64 // host steal during the run, seconds
	// EmptyWindows is the bursts during which no lookup was made, though
	// lookups were made before them: the workers had no CPU (a busy
	// machine), or the window was shorter than a lookup batch.
	EmptyWindows int
	Bursts       int     // bursts in the run
	Slowest      Outlier // the slowest update
	Longest      Outlier // the update whose filter walk took most iterations
}

// Outlier is one update that took long, with what may explain it.
type Outlier struct {
	Ns         float64 `json:"ns"`
	Iterations int     `json:"iterations"` // filter iterations (0: no insertion into the filter)
	Burst      int     `json:"burst"`      // index of its burst
	// The noise of its burst window: host steal and completed garbage
	// collections.
	HostStealSeconds float64 `json:"host_steal_seconds"`
	GCCycles         int     `json:"gc_cycles"`
	// IndexRebuilds is the rebuilds of table 0's flow index in its burst.
	IndexRebuilds int `json:"index_rebuilds"`
	// RunDelaySeconds is the time the controller waited for a CPU in
	// its burst.
	RunDelaySeconds float64 `json:"run_delay_seconds"`
}

// figures reduces a run to its RunFigures.
func figures(k *KindReport) RunFigures {
	var f RunFigures
	var idlePk, duringPk uint64
	var idleS, duringS float64
	var apply, cpu []float64
	for i := range k.Bursts {
		b := &k.Bursts[i]
		idlePk += b.Before.Packets + b.After.Packets
		idleS += b.Before.Seconds + b.After.Seconds
		duringPk += b.During.Packets
		duringS += b.During.Seconds
		apply = append(apply, float64(b.ApplyNs)/1e6)
		cpu = append(cpu, float64(b.CPUNs)/1e6)
		f.FPRBefore += b.FilterFPRBefore / float64(len(k.Bursts))
		f.FPRAfter += b.FilterFPRAfter / float64(len(k.Bursts))
		f.Occupancy += b.Occupancy / float64(len(k.Bursts))
		f.BloomShare = max(f.BloomShare, b.BloomShare)
		if b.During.LookupNs.N == 0 && b.Before.LookupNs.N > 0 {
			f.EmptyWindows++
		}
	}
	if idleS > 0 {
		f.IdleMpps = float64(idlePk) / idleS / 1e6
	}
	if duringS > 0 {
		f.BurstMpps = float64(duringPk) / duringS / 1e6
	}
	f.Bursts = len(k.Bursts)
	f.ApplyMs = quantile(apply, 0.5)
	f.CPUMs = quantile(cpu, 0.5)
	f.UpdateP50 = quantile(k.UpdateNs, 0.5)
	f.UpdateP99 = quantile(k.UpdateNs, 0.99)
	f.UpdateP999 = quantile(k.UpdateNs, 0.999)
	var iters []float64
	for _, it := range k.UpdateIter {
		if it > 0 {
			iters = append(iters, float64(it))
		}
	}
	f.IterP99 = quantile(iters, 0.99)
	f.IterMax = quantile(iters, 1)
	for i, ns := range k.UpdateNs {
		if ns <= f.Slowest.Ns {
			continue
		}
		f.Slowest = Outlier{Ns: ns}
		if i < len(k.UpdateIter) && i < len(k.UpdateBurst) {
			b := int(k.UpdateBurst[i])
			f.Slowest.Iterations, f.Slowest.Burst = int(k.UpdateIter[i]), b
			if b < len(k.Bursts) {
				br := &k.Bursts[b]
				f.Slowest.HostStealSeconds, f.Slowest.GCCycles, f.Slowest.IndexRebuilds = br.HostSteal, br.GCCycles, br.IndexRebuilds
				f.Slowest.RunDelaySeconds = br.RunDelay
			}
		}
	}
	f.UpdateMax = f.Slowest.Ns
	for i, it := range k.UpdateIter {
		if int(it) > f.Longest.Iterations && i < len(k.UpdateNs) {
			f.Longest = Outlier{Ns: k.UpdateNs[i], Iterations: int(it), Burst: int(k.UpdateBurst[i])}
		}
	}
	f.Steal = k.HostSteal
	return f
}

// quantile returns the q-quantile of v (nearest rank; q = 1 is the
// greatest), 0 for no values. v is not changed.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// KindSummary is a filter configuration's figures over its repeats.
type KindSummary struct {
	Filter string `json:"filter"`
	Runs   int    `json:"runs"`
	// Lookup throughput, Mpps, all workers: outside and during bursts.
	IdleMpps  Stat `json:"idle_mpps"`
	BurstMpps Stat `json:"burst_mpps"`
	// Per-update cost, ns.
	UpdateP50Ns  Stat `json:"update_p50_ns"`
	UpdateP99Ns  Stat `json:"update_p99_ns"`
	UpdateP999Ns Stat `json:"update_p999_ns"`
	UpdateMaxNs  Stat `json:"update_max_ns"`
	// Filter iterations per insertion (0 without a filter).
	IterationsP99 Stat `json:"iterations_p99"`
	IterationsMax Stat `json:"iterations_max"`
	// Burst apply time (median over a run's bursts), ms: wall time, and
	// the controller's time on a CPU (0 where not measured).
	ApplyMs Stat `json:"apply_ms"`
	CPUMs   Stat `json:"apply_cpu_ms"`
	// ApplyRatio is the burst time over the baseline's (filter none, or
	// the first configuration) in the same round.
	ApplyRatio Stat `json:"apply_ratio"`
	// IdleRatio is IdleMpps over the baseline's in the same round.
	IdleRatio Stat `json:"idle_ratio"`
	// False-positive rate of lookups before and after bursts.
	FPRBefore  Stat `json:"fpr_before_ratio"`
	FPRAfter   Stat `json:"fpr_after_ratio"`
	BloomShare Stat `json:"bloom_share_ratio"` // greatest share of the Bloom part after a burst
	Occupancy  Stat `json:"occupancy_ratio"`
	// HostSteal is the host steal of each run, seconds.
	HostSteal Stat `json:"host_steal_seconds"`
	// EmptyWindows is the bursts of all runs during which no lookup was
	// made though lookups were made before them; Bursts is all bursts.
	EmptyWindows int `json:"empty_windows"`
	Bursts       int `json:"bursts"`
	// Slowest is the slowest update of all runs; Longest the update with
	// the longest filter walk of the run with the median one.
	Slowest Outlier `json:"slowest_update"`
	Longest Outlier `json:"longest_walk"`
}

// baseline returns the index of the configuration the others' burst
// times are divided by: filter none if it was run, else the first.
func baseline(fs []Filter) int {
	for i, f := range fs {
		if f.Kind == rules.FilterNone {
			return i
		}
	}
	return 0
}

// relate sets each run's ApplyRatio and IdleRatio: its burst time and
// its lookup rate outside bursts over those of configuration base in the
// same round (runs[i][r] is configuration i's
// run in round r). The rounds are a few seconds long, and a shared host
// that slows down or speeds up does so for seconds at a time, so a ratio
// of runs a second apart varies far less from round to round than the
// times themselves.
func relate(runs [][]RunFigures, base int) {
	if base >= len(runs) {
		return
	}
	for i := range runs {
		for r := range runs[i] {
			if r >= len(runs[base]) {
				continue
			}
			a, b := runs[i][r].CPUMs, runs[base][r].CPUMs
			if a == 0 || b == 0 {
				a, b = runs[i][r].ApplyMs, runs[base][r].ApplyMs
			}
			if b > 0 {
				runs[i][r].ApplyRatio = a / b
			}
			if m := runs[base][r].IdleMpps; m > 0 {
				runs[i][r].IdleRatio = runs[i][r].IdleMpps / m
			}
		}
	}
}

// summarize makes the summary of a configuration from its runs.
func summarize(filter string, runs []RunFigures) KindSummary {
	s := KindSummary{Filter: filter, Runs: len(runs)}
	stat := func(get func(*RunFigures) float64) Stat {
		v := make([]float64, len(runs))
		for i := range runs {
			v[i] = get(&runs[i])
		}
		slices.Sort(v)
		if len(v) == 0 {
			return Stat{}
		}
		med := v[len(v)/2]
		if len(v)%2 == 0 {
			med = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		q := (len(v) - 1) / 4
		return Stat{Median: med, Min: v[0], Max: v[len(v)-1], Q1: v[q], Q3: v[len(v)-1-q]}
	}
	s.IdleMpps = stat(func(r *RunFigures) float64 { return r.IdleMpps })
	s.BurstMpps = stat(func(r *RunFigures) float64 { return r.BurstMpps })
	s.UpdateP50Ns = stat(func(r *RunFigures) float64 { return r.UpdateP50 })
	s.UpdateP99Ns = stat(func(r *RunFigures) float64 { return r.UpdateP99 })
	s.UpdateP999Ns = stat(func(r *RunFigures) float64 { return r.UpdateP999 })
	s.UpdateMaxNs = stat(func(r *RunFigures) float64 { return r.UpdateMax })
	s.IterationsP99 = stat(func(r *RunFigures) float64 { return r.IterP99 })
	s.IterationsMax = stat(func(r *RunFigures) float64 { return r.IterMax })
	s.ApplyMs = stat(func(r *RunFigures) float64 { return r.ApplyMs })
	s.CPUMs = stat(func(r *RunFigures) float64 { return r.CPUMs })
	s.ApplyRatio = stat(func(r *RunFigures) float64 { return r.ApplyRatio })
	s.IdleRatio = stat(func(r *RunFigures) float64 { return r.IdleRatio })
	s.FPRBefore = stat(func(r *RunFigures) float64 { return r.FPRBefore })
	s.FPRAfter = stat(func(r *RunFigures) float64 { return r.FPRAfter })
	s.BloomShare = stat(func(r *RunFigures) float64 { return r.BloomShare })
	s.Occupancy = stat(func(r *RunFigures) float64 { return r.Occupancy })
	s.HostSteal = stat(func(r *RunFigures) float64 { return r.Steal })
	for _, r := range runs {
		s.EmptyWindows += r.EmptyWindows
		s.Bursts += r.Bursts
		if r.Slowest.Ns > s.Slowest.Ns {
			s.Slowest = r.Slowest
		}
	}
	for i, r := range runs {
		d := math.Abs(float64(r.Longest.Iterations) - s.IterationsMax.Median)
		if i == 0 || d < math.Abs(float64(s.Longest.Iterations)-s.IterationsMax.Median) {
			s.Longest = r.Longest
		}
	}
	return s
}

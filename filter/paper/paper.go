// Package paper reproduces the two experiments of the Bloom-Cuckoo filter
// paper on this package's filter: the cost of a burst of insertions into a
// filter in steady state at high occupancy, for the plain cuckoo filter and
// for the Bloom-Cuckoo filter at the same number of bits per element.
//
// A trial builds a filter of m buckets, fills it to the target occupancy
// with plain cuckoo insertions, brings it to steady state by replacements
// (delete a random element, insert a new one), then inserts a burst of n new
// elements with the t under test and records, per insertion, the paper's
// iteration count; after the burst it counts the Bloom part and measures the
// false-positive rate with keys that were never inserted.
package paper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/ofswitch/ofswitch/filter"
)

// Config sets up a run. The zero value of a field means the paper's value.
type Config struct {
	Buckets         int // m; default 32768
	FingerprintBits int // f; default 12
	MaxIterations   int // default 1000
	Trials          int // default 100
	Queries         int // non-member lookups per trial for the FPR; default 1<<18
	Replacements    int // steady-state replacements per trial; default m
	Seed            uint64
	// Workers run trials in parallel; default GOMAXPROCS.
	Workers int
	// Progress, if set, is called after every trial with the number done
	// and the total. It may be called from several goroutines.
	Progress func(done, total int)
}

// Quick returns a configuration that runs in seconds: 10 trials, fewer
// queries and replacements.
func Quick() Config {
	return Config{Trials: 10, Queries: 1 << 15, Replacements: 8192}
}

func (c *Config) defaults() {
	if c.Buckets == 0 {
		c.Buckets = 32768
	}
	if c.FingerprintBits == 0 {
		c.FingerprintBits = 12
	}
	if c.MaxIterations == 0 {
		c.MaxIterations = 1000
	}
	if c.Trials == 0 {
		c.Trials = 100
	}
	if c.Queries == 0 {
		c.Queries = 1 << 18
	}
	if c.Replacements == 0 {
		c.Replacements = c.Buckets
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
}

// Occupancy pairs: the plain cuckoo filter at Plain and the Bloom-Cuckoo
// filter at BCF hold the same number of bits per element, since a BCF bucket
// has 4f+1 bits: BCF = Plain·(4f+1)/4f for f = 12.
var (
	PlainOccupancies = []float64{0.92, 0.94, 0.95}
	BCFOccupancies   = []float64{0.9392, 0.9596, 0.9698}
	Ts               = []int{0, 5, 10}
	Bursts           = []int{128, 256, 512, 1024}
)

// Case is one configuration of the experiments.
type Case struct {
	Experiment int     `json:"experiment"` // 1: burst 256 across occupancy; 2: bursts 128..1024; 3: two Bloom bits
	Filter     string  `json:"filter"`     // "cuckoo" or "bloom-cuckoo"
	T          int     `json:"t"`          // -1 for the plain cuckoo filter
	Occupancy  float64 `json:"occupancy"`  // before the burst
	Burst      int     `json:"burst"`
	BloomBits  int     `json:"bloom_bits"` // 1, or 2 for the future-work variant
}

// Row is the outcome of one Case over all trials.
type Row struct {
	Case
	Trials int `json:"trials"`
	// MaxIterations is the largest iteration count of any insertion of
	// any trial's burst; MeanMaxIterations averages each trial's maximum.
	MaxIterations     int     `json:"max_iterations"`
	MeanMaxIterations float64 `json:"mean_max_iterations"`
	MeanIterations    float64 `json:"mean_iterations"`
	// BloomElements is the mean size of the Bloom part after the burst.
	BloomElements float64 `json:"bloom_elements"`
	// Failed counts burst insertions that exhausted MaxIterations.
	Failed    int     `json:"failed"`
	FPR       float64 `json:"fpr"`
	FPRTheory float64 `json:"fpr_theory"`
	// IterationCDF[i] is the fraction of burst insertions that took at
	// most i+1 iterations, up to the largest seen.
	IterationCDF []float64 `json:"iteration_cdf"`
}

// Result is a whole run.
type Result struct {
	Config struct {
		Buckets, FingerprintBits, MaxIterations, Trials, Queries, Replacements int
		Seed                                                                   uint64
	} `json:"config"`
	Rows []Row `json:"rows"`
}

// Cases lists the experiments: (1) a burst of 256 at every occupancy pair,
// plain cuckoo against Bloom-Cuckoo with t = 0, 5, 10; (2) bursts of 128 to
// 1024 at the highest occupancy pair, plain cuckoo against t = 0, 5, 10;
// (3) the paper's future-work variant with two Bloom bits per bucket, at the
// same occupancy as (2)'s Bloom-Cuckoo rows and a burst of 1024, to set its
// false-positive rate beside the one-bit filter's.
func Cases() []Case {
	var cs []Case
	add := func(exp, burst int, plain, bcf float64) {
		cs = append(cs, Case{exp, "cuckoo", -1, plain, burst, 1})
		for _, t := range Ts {
			cs = append(cs, Case{exp, "bloom-cuckoo", t, bcf, burst, 1})
		}
	}
	for i := range PlainOccupancies {
		add(1, 256, PlainOccupancies[i], BCFOccupancies[i])
	}
	last := len(PlainOccupancies) - 1
	for _, n := range Bursts {
		add(2, n, PlainOccupancies[last], BCFOccupancies[last])
	}
	for _, t := range Ts {
		cs = append(cs, Case{3, "bloom-cuckoo-2bit", t, BCFOccupancies[last], Bursts[len(Bursts)-1], 2})
	}
	return cs
}

type trial struct {
	maxIter, sumIter, n, failed, bloom int
	fp, queries                        int
	fprTheory                          float64
	hist                               []int
}

// Run runs every case of Cases for c.Trials trials each.
func Run(ctx context.Context, c Config) (*Result, error) {
	c.defaults()
	cases := Cases()
	res := &Result{}
	rc := &res.Config
	rc.Buckets, rc.FingerprintBits, rc.MaxIterations = c.Buckets, c.FingerprintBits, c.MaxIterations
	rc.Trials, rc.Queries, rc.Replacements, rc.Seed = c.Trials, c.Queries, c.Replacements, c.Seed

	type job struct{ ci, trial int }
	out := make([][]trial, len(cases))
	for i := range out {
		out[i] = make([]trial, c.Trials)
	}
	jobs := make(chan job)
	errs := make(chan error, c.Workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, total := 0, len(cases)*c.Trials
	for range c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				tr, err := runTrial(&c, cases[j.ci], uint64(j.ci)<<32|uint64(j.trial))
				if err != nil {
					errs <- err
					return
				}
				out[j.ci][j.trial] = tr
				if c.Progress != nil {
					mu.Lock()
					done++
					d := done
					mu.Unlock()
					c.Progress(d, total)
				}
			}
		}()
	}
	var err error
feed:
	for ci := range cases {
		for t := range c.Trials {
			select {
			case jobs <- job{ci, t}:
			case err = <-errs:
				break feed
			case <-ctx.Done():
				err = ctx.Err()
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	if err != nil {
		return nil, err
	}
	for ci, cs := range cases {
		res.Rows = append(res.Rows, summarize(cs, out[ci]))
	}
	return res, nil
}

func summarize(cs Case, trials []trial) Row {
	r := Row{Case: cs, Trials: len(trials)}
	var sumIter, n, fp, q, sumMax, bloom int
	var theory float64
	var hist []int
	for _, t := range trials {
		r.MaxIterations = max(r.MaxIterations, t.maxIter)
		sumMax += t.maxIter
		sumIter += t.sumIter
		n += t.n
		r.Failed += t.failed
		bloom += t.bloom
		fp += t.fp
		q += t.queries
		theory += t.fprTheory
		for len(hist) < len(t.hist) {
			hist = append(hist, 0)
		}
		for i, v := range t.hist {
			hist[i] += v
		}
	}
	k := float64(len(trials))
	r.MeanMaxIterations = float64(sumMax) / k
	r.MeanIterations = float64(sumIter) / float64(n)
	r.BloomElements = float64(bloom) / k
	r.FPR = float64(fp) / float64(q)
	r.FPRTheory = theory / k
	cum := 0
	for i := 1; i < len(hist) && i <= r.MaxIterations; i++ {
		cum += hist[i]
		r.IterationCDF = append(r.IterationCDF, float64(cum)/float64(n))
	}
	return r
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func runTrial(c *Config, cs Case, id uint64) (trial, error) {
	seed := mix(c.Seed ^ mix(id))
	f, err := filter.New(filter.Config{
		Buckets: c.Buckets, FingerprintBits: c.FingerprintBits,
		MaxIterations: c.MaxIterations, BloomAfter: -1, Seed: seed, BloomBits: cs.BloomBits,
	})
	if err != nil {
		return trial{}, fmt.Errorf("trial %#x: %w", id, err)
	}
	r := rand.New(rand.NewPCG(seed, id))
	next := seed // key counter: every key is distinct
	key := func() uint64 { next++; return mix(next) }
	target := int(cs.Occupancy*float64(f.Capacity()) + 0.5)
	live := make([]uint64, 0, target+cs.Burst)
	for len(live) < target {
		h := key()
		if f.Insert(h).Placement == filter.Full {
			return trial{}, fmt.Errorf("trial %#x: filter full at occupancy %.4f while filling", id, f.Occupancy())
		}
		live = append(live, h)
	}
	for range c.Replacements {
		i := r.IntN(len(live))
		f.Delete(live[i])
		h := key()
		if f.Insert(h).Placement == filter.Full {
			return trial{}, fmt.Errorf("trial %#x: filter full during replacements", id)
		}
		live[i] = h
	}
	f.SetBloomAfter(cs.T)
	tr := trial{n: cs.Burst, hist: make([]int, c.MaxIterations+1)}
	for range cs.Burst {
		res := f.Insert(key())
		tr.maxIter = max(tr.maxIter, res.Iterations)
		tr.sumIter += res.Iterations
		tr.hist[res.Iterations]++
		if res.Placement == filter.Stash || res.Placement == filter.Full {
			tr.failed++
		}
	}
	tr.bloom = f.BloomLen()
	tr.fprTheory = f.TheoreticalFPR()
	tr.queries = c.Queries
	base := uint64(1)<<63 | mix(seed)<<20 // never a counter value above
	for i := range c.Queries {
		if f.Contains(mix(base + uint64(i))) {
			tr.fp++
		}
	}
	return tr, nil
}

package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// phases of the probe's state word
const (
	phBefore = iota
	phDuring
	phAfter
	nPhases
)

const stateIdle = -1

// phaseAcc is one worker's record of one phase of one burst.
type phaseAcc struct {
	h       *hdrhistogram.Histogram
	packets uint64
	lookups rules.Counters
}

// probe records lookup latency for the experiment; owned by one worker.
type probe struct {
	state    *atomic.Int64 // burst*nPhases + phase, or stateIdle
	base     time.Time
	acc      [][nPhases]phaseAcc
	timeline timelineAcc // every lookup, over the whole run
}

const (
	maxLatencyNs = 100_000_000
)

// ObserveLookup records one table-0 lookup (dataplane.LookupObserver).
func (p *probe) ObserveLookup(start time.Time, d time.Duration, packets int, c *rules.Counters) {
	s := p.state.Load()
	if s >= 0 {
		a := &p.acc[s/nPhases][s%nPhases]
		ns := min(max(d.Nanoseconds(), 1), maxLatencyNs)
		_ = a.h.RecordValue(ns)
		a.packets += uint64(packets)
		a.lookups.Add(c)
	}
	p.timeline.observe(int64(start.Sub(p.base)), d.Nanoseconds())
}

// controller is the synthetic controller: it makes bursts of adds of new
// flows (some of them flows of the capture, which later packets match)
// and deletes of flows it added earlier.
type controller struct {
	rng      *rand.Rand
	capFlows []rules.Match
	live     []rules.Match
	nextID   int
	pri      uint16               // priority of its flows
	shapes   []rules.Match        // Config.BurstFromRules: the rule set's matches
	taken    map[rules.Match]bool // with shapes: the matches in table 0
}

// SyntheticPriority is the priority of the rules the synthetic controller
// adds: above any rule of a flow file that does not set one higher.
const SyntheticPriority = 40000

func (c *controller) add(m rules.Match) rules.Update {
	c.nextID++
	c.live = append(c.live, m)
	if c.taken != nil {
		c.taken[m] = true
	}
	return rules.Update{Command: rules.CmdAdd, Match: m, Priority: c.pri, Cookie: 0x5e, ID: -c.nextID,
		Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 1}}}}}
}

// synthetic returns a random IPv4 TCP 5-tuple outside the captures'
// 10.0.0.0/8 space, or with shapes a flow shaped like the rule set's.
func (c *controller) synthetic() rules.Match {
	if len(c.shapes) > 0 {
		if m, ok := c.shaped(); ok {
			return m
		}
	}
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	m.SetExact(rules.FieldIPv4Src, 0xac100000|uint64(c.rng.Uint32()&0xfffff))
	m.SetExact(rules.FieldIPv4Dst, 0xc0a80000|uint64(c.rng.Uint32()&0xffff))
	m.SetExact(rules.FieldL4Src, uint64(1024+c.rng.IntN(60000)))
	m.SetExact(rules.FieldL4Dst, uint64(1+c.rng.IntN(1023)))
	return m
}

// burst returns n updates: adds and deletes, half each while there is
// something to delete; one add in eight installs a flow of the capture.
func (c *controller) burst(n int) (ups []rules.Update, adds, dels int) {
	for range n {
		if len(c.live) > 0 && c.rng.IntN(2) == 0 {
			i := c.rng.IntN(len(c.live))
			m := c.live[i]
			c.live[i] = c.live[len(c.live)-1]
			c.live = c.live[:len(c.live)-1]
			delete(c.taken, m)
			ups = append(ups, rules.Update{Command: rules.CmdDeleteStrict, Match: m, Priority: c.pri})
			dels++
			continue
		}
		m := c.synthetic()
		if len(c.capFlows) > 0 && c.rng.IntN(8) == 0 {
			m = c.capFlows[c.rng.IntN(len(c.capFlows))]
		}
		ups = append(ups, c.add(m))
		adds++
	}
	return ups, adds, dels
}

// Run replays the captures once per filter configuration while a
// synthetic controller applies bursts of rule updates, and measures what
// DESIGN.md "Update latency during bursts" lists. The configurations run one
// after the other on the same captures and the same update sequence.
func Run(ctx context.Context, cfg *Config) (*Report, error) {
	c := *cfg
	if len(c.Filters) == 0 {
		c.Filters = []Filter{{Kind: rules.FilterBloomCuckoo}}
	}
	c.Workers = max(c.Workers, 1)
	c.Tables = max(c.Tables, 1)
	c.Loops = max(c.Loops, 1)
	if c.Bursts == 0 {
		c.Bursts = 5
	}
	if c.Burst == 0 {
		c.Bursts = 0
	}
	if c.Every == 0 {
		c.Every = 20 * time.Millisecond
	}
	if c.TopN == 0 {
		c.TopN = 10
	}
	var caps []*dataplane.Capture
	frames := 0
	for _, cp := range c.Captures {
		if cp != nil && cp.Len() > 0 {
			caps = append(caps, cp)
			frames += cp.Len()
		}
	}
	if frames == 0 {
		return nil, errors.New("replay: no frames to replay")
	}
	if c.Ports == nil {
		c.Ports = defaultPorts(caps)
	}
	rep := &Report{Frames: frames, Rules: len(c.Rules), Workers: c.Workers, Burst: c.Burst}
	for _, cp := range caps {
		rep.Captures = append(rep.Captures, cp.Name)
	}
	// Shard once; collect the captures' flows for the controller.
	shards := make([][][]int32, len(caps))
	var capFlows []rules.Match
	seen := map[rules.Match]bool{}
	p := dataplane.NewParser()
	var k rules.Key
	for i, cp := range caps {
		shards[i] = cp.Shard(c.Workers)
		for f := 0; f < cp.Len(); f++ {
			if h, ok := p.Parse(cp.Frame(f), cp.Link(f), uint32(cp.Iface[f])+1); ok {
				h.Key(&k)
				if m, ok := dataplane.FlowMatch(&k); ok && !seen[m] {
					seen[m] = true
					capFlows = append(capFlows, m)
				}
			}
		}
	}
	elements := filterElements(c.Rules, c.Tables)
	sz := sizing{elements: elements}
	sz.buckets, sz.prefill = sizeFilter(elements, c.TableFlows, c.Burst, c.Occupancy)
	rep.FilterBuckets, rep.Prefill = sz.buckets, sz.prefill
	// The table's flows are the same for every run (the controller is
	// seeded by c.Seed): make them, and the frames of some of them, once.
	ctl := newController(&c, capFlows)
	pre := ctl.prefill(sz.prefill)
	if c.TableTraffic > 0 {
		tc := tableCapture(ctl.rng, pre, c.TableTraffic)
		caps = append(caps, tc)
		shards = append(shards, tc.Shard(c.Workers))
		rep.Frames += tc.Len()
		rep.Captures = append(rep.Captures, tc.Name)
	}
	reps := max(c.Repeats, 1)
	rep.Repeats = reps
	runs := make([][]RunFigures, len(c.Filters))
	total := reps * len(c.Filters)
	for r := range reps {
		for i, fs := range c.Filters {
			kr, err := runKind(ctx, &c, fs, r, caps, shards, resume(&c, capFlows, pre, c.Seed+uint64(r)), pre, sz)
			if err != nil {
				return rep, fmt.Errorf("filter %v: %w", fs, err)
			}
			runs[i] = append(runs[i], figures(kr))
			if r == 0 {
				rep.Kinds = append(rep.Kinds, *kr)
			}
			if c.Progress != nil {
				c.Progress(r*len(c.Filters)+i+1, total)
			}
		}
	}
	relate(runs, baseline(c.Filters))
	for i := range c.Filters {
		rep.Summary = append(rep.Summary, summarize(rep.Kinds[i].Filter, runs[i]))
	}
	rep.CPUs, rep.LoadAvg = runtime.GOMAXPROCS(0), loadAverage()
	rep.Findings = Findings(rep.Summary, Machine{CPUs: rep.CPUs, LoadAvg: rep.LoadAvg, Workers: rep.Workers})
	return rep, nil
}

// sizing is table 0's filter as every configuration of a replay gets it.
type sizing struct {
	elements int // the rule set's elements in table 0's filter
	buckets  int // filter buckets
	prefill  int // synthetic flows pre-installed
}

// newController returns the synthetic controller of a replay, with its
// random stream seeded by c.Seed alone.
func newController(c *Config, capFlows []rules.Match) *controller {
	ctl := &controller{rng: rand.New(rand.NewPCG(c.Seed, 0x6f66)), capFlows: capFlows, pri: SyntheticPriority}
	if c.BurstFromRules {
		if ctl.shapes = ruleShapes(c.Rules); len(ctl.shapes) > 0 {
			ctl.capFlows, ctl.pri = nil, 0
			ctl.taken = make(map[rules.Match]bool, len(ctl.shapes))
			for _, m := range ctl.shapes {
				ctl.taken[m] = true
			}
		}
	}
	return ctl
}

// prefill returns n adds of synthetic flows, the flows the controller
// pre-installs, and leaves them in its live set.
func (c *controller) prefill(n int) []rules.Update {
	c.live = slices.Grow(c.live, n)
	pre := make([]rules.Update, 0, n)
	for range n {
		pre = append(pre, c.add(c.synthetic()))
	}
	return pre
}

// resume returns a controller for one run: its live set is pre's flows,
// as if it had just added them, and its bursts draw from a stream seeded
// by seed. Making the flows once and resuming from them for every run
// saves generating (and allocating) the table again.
func resume(c *Config, capFlows []rules.Match, pre []rules.Update, seed uint64) *controller {
	ctl := newController(c, capFlows)
	ctl.rng = rand.New(rand.NewPCG(seed, 0x6275))
	ctl.live = make([]rules.Match, len(pre), len(pre)+c.Burst*c.Bursts)
	for i := range pre {
		ctl.live[i] = pre[i].Match
		if ctl.taken != nil {
			ctl.taken[pre[i].Match] = true
		}
	}
	ctl.nextID = len(pre)
	return ctl
}

// runKind runs configuration fs once: the rule set and pre into a new
// pipeline, then the workers replay the captures while ctl bursts.
func runKind(ctx context.Context, c *Config, fs Filter, repeat int, caps []*dataplane.Capture, shards [][][]int32,
	ctl *controller, pre []rules.Update, sz sizing) (*KindReport, error) {
	seed := c.Seed + uint64(repeat)
	// Recycling as in ofswitch run: the workers announce their lookups
	// (Worker.Process, Quiesce), and nothing else looks rules up.
	pipe, err := rules.New(&rules.Config{Tables: c.Tables, Filter: fs.Kind, BloomAfter: fs.T, Seed: seed,
		FilterBuckets: sz.buckets, MaxOccupancy: 0.99, Recycle: true,
		PrefaultRules: min(c.Burst, rules.MaxPrefaultRules)})
	if err != nil {
		return nil, err
	}
	// The rule set, then synthetic flows up to the target occupancy (at
	// least one burst of them, so that bursts delete old flows from the
	// start).
	ups := append(slices.Clone(c.Rules), pre...)
	res := pipe.ApplyBurst(ups, true)
	for i, err := range res.Errs {
		if err != nil {
			return nil, fmt.Errorf("rule %d (id %d): %w", i, ups[i].ID, err)
		}
	}
	// A switch idle after loading its table has drained the Bloom part
	// into cuckoo slots where it could, and made the memory of a burst's
	// adds ahead of need (as ofswitch run's tables do); so do the bursts'
	// tables, so that no run pays first-touch page faults in a burst
	// that another run, on memory the heap had mapped already, did not.
	pipe.Rebalance(1 << 20)
	pipe.Prefault()
	sw := dataplane.NewSwitch(pipe, &dataplane.Config{Workers: c.Workers, Ports: c.Ports})
	var state atomic.Int64
	state.Store(stateIdle)
	base := time.Now()
	probes := make([]*probe, c.Workers)
	for i := range probes {
		pr := &probe{state: &state, base: base, acc: make([][nPhases]phaseAcc, c.Bursts),
			timeline: newTimelineAcc()}
		for b := range pr.acc {
			for ph := range nPhases {
				pr.acc[b][ph].h = hdrhistogram.New(1, maxLatencyNs, 2)
			}
		}
		probes[i] = pr
		sw.Worker(i).SetLookupObserver(pr)
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	loops := make([]atomic.Int64, c.Workers)
	busy := make([]time.Duration, c.Workers)
	errs := make([]error, c.Workers)
	var wg sync.WaitGroup
	rcfg := &dataplane.ReplayConfig{Speed: c.Speed}
	for wi := range c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := sw.Worker(wi)
			t0 := time.Now()
			defer func() { busy[wi] = time.Since(t0) }()
			for loop := 0; ; loop++ {
				if c.Bursts == 0 && loop >= c.Loops {
					return
				}
				for ci, cp := range caps {
					if err := w.ReplayShard(rctx, cp, shards[ci][wi], rcfg, time.Now()); err != nil {
						if !errors.Is(err, context.Canceled) || ctx.Err() != nil {
							errs[wi] = err
						}
						return
					}
				}
				loops[wi].Add(1)
			}
		}()
	}
	kr := &KindReport{Filter: fs.String()}
	steal0, stealOK := hostSteal()
	if c.Bursts > 0 {
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		err = runBursts(rctx, c, pipe, sw, ctl, &state, base, kr, finished)
		// Let every worker finish its minimum number of loops.
		for wi := range loops {
			for err == nil && loops[wi].Load() < int64(c.Loops) && rctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
		}
		stop()
	}
	wg.Wait()
	if err == nil {
		err = errors.Join(errs...)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(base)
	if steal1, ok := hostSteal(); ok && stealOK {
		kr.HostSteal = (steal1 - steal0).Seconds()
	}
	st := sw.Stats()
	kr.Seconds = elapsed.Seconds()
	kr.Packets = st.Parse.Read
	kr.PPS = float64(st.Parse.Read) / elapsed.Seconds()
	for wi := range c.Workers {
		ws := sw.Worker(wi).Stats()
		kr.MppsPerWorker = append(kr.MppsPerWorker, float64(ws.Parse.Read)/busy[wi].Seconds()/1e6)
	}
	if st.Packets > 0 {
		kr.MissRate = float64(st.MissTable0) / float64(st.Packets)
	}
	kr.FPR = dataplane.FalsePositiveRate(&st.Lookup)
	kr.Counters = st
	kr.Ports = sw.PortStats()
	kr.Table = pipe.Table(0).Stats()
	kr.Top = topRules(pipe, c.TopN)
	// Merge the probes into the bursts' phases.
	for bi := range kr.Bursts {
		br := &kr.Bursts[bi]
		for ph, out := range []*Phase{&br.Before, &br.During, &br.After} {
			h := hdrhistogram.New(1, maxLatencyNs, 2)
			var lc rules.Counters
			for _, pr := range probes {
				a := &pr.acc[bi][ph]
				h.Merge(a.h)
				out.Packets += a.packets
				lc.Add(&a.lookups)
			}
			out.LookupNs = histPercentiles(h)
			out.FPR = dataplane.FalsePositiveRate(&lc)
			if out.Seconds > 0 {
				out.Mpps = float64(out.Packets) / out.Seconds / 1e6
			}
		}
	}
	accs := make([]*timelineAcc, len(probes))
	for i, pr := range probes {
		accs[i] = &pr.timeline
	}
	kr.Timeline = mergeTimelines(accs)
	return kr, nil
}

// FPRQueries is the absent keys a replay looks up in table 0's filter to
// measure its false-positive rate before and after each burst: at the
// rate of the demo's filter at 95% occupancy (about 2·10^-3), a run's
// five bursts see about 600 false positives, a standard error of 4%.
const FPRQueries = 1 << 16

// runBursts is the synthetic controller's loop: for each burst, a
// "before" window, the burst, an "after" window.
func runBursts(ctx context.Context, c *Config, pipe *rules.Pipeline, sw *dataplane.Switch, ctl *controller,
	state *atomic.Int64, base time.Time, kr *KindReport, finished <-chan struct{}) error {
	// The controller waits by spinning rather than sleeping: a thread
	// that sleeps gives up its CPU, and on a busy machine the first update
	// after its wakeup waits for one (a scheduler tick, 4 ms, is common),
	// which would be measured as that update's cost.
	wait := func(d time.Duration, packets uint64) error {
		deadline := time.Now().Add(d)
		target := sw.Processed() + packets
		for n := 0; ; n++ {
			if packets > 0 && sw.Processed() >= target || packets == 0 && !time.Now().Before(deadline) {
				return nil
			}
			if n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				select {
				case <-finished:
					if packets > 0 {
						return errors.New("the workers stopped before the bursts were done")
					}
				default:
				}
			}
		}
	}
	half, halfPk := c.Every/2, c.AtPackets/2
	if c.AtPackets > 0 {
		half = 0
	}
	// The bursts' goroutine keeps its thread, so that the thread's run
	// delay (threadSched) is the controller's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t := pipe.Table(0)
	var res rules.BurstResult
	costs := make([]rules.UpdateCost, c.Burst)
	// Collect the garbage of the setup now, before the measured windows,
	// rather than at a random point inside one. The bursts make little
	// garbage beside a table of this size; a collection that completes
	// in a burst window anyway is counted (BurstReport.GCCycles).
	runtime.GC()
	for bi := range c.Bursts {
		br := BurstReport{Index: bi}
		state.Store(int64(bi*nPhases + phBefore))
		t0 := time.Now()
		var err error
		if c.AtPackets > 0 {
			err = wait(0, c.AtPackets-halfPk)
		} else {
			err = wait(half, 0)
		}
		if err != nil {
			return err
		}
		// The filter's false-positive rate just before and just after
		// the burst, sampled on the controller's thread in the idle
		// windows (a few ms each, outside the burst's timing).
		br.FilterFPRBefore, _ = t.FilterFPR(FPRQueries, c.Seed^uint64(2*bi))
		ups, adds, dels := ctl.burst(c.Burst)
		br.Updates, br.Adds, br.Deletes = len(ups), adds, dels
		ts0 := t.Stats()
		steal0, stealOK := hostSteal()
		gc0 := gcCycles()
		_, wait0, schedOK := threadSched()
		cpu0, cpuOK := threadCPU()
		state.Store(int64(bi*nPhases + phDuring))
		t1 := time.Now()
		// One update at a time, each published as it is applied, as a
		// FLOW_MOD stream without a bundle is; costs holds each one's time
		// and filter iterations.
		pipe.ApplyBurstTo(&res, ups, false, costs[:len(ups)])
		t2 := time.Now()
		state.Store(int64(bi*nPhases + phAfter))
		if cpu1, ok := threadCPU(); ok && cpuOK {
			br.CPUNs = (cpu1 - cpu0).Nanoseconds()
		}
		if _, wait1, ok := threadSched(); ok && schedOK {
			br.RunDelay = (wait1 - wait0).Seconds()
		}
		br.GCCycles = int(gcCycles() - gc0)
		if steal1, ok := hostSteal(); ok && stealOK {
			br.HostSteal = (steal1 - steal0).Seconds()
		}
		ns := make([]float64, len(ups))
		for i, e := range res.Errs {
			if e != nil {
				br.Errors++
			}
			ns[i] = float64(costs[i].Time.Nanoseconds())
			kr.UpdateIter = append(kr.UpdateIter, int32(costs[i].Iterations))
			kr.UpdateBurst = append(kr.UpdateBurst, int32(bi))
		}
		br.At = t1.Sub(base).Seconds()
		br.ApplyNs = t2.Sub(t1).Nanoseconds()
		br.UpdateNs = floatPercentiles(ns)
		kr.UpdateNs = append(kr.UpdateNs, ns...)
		kr.BurstAt = append(kr.BurstAt, br.At)
		ts1 := t.Stats()
		br.Rebuilt = ts1.Rebuilds != ts0.Rebuilds
		br.IndexRebuilds = ts1.IndexRebuilds - ts0.IndexRebuilds
		if ts0.FilterStats != nil && !br.Rebuilt {
			br.Iterations = iterPercentiles(ts0.FilterStats.Iterations, ts1.FilterStats.Iterations)
		}
		br.FilterLen, br.FilterBloomLen, br.Occupancy = ts1.FilterLen, ts1.FilterBloomLen, ts1.Occupancy
		if ts1.FilterLen > 0 {
			br.BloomShare = float64(ts1.FilterBloomLen) / float64(ts1.FilterLen)
		}
		br.FilterFPRAfter, _ = t.FilterFPR(FPRQueries, c.Seed^uint64(2*bi+1))
		if err := wait(half, halfPk); err != nil {
			return err
		}
		state.Store(stateIdle)
		t3 := time.Now()
		br.Before.Seconds = t1.Sub(t0).Seconds()
		br.During.Seconds = t2.Sub(t1).Seconds()
		br.After.Seconds = t3.Sub(t2).Seconds()
		kr.Bursts = append(kr.Bursts, br)
		// Idle writer: let the Bloom part drain back into cuckoo slots
		// and make the next burst's memory.
		pipe.Rebalance(1 << 20)
		pipe.Prefault()
	}
	return nil
}

// defaultPorts returns the ports a replay of caps uses: 1 to the largest
// number of capture interfaces (frames of interface i arrive on port
// i+1), and at least ports 1 and 2.
func defaultPorts(caps []*dataplane.Capture) []uint32 {
	n := 2
	for _, c := range caps {
		if c != nil {
			n = max(n, len(c.Ifaces))
		}
	}
	ports := make([]uint32, n)
	for i := range ports {
		ports[i] = uint32(i + 1)
	}
	return ports
}

// sizeFilter returns the filter buckets (a power of two, at least 16)
// that hold max(elements, least) + burst elements at occupancy occ, and
// how many synthetic flows bring the rule set's elements up to that
// occupancy (at least burst).
func sizeFilter(elements, least, burst int, occ float64) (buckets, prefill int) {
	if occ <= 0 || occ > 1 {
		occ = 0.9
	}
	need := int(math.Ceil(float64(max(elements, least)+burst) / (4 * occ)))
	buckets = 16
	for buckets < need {
		buckets *= 2
	}
	prefill = max(burst, int(occ*4*float64(buckets))-elements)
	return buckets, prefill
}

func histPercentiles(h *hdrhistogram.Histogram) Percentiles {
	if h.TotalCount() == 0 {
		return Percentiles{}
	}
	return Percentiles{N: h.TotalCount(), P50: float64(h.ValueAtQuantile(50)), P99: float64(h.ValueAtQuantile(99)),
		Max: float64(h.Max()), Mean: h.Mean()}
}

func floatPercentiles(v []float64) Percentiles {
	if len(v) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	at := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return Percentiles{N: int64(len(s)), P50: at(0.5), P99: at(0.99), Max: s[len(s)-1], Mean: sum / float64(len(s))}
}

// iterPercentiles summarises the insertions between two snapshots of the
// filter's iteration histogram (Iterations[i]: insertions that took i).
func iterPercentiles(before, after []uint64) Percentiles {
	var d []uint64
	var n uint64
	for i := range after {
		x := after[i]
		if i < len(before) {
			x -= before[i]
		}
		d = append(d, x)
		n += x
	}
	if n == 0 {
		return Percentiles{}
	}
	var p Percentiles
	p.N = int64(n)
	var cum uint64
	sum := 0.0
	for i, x := range d {
		if x == 0 {
			continue
		}
		sum += float64(i) * float64(x)
		if p.P50 == 0 && float64(cum+x) >= 0.5*float64(n) {
			p.P50 = float64(i)
		}
		if p.P99 == 0 && float64(cum+x) >= 0.99*float64(n) {
			p.P99 = float64(i)
		}
		cum += x
		p.Max = float64(i)
	}
	p.Mean = sum / float64(n)
	return p
}

// topRules returns the n rules with the most packets, over all tables.
func topRules(p *rules.Pipeline, n int) []RuleHits {
	type hit struct {
		table uint8
		r     *rules.Rule
		pk    uint64
	}
	var all []hit
	for t := range p.NumTables() {
		for _, r := range p.Rules(uint8(t)) {
			if pk := r.Packets(); pk > 0 {
				all = append(all, hit{uint8(t), r, pk})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b hit) int {
		if a.pk != b.pk {
			return cmp.Compare(b.pk, a.pk)
		}
		return cmp.Or(cmp.Compare(a.table, b.table), cmp.Compare(a.r.ID, b.r.ID))
	})
	// Format only the rules listed: a large table has many with packets.
	out := make([]RuleHits, min(n, len(all)))
	for i := range out {
		h := all[i]
		out[i] = RuleHits{Table: h.table, ID: h.r.ID, Packets: h.pk,
			Flow: ofctl.FormatMatch(&h.r.Match, h.r.Priority) + ",actions=" + ofctl.FormatActions(h.r.Instructions)}
	}
	return out
}

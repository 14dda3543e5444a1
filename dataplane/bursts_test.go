package dataplane

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/oracle"
	"github.com/ofswitch/ofswitch/rules"
)

// flowMatch returns an exact 5-tuple match for an IPv4 TCP/UDP key, or
// false for other keys.
func flowMatch4(k *rules.Key) (rules.Match, bool) {
	var m rules.Match
	p := k.Get(rules.FieldIPProto)
	if k.Get(rules.FieldEthType) != rules.EthTypeIPv4 || (p != rules.IPProtoTCP && p != rules.IPProtoUDP) || k.Get(rules.FieldL4Src) == 0 {
		return m, false
	}
	for _, f := range []rules.Field{rules.FieldEthType, rules.FieldIPProto, rules.FieldIPv4Src, rules.FieldIPv4Dst, rules.FieldL4Src, rules.FieldL4Dst} {
		m.SetExact(f, k.Get(f))
	}
	return m, true
}

type verdict struct {
	version uint64
	frame   int32
	id      int32 // rule ID, -1 for a miss
}

// TestBurstsDuringTraffic classifies a capture on two workers while
// another goroutine applies bursts of adds and deletes, including rules
// that packets later in the capture match. Every verdict must equal a
// linear scan of the rules the oracle held at the version the lookup saw,
// and no packet of a flow whose rule stayed installed throughout may miss.
// With a pipeline that recycles (and unlinks removed rules in the burst
// that removes them), a rule whose memory was reused under a worker shows
// as another rule's ID, and under -race as a race with the worker.
func TestBurstsDuringTraffic(t *testing.T) {
	for _, recycle := range []bool{false, true} {
		t.Run(fmt.Sprintf("recycle=%v", recycle), func(t *testing.T) { testBurstsDuringTraffic(t, recycle) })
	}
}

func testBurstsDuringTraffic(t *testing.T, recycle bool) {
	c := mustLoad(t, "mix.pcap")
	// Distinct IPv4 TCP/UDP flows of the capture, and each frame's key.
	p := NewParser()
	keys := make([]rules.Key, c.Len())
	parsed := make([]bool, c.Len())
	var flows []rules.Match
	seen := map[rules.Match]bool{}
	for i := range keys {
		h, ok := p.Parse(c.Frame(i), c.Link(i), uint32(c.Iface[i])+1)
		if !ok {
			continue
		}
		parsed[i] = true
		h.Key(&keys[i])
		if m, ok := flowMatch4(&keys[i]); ok && !seen[m] {
			seen[m] = true
			flows = append(flows, m)
		}
	}
	if len(flows) < 40 {
		t.Fatalf("only %d flows", len(flows))
	}
	rng := rand.New(rand.NewPCG(6, 6))
	rng.Shuffle(len(flows), func(i, j int) { flows[i], flows[j] = flows[j], flows[i] })
	permanent, churn := flows[:len(flows)/4], flows[len(flows)/4:]

	cfg := &rules.Config{Filter: rules.FilterBloomCuckoo, BloomAfter: 0, FilterBuckets: 16}
	if recycle {
		cfg.Recycle, cfg.UnlinkAfter = true, -1
	}
	pipe, err := rules.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := oracle.NewFlows(1)
	id := 0
	add := func(m rules.Match, pri uint16) rules.Update {
		id++
		return rules.Update{Command: rules.CmdAdd, Match: m, Priority: pri, ID: id,
			Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}}
	}
	var base []rules.Update
	for _, m := range permanent {
		base = append(base, add(m, 100))
	}
	var wild rules.Match
	wild.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	wild.SetPrefix(rules.FieldIPv4Dst, 0x0a010000, 16)
	base = append(base, add(wild, 50))
	snapshots := map[uint64][]*oracle.Entry{}
	apply := func(ups []rules.Update) {
		res := pipe.ApplyBurst(ups, true)
		for i := range ups {
			_, oerr := o.Apply(&ups[i], timeZero)
			if (res.Errs[i] == nil) != (oerr == nil) {
				t.Errorf("update %d: table %v, oracle %v", i, res.Errs[i], oerr)
			}
		}
		snapshots[res.Version] = o.Entries(0)
	}
	apply(base)

	const bursts, perBurst = 40, 24
	sw := NewSwitch(pipe, &Config{Workers: 2, Ports: []uint32{1, 2}})
	shards := c.Shard(2)
	var stop atomic.Bool
	var processed atomic.Int64 // vectors of frames the workers classified
	var running atomic.Int32   // workers not yet through their loops
	running.Store(2)
	logs := make([][]verdict, 2)
	var wg sync.WaitGroup
	for wi := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := sw.Worker(wi)
			defer w.Quiesce()
			vec := new(Vector)
			idx := shards[wi]
			log := make([]verdict, 0, 64*c.Len())
			for loop := 0; loop < 60 && (loop < 2 || !stop.Load()); loop++ {
				for i := 0; i < len(idx); i += VectorSize {
					part := idx[i:min(i+VectorSize, len(idx))]
					c.fillIdx(vec, part)
					w.Process(vec)
					processed.Add(1)
					// Two workers on two processors would otherwise hold
					// both until preempted, and the writer would apply
					// its bursts 10 ms apart, after thousands of vectors.
					runtime.Gosched()
					hits, slots, v := w.Verdicts()
					for j, r := range hits {
						vd := verdict{version: v, frame: part[slots[j]], id: -1}
						if r != nil {
							vd.id = int32(r.ID)
						}
						if len(log) < cap(log) {
							log = append(log, vd)
						}
					}
				}
			}
			logs[wi] = log
			running.Add(-1)
		}()
	}
	// The writer: each burst adds rules for flows not installed (packets
	// later in the capture match them), some at a priority above the
	// permanent rules, and deletes rules added by earlier bursts.
	type entry struct {
		m   rules.Match
		pri uint16
	}
	var live []entry
	for range bursts {
		var ups []rules.Update
		for range perBurst / 2 {
			m := churn[rng.IntN(len(churn))]
			pri := uint16(100)
			if rng.IntN(4) == 0 {
				m, pri = permanent[rng.IntN(len(permanent))], 200
			}
			ups = append(ups, add(m, pri))
			live = append(live, entry{m, pri})
		}
		for range perBurst / 2 {
			if len(live) == 0 {
				break
			}
			i := rng.IntN(len(live))
			e := live[i]
			live = append(live[:i], live[i+1:]...)
			ups = append(ups, rules.Update{Command: rules.CmdDeleteStrict, Match: e.m, Priority: e.pri})
		}
		apply(ups)
		// Let the workers classify at this version before the next
		// burst (at most 2 s), so that some lookups run between
		// bursts even when the writer has a processor to itself and
		// the workers share the other.
		seen := processed.Load()
		for deadline := time.Now().Add(2 * time.Second); processed.Load() < seen+2 && running.Load() > 0 && time.Now().Before(deadline); {
			runtime.Gosched()
		}
	}
	stop.Store(true)
	wg.Wait()

	isPermanent := map[rules.Match]bool{}
	for _, m := range permanent {
		isPermanent[m] = true
	}
	checked, during := 0, 0
	first := pipe.Version() - bursts
	for wi, log := range logs {
		for _, vd := range log {
			snap, ok := snapshots[vd.version]
			if !ok {
				t.Fatalf("worker %d: lookup at version %d, never published", wi, vd.version)
			}
			k := &keys[vd.frame]
			want := int32(-1)
			for _, e := range snap {
				if e.Matches(k) {
					want = int32(e.ID)
					break
				}
			}
			if vd.id != want {
				t.Fatalf("worker %d frame %d at version %d: rule %d, oracle %d (key %v)", wi, vd.frame, vd.version, vd.id, want, k)
			}
			if m, ok := flowMatch4(k); ok && isPermanent[m] && vd.id < 0 {
				t.Fatalf("frame %d of an installed flow missed at version %d", vd.frame, vd.version)
			}
			checked++
			if vd.version > first && vd.version < pipe.Version() {
				during++
			}
		}
	}
	if checked == 0 || during == 0 {
		t.Fatalf("checked %d verdicts, %d while bursts were applied", checked, during)
	}
	// The workers have quiesced: whatever the bursts retired can go now,
	// even if a loaded machine kept a worker inside an old version
	// through every burst's own recycling.
	pipe.Rebalance(0)
	if recycle && pipe.Recycled() == 0 {
		t.Fatal("nothing was recycled")
	}
	t.Logf("%d verdicts checked, %d at intermediate versions; %d rules and nodes recycled; filter %+v",
		checked, during, pipe.Recycled(), pipe.Table(0).Stats())
}

// TestWorkerHoldsRules: on a pipeline that recycles, the rules a worker's
// vector found stay as they were, even when the writer deletes them and adds
// others, until the worker quiesces (or processes its next vector); after
// that the writer reuses their memory.
func TestWorkerHoldsRules(t *testing.T) {
	c := mustLoad(t, "mix.pcap")
	p := NewParser()
	var frame = -1
	var m rules.Match
	for i := 0; i < c.Len() && frame < 0; i++ {
		if h, ok := p.Parse(c.Frame(i), c.Link(i), uint32(c.Iface[i])+1); ok {
			var k rules.Key
			h.Key(&k)
			if fm, ok := flowMatch4(&k); ok {
				frame, m = i, fm
			}
		}
	}
	if frame < 0 {
		t.Fatal("no IPv4 TCP/UDP frame in the capture")
	}
	pipe, err := rules.New(&rules.Config{Recycle: true, UnlinkAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(ups ...rules.Update) {
		t.Helper()
		for i, err := range pipe.ApplyBurst(ups, true).Errs {
			if err != nil {
				t.Fatalf("update %d: %v", i, err)
			}
		}
	}
	out := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}
	apply(rules.Update{Match: m, Priority: 100, ID: 7, Instructions: out})
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2}})
	w := sw.Worker(0)
	vec := new(Vector)
	c.fillIdx(vec, []int32{int32(frame)})
	w.Process(vec)
	hits, _, _ := w.Verdicts()
	if len(hits) != 1 || hits[0] == nil || hits[0].ID != 7 {
		t.Fatalf("verdicts %v, want the rule of ID 7", hits)
	}
	held := hits[0]
	// Delete it, then add flows that need memory: none may take its.
	others := func(id int) []rules.Update {
		var ups []rules.Update
		for i := range 8 {
			var o rules.Match
			o.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
			o.SetExact(rules.FieldIPv4Src, uint64(0x0b000000+id*8+i))
			ups = append(ups, rules.Update{Match: o, Priority: 10, ID: id*8 + i + 1000, Instructions: out})
		}
		return ups
	}
	apply(rules.Update{Command: rules.CmdDeleteStrict, Match: m, Priority: 100})
	apply(others(1)...)
	apply(others(2)...)
	if held.ID != 7 || held.Match != m || pipe.Recycled() != 0 {
		t.Fatalf("while the worker held it: rule ID %d, match %v, %d recycled; want ID 7, %v, none", held.ID, held.Match, pipe.Recycled(), m)
	}
	w.Quiesce()
	apply() // the next burst reclaims
	if pipe.Recycled() == 0 {
		t.Fatal("nothing recycled after the worker quiesced")
	}
	apply(others(3)...)
	if held.ID == 7 {
		t.Fatal("the held rule's memory was not reused after the worker quiesced")
	}
}

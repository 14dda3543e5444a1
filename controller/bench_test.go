package controller

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

// exactFlows returns n distinct exact 5-tuple flows (tcp, both addresses
// and ports) starting at offset, as genflows.py in the shared captures
// makes for Open vSwitch.
func exactFlows(n, offset int) []rules.Update {
	ups := make([]rules.Update, n)
	for i := range ups {
		k := uint64(i + offset)
		var m rules.Match
		m.SetExact(rules.FieldEthType, 0x0800)
		m.SetExact(rules.FieldIPProto, 6)
		m.SetExact(rules.FieldIPv4Src, 0x7f100000|k&0xfffff)
		m.SetExact(rules.FieldIPv4Dst, 0x7f200000|k&0xfffff)
		m.SetExact(rules.FieldL4Src, 1024+k%50000)
		m.SetExact(rules.FieldL4Dst, 80)
		ups[i] = rules.Update{Match: m, Priority: 100, Instructions: []rules.Instruction{
			{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}},
		}}
	}
	return ups
}

var deleteAll = []rules.Update{{Command: rules.CmdDelete, Table: 0xff}}

type benchTarget struct {
	name string
	dial func() (net.Conn, error)
	// settle, if set, waits until the switch has done the idle work that
	// earlier updates left (on ofswitch, what Agent.Run's maintenance
	// does between bursts: unlinking deleted rules).
	settle func()
}

func benchTargets(b *testing.B) []benchTarget {
	a, addr := startBenchAgent(b)
	ts := []benchTarget{{name: "ofswitch", dial: func() (net.Conn, error) { return net.Dial("tcp", addr) }, settle: func() {
		// Serve runs no idle maintenance (Run does): do its work here.
		for range 100 {
			time.Sleep(time.Millisecond) // past the unlink grace
			var st rules.TableStats
			a.FlowTables().Read(func(p *rules.Pipeline) {
				p.Rebalance(4096)
				st = p.Table(0).Stats()
			})
			if st.Rules == st.Flows {
				return
			}
		}
	}}}
	if ovs := startOVS(b); ovs != nil {
		ts = append(ts, benchTarget{name: "openvswitch", dial: func() (net.Conn, error) { return ovs.Dial("127.0.0.1:16653") }})
	}
	return ts
}

// clean deletes every flow from t and lets it settle.
func clean(b *testing.B, t benchTarget) {
	push(b, t, deleteAll, 1)
	if t.settle != nil {
		t.settle()
	}
}

// install empties t and then installs n exact flows that the benchmarks'
// own do not overlap.
func install(b *testing.B, t benchTarget, n int) {
	clean(b, t)
	if n > 0 {
		push(b, t, exactFlows(n, 1_000_000), 1024)
	}
}

// strictDeletes returns DELETE_STRICT updates for the flows ups adds.
func strictDeletes(ups []rules.Update) []rules.Update {
	del := make([]rules.Update, len(ups))
	for i := range ups {
		del[i] = rules.Update{Command: rules.CmdDeleteStrict, Table: ups[i].Table, Match: ups[i].Match, Priority: ups[i].Priority}
	}
	return del
}

// startOVS starts Open vSwitch for a benchmark, or returns nil where it
// cannot run: benchmarks measure what is there and do not fail for a
// missing peer.
func startOVS(b *testing.B) *ovstest.Switch {
	if err := ovstest.Available(testutil.RepoRoot(b)); err != nil {
		b.Logf("no Open vSwitch baseline: %v", err)
		return nil
	}
	return ovstest.Start(b)
}

func push(b *testing.B, t benchTarget, ups []rules.Update, batch int) *PushResult {
	nc, err := t.dial()
	if err != nil {
		b.Fatal(err)
	}
	res, err := PushConn(context.Background(), nc, ups, &PushConfig{Batch: batch})
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Errors) != 0 {
		b.Fatalf("%s refused %d flows: %v", t.name, len(res.Errors), res.Errors[0])
	}
	return res
}

// BenchmarkPush pushes n exact flows in batches of 256 into an empty table,
// then deletes them, on ofswitch and (where it runs) Open vSwitch. Between
// pushes, untimed, each switch is emptied and ofswitch does the idle work
// that Agent.Run does after bursts (see benchTarget.settle), so that a push
// does not pay for the delete before it.
func BenchmarkPush(b *testing.B) {
	for _, t := range benchTargets(b) {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/flows=%d", t.name, n), func(b *testing.B) {
				ups := exactFlows(n, 0)
				var flows float64
				var p50 float64
				for b.Loop() {
					res := push(b, t, ups, 256)
					flows += float64(res.Flows)
					p50 += float64(res.LatencyP50.Microseconds())
					b.StopTimer()
					clean(b, t)
					b.StartTimer()
				}
				b.ReportMetric(flows/b.Elapsed().Seconds(), "flows/s")
				b.ReportMetric(p50/float64(b.N), "µs-p50-batch")
			})
		}
	}
}

// BenchmarkBatch256 measures one 256-flow batch plus barrier into an empty
// table and into one that holds 100K flows.
func BenchmarkBatch256(b *testing.B) {
	for _, t := range benchTargets(b) {
		for _, size := range []int{0, 100_000} {
			b.Run(fmt.Sprintf("%s/installed=%d", t.name, size), func(b *testing.B) {
				install(b, t, size)
				batch := exactFlows(256, 0)
				del := strictDeletes(batch)
				// The garbage of the setup is collected now, not while
				// the first batches are measured.
				runtime.GC()
				var lat float64
				for b.Loop() {
					lat += float64(push(b, t, batch, 256).LatencyMax.Microseconds())
					b.StopTimer()
					push(b, t, del, 256)
					if t.settle != nil {
						t.settle()
					}
					b.StartTimer()
				}
				b.ReportMetric(lat/float64(b.N), "µs/batch")
				b.StopTimer()
				push(b, t, deleteAll, 1)
			})
		}
	}
}

// BenchmarkBatch256Steady measures 256-flow batches as a controller that
// keeps its connection sends them: 40 batches on one connection, each
// sent after the barrier reply of the one before (Window 1), into an empty
// table and into one that holds 100K flows. It reports the median and the
// 99th percentile of the 40 barrier latencies, averaged over iterations;
// BenchmarkBatch256 is the cold case, one batch on a new connection.
func BenchmarkBatch256Steady(b *testing.B) {
	const batches = 40
	for _, t := range benchTargets(b) {
		for _, size := range []int{0, 100_000} {
			b.Run(fmt.Sprintf("%s/installed=%d", t.name, size), func(b *testing.B) {
				install(b, t, size)
				ups := exactFlows(batches*256, 0)
				del := strictDeletes(ups)
				runtime.GC()
				var p50, p99 float64
				for b.Loop() {
					nc, err := t.dial()
					if err != nil {
						b.Fatal(err)
					}
					res, err := PushConn(context.Background(), nc, ups, &PushConfig{Batch: 256, Window: 1})
					if err != nil || len(res.Errors) != 0 {
						b.Fatalf("%s: %v (%d refused)", t.name, err, len(res.Errors))
					}
					p50 += float64(res.LatencyP50.Microseconds())
					p99 += float64(res.LatencyP99.Microseconds())
					b.StopTimer()
					push(b, t, del, 1024)
					if t.settle != nil {
						t.settle()
					}
					runtime.GC()
					b.StartTimer()
				}
				b.ReportMetric(p50/float64(b.N), "µs-p50/batch")
				b.ReportMetric(p99/float64(b.N), "µs-p99/batch")
				b.StopTimer()
				push(b, t, deleteAll, 1)
			})
		}
	}
}

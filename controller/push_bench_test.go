package controller_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/rules"
)

// The benchmarks of this file push flows into an agent, and into Open
// vSwitch where it runs, with controller/push.

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
			if a.Settle() {
				return
			}
		}
	}}}
	if ovs := controller.StartOVS(b); ovs != nil {
		ts = append(ts, benchTarget{name: "openvswitch", dial: func() (net.Conn, error) { return ovs.Dial("127.0.0.1:16653") }})
	}
	return ts
}

// clean deletes every flow from t and lets it settle.
func clean(b *testing.B, t benchTarget) {
	pushInto(b, t, controller.DeleteAll, 1)
	if t.settle != nil {
		t.settle()
	}
}

// install empties t and then installs n exact flows that the benchmarks'
// own do not overlap.
func install(b *testing.B, t benchTarget, n int) {
	clean(b, t)
	if n > 0 {
		pushInto(b, t, flowgen.Exact(n, 1_000_000), 1024)
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

func pushInto(b *testing.B, t benchTarget, ups []rules.Update, batch int) *push.Result {
	nc, err := t.dial()
	if err != nil {
		b.Fatal(err)
	}
	res, err := push.Flows(context.Background(), "", ups, &push.Config{Batch: batch, Conn: nc})
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
				ups := flowgen.Exact(n, 0)
				var flows float64
				var p50 float64
				for b.Loop() {
					res := pushInto(b, t, ups, 256)
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
				batch := flowgen.Exact(256, 0)
				del := strictDeletes(batch)
				// The garbage of the setup is collected now, not while
				// the first batches are measured.
				runtime.GC()
				var lat float64
				for b.Loop() {
					lat += float64(pushInto(b, t, batch, 256).LatencyMax.Microseconds())
					b.StopTimer()
					pushInto(b, t, del, 256)
					if t.settle != nil {
						t.settle()
					}
					b.StartTimer()
				}
				b.ReportMetric(lat/float64(b.N), "µs/batch")
				b.StopTimer()
				pushInto(b, t, controller.DeleteAll, 1)
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
				ups := flowgen.Exact(batches*256, 0)
				del := strictDeletes(ups)
				runtime.GC()
				var p50, p99 float64
				for b.Loop() {
					nc, err := t.dial()
					if err != nil {
						b.Fatal(err)
					}
					res, err := push.Flows(context.Background(), "", ups, &push.Config{Batch: 256, Window: 1, Conn: nc})
					if err != nil || len(res.Errors) != 0 {
						b.Fatalf("%s: %v (%d refused)", t.name, err, len(res.Errors))
					}
					p50 += float64(res.LatencyP50.Microseconds())
					p99 += float64(res.LatencyP99.Microseconds())
					b.StopTimer()
					pushInto(b, t, del, 1024)
					if t.settle != nil {
						t.settle()
					}
					runtime.GC()
					b.StartTimer()
				}
				b.ReportMetric(p50/float64(b.N), "µs-p50/batch")
				b.ReportMetric(p99/float64(b.N), "µs-p99/batch")
				b.StopTimer()
				pushInto(b, t, controller.DeleteAll, 1)
			})
		}
	}
}

// startBenchAgent serves an agent with one table on a loopback port until
// the benchmark ends.
func startBenchAgent(b *testing.B) (*controller.Agent, string) {
	a, err := controller.New(&controller.Config{Logger: controller.Quiet, Tables: 1})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go a.Serve(ctx, l)
	b.Cleanup(cancel)
	return a, l.Addr().String()
}

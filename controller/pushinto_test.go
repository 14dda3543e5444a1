package controller_test

import (
	"context"
	"math"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/tables"
)

// The tests of this file push flows into an agent with controller/push,
// which the agent's package cannot import.

// TestBurstFigures pushes batches of flows over a connection and checks
// the figures each burst records: per-update costs and filter iterations
// for every update, the filters' state after the burst, and lookup rates
// from a data plane whose counter grows at a known rate.
func TestBurstFigures(t *testing.T) {
	pipe, err := rules.New(&rules.Config{FilterBuckets: 64, MaxOccupancy: 0.99, BloomAfter: 0})
	if err != nil {
		t.Fatal(err)
	}
	// One lookup per µs since t0: 1e6 lookups a second.
	t0 := time.Now()
	lookups := func() uint64 { return uint64(time.Since(t0).Microseconds()) }
	var (
		mu    sync.Mutex
		costs [][]rules.UpdateCost
	)
	// Bursts at the barriers only: with the default batch wait (1 ms) a
	// batch whose second write the push client is slow to send (a loaded
	// machine) would be applied as two bursts.
	ft := tables.New(pipe, &tables.Config{Lookups: lookups, OnBurst: func(b tables.Burst) {
		mu.Lock()
		costs = append(costs, append([]rules.UpdateCost(nil), b.Costs...))
		mu.Unlock()
	}})
	a, addr := controller.StartAgent(t, &controller.Config{FlowTables: ft, BatchWait: time.Hour})
	const batch, batches = 60, 4 // 240 flows: 94% of a 64-bucket filter
	ups := flowgen.Exact(batch*batches, 0)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := push.Flows(context.Background(), "", ups, &push.Config{Batch: batch, Window: 1, Conn: nc})
	if err != nil || len(res.Errors) != 0 {
		t.Fatalf("push: %v (%d refused)", err, len(res.Errors))
	}
	bs := a.FlowTables().Bursts()
	if len(bs) != batches || len(costs) != batches {
		t.Fatalf("%d bursts recorded and %d seen by OnBurst, want %d", len(bs), len(costs), batches)
	}
	var inserts, bloomBefore int
	var during, before []float64
	for i, b := range bs {
		if b.Updates != batch || b.Costs != nil || len(costs[i]) != batch {
			t.Fatalf("burst %d: %d updates, %d costs kept, %d costs given to OnBurst; want %d, 0, %d", i, b.Updates, len(b.Costs), len(costs[i]), batch, batch)
		}
		var sum time.Duration
		var most, iters int
		for _, c := range costs[i] {
			sum += c.Time
			most = max(most, c.Iterations)
			iters += c.Iterations
		}
		for _, d := range []struct {
			name string
			d    tables.Dist
		}{{"update ns", b.UpdateNs}, {"iterations", b.Iterations}} {
			if !(d.d.P50 <= d.d.P99 && d.d.P99 <= d.d.Max && d.d.Mean <= d.d.Max && d.d.P50 > 0) {
				t.Errorf("burst %d: %s %+v out of order", i, d.name, d.d)
			}
		}
		if b.UpdateNs.N != batch || math.Abs(b.UpdateNs.Mean*batch-float64(sum.Nanoseconds())) > 1 {
			t.Errorf("burst %d: update ns %+v; the costs add up to %v over %d updates", i, b.UpdateNs, sum, batch)
		}
		if b.Apply < sum || b.Latency < b.Apply {
			t.Errorf("burst %d: apply %v, latency %v, the updates %v", i, b.Apply, b.Latency, sum)
		}
		// Every flow is new: each inserts a key into the filter.
		if b.Iterations.N != batch || b.Iterations.Max != float64(most) || math.Abs(b.Iterations.Mean*batch-float64(iters)) > 1e-6 {
			t.Errorf("burst %d: iterations %+v; the costs have %d in all, at most %d", i, b.Iterations, iters, most)
		}
		inserts += b.Iterations.N
		if b.FilterLen != inserts || b.BloomLen < bloomBefore || b.Occupancy != float64(inserts)/(4*64) {
			t.Errorf("burst %d: filter %d elements (%d Bloom), occupancy %v; want %d elements, occupancy %v", i, b.FilterLen, b.BloomLen, b.Occupancy, inserts, float64(inserts)/(4*64))
		}
		bloomBefore = b.BloomLen
		during = append(during, b.LookupsDuring)
		if i > 0 {
			before = append(before, b.LookupsBefore)
		}
	}
	// The counter and the agent's clock are read at slightly different
	// instants, and a goroutine descheduled between them skews one burst
	// of tens of µs: the medians are what must come out near 1e6/s.
	for _, r := range []struct {
		name  string
		rates []float64
	}{{"during", during}, {"before", before}} {
		slices.Sort(r.rates)
		if m := r.rates[len(r.rates)/2]; m < 0.7e6 || m > 1.4e6 {
			t.Errorf("lookups/s %s the bursts %.0f (median %.0f), want about 1e6", r.name, r.rates, m)
		}
	}
	if last := bs[batches-1]; last.BloomLen == 0 {
		t.Errorf("no element in the Bloom part at %.0f%% occupancy with t = 0", 100*last.Occupancy)
	}
}

// TestSlowReader: a controller that stops reading must not hold up the
// others. Deleting 60000 flows with SEND_FLOW_REM sends a FLOW_REMOVED
// each (7 MB, more than socket buffers hold) to every controller; the
// pushing one still gets its barrier reply while the other reads nothing.
func TestSlowReader(t *testing.T) {
	a, addr := controller.StartAgent(t, &controller.Config{EchoInterval: time.Minute})
	slow := dialHello(t, addr)
	defer slow.Close()
	ups := flowgen.Exact(60000, 0)
	for i := range ups {
		ups[i].Flags = rules.FlagSendFlowRem
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := push.Flows(ctx, "tcp:"+addr, ups, &push.Config{Batch: 1024}); err != nil {
		t.Fatal(err)
	}
	res, err := push.Flows(ctx, "tcp:"+addr, controller.DeleteAll, nil)
	if err != nil || len(res.Errors) != 0 {
		t.Fatalf("delete all beside a slow reader: %v %v", err, res)
	}
	deadline := time.Now().Add(10 * time.Second)
	for a.Conns() > 1 && time.Now().Before(deadline) { // the pushers leave
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.Conns(); n != 1 {
		t.Fatalf("%d connections, want the slow reader still there", n)
	}
}

// dialHello connects to the agent at addr and exchanges HELLOs over
// OpenFlow 1.3, then reads nothing more.
func dialHello(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	h := openflow.NewHello(1, openflow.Version13)
	b, err := h.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(b); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	msg, err := openflow.NewReader(nc, 0).Next()
	if err != nil || openflow.Type(msg[1]) != openflow.TypeHello {
		t.Fatalf("waiting for the switch's HELLO: %x, %v", msg, err)
	}
	return nc
}

// deadlineCounter counts a connection's SetReadDeadline calls.
type deadlineCounter struct {
	net.Conn
	n atomic.Int64
}

func (c *deadlineCounter) SetReadDeadline(t time.Time) error {
	c.n.Add(1)
	return c.Conn.SetReadDeadline(t)
}

// TestBatchesArmNoDeadline checks that batches which arrive whole with
// their barrier do not move the connection's read deadline (each move is a
// timer update, and one that comes sooner may wake a thread): the
// batch-wait bound is armed only when a batch waits for a read.
func TestBatchesArmNoDeadline(t *testing.T) {
	a, err := controller.New(&controller.Config{Logger: controller.Quiet})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srv := make(chan *deadlineCounter, 1)
	done := make(chan error, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			close(srv)
			return
		}
		dc := &deadlineCounter{Conn: nc}
		srv <- dc
		done <- a.ServeConn(context.Background(), dc)
	}()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	res, err := push.Flows(context.Background(), "", flowgen.Exact(40*256, 0), &push.Config{Batch: 256, Window: 1, Conn: nc})
	if err != nil || res.ErrCount != 0 || res.Batches != 40 {
		t.Fatalf("push: %v %+v", err, res)
	}
	dc := <-srv
	<-done
	// The inactivity probe's, once; 40 batches that moved it would be 40
	// or more.
	if n := dc.n.Load(); n > 2 {
		t.Errorf("40 batches with their barriers moved the read deadline %d times, want at most 2", n)
	}
}

package controller

import (
	"context"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/tables"
)

// discardConn is a net.Conn whose writes go nowhere.
type discardConn struct{ net.Conn }

func (discardConn) Write(b []byte) (int, error)      { return len(b), nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }
func (discardConn) SetReadDeadline(time.Time) error  { return nil }
func (discardConn) Close() error                     { return nil }

// BenchmarkSwitchPush100K is the switch's side of BenchmarkPushProcess
// (cmd/ofswitch) without the network, the client or the processes' start:
// the FLOW_MODs of 100K exact flows in batches of 256, each batch ended by
// a BARRIER_REQUEST, handed to a connection's dispatch (conn.handle) as
// its loop reads them, into an empty table; replies go nowhere. Between
// pushes, untimed, the flows are deleted and the owner's idle work left
// 50 ms to unlink them. "cpu-ns/flow" is the CPU time of the pushing
// thread alone (the connection's goroutine, locked to it), without the
// collector's and the prefaulter's work on other threads: on a machine
// other processes share, it moves much less than "ns/flow", the wall time.
func BenchmarkSwitchPush100K(b *testing.B) {
	ft, c := benchSwitchConn(b)
	ups := flowgen.Exact(100_000, 0)
	var msgs [][]byte
	xid := uint32(1)
	barrier := func() {
		m, err := (&openflow.Empty{Header: openflow.Header{Version: openflow.Version13, Type: openflow.TypeBarrierRequest, XID: xid}}).MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		xid++
		msgs = append(msgs, m)
	}
	for i := range ups {
		var fm openflow.FlowMod
		ofrules.WireFlowMod(&fm, &ups[i])
		fm.Header = openflow.Header{Version: openflow.Version13, XID: xid}
		xid++
		m, err := fm.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, m)
		if i%256 == 255 || i == len(ups)-1 {
			barrier()
		}
	}
	var del [][]byte
	for _, u := range deleteAll {
		var fm openflow.FlowMod
		ofrules.WireFlowMod(&fm, &u)
		fm.Header = openflow.Header{Version: openflow.Version13, XID: 7}
		m, err := fm.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		del = append(del, m)
	}
	run := func(ms [][]byte) {
		for _, m := range ms {
			if err := c.handle(m); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.flush(); err != nil {
			b.Fatal(err)
		}
	}
	settle := func() {
		run(del)
		time.Sleep(50 * time.Millisecond) // the owner's idle work
	}
	run(msgs)
	var flows int
	ft.Read(func(p *rules.Pipeline) { flows = p.Table(0).Stats().Flows })
	if flows != len(ups) {
		b.Fatalf("%d flows in table 0 after the push, want %d", flows, len(ups))
	}
	settle()
	// The loop's own thread: its CPU time is the connection's, without
	// the collector's and the prefaulter's on other threads.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpu, wall time.Duration
	for b.Loop() {
		c0, w0 := threadCPU(b), time.Now()
		run(msgs)
		cpu += threadCPU(b) - c0
		wall += time.Since(w0)
		b.StopTimer()
		settle()
		b.StartTimer()
	}
	b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N*len(ups)), "ns/flow")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(ups)), "cpu-ns/flow")
}

// threadCPU returns the calling thread's CPU time so far
// (/proc/thread-self/schedstat, in nanoseconds).
func threadCPU(b *testing.B) time.Duration {
	s, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(s))
	if len(f) == 0 {
		b.Fatalf("schedstat: %q", s)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return time.Duration(ns)
}

// BenchmarkSwitchPushFlow is BenchmarkSwitchPush100K's work one flow at a
// time, for counting (bench/cachegrind.sh, GOMAXPROCS=1): an iteration
// is one exact flow's FLOW_MOD handed to the connection's dispatch, in
// batches of 256 each ended by a BARRIER_REQUEST (and its flush), into a
// table that holds the 100K flows pushed before the loop and the ones
// the loop has added. The loop adds up to 100K flows; past them,
// untimed, every flow is deleted and the first 100K pushed again. A count
// takes both runs' iterations under 100K (bench/cachegrind.sh ... 10000
// 90000): cachegrind counts the untimed deletes and refill too, 200K
// deletes' worth in a run past them.
func BenchmarkSwitchPushFlow(b *testing.B) {
	ft, c := benchSwitchConn(b)
	const base, extra, batch = 100_000, 100_000, 256
	ups := flowgen.Exact(base+extra, 0)
	marshal := func(u *rules.Update, xid uint32) []byte {
		var fm openflow.FlowMod
		ofrules.WireFlowMod(&fm, u)
		fm.Header = openflow.Header{Version: openflow.Version13, XID: xid}
		m, err := fm.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	msgs := make([][]byte, len(ups))
	for i := range ups {
		msgs[i] = marshal(&ups[i], uint32(i+1))
	}
	barrier, err := (&openflow.Empty{Header: openflow.Header{Version: openflow.Version13, Type: openflow.TypeBarrierRequest, XID: 1 << 30}}).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	var del [][]byte
	for i := range deleteAll {
		del = append(del, marshal(&deleteAll[i], 7))
	}
	handle := func(m []byte) {
		if err := c.handle(m); err != nil {
			b.Fatal(err)
		}
	}
	flush := func() {
		if err := c.flush(); err != nil {
			b.Fatal(err)
		}
	}
	fill := func() {
		for i, m := range msgs[:base] {
			handle(m)
			if i%batch == batch-1 {
				handle(barrier)
			}
		}
		handle(barrier)
		flush()
	}
	fill()
	next := base
	for b.Loop() {
		if next == len(msgs) {
			b.StopTimer()
			handle(barrier)
			for _, m := range del {
				handle(m)
			}
			flush()
			time.Sleep(50 * time.Millisecond) // the owner's idle work
			fill()
			next = base
			b.StartTimer()
		}
		handle(msgs[next])
		next++
		if (next-base)%batch == 0 {
			handle(barrier)
			flush()
		}
	}
	b.StopTimer()
	handle(barrier)
	flush()
	var flows int
	ft.Read(func(p *rules.Pipeline) { flows = p.Table(0).Stats().Flows })
	if want := next; flows != want {
		b.Fatalf("%d flows in table 0, want %d", flows, want)
	}
}

// benchSwitchConn returns the flow tables' owner as ofswitch run makes it
// (bridge.New): eight tables, memory recycled and made ahead of the
// bursts, no per-update costs, their owner's idle work and prefaulting
// running as in run until the benchmark ends; and an OpenFlow 1.3
// connection of an agent on them whose replies go nowhere.
func benchSwitchConn(b *testing.B) (*tables.Owner, *conn) {
	pipe, err := rules.New(&rules.Config{Tables: 8, PrefaultRules: 1024, Recycle: true})
	if err != nil {
		b.Fatal(err)
	}
	ft := tables.New(pipe, &tables.Config{NoUpdateCosts: true})
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go ft.Run(ctx, nil)
	a, err := New(&Config{Logger: quiet, FlowTables: ft})
	if err != nil {
		b.Fatal(err)
	}
	c := newConn(a, discardConn{})
	c.version = openflow.Version13
	return ft, c
}

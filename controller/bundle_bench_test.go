package controller

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// BenchmarkBundleDuplicates sends, over a loopback connection, an atomic
// bundle of 10,000 updates of one flow (ADDs of the same match and
// priority, or MODIFY_STRICTs of it, each with another output port) to a
// switch holding 10,000 other flows, and commits it. Each bundle costs
// what 10,000 updates of different flows cost: the duplicates are not
// copied into one another (see rules.TestDuplicatesInOneBurst).
// ms/bundle runs from the first BUNDLE_ADD sent to the commit's reply
// (less a collection between the two, for MB-held), ms/commit from the
// commit sent to its reply (how long the tables are busy with it).
// MB-alloc/bundle is what the process allocated meanwhile, switch and
// client together (the messages are encoded before); MB-held the most an
// open bundle held, live after a collection, before its commit.
//
// The baseline, BenchmarkBundleDuplicates/distinct, is a bundle of 10,000
// MODIFY_STRICTs of the 10,000 other flows, one each.
func BenchmarkBundleDuplicates(b *testing.B) {
	for _, cmd := range []rules.Command{rules.CmdAdd, rules.CmdModifyStrict} {
		b.Run(fmt.Sprintf("%v", cmd), func(b *testing.B) { benchBundleDuplicates(b, cmd, false) })
	}
	b.Run("distinct", func(b *testing.B) { benchBundleDuplicates(b, rules.CmdModifyStrict, true) })
}

func benchBundleDuplicates(b *testing.B, cmd rules.Command, distinct bool) {
	const n = 10_000
	a, err := New(&Config{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, l) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			b.Error(err)
		}
	}()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	r := openflow.NewReader(nc, 0)
	await := func(want openflow.Type) []byte {
		b.Helper()
		nc.SetReadDeadline(time.Now().Add(time.Minute))
		for {
			msg, err := r.Next()
			if err != nil {
				b.Fatalf("waiting for %v: %v", want, err)
			}
			switch openflow.Type(msg[1]) {
			case want:
				return msg
			case openflow.TypeError:
				var em openflow.ErrorMsg
				em.UnmarshalBinary(msg)
				b.Fatalf("waiting for %v: %+v", want, em)
			}
		}
	}
	write := func(msgs ...openflow.Message) []byte {
		var buf []byte
		for _, m := range msgs {
			if buf, err = m.AppendBinary(buf); err != nil {
				b.Fatal(err)
			}
		}
		return buf
	}
	hello := openflow.NewHello(1, openflow.Version14)
	nc.Write(write(&hello))
	await(openflow.TypeHello)

	// The 10,000 other flows, and the one the bundle updates.
	base := flowgen.Exact(n, 0)
	dup := rules.Update{Priority: 9}
	dup.Match.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	dup.Match.SetExact(rules.FieldIPv4Dst, 0x0a0a0a0a)
	var setup []byte
	for i, u := range append(base, dup) {
		var fm openflow.FlowMod
		ofrules.WireFlowMod(&fm, &u)
		fm.Header = openflow.Header{Version: openflow.Version14, XID: uint32(i + 2)}
		setup = append(setup, write(&fm)...)
	}
	barrier := openflow.Empty{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBarrierRequest, XID: 1}}
	nc.Write(append(setup, write(&barrier)...))
	await(openflow.TypeBarrierReply)

	// Each bundle: open, n BUNDLE_ADDs, then (timed apart) the commit.
	bundle := func(id uint32) (adds, commit []byte) {
		h := openflow.Header{Version: openflow.Version14, XID: id}
		adds = write(&openflow.BundleControl{Header: h, BundleID: id, Type: openflow.BundleOpenRequest, Flags: openflow.BundleAtomic})
		for i := range n {
			u := dup
			if distinct {
				u = base[i]
			}
			u.Command = cmd
			u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions,
				Actions: []rules.Action{{Kind: rules.ActionOutput, Port: uint32(1 + i%1000)}}}}
			var fm openflow.FlowMod
			ofrules.WireFlowMod(&fm, &u)
			fm.Header = h
			inner := write(&fm)
			adds = append(adds, write(&openflow.BundleAddMessage{Header: h, BundleID: id, Flags: openflow.BundleAtomic, Message: inner})...)
		}
		commit = write(&openflow.BundleControl{Header: h, BundleID: id, Type: openflow.BundleCommitRequest, Flags: openflow.BundleAtomic})
		return adds, commit
	}
	var addNs, commitNs, alloc, held float64
	var ms runtime.MemStats
	// allocated returns what the process has allocated so far.
	allocated := func() float64 { runtime.ReadMemStats(&ms); return float64(ms.TotalAlloc) }
	id := uint32(100)
	for b.Loop() {
		b.StopTimer()
		adds, commit := bundle(id)
		id++
		runtime.GC()
		a0 := allocated()
		heap0 := float64(ms.HeapAlloc)
		b.StartTimer()

		start := time.Now()
		go nc.Write(adds)
		await(openflow.TypeBundleControl) // the open's reply
		// The adds are in when an echo sent after them is answered.
		nc.Write(write(&openflow.Empty{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeEchoRequest, XID: 7}}))
		await(openflow.TypeEchoReply)
		addNs += float64(time.Since(start))

		// What the open bundle holds: its messages, translated.
		b.StopTimer()
		alloc += allocated() - a0
		runtime.GC()
		runtime.ReadMemStats(&ms)
		held = max(held, float64(ms.HeapAlloc)-heap0)
		runtime.KeepAlive(adds) // counted in heap0 too
		a1 := allocated()
		b.StartTimer()

		mid := time.Now()
		nc.Write(commit)
		rep := await(openflow.TypeBundleControl)
		commitNs += float64(time.Since(mid))
		b.StopTimer()
		alloc += allocated() - a1
		var bc openflow.BundleControl
		if err := bc.UnmarshalBinary(rep); err != nil || bc.Type != openflow.BundleCommitReply {
			b.Fatalf("commit: %+v %v", bc, err)
		}
		b.StartTimer()
	}
	var got int
	a.FlowTables().Read(func(p *rules.Pipeline) { got = p.Table(0).Stats().Flows })
	if got != n+1 {
		b.Fatalf("%d flows after the bundles, want %d", got, n+1)
	}
	runs := float64(b.N)
	b.ReportMetric((addNs+commitNs)/runs/1e6, "ms/bundle")
	b.ReportMetric(commitNs/runs/1e6, "ms/commit")
	b.ReportMetric(alloc/runs/1e6, "MB-alloc/bundle")
	b.ReportMetric(held/1e6, "MB-held")
}

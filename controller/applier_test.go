package controller

import (
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestApplierOracle drives one connection with a random stream of
// FLOW_MODs (adds, overlapping adds that the flow tables refuse, strict
// modifies and deletes, FLOW_MODs refused as they are read), barriers and
// aggregate stats requests, written in random pieces at random moments
// while the replies are read, so that bursts go to the applier, or not,
// in every order. An oracle applies the same updates one at a time to a
// pipeline of its own. The replies must be what the oracle says, in its
// order: between two barrier or stats replies the errors of exactly the
// FLOW_MODs between the requests (in any order), and each stats reply
// counting the flows the oracle holds at that point; at the end both
// tables must hold the same rules. It runs with Config.OverlapBursts and
// without: without it no burst may go to the applier.
func TestApplierOracle(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		for _, overlap := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d/overlap=%v", seed, overlap), func(t *testing.T) { applierOracle(t, seed, overlap) })
		}
	}
}

// replyWant is a reply the oracle expects: a barrier or aggregate reply
// (with the flow count), preceded by the errors of the FLOW_MODs since
// the request before.
type replyWant struct {
	errs  []string // "xid type code", sorted
	xid   uint32
	stats bool
	flows uint32
}

func applierOracle(t *testing.T, seed uint64, overlap bool) {
	rng := rand.New(rand.NewPCG(seed, 7))
	const tables = 4
	a, addr := startAgent(t, &Config{Tables: tables, BatchMax: 1 + rng.IntN(64), BatchWait: time.Hour, OverlapBursts: overlap})
	oracle, err := rules.New(&rules.Config{Tables: tables})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, addr)
	c.handshake(openflow.Version13)

	flows := flowgen.Exact(24, 0)
	var (
		wire  []byte
		fm    openflow.FlowMod
		wants []replyWant
		errs  []string
		xid   uint32
	)
	errKey := func(xid uint32, typ openflow.ErrorType, code uint16) string {
		return fmt.Sprintf("%d %v %d", xid, typ, code)
	}
	for range 3000 {
		xid++
		switch p := rng.IntN(100); {
		case p < 75:
			u := flows[rng.IntN(len(flows))]
			u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions,
				Actions: []rules.Action{{Kind: rules.ActionOutput, Port: uint32(1 + rng.IntN(4))}}}}
			switch q := rng.IntN(100); {
			case q < 45:
			case q < 60: // refused when its burst is applied, if it overlaps
				u.Match.Set(rules.FieldL4Dst, 0, 0)
				u.Flags = rules.FlagCheckOverlap
			case q < 80:
				u.Command = rules.CmdModifyStrict
			default:
				u.Command, u.Instructions = rules.CmdDeleteStrict, nil
			}
			ofrules.WireFlowMod(&fm, &u)
			if u.Command == rules.CmdAdd && rng.IntN(20) == 0 {
				// Refused as it is read: no such table.
				fm.TableID = tables + 1
				errs = append(errs, errKey(xid, openflow.ErrTypeFlowModFailed, uint16(openflow.FlowModFailedBadTableID)))
			} else {
				res := oracle.ApplyBurst([]rules.Update{u}, false)
				if err := res.Errs[0]; err != nil {
					em := openflow.ErrorFor(ofrules.WireError(err), nil)
					errs = append(errs, errKey(xid, em.Type, em.Code))
				}
			}
			fm.Version, fm.XID = openflow.Version13, xid
			if wire, err = fm.AppendBinary(wire); err != nil {
				t.Fatal(err)
			}
		case p < 92:
			br := openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, xid)}
			wire, _ = br.AppendBinary(wire)
			sort.Strings(errs)
			wants = append(wants, replyWant{errs: errs, xid: xid})
			errs = nil
		default:
			agg := openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, xid), Part: openflow.MultipartAggregate,
				Flow: openflow.FlowStatsRequest{TableID: 0xff, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}}
			if wire, err = agg.AppendBinary(wire); err != nil {
				t.Fatal(err)
			}
			n := 0
			for tb := range uint8(tables) {
				n += len(oracle.Rules(tb))
			}
			sort.Strings(errs)
			wants = append(wants, replyWant{errs: errs, xid: xid, stats: true, flows: uint32(n)})
			errs = nil
		}
	}
	xid++
	br := openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, xid)}
	wire, _ = br.AppendBinary(wire)
	sort.Strings(errs)
	wants = append(wants, replyWant{errs: errs, xid: xid})

	// The writer sends the stream in pieces of 1 byte to 64 KB, now and
	// then pausing, while this goroutine reads.
	werr := make(chan error, 1)
	go func() {
		wr := rand.New(rand.NewPCG(seed, 8))
		for len(wire) > 0 {
			n := min(len(wire), 1+wr.IntN(1<<wr.IntN(17)))
			if _, err := c.nc.Write(wire[:n]); err != nil {
				werr <- err
				return
			}
			wire = wire[n:]
			if wr.IntN(8) == 0 {
				time.Sleep(time.Duration(wr.IntN(300)) * time.Microsecond)
			}
		}
		werr <- nil
	}()
	for i, w := range wants {
		var got []string
		for {
			c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			msg, err := c.r.Next()
			if err != nil {
				t.Fatalf("reply %d of %d (xid %d): %v", i, len(wants), w.xid, err)
			}
			typ := openflow.Type(msg[1])
			if typ == openflow.TypeError {
				var em openflow.ErrorMsg
				if err := em.UnmarshalBinary(msg); err != nil {
					t.Fatal(err)
				}
				got = append(got, errKey(em.XID, em.Type, em.Code))
				continue
			}
			if typ == openflow.TypeEchoRequest {
				continue
			}
			if xidOf(msg) != w.xid {
				t.Fatalf("reply %d: %v xid %d, want xid %d", i, typ, xidOf(msg), w.xid)
			}
			if w.stats {
				var rep openflow.MultipartReply
				if err := rep.UnmarshalBinary(msg); err != nil {
					t.Fatalf("reply %d: %v", i, err)
				}
				if rep.Aggregate.FlowCount != w.flows {
					t.Fatalf("aggregate reply xid %d: %d flows, the oracle holds %d", w.xid, rep.Aggregate.FlowCount, w.flows)
				}
			} else if typ != openflow.TypeBarrierReply {
				t.Fatalf("reply %d: %v, want a barrier reply", i, typ)
			}
			break
		}
		sort.Strings(got)
		if !slices.Equal(got, w.errs) {
			t.Fatalf("before reply xid %d: errors %q, the oracle's %q", w.xid, got, w.errs)
		}
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	a.FlowTables().Read(func(p *rules.Pipeline) {
		for tb := range uint8(tables) {
			if got, want := ruleStrings(p.Rules(tb)), ruleStrings(oracle.Rules(tb)); !slices.Equal(got, want) {
				t.Fatalf("table %d: the switch holds\n%q\nthe oracle\n%q", tb, got, want)
			}
		}
	})
	nerr := 0
	for _, w := range wants {
		nerr += len(w.errs)
	}
	t.Logf("%d replies, %d errors, %d bursts handed to the applier", len(wants), nerr, a.handOffs.Load())
	switch n := a.handOffs.Load(); {
	case overlap && n == 0:
		t.Error("no burst went to the applier")
	case !overlap && n != 0:
		t.Errorf("%d bursts went to the applier without OverlapBursts", n)
	}
}

// ruleStrings returns rs as sorted strings of what a controller set.
func ruleStrings(rs []*rules.Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, ofctl.FormatFlow(r.Table(), &r.Match, r.Priority, r.Cookie, r.IdleTimeout, r.HardTimeout, r.Flags, r.Instructions, ofctl.FlowStats{}))
	}
	sort.Strings(out)
	return out
}

// TestApplierWriteFails gives the applier a burst whose answers cannot be
// written: the burst takes effect all the same, the connection learns of
// the failure, and the applier ends.
func TestApplierWriteFails(t *testing.T) {
	a, err := New(&Config{Logger: quiet, BatchMax: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := net.Pipe()
	p2.Close()
	c := newConn(a, p1)
	c.version = openflow.Version13
	flows := flowgen.Exact(3, 0)
	var fm openflow.FlowMod
	for i := range flows {
		u := flows[i]
		if i == 2 { // overlaps the first: refused, and the error cannot go out
			u = flows[0]
			u.Match.Set(rules.FieldL4Dst, 0, 0)
			u.Flags = rules.FlagCheckOverlap
		}
		ofrules.WireFlowMod(&fm, &u)
		fm.Version, fm.XID = openflow.Version13, uint32(i+1)
		msg, err := fm.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.onFlowMod(msg); err != nil {
			t.Fatal(err)
		}
	}
	barrier, _ := (&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, 9)}).MarshalBinary()
	if err := c.handOff(barrier); err != nil {
		t.Fatal(err)
	}
	if len(c.batch) != 0 {
		t.Fatalf("%d FLOW_MODs still queued after the hand-off", len(c.batch))
	}
	err = c.flush()
	if _, ok := err.(*sendError); !ok {
		t.Fatalf("flush after the failed burst: %v, want a write error", err)
	}
	c.stopApplier()
	if n := len(a.FlowTables().Pipeline().Rules(0)); n != 2 {
		t.Fatalf("%d rules, want 2", n)
	}
}

package push

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// chunkSource gives updates in chunks of size, each named "s:N" (N its
// 1-based index), reusing one slice of Msgs as a file's source does; err,
// if set, comes after the chunks of updates before failAt.
type chunkSource struct {
	ups    []rules.Update
	size   int
	i      int
	buf    []Msg
	failAt int
	err    error
}

func (s *chunkSource) Next() ([]Msg, error) {
	if s.err != nil && s.i >= s.failAt {
		return nil, s.err
	}
	if s.i >= len(s.ups) {
		return nil, io.EOF
	}
	s.buf = s.buf[:0]
	for ; s.i < len(s.ups) && len(s.buf) < s.size; s.i++ {
		s.buf = append(s.buf, Msg{Flow: &s.ups[s.i], Where: "s:" + itoa(s.i+1)})
	}
	return s.buf, nil
}

// TestStreamLargeBatch: a batch larger than flushLen (5000 FLOW_MODs of
// 112 bytes against a flushLen of 64 KiB here, as push --batch 0 of a
// large file makes against 4 MiB) goes out in pieces as it is encoded,
// so that its encoding is never held whole; it is still one batch, and
// the switch's error for a flow after the first piece names that flow's
// line. As a bundle, it is one bundle.
func TestStreamLargeBatch(t *testing.T) {
	defer func(l int) { flushLen = l }(flushLen)
	flushLen = 64 << 10
	const n = 5000
	for _, bundle := range []bool{false, true} {
		a, addr := startAgent(t, &controller.Config{Tables: 2})
		ups := flowgen.Exact(n, 0)
		if !bundle {
			ups[4500].Instructions = []rules.Instruction{{Kind: rules.InstGotoTable, Table: 7}} // no table 7
		}
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		wc := &writeCounter{Conn: nc}
		res, err := Stream(context.Background(), "", &chunkSource{ups: ups, size: 1000}, &Config{Batch: n, Window: 1, Bundle: bundle, Conn: wc})
		if err != nil {
			t.Fatalf("bundle %v: %v", bundle, err)
		}
		if res.Flows != n || res.Batches != 1 || wc.writes < 8 {
			t.Fatalf("bundle %v: %d flows in %d batches, %d writes; want %d in 1, in 8 writes or more", bundle, res.Flows, res.Batches, wc.writes, n)
		}
		want := n
		if !bundle {
			want--
			if len(res.Errors) != 1 || res.Errors[0].Where != "s:4501" || res.Errors[0].Index != 4500 || res.NotApplied != 1 {
				t.Fatalf("errors %v, want one at s:4501", res.Errors)
			}
		} else if len(res.Errors) != 0 {
			t.Fatalf("bundle: errors %v", res.Errors)
		}
		if got := len(a.FlowTables().Pipeline().Rules(0)); got != want {
			t.Fatalf("bundle %v: table 0 holds %d rules, want %d", bundle, got, want)
		}
	}
}

// TestStreamSourceError: an error of the source ends the push with it,
// once the switch has answered the batches before it, which the Result
// counts.
func TestStreamSourceError(t *testing.T) {
	a, addr := startAgent(t, nil)
	boom := errors.New("boom")
	src := &chunkSource{ups: flowgen.Exact(3000, 0), size: 1000, failAt: 2000, err: boom}
	res, err := Stream(context.Background(), "tcp:"+addr, src, &Config{Batch: 500})
	if !errors.Is(err, boom) || res.Flows != 2000 || res.Batches != 4 {
		t.Fatalf("push: %v, %+v; want boom after 2000 flows", err, res)
	}
	if got := len(a.FlowTables().Pipeline().Rules(0)); got != 2000 {
		t.Fatalf("table 0 holds %d rules, want the batches before the error", got)
	}
}

// wireSource gives the FLOW_MODs of ups encoded in advance (Msg.Wire,
// OpenFlow 1.3, xid 0), in chunks of size, each named by File "w" and
// its 1-based index as Line.
type wireSource struct {
	msgs [][]byte
	size int
	i    int
	buf  []Msg
}

func (s *wireSource) Next() ([]Msg, error) {
	if s.i >= len(s.msgs) {
		return nil, io.EOF
	}
	s.buf = s.buf[:0]
	for ; s.i < len(s.msgs) && len(s.buf) < s.size; s.i++ {
		s.buf = append(s.buf, Msg{Wire: s.msgs[s.i], File: "w", Line: s.i + 1})
	}
	return s.buf, nil
}

// TestStreamWire: messages encoded in advance (Msg.Wire) go out as they
// are, each with an xid of the push's own: the switch holds the flows,
// and its error for one names that flow's File:Line and index. A push
// that bundles, whose messages go inside bundle add messages of another
// version, refuses them.
func TestStreamWire(t *testing.T) {
	const n = 3000
	ups := flowgen.Exact(n, 0)
	ups[2500].Instructions = []rules.Instruction{{Kind: rules.InstGotoTable, Table: 7}} // no table 7
	var enc ofrules.Encoder
	msgs := make([][]byte, n)
	for i := range ups {
		var err error
		if msgs[i], err = enc.Encode(nil, &ups[i], openflow.Version13, 0); err != nil {
			t.Fatal(err)
		}
	}
	a, addr := startAgent(t, &controller.Config{Tables: 2})
	res, err := Stream(context.Background(), "tcp:"+addr, &wireSource{msgs: msgs, size: 700}, &Config{Batch: 256})
	if err != nil {
		t.Fatal(err)
	}
	if res.Flows != n || res.Batches != (n+255)/256 {
		t.Fatalf("%d flows in %d batches, want %d in %d", res.Flows, res.Batches, n, (n+255)/256)
	}
	if len(res.Errors) != 1 || res.Errors[0].Where != "w:2501" || res.Errors[0].Index != 2500 || res.Errors[0].Type != openflow.TypeFlowMod {
		t.Fatalf("errors %v, want one FLOW_MOD error at w:2501", res.Errors)
	}
	if got := len(a.FlowTables().Pipeline().Rules(0)); got != n-1 {
		t.Fatalf("table 0 holds %d rules, want %d", got, n-1)
	}
	for i := range msgs {
		if xidOf(msgs[i]) != 0 {
			t.Fatalf("message %d: the source's copy was changed (xid %d)", i, xidOf(msgs[i]))
		}
	}
	_, err = Stream(context.Background(), "tcp:"+addr, &wireSource{msgs: msgs, size: 700}, &Config{Batch: 256, Bundle: true})
	if err == nil || !strings.Contains(err.Error(), "w:1") {
		t.Fatalf("bundled push of encoded messages: %v, want an error naming w:1", err)
	}
}

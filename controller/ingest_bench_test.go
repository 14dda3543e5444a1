package controller

import (
	"net"
	"testing"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// BenchmarkFlowModIngest measures what a connection spends on one FLOW_MOD
// before the burst is applied: decoding, validation and translation into a
// rules.Update, and queueing it. The flow tables are not touched. The
// flows are exact 5-tuples with one instruction list, as a controller
// pushes them: all but the first take the decoder's fast path (see
// ofrules.Decoder). In BenchmarkFlowModIngest/
// mixed every other flow has its ipv4_dst masked, so that the match shape
// changes with each FLOW_MOD and each takes the full path.
// BenchmarkFlowModIngest/handle is "same" as the connection's loop hands
// each message on (conn.handle: its dispatch, version and role checks).
func BenchmarkFlowModIngest(b *testing.B) {
	b.Run("same", func(b *testing.B) { benchIngest(b, false, false) })
	b.Run("mixed", func(b *testing.B) { benchIngest(b, true, false) })
	b.Run("handle", func(b *testing.B) { benchIngest(b, false, true) })
}

func benchIngest(b *testing.B, mixed, handle bool) {
	a, err := New(&Config{Logger: quiet, BatchMax: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	c := newConn(a, p1)
	c.version = openflow.Version13
	ups := flowgen.Exact(1024, 0)
	msgs := make([][]byte, len(ups))
	for i := range ups {
		if mixed && i%2 == 1 {
			ups[i].Match.SetPrefix(rules.FieldIPv4Dst, ups[i].Match.Key.Get(rules.FieldIPv4Dst), 24)
		}
		var fm openflow.FlowMod
		ofrules.WireFlowMod(&fm, &ups[i])
		fm.Header = openflow.Header{Version: openflow.Version13, XID: uint32(i)}
		if msgs[i], err = fm.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	ingest := c.onFlowMod
	if handle {
		ingest = c.handle
	}
	for b.Loop() {
		if err := ingest(msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
		if i++; i%len(msgs) == 0 {
			clear(c.batch)
			c.batch, c.batchReq = c.batch[:0], c.batchReq[:0]
		}
	}
}

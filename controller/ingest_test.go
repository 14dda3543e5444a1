package controller

import (
	"bytes"
	"net"
	"reflect"
	"testing"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestFlowModQueue feeds FLOW_MODs, good and refused, to a connection's
// onFlowMod, one after the other: each good one is queued as the update
// that a Decoder without caches gives, with the first 64 bytes of its
// request for an error reply; each refused one is answered with that
// Decoder's error and leaves the queue as it was. (ofrules'
// TestFlowModFastPath holds the translation itself, fast path and full,
// to the full path's.)
func TestFlowModQueue(t *testing.T) {
	a, err := New(&Config{Logger: quiet, BatchMax: 1 << 30, Tables: 4})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	c := newConn(a, p1)
	c.version = openflow.Version13
	ups := flowgen.Exact(60, 0)
	for i := 20; i < 40; i++ { // a second shape
		ups[i].Match.SetPrefix(rules.FieldIPv4Dst, ups[i].Match.Key.Get(rules.FieldIPv4Dst), 24)
	}
	refused := 0
	for i := range ups {
		var fm openflow.FlowMod
		ofrules.WireFlowMod(&fm, &ups[i])
		fm.Header = openflow.Header{Version: openflow.Version13, XID: uint32(i + 1)}
		msg, err := fm.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		switch i % 10 {
		case 3:
			msg[25] = 9 // no such command
		case 6:
			msg[24] = 200 // no such table
		case 8:
			msg = msg[:len(msg)-8] // shorter than its length field says
		}
		var want rules.Update
		wantErr := ofrules.NewDecoder(&a.ofopt).Decode(&want, msg)
		n := len(c.batch)
		err = c.onFlowMod(msg)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("FLOW_MOD %d: onFlowMod error %v, a new Decoder's %v", i, err, wantErr)
		}
		if err != nil {
			refused++
			if got, exp := openflow.ErrorFor(err, msg), openflow.ErrorFor(wantErr, msg); !reflect.DeepEqual(got, exp) {
				t.Fatalf("FLOW_MOD %d: error %v, a new Decoder's %v", i, err, wantErr)
			}
			if len(c.batch) != n || len(c.batchReq) != n {
				t.Fatalf("FLOW_MOD %d, refused: queue %d/%d, was %d", i, len(c.batch), len(c.batchReq), n)
			}
			continue
		}
		if len(c.batch) != n+1 || len(c.batchReq) != n+1 {
			t.Fatalf("FLOW_MOD %d: queue %d/%d after %d", i, len(c.batch), len(c.batchReq), n)
		}
		if got := &c.batch[n]; !reflect.DeepEqual(*got, want) {
			t.Fatalf("FLOW_MOD %d: queued\n%+v\na new Decoder gives\n%+v", i, *got, want)
		}
		if p := &c.batchReq[n]; !bytes.Equal(p.req[:p.n], msg[:min(len(msg), 64)]) {
			t.Fatalf("FLOW_MOD %d: queued request bytes %x, want %x", i, p.req[:p.n], msg[:min(len(msg), 64)])
		}
	}
	if refused != 18 || len(c.batch) != 42 {
		t.Fatalf("%d refused, %d queued; want 18 and 42", refused, len(c.batch))
	}
}

// TestConnBufsReused checks that a new connection takes the buffers a
// closed one left (its Reader, FLOW_MOD queue and burst result), reset:
// the Reader reads the new stream from its start, the queue is empty and
// holds no reference to the old connection's instructions.
func TestConnBufsReused(t *testing.T) {
	a, err := New(&Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	reused := false
	// sync.Pool drops some of what it is given under the race detector:
	// a few tries.
	for try := 0; try < 20 && !reused; try++ {
		p1, p2 := net.Pipe()
		c := newConn(a, p1)
		c.version = openflow.Version13
		ups := flowgen.Exact(3, 0)
		for i := range ups {
			var fm openflow.FlowMod
			ofrules.WireFlowMod(&fm, &ups[i])
			fm.Header = openflow.Header{Version: openflow.Version13, XID: uint32(i + 1)}
			msg, err := fm.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.onFlowMod(msg); err != nil {
				t.Fatal(err)
			}
		}
		old, oldBatch := c.r, c.batch[:cap(c.batch)]
		c.releaseBufs()
		p1.Close()
		p2.Close()
		for i := range oldBatch {
			if oldBatch[i].Instructions != nil {
				t.Fatalf("released queue still holds instructions at %d", i)
			}
		}

		q1, q2 := net.Pipe()
		c2 := newConn(a, q1)
		if c2.r != old {
			q1.Close()
			q2.Close()
			continue
		}
		reused = true
		if len(c2.batch) != 0 || cap(c2.batch) == 0 || c2.r.Buffered() != 0 {
			t.Fatalf("reused buffers: %d queued of %d, %d bytes buffered; want an empty queue with room and nothing buffered",
				len(c2.batch), cap(c2.batch), c2.r.Buffered())
		}
		hello := openflow.NewHello(7, openflow.Version13)
		go func() {
			b, _ := hello.MarshalBinary()
			q2.Write(b)
		}()
		msg, err := c2.r.Next()
		if err != nil || openflow.Type(msg[1]) != openflow.TypeHello || c2.r.Offset() != 0 {
			t.Fatalf("reused Reader on a new stream: %x at offset %d, %v; want the HELLO at 0", msg, c2.r.Offset(), err)
		}
		q1.Close()
		q2.Close()
	}
	if !reused {
		t.Fatal("no connection in 20 took the Reader of the one closed before it")
	}
}

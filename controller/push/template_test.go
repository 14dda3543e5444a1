package push

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestPushTemplate checks the batches the pusher writes, its FLOW_MODs
// mostly patched copies of its encoder's template, against the full
// encoding of every flow (ofrules.WireFlowMod, then FlowMod.AppendBinary)
// with the barrier after each batch, or in bundles, byte for byte, in
// OpenFlow 1.3 and 1.4. ofrules' TestEncoderTemplate checks that runs of
// one shape do take the template.
func TestPushTemplate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ups := flowgen.RandomShapes(r, 4000)
	for _, version := range []uint8{openflow.Version13, openflow.Version14} {
		var got bytes.Buffer
		p := &pusher{w: openflow.NewWriter(&got), version: version, xid: 99}
		for lo := 0; lo < len(ups); lo += 100 {
			if err := p.sendBatch(ups, lo, min(lo+100, len(ups))); err != nil {
				t.Fatal(err)
			}
		}
		var want []byte
		xid := uint32(99)
		var fm openflow.FlowMod
		for lo := 0; lo < len(ups); lo += 100 {
			for i := lo; i < min(lo+100, len(ups)); i++ {
				xid++
				ofrules.WireFlowMod(&fm, &ups[i])
				fm.Version, fm.XID = version, xid
				var err error
				if want, err = fm.AppendBinary(want); err != nil {
					t.Fatal(err)
				}
			}
			xid++
			br := openflow.NewBarrierRequest(xid)
			br.Version = version
			want, _ = br.AppendBinary(want)
		}
		if !bytes.Equal(got.Bytes(), want) {
			g, w := got.Bytes(), want
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Fatalf("version %d: %d bytes sent, want %d; first difference at byte %d", version, len(g), len(w), i)
		}
		// In bundles: each flow in a bundle add message of its own xid,
		// between the bundle's open and commit requests.
		got.Reset()
		p = &pusher{w: openflow.NewWriter(&got), version: version, xid: 99, bundle: true}
		for lo := 0; lo < len(ups); lo += 100 {
			if err := p.sendBatch(ups, lo, min(lo+100, len(ups))); err != nil {
				t.Fatal(err)
			}
		}
		want, xid = want[:0], 99
		const flags = openflow.BundleAtomic | openflow.BundleOrdered
		for lo, id := 0, uint32(1); lo < len(ups); lo, id = lo+100, id+1 {
			xid++
			open := openflow.BundleControl{Header: openflow.Header{Version: version, XID: xid}, BundleID: id, Type: openflow.BundleOpenRequest, Flags: flags}
			want, _ = open.AppendBinary(want)
			for i := lo; i < min(lo+100, len(ups)); i++ {
				xid++
				ofrules.WireFlowMod(&fm, &ups[i])
				fm.Version, fm.XID = version, xid
				inner, err := fm.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				add := openflow.BundleAddMessage{Header: openflow.Header{Version: version, XID: xid}, BundleID: id, Flags: flags, Message: inner}
				if want, err = add.AppendBinary(want); err != nil {
					t.Fatal(err)
				}
			}
			xid++
			commit := openflow.BundleControl{Header: openflow.Header{Version: version, XID: xid}, BundleID: id, Type: openflow.BundleCommitRequest, Flags: flags}
			want, _ = commit.AppendBinary(want)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("version %d, bundles: %d bytes sent, want %d", version, got.Len(), len(want))
		}
	}
}

// sendBatch encodes updates[lo:hi] as a batch and writes it.
func (p *pusher) sendBatch(updates []rules.Update, lo, hi int) error {
	p.cfg = &Config{Batch: hi - lo, Window: 1}
	p.src, p.chunk, p.pos, p.srcDone = &sliceSource{ups: updates[lo:hi]}, nil, 0, false
	if ok, err := p.prepare(nil); err != nil || !ok {
		return err
	}
	return p.send()
}

package openflow

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSyntheticRoundTrip encodes one message of every type, decodes it
// through the generic dispatcher and re-encodes it.
func TestSyntheticRoundTrip(t *testing.T) {
	seen := map[Type]bool{}
	for _, m := range syntheticMessages() {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%T: Decode: %v\n%x", m, err, b)
		}
		seen[got.MsgHeader().Type] = true
		b2, err := got.AppendBinary(bytes.Repeat([]byte{0xff}, 8)[:0])
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("%T: re-encode differs (%v)\n got %x\nwant %x", m, err, b2, b)
		}
		// The decoded value equals the original apart from the header
		// fields decoding fills in.
		h := got.MsgHeader()
		orig := *m.MsgHeader()
		*m.MsgHeader() = *h
		if diff := cmp.Diff(m, got, cmpOpts...); diff != "" {
			t.Errorf("%T (-want +got):\n%s", m, diff)
		}
		*m.MsgHeader() = orig
	}
	for typ := TypeHello; typ <= TypeMeterMod; typ++ {
		if !seen[typ] {
			t.Errorf("no synthetic %v", typ)
		}
	}
	if !seen[TypeBundleControl] || !seen[TypeBundleAddMessage] {
		t.Error("no OpenFlow 1.4 bundle messages")
	}
}

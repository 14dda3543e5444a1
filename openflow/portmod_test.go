package openflow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPortMod14: PORT_MOD as ovs-ofctl 3.1 sends it for "mod-port br0 up"
// over OpenFlow 1.4 (32 bytes, no property: advertise 0) and "down" over
// 1.3 (40 bytes), captured on loopback; a 1.4 PORT_MOD with advertise
// carries it in an OFPPMPT_ETHERNET property; bad framing is ErrBadPortMod.
func TestPortMod14(t *testing.T) {
	hw := [6]byte{0x4e, 0xee, 0xeb, 0xe4, 0x90, 0x4e}
	for _, c := range []struct {
		hex  string
		want PortMod
	}{
		{"0510002000000004fffffffe000000004eeeebe4904e00000000000000000001",
			PortMod{Header: Header{Version: Version14, Type: TypePortMod, Length: 32, XID: 4}, PortNo: PortLocal, HWAddr: hw, Config: 0, Mask: 1}},
		{"0410002800000004fffffffe000000004eeeebe4904e000000000001000000010000000000000000",
			PortMod{Header: Header{Version: Version13, Type: TypePortMod, Length: 40, XID: 4}, PortNo: PortLocal, HWAddr: hw, Config: 1, Mask: 1}},
	} {
		b := mustHexT(c.hex)
		var got PortMod
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: %v", c.hex, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.hex, diff)
		}
		if back, _ := got.MarshalBinary(); !bytes.Equal(back, b) {
			t.Errorf("re-encoded %x, want %s", back, c.hex)
		}
	}
	m := PortMod{Header: Header{Version: Version14, XID: 5}, PortNo: 2, Mask: 1, Advertise: 0x840}
	b, _ := m.MarshalBinary()
	var got PortMod
	if err := got.UnmarshalBinary(b); err != nil || len(b) != 40 || got.Advertise != 0x840 {
		t.Errorf("1.4 with advertise: %d bytes, advertise %#x, %v; want 40, 0x840", len(b), got.Advertise, err)
	}
	for _, prop := range []string{"0000000400000000", "00000008000008", "0000000c00000840", "ffff0003"} {
		bad := append(b[:32:32], mustHexT(prop)...)
		binary.BigEndian.PutUint16(bad[2:], uint16(len(bad)))
		if err := got.UnmarshalBinary(bad); !errors.Is(err, ErrBadPortMod) {
			t.Errorf("property %s: %v, want ErrBadPortMod", prop, err)
		}
	}
}

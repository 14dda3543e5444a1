package ofrules

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func pktReg(n openflow.OXMField, value, mask []byte) openflow.OXM {
	return openflow.NXM(openflow.OXMClassPacketRegs, n, value, mask)
}

// TestRegsMatch: NXM_NX_REG0-15, OXM_OF_PKT_REG0-7 and
// NXM_NX_TUN_IPV4_SRC/DST decode to the match ofctl reads from the text,
// and the match encodes back as Open vSwitch's nx_put_raw does before
// OpenFlow 1.5: a register per NXM_NX_REG entry, only those with a mask,
// unmasked when exact (an xreg as its two registers); the tunnel addresses
// as NXM_NX_TUN_IPV4_* and NXM_NX_TUN_IPV6_*, the VXLAN group policy
// fields as NXM_NX_TUN_GBP_ID and _FLAGS (nxm_put_16m, nxm_put_8m: an
// all-ones mask is left off). want is the encoding, byte for byte.
func TestRegsMatch(t *testing.T) {
	tunV6 := []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	tunV6Net := []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	mask32 := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for _, c := range []struct {
		text   string
		fields []openflow.OXM
		want   []byte
	}{
		{"reg0=0", []openflow.OXM{nx1(openflow.NXMNxReg0, []byte{0, 0, 0, 0}, nil)},
			[]byte{0x00, 0x01, 0x00, 0x04, 0, 0, 0, 0}},
		{"reg3=0x5/0xff", []openflow.OXM{nx1(openflow.NXMNxReg0+3, []byte{0, 0, 0, 5}, []byte{0, 0, 0, 0xff})},
			[]byte{0x00, 0x01, 0x07, 0x08, 0, 0, 0, 5, 0, 0, 0, 0xff}},
		{"reg15=0xffffffff,reg14=1", []openflow.OXM{nx1(openflow.NXMNxReg0+15, []byte{0xff, 0xff, 0xff, 0xff}, nil),
			nx1(openflow.NXMNxReg0+14, []byte{0, 0, 0, 1}, []byte{0xff, 0xff, 0xff, 0xff})},
			[]byte{0x00, 0x01, 0x1c, 0x04, 0, 0, 0, 1, 0x00, 0x01, 0x1e, 0x04, 0xff, 0xff, 0xff, 0xff}},
		{"xreg1=0x5", []openflow.OXM{pktReg(1, []byte{0, 0, 0, 0, 0, 0, 0, 5}, nil)},
			[]byte{0x00, 0x01, 0x04, 0x04, 0, 0, 0, 0, 0x00, 0x01, 0x06, 0x04, 0, 0, 0, 5}},
		{"xreg7=0x1234567800000000/0xffffffff00000000", []openflow.OXM{pktReg(7, []byte{0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0},
			[]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})},
			[]byte{0x00, 0x01, 0x1c, 0x04, 0x12, 0x34, 0x56, 0x78}},
		{"tun_src=10.0.0.0/24", []openflow.OXM{nx1(openflow.NXMNxTunIPv4Src, []byte{10, 0, 0, 0}, []byte{255, 255, 255, 0})},
			[]byte{0x00, 0x01, 0x3f, 0x08, 10, 0, 0, 0, 255, 255, 255, 0}},
		{"tun_dst=192.168.1.1", []openflow.OXM{nx1(openflow.NXMNxTunIPv4Dst, []byte{192, 168, 1, 1}, nil)},
			[]byte{0x00, 0x01, 0x40, 0x04, 192, 168, 1, 1}},
		{"tun_ipv6_src=2001:db8::1", []openflow.OXM{nx1(openflow.NXMNxTunIPv6Src, tunV6, nil)},
			append([]byte{0x00, 0x01, 0xda, 0x10}, tunV6...)},
		{"tun_ipv6_dst=2001:db8::/32", []openflow.OXM{nx1(openflow.NXMNxTunIPv6Dst, tunV6Net, mask32)},
			append(append([]byte{0x00, 0x01, 0xdd, 0x20}, tunV6Net...), mask32...)},
		{"tun_gbp_id=0x10/0xff", []openflow.OXM{nx1(openflow.NXMNxTunGbpID, []byte{0, 0x10}, []byte{0, 0xff})},
			[]byte{0x00, 0x01, 0x4d, 0x04, 0, 0x10, 0, 0xff}},
		{"tun_gbp_id=300", []openflow.OXM{nx1(openflow.NXMNxTunGbpID, []byte{1, 0x2c}, []byte{0xff, 0xff})},
			[]byte{0x00, 0x01, 0x4c, 0x02, 1, 0x2c}},
		{"tun_gbp_flags=0x81", []openflow.OXM{nx1(openflow.NXMNxTunGbpFlags, []byte{0x81}, nil)},
			[]byte{0x00, 0x01, 0x4e, 0x01, 0x81}},
		{"tun_gbp_flags=0x1/0x3", []openflow.OXM{nx1(openflow.NXMNxTunGbpFlags, []byte{1}, []byte{3})},
			[]byte{0x00, 0x01, 0x4f, 0x02, 1, 3}},
		// xreg0's low half, then reg0: reg0 is still all wildcards.
		{"reg0=0x9,reg1=0x2", []openflow.OXM{pktReg(0, []byte{0, 0, 0, 0, 0, 0, 0, 2}, []byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}),
			nx1(openflow.NXMNxReg0, []byte{0, 0, 0, 9}, nil)},
			[]byte{0x00, 0x01, 0x00, 0x04, 0, 0, 0, 9, 0x00, 0x01, 0x02, 0x04, 0, 0, 0, 2}},
	} {
		t.Run(c.text, func(t *testing.T) {
			want, err := ofctl.ParseFlow("priority=5," + c.text + ",actions=drop")
			if err != nil {
				t.Fatal(err)
			}
			var got rules.Update
			if err := NewDecoder(&Options{Tables: 4}).Decode(&got, nxmFlowMod(t, c.fields...)); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got.Match != want.Match {
				t.Fatalf("decoded %s, want %s", ofctl.FormatMatch(&got.Match, 5), ofctl.FormatMatch(&want.Match, 5))
			}
			wm := WireMatch(&got.Match)
			var enc []byte
			for i := range wm.Fields {
				enc, _ = wm.Fields[i].AppendBinary(enc)
			}
			if !bytes.Equal(enc, c.want) {
				t.Errorf("encoded %x, want %x", enc, c.want)
			}
			var back rules.Match
			if err := Match(&back, &wm, nil); err != nil || back != got.Match {
				t.Fatalf("re-encoded %v: %s, %v", wm.Fields, ofctl.FormatMatch(&back, 5), err)
			}
		})
	}
}

// TestRegsRefusals: a register or pair of them matched twice is
// OFPBMC_DUP_FIELD, as Open vSwitch finds the field not all wildcards;
// payloads of the wrong size OFPBMC_BAD_LEN; value bits outside the mask
// OFPBMC_BAD_WILDCARDS. The Nicira fields this switch does not match on
// are OFPBMC_BAD_FIELD, with an error that names them.
func TestRegsRefusals(t *testing.T) {
	four, eight := make([]byte, 4), make([]byte, 8)
	for _, c := range []struct {
		name   string
		fields []openflow.OXM
		want   openflow.BadMatchCode
	}{
		{"reg0 twice", []openflow.OXM{nx1(openflow.NXMNxReg0, four, nil), nx1(openflow.NXMNxReg0, four, nil)}, openflow.BadMatchDupField},
		{"reg1 and xreg0", []openflow.OXM{nx1(openflow.NXMNxReg0+1, four, nil), pktReg(0, eight, nil)}, openflow.BadMatchDupField},
		{"xreg3 and reg6", []openflow.OXM{pktReg(3, []byte{0, 0, 0, 1, 0, 0, 0, 0}, []byte{0, 0, 0, 1, 0, 0, 0, 0}), nx1(openflow.NXMNxReg0+6, four, nil)}, openflow.BadMatchDupField},
		{"reg0 of 8 bytes", []openflow.OXM{nx1(openflow.NXMNxReg0, eight, nil)}, openflow.BadMatchBadLen},
		{"xreg0 of 4 bytes", []openflow.OXM{pktReg(0, four, nil)}, openflow.BadMatchBadLen},
		{"reg2 value outside mask", []openflow.OXM{nx1(openflow.NXMNxReg0+2, []byte{0, 0, 0, 3}, []byte{0, 0, 0, 1})}, openflow.BadMatchBadWildcards},
		{"tun_src twice", []openflow.OXM{nx1(openflow.NXMNxTunIPv4Src, four, nil), nx1(openflow.NXMNxTunIPv4Src, four, nil)}, openflow.BadMatchDupField},
		{"tun_ipv6_dst twice", []openflow.OXM{nx1(openflow.NXMNxTunIPv6Dst, make([]byte, 16), nil), nx1(openflow.NXMNxTunIPv6Dst, make([]byte, 16), nil)}, openflow.BadMatchDupField},
		{"tun_gbp_id twice", []openflow.OXM{nx1(openflow.NXMNxTunGbpID, []byte{0, 1}, nil), nx1(openflow.NXMNxTunGbpID, []byte{0, 1}, []byte{0, 1})}, openflow.BadMatchDupField},
		{"tun_ipv6_src of 4 bytes", []openflow.OXM{nx1(openflow.NXMNxTunIPv6Src, four, nil)}, openflow.BadMatchBadLen},
		{"tun_gbp_flags of 2 bytes", []openflow.OXM{nx1(openflow.NXMNxTunGbpFlags, []byte{0, 1}, nil)}, openflow.BadMatchBadLen},
		{"tun_gbp_id value outside mask", []openflow.OXM{nx1(openflow.NXMNxTunGbpID, []byte{0, 3}, []byte{0, 1})}, openflow.BadMatchBadWildcards},
		{"tun_ipv6_src value outside mask", []openflow.OXM{nx1(openflow.NXMNxTunIPv6Src, append(make([]byte, 15), 1), make([]byte, 16))}, openflow.BadMatchBadWildcards},
		{"PKT_REG8", []openflow.OXM{pktReg(8, eight, nil)}, openflow.BadMatchBadField},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out rules.Match
			err := Match(&out, &openflow.Match{Fields: c.fields}, nil)
			var em openflow.ErrorMsg
			if !errors.As(WireError(err), &em) || em.Type != openflow.ErrTypeBadMatch || em.Code != uint16(c.want) {
				t.Fatalf("err = %v, want OFPET_BAD_MATCH code %d", err, c.want)
			}
		})
	}
	for _, c := range []struct {
		field openflow.OXMField
		size  int
		name  string
	}{
		{111, 16, "xxreg0"}, {114, 16, "xxreg3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := nxmFlowMod(t, nx1(c.field, make([]byte, c.size), nil))
			var u rules.Update
			err := NewDecoder(nil).Decode(&u, msg)
			var uf *UnsupportedFieldError
			var em openflow.ErrorMsg
			if !errors.As(err, &uf) || uf.Field != c.name || !errors.As(WireError(err), &em) ||
				em.Type != openflow.ErrTypeBadMatch || em.Code != uint16(openflow.BadMatchBadField) {
				t.Fatalf("err = %v, want OFPBMC_BAD_FIELD naming %s", err, c.name)
			}
			if want := "match field " + c.name + " is not supported"; err.Error() != want {
				t.Errorf("error text %q, want %q", err.Error(), want)
			}
		})
	}
}

// TestRegSetField: OFPAT_SET_FIELD of NXM_NX_REGn, as ovs-ofctl sends
// set_field:V->regN, is a load of register n's half of its xreg field
// that goes back out as the same set_field; a mask is OFPBAC_BAD_SET_MASK
// (ONF 4250) and a payload not of 4 bytes OFPBAC_BAD_SET_LEN, as Open
// vSwitch answers.
func TestRegSetField(t *testing.T) {
	for _, c := range []struct {
		reg       int // 16 + n: xregN (OXM_OF_PKT_REGn)
		v         []byte
		field     rules.Field
		mask, val uint64
	}{
		{16 + 1, []byte{0, 0, 0, 1, 0, 0, 0, 2}, rules.FieldXReg1, ^uint64(0), 0x100000002},
		{0, []byte{0, 0, 0, 5}, rules.FieldXReg0, 0xffffffff << 32, 5 << 32},
		{1, []byte{0, 0, 0, 1}, rules.FieldXReg0, 0xffffffff, 1},
		{15, []byte{0xff, 0xff, 0xff, 0xff}, rules.FieldXReg7, 0xffffffff, 0xffffffff},
		{4, []byte{0x12, 0x34, 0x56, 0x78}, rules.FieldXReg2, 0xffffffff << 32, 0x12345678 << 32},
	} {
		sf := openflow.SetField(nx1(openflow.NXMNxReg0+openflow.OXMField(c.reg), c.v, nil))
		want := rules.Action{Kind: rules.ActionLoad, Field: c.field, Value: [2]uint64{c.mask, c.val}, Reason: rules.LoadSetField}
		if c.reg >= 16 {
			sf = openflow.SetField(pktReg(openflow.OXMField(c.reg-16), c.v, nil))
			want.Reason |= rules.LoadXReg
		}
		as, err := Actions([]openflow.Action{sf})
		if err != nil {
			t.Fatalf("reg%d: %v", c.reg, err)
		}
		if len(as) != 1 || as[0] != want {
			t.Fatalf("reg%d: %+v, want %+v", c.reg, as, want)
		}
		back := actionsToWire(as, &rules.Match{}, nil)
		if len(back) != 1 || !reflect.DeepEqual(back[0], sf) {
			t.Errorf("reg%d: back to the wire as %+v, want %+v", c.reg, back, sf)
		}
	}
	for _, c := range []struct {
		o    openflow.OXM
		typ  openflow.ErrorType
		code uint16
	}{
		{nx1(openflow.NXMNxReg0+3, []byte{0, 0, 1}, nil), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadSetLen)},
		{nx1(openflow.NXMNxReg0+3, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 1}), openflow.ErrTypeExperimenter, onfBadSetMask},
		{pktReg(2, []byte{0, 0, 0, 1}, nil), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadSetLen)},
		{pktReg(2, make([]byte, 8), make([]byte, 8)), openflow.ErrTypeExperimenter, onfBadSetMask},
	} {
		_, err := Actions([]openflow.Action{openflow.SetField(c.o)})
		var em openflow.ErrorMsg
		if !errors.As(WireError(err), &em) || em.Type != c.typ || em.Code != c.code {
			t.Errorf("set_field %v: %v, want type %d code %d", c.o.String(), err, c.typ, c.code)
		}
	}
}

// TestRegsGolden: the FLOW_MOD ovs-ofctl sent for a flow of sixteen
// registers and both tunnel addresses decodes to the match ofctl reads
// from the same text, and the match encodes to the NXM entries of the
// capture (in rules' field order, where Open vSwitch puts the tunnel
// addresses first).
func TestRegsGolden(t *testing.T) {
	const text = "priority=20,reg0=0,reg1=0x7,reg2=0x10/0x10,reg3=0x5/0xff,reg4=4,reg5=5,reg6=6,reg7=7,reg8=8,reg9=9,reg10=10," +
		"reg11=11,reg12=12,reg13=13,reg14=0x12345678,reg15=0xffffffff,tun_src=10.0.0.0/24,tun_dst=192.168.1.1,actions=output:1"
	want, err := ofctl.ParseFlow(text)
	if err != nil {
		t.Fatal(err)
	}
	golden := readHexFile(t, filepath.Join("testdata", "golden", "flow_mod_nxm_regs.hex"))
	var got rules.Update
	if err := NewDecoder(&Options{Tables: 4}).Decode(&got, golden); err != nil {
		t.Fatal(err)
	}
	if got.Match != want.Match || got.Priority != 20 {
		t.Fatalf("decoded %s, want %s", ofctl.FormatMatch(&got.Match, got.Priority), ofctl.FormatMatch(&want.Match, 20))
	}
	wm := WireMatch(&got.Match)
	if len(wm.Fields) != 18 {
		t.Fatalf("encoded %d OXMs, want 18: %v", len(wm.Fields), wm.Fields)
	}
	match := golden[48 : 48+160]
	n := 4
	for i := range wm.Fields {
		b, _ := wm.Fields[i].AppendBinary(nil)
		if !bytes.Contains(match[4:], b) {
			t.Errorf("OXM %v (%x) is not in the capture's match", wm.Fields[i].String(), b)
		}
		n += len(b)
	}
	if n != len(match) {
		t.Errorf("encoded match of %d bytes, the capture's is %d", n, len(match))
	}
}

// TestTunGolden: the FLOW_MOD ovs-ofctl sent for a flow of both IPv6
// tunnel addresses and the VXLAN group policy fields decodes to the match
// ofctl reads from the same text, and the match encodes to the capture's
// NXM entries, in its order.
func TestTunGolden(t *testing.T) {
	const text = "priority=21,tun_ipv6_src=2001:db8::1,tun_ipv6_dst=2001:db8::/32,tun_gbp_id=0x10/0xff,tun_gbp_flags=0x81,actions=output:1"
	want, err := ofctl.ParseFlow(text)
	if err != nil {
		t.Fatal(err)
	}
	golden := readHexFile(t, filepath.Join("testdata", "golden", "flow_mod_nxm_tun.hex"))
	var got rules.Update
	if err := NewDecoder(&Options{Tables: 4}).Decode(&got, golden); err != nil {
		t.Fatal(err)
	}
	if got.Match != want.Match || got.Priority != 21 {
		t.Fatalf("decoded %s, want %s", ofctl.FormatMatch(&got.Match, got.Priority), ofctl.FormatMatch(&want.Match, 21))
	}
	wm := WireMatch(&got.Match)
	var enc []byte
	for i := range wm.Fields {
		enc, _ = wm.Fields[i].AppendBinary(enc)
	}
	if match := golden[48+4 : 48+73]; !bytes.Equal(enc, match) {
		t.Errorf("encoded match %x, the capture's is %x", enc, match)
	}
}

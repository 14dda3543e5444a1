package openflow

import (
	"encoding/hex"
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEveryBasicFieldRoundTrips(t *testing.T) {
	for f := OXMField(0); f < numFields; f++ {
		if !f.known() {
			continue
		}
		for _, masked := range []bool{false, true} {
			val := make([]byte, f.Size())
			mask := make([]byte, f.Size())
			for i := range val {
				val[i] = byte(0x11 * (i + 1))
				mask[i] = 0xff
			}
			var o OXM
			if masked {
				o = NewOXM(f, val, mask)
			} else {
				o = NewOXM(f, val, nil)
			}
			m := Match{Fields: []OXM{o}}
			b, err := m.AppendBinary(nil)
			if err != nil {
				t.Fatalf("%v: %v", f, err)
			}
			wantLen := 4 + 4 + f.Size()
			if masked {
				wantLen += f.Size()
			}
			if int(b[2])<<8|int(b[3]) != wantLen || len(b)%8 != 0 {
				t.Fatalf("%v masked=%t: match length %d, want %d (padded %d)", f, masked, int(b[3]), wantLen, len(b))
			}
			var got Match
			n, err := got.decode(b)
			if err != nil || n != len(b) {
				t.Fatalf("%v masked=%t: decode: %d, %v", f, masked, n, err)
			}
			if diff := cmp.Diff(m, got, cmpOpts...); diff != "" {
				t.Fatalf("%v masked=%t (-want +got):\n%s", f, masked, diff)
			}
			if got.Fields[0].Header()>>9&0x7f != uint32(f) {
				t.Fatalf("%v: header %#x", f, got.Fields[0].Header())
			}
		}
	}
}

func TestMatchConstructors(t *testing.T) {
	m := Match{Fields: []OXM{
		InPort(1), EthType(0x0800), IPProto(6),
		IPv4Src(netip.MustParsePrefix("127.1.0.0/16")), IPv4Dst(netip.MustParsePrefix("127.2.3.4/32")),
		TCPDst(80),
	}}
	if err := m.ValidateStrict(); err != nil {
		t.Fatal(err)
	}
	want := "in_port=1,eth_type=0x0800,ip_proto=6,ipv4_src=127.1.0.0/ffff0000,ipv4_dst=127.2.3.4,tcp_dst=80"
	if got := m.String(); got != want {
		t.Errorf("String() = %q\nwant %q", got, want)
	}
	if a := m.Field(FieldIPv4Dst).Addr(); a != netip.MustParseAddr("127.2.3.4") {
		t.Errorf("Addr() = %v", a)
	}
	if p := m.Field(FieldTCPDst).Uint(); p != 80 {
		t.Errorf("Uint() = %d", p)
	}
	v6 := IPv6Dst(netip.MustParsePrefix("2001:db8::/32"))
	if !v6.HasMask || v6.Mask[3] != 0xff || v6.Mask[4] != 0 {
		t.Errorf("IPv6Dst mask = %x", v6.Mask)
	}
	if md := Metadata(5, ^uint64(0)); md.HasMask {
		t.Error("exact Metadata has a mask")
	}
}

func TestMatchValidate(t *testing.T) {
	ip := EthType(0x0800)
	ip6 := EthType(0x86dd)
	masked := func(o OXM, mask ...byte) OXM { o.HasMask = true; copy(o.Mask[:], mask); return o }
	for _, tt := range []struct {
		name   string
		fields []OXM
		strict bool
		err    error
		code   BadMatchCode
		field  string
		offset int
	}{
		{name: "tcp without ip_proto", fields: []OXM{ip, TCPDst(80)}, err: ErrBadPrereq, code: BadMatchBadPrereq,
			field: "match.oxm[1].prerequisite", offset: 10},
		{name: "tcp with udp proto", fields: []OXM{ip, IPProto(17), TCPDst(80)}, err: ErrBadPrereq, code: BadMatchBadPrereq,
			field: "match.oxm[2].prerequisite", offset: 15},
		{name: "ipv4 without eth_type", fields: []OXM{IPv4Src(netip.MustParsePrefix("1.2.3.4/32"))}, err: ErrBadPrereq, code: BadMatchBadPrereq,
			field: "match.oxm[0].prerequisite", offset: 4},
		{name: "ipv4_src on ipv6", fields: []OXM{ip6, IPv4Src(netip.MustParsePrefix("1.2.3.4/32"))}, err: ErrBadPrereq, code: BadMatchBadPrereq},
		{name: "duplicate", fields: []OXM{InPort(1), InPort(2)}, err: ErrDuplicateField, code: BadMatchDupField,
			field: "match.oxm[1].field", offset: 12},
		{name: "value outside mask", fields: []OXM{ip, masked(NewOXM(FieldIPv4Src, []byte{10, 0, 0, 1}, nil), 255, 0, 0, 0)},
			err: ErrBadWildcards, code: BadMatchBadWildcards},
		{name: "vlan_pcp without vlan", fields: []OXM{NewOXM(FieldVLANPCP, []byte{3}, nil)}, err: ErrBadPrereq, code: BadMatchBadPrereq},
		{name: "vlan_pcp on untagged", fields: []OXM{VLANVID(VLANNone), NewOXM(FieldVLANPCP, []byte{3}, nil)}, err: ErrBadPrereq, code: BadMatchBadPrereq},
		{name: "vlan_pcp on tagged", fields: []OXM{VLANVID(VLANPresent | 100), NewOXM(FieldVLANPCP, []byte{3}, nil)}},
		{name: "masked tcp port lax", fields: []OXM{ip, IPProto(6), masked(TCPDst(0x100), 0xff, 0)}},
		{name: "masked tcp port strict", fields: []OXM{ip, IPProto(6), masked(TCPDst(0x100), 0xff, 0)}, strict: true,
			err: ErrBadMask, code: BadMatchBadMask},
		{name: "nd_sll needs type 135", fields: []OXM{ip6, IPProto(58), NewOXM(FieldICMPv6Type, []byte{136}, nil),
			NewOXM(FieldIPv6NDSLL, make([]byte, 6), nil)}, err: ErrBadPrereq, code: BadMatchBadPrereq},
		{name: "nd_tll with type 136", fields: []OXM{ip6, IPProto(58), NewOXM(FieldICMPv6Type, []byte{136}, nil),
			NewOXM(FieldIPv6NDTLL, make([]byte, 6), nil)}},
		{name: "mpls", fields: []OXM{EthType(0x8847), NewOXM(FieldMPLSLabel, []byte{0, 0, 0, 5}, nil)}},
		{name: "in_phy_port needs in_port", fields: []OXM{NewOXM(FieldInPhyPort, []byte{0, 0, 0, 1}, nil)}, err: ErrBadPrereq, code: BadMatchBadPrereq},
		{name: "pbb", fields: []OXM{EthType(0x88e7), NewOXM(FieldPBBISID, []byte{1, 2, 3}, nil)}},
		{name: "experimenter ignored", fields: []OXM{{Class: OXMClassExperimenter, Field: 3, Experimenter: 0x4f4e4600, Data: []byte{1, 2}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := Match{Fields: tt.fields}
			var err error
			if tt.strict {
				err = m.ValidateStrict()
			} else {
				err = m.Validate()
			}
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err == nil {
				return
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%T is not *DecodeError", err)
			}
			if em := de.ErrorMsg(); em.Type != ErrTypeBadMatch || em.Code != uint16(tt.code) {
				t.Errorf("ErrorMsg = %v, want OFPET_BAD_MATCH/%v", em, tt.code)
			}
			if tt.field != "" && (de.Field != tt.field || de.Offset != tt.offset) {
				t.Errorf("at %s offset %d, want %s offset %d", de.Field, de.Offset, tt.field, tt.offset)
			}
		})
	}
}

// TestTCPFlagsOXM: tcp_flags as the ONF experimenter OXM, in the bytes Open
// vSwitch 3.1's ovs-ofctl sent for +syn-ack (masked) and for ack (exact),
// decoded back with its value and mask.
func TestTCPFlagsOXM(t *testing.T) {
	for _, c := range []struct {
		value, mask uint16
		wire        string
		wantMask    uint16
	}{
		{0x002, 0x012, "ffff55084f4e460000020012", 0x012},
		{0x010, 0x0fff, "ffff54064f4e46000010", 0xffff},
	} {
		o := TCPFlags(c.value, c.mask)
		b, err := o.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(b); got != c.wire {
			t.Errorf("TCPFlags(%#x, %#x) = %s, want %s", c.value, c.mask, got, c.wire)
		}
		m := Match{Fields: []OXM{EthType(0x0800), IPProto(6), o}}
		enc, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		var back Match
		if _, err := back.decode(enc); err != nil {
			t.Fatal(err)
		}
		if err := back.Validate(); err != nil {
			t.Errorf("%s: %v", c.wire, err)
		}
		v, mk, ok := back.Fields[2].TCPFlags()
		if !ok || v != c.value || mk != c.wantMask {
			t.Errorf("%s decoded as %#x/%#x (%v), want %#x/%#x", c.wire, v, mk, ok, c.value, c.wantMask)
		}
	}
	other := OXM{Class: OXMClassExperimenter, Field: ONFFieldTCPFlags, Experimenter: 0x2320, Data: []byte{0, 2}}
	if _, _, ok := other.TCPFlags(); ok {
		t.Error("an OXM of another experimenter read as tcp_flags")
	}
	short := TCPFlags(2, 0x12)
	short.Data = short.Data[:3]
	if _, _, ok := short.TCPFlags(); ok {
		t.Error("a 3-byte tcp_flags payload read as tcp_flags")
	}
}

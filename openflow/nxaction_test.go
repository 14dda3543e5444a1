package openflow

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nxBytes returns the wire form of a Nicira action whose bytes from the
// subtype on are d (the length field from len(d)).
func nxBytes(d ...byte) []byte {
	n := 8 + len(d)
	return append([]byte{0xff, 0xff, byte(n >> 8), byte(n), 0, 0, 0x23, 0x20}, d...)
}

func TestDecodeNXAction(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []byte
		want NXAction
		err  error
		text string
	}{
		{"set_tunnel", nxBytes(0, 2, 0, 0, 0, 0, 0x12, 0x34), NXAction{Subtype: NXSetTunnel, TunID: 0x1234}, nil, "set_tunnel:0x1234"},
		{"set_tunnel64", nxBytes(0, 9, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8), NXAction{Subtype: NXSetTunnel64, TunID: 0x0102030405060708}, nil, "set_tunnel64:0x102030405060708"},
		{"note", nxBytes(0, 8, 1, 2, 0, 0, 0, 0), NXAction{Subtype: NXNote, Note: []byte{1, 2, 0, 0, 0, 0}}, nil, "note:01.02.00.00.00.00"},
		{"note long", nxBytes(0, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14), NXAction{Subtype: NXNote, Note: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}}, nil,
			"note:01.02.03.04.05.06.07.08.09.0a.0b.0c.0d.0e"},
		{"exit", nxBytes(0, 17, 0, 0, 0, 0, 0, 0), NXAction{Subtype: NXExit}, nil, "exit"},
		{"controller", nxBytes(0, 20, 0, 64, 0, 3, 0, 0), NXAction{Subtype: NXController, MaxLen: 64, ControllerID: 3}, nil, "controller(reason=no_match,max_len=64,id=3)"},
		{"controller action", nxBytes(0, 20, 0xff, 0xff, 0, 0, 1, 0), NXAction{Subtype: NXController, MaxLen: 0xffff, Reason: PacketInAction}, nil, "CONTROLLER:65535"},
		{"controller ttl", nxBytes(0, 20, 0xff, 0xff, 0, 0, 2, 0), NXAction{Subtype: NXController, MaxLen: 0xffff, Reason: 2}, nil, "controller(reason=invalid_ttl)"},
		{"dec_ttl ids", nxBytes(0, 21, 0, 3, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0), NXAction{Subtype: NXDecTTLCntIDs, IDs: []uint16{1, 2, 3}}, nil, "dec_ttl(1,2,3)"},
		{"dec_ttl no ids", nxBytes(0, 21, 0, 0, 0, 0, 0, 0), NXAction{Subtype: NXDecTTLCntIDs, IDs: []uint16{}}, nil, "dec_ttl()"},
		{"short", nxBytes(0, 17), NXAction{}, ErrNXBadLen, ""},
		{"exit long", nxBytes(0, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NXAction{}, ErrNXBadLen, ""},
		{"set_tunnel64 short", nxBytes(0, 9, 0, 0, 0, 0, 0, 0), NXAction{}, ErrNXBadLen, ""},
		{"controller long", nxBytes(0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NXAction{}, ErrNXBadLen, ""},
		{"note odd", nxBytes(0, 8, 1, 2, 3, 4, 5, 6, 7), NXAction{}, ErrNXBadLen, ""},
		{"dec_ttl zeros", nxBytes(0, 21, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0), NXAction{}, ErrNXMustBeZero, ""},
		{"dec_ttl short", nxBytes(0, 21, 0, 5, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4), NXAction{}, ErrNXBadLen, ""},
		{"resubmit", nxBytes(0, 1, 0, 3, 0, 0, 0, 0), NXAction{Subtype: NXResubmit, InPort: 3, Table: 0xff}, nil, "resubmit:3"},
		{"resubmit in_port", nxBytes(0, 1, 0xff, 0xf8, 0, 0, 0, 0), NXAction{Subtype: NXResubmit, InPort: PortIn16, Table: 0xff}, nil, "resubmit(,)"},
		{"resubmit local", nxBytes(0, 1, 0xff, 0xfe, 0, 0, 0, 0), NXAction{Subtype: NXResubmit, InPort: 0xfffe, Table: 0xff}, nil, "resubmit:LOCAL"},
		{"resubmit_table", nxBytes(0, 14, 0xff, 0xf8, 2, 0, 0, 0), NXAction{Subtype: NXResubmitTable, InPort: PortIn16, Table: 2}, nil, "resubmit(,2)"},
		{"resubmit_table port", nxBytes(0, 14, 0, 5, 7, 0, 0, 0), NXAction{Subtype: NXResubmitTable, InPort: 5, Table: 7}, nil, "resubmit(5,7)"},
		{"resubmit_table port only", nxBytes(0, 14, 0, 5, 0xff, 0, 0, 0), NXAction{Subtype: NXResubmitTable, InPort: 5, Table: 0xff}, nil, "resubmit:5"},
		{"resubmit_table pad", nxBytes(0, 14, 0, 5, 7, 0, 1, 0), NXAction{}, ErrNXBadArgument, ""},
		{"resubmit long", nxBytes(0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NXAction{}, ErrNXBadLen, ""},
		{"resubmit_table short", nxBytes(0, 14, 0, 3), NXAction{}, ErrNXBadLen, ""},
		{"resubmit_table_ct", nxBytes(0, 44, 0xff, 0xf8, 2, 0, 0, 0), NXAction{}, ErrNXBadSubtype, ""},
		{"reg_load", nxBytes(0, 7, 0x02, 0x03, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 5), NXAction{Subtype: NXRegLoad, Ofs: 8, NBits: 4, Dst: 0x00014204, Value: 5}, nil, "load:0x5->NXM_NX_PKT_MARK[8..11]"},
		{"reg_load bit", nxBytes(0, 7, 0x00, 0xc0, 0, 0, 2, 6, 0, 0, 0, 0, 0, 0, 0, 1), NXAction{Subtype: NXRegLoad, Ofs: 3, NBits: 1, Dst: 0x00000206, Value: 1}, nil, "load:0x1->NXM_OF_ETH_DST[3]"},
		{"reg_load short", nxBytes(0, 7, 0, 0, 0, 1, 0x42, 4), NXAction{}, ErrNXBadLen, ""},
		{"reg_move", nxBytes(0, 6, 0, 16, 0, 0, 0, 16, 0, 0, 0x0e, 4, 0, 1, 0x42, 4), NXAction{Subtype: NXRegMove, NBits: 16, DstOfs: 16, Src: 0x00000e04, Dst: 0x00014204}, nil,
			"move:NXM_OF_IP_SRC[0..15]->NXM_NX_PKT_MARK[16..31]"},
		{"reg_move pad", nxBytes(0, 6, 0, 16, 0, 0, 0, 16, 0, 0, 0x0e, 4, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 1), NXAction{}, ErrNXMustBeZero, ""},
		{"reg_move cut", nxBytes(0, 6, 0, 16, 0, 0, 0, 16), NXAction{}, ErrNXBadOXMLen, ""},
		{"reg_move experimenter", nxBytes(0, 6, 0, 16, 0, 0, 0, 16, 0xff, 0xff, 0, 8, 0, 1, 0x42, 4), NXAction{}, ErrNXBadSetType, ""},
		{"output_reg", nxBytes(0, 15, 0, 15, 0, 1, 0x42, 4, 0xff, 0xff, 0, 0, 0, 0, 0, 0), NXAction{Subtype: NXOutputReg, NBits: 16, Src: 0x00014204, MaxLen: 0xffff}, nil,
			"output:NXM_NX_PKT_MARK[0..15],max_len=65535"},
		{"output_reg zeros", nxBytes(0, 15, 0, 15, 0, 1, 0x42, 4, 0xff, 0xff, 0, 0, 0, 0, 0, 1), NXAction{}, ErrNXBadArgument, ""},
		{"output_reg2", nxBytes(0, 32, 0, 15, 0, 0, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0), NXAction{Subtype: NXOutputReg2, NBits: 16, Src: 0x00014204}, nil, "output:NXM_NX_PKT_MARK[0..15]"},
		{"output_reg2 pad", nxBytes(0, 32, 0, 15, 0, 0, 0, 1, 0x42, 4, 1, 0, 0, 0, 0, 0), NXAction{}, ErrNXMustBeZero, ""},
		{"reg_load2", nxBytes(0, 33, 0, 1, 0x43, 8, 0, 0, 0, 5, 0, 0, 0, 0xff, 0, 0), NXAction{Subtype: NXRegLoad2, Dst: 0x00014308, Payload: []byte{0, 0, 0, 5, 0, 0, 0, 0xff}}, nil,
			"set_field:00000005000000ff->NXM_NX_PKT_MARK"},
		{"reg_load2 pad", nxBytes(0, 33, 0, 1, 0x42, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 1), NXAction{}, ErrNXBadSetArgument, ""},
		{"reg_load2 cut", nxBytes(0, 33, 0, 1, 0x43, 16, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0), NXAction{}, ErrNXBadOXMLen, ""},
		{"controller2", nxBytes(0, 37, 0, 0, 0, 0, 0, 0), NXAction{}, ErrNXBadSubtype, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := Action{Type: ActionExperimenter, Experimenter: NXExperimenter, Data: tt.in[8:]}
			x, err := DecodeNXAction(&a)
			if !sameError(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, x); diff != "" {
				t.Fatalf("decoded (-want +got):\n%s", diff)
			}
			if s := x.String(); s != tt.text {
				t.Errorf("String %q, want %q", s, tt.text)
			}
			enc := x.Action()
			out, err := enc.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, tt.in) {
				t.Errorf("encoded %x, want %x", out, tt.in)
			}
		})
	}
	if _, err := DecodeNXAction(&Action{Type: ActionExperimenter, Experimenter: 0x1234, Data: make([]byte, 8)}); !sameError(err, ErrorMsg{Type: ErrTypeBadAction, Code: uint16(BadActionBadExperimenter)}) {
		t.Errorf("other vendor: %v", err)
	}
}

// sameError reports whether err and want are both nil or both ErrorMsgs
// of the same type, code and experimenter.
func sameError(err, want error) bool {
	if err == nil || want == nil {
		return err == nil && want == nil
	}
	var e, w ErrorMsg
	return errors.As(err, &e) && errors.As(want, &w) && e.Type == w.Type && e.Code == w.Code && e.Experimenter == w.Experimenter
}

// nxIgnored zeroes the bytes of Nicira action b (whole, header included)
// that Open vSwitch and DecodeNXAction do not read: the pads, controller's
// zero, and what follows dec_ttl's ids.
func nxIgnored(b []byte) []byte {
	b = bytes.Clone(b)
	zero := func(from, to int) { clear(b[min(from, len(b)):min(to, len(b))]) }
	switch NXActionSubtype(uint16(b[8])<<8 | uint16(b[9])) {
	case NXSetTunnel:
		zero(10, 12)
	case NXSetTunnel64, NXExit:
		zero(10, 16)
	case NXController:
		zero(15, 16)
	case NXResubmit: // its table and pad
		zero(12, 16)
	case NXDecTTLCntIDs:
		zero(16+2*(int(b[10])<<8|int(b[11])), len(b))
	}
	return b
}

// FuzzNXAction decodes a Nicira action, encodes it again and compares the
// bytes with the input's (but for those nxIgnored zeroes); a decode of the
// encoding gives the same value.
func FuzzNXAction(f *testing.F) {
	for _, g := range []string{"flow_mod_nx_note.hex", "flow_mod_nx_controller.hex", "flow_mod_nx_dec_ttl_ids.hex", "flow_mod_nx_resubmit.hex",
		"flow_mod_nx_load.hex", "flow_mod_nx_move.hex", "flow_mod_nx_output_reg.hex"} {
		_, b := readGolden(f, g)
		m, err := Decode(b)
		if err != nil {
			f.Fatal(err)
		}
		for _, in := range m.(*FlowMod).Instructions {
			for _, a := range in.Actions {
				if a.Type == ActionExperimenter {
					w, _ := a.AppendBinary(nil)
					f.Add(w)
				}
			}
		}
	}
	f.Add(nxBytes(0, 2, 0, 0, 0, 0, 0x12, 0x34))
	f.Add(nxBytes(0, 1, 0, 3, 0, 0, 0, 0))
	f.Add(nxBytes(0, 14, 0xff, 0xf8, 2, 0, 0, 0))
	f.Add(nxBytes(0, 14, 0, 5, 7, 0, 1, 0))
	f.Add(nxBytes(0, 9, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8))
	f.Add(nxBytes(0, 21, 0, 1, 0, 0, 0, 0, 0, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4))
	// output_reg2 (src at offset 14), reg_load2 masked and not, a move
	// with padding after its headers.
	f.Add(nxBytes(0, 32, 0, 15, 0xff, 0xff, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0))
	f.Add(nxBytes(0, 33, 0, 1, 0x43, 8, 0, 0, 0, 5, 0, 0, 0, 0xff, 0, 0))
	f.Add(nxBytes(0, 33, 0, 1, 0x42, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0))
	f.Add(nxBytes(0, 33, 0x80, 0, 0x05, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x1f, 0, 0))
	f.Add(nxBytes(0, 6, 0, 8, 0, 0, 0, 0, 0, 1, 0x42, 4, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 0))
	// The tunnel fields: reg_load2 of tun_gbp_flags masked, a move of
	// tun_gbp_id into reg0, reg_load2 of part of tun_ipv6_src.
	f.Add(nxBytes(0, 33, 0, 1, 0x4f, 2, 1, 3))
	f.Add(nxBytes(0, 6, 0, 16, 0, 0, 0, 0, 0, 1, 0x4c, 2, 0, 1, 0, 4))
	f.Add(nxBytes(append(append([]byte{0, 33, 0, 1, 0xdb, 0x20, 0x20, 1, 0xd, 0xb8}, make([]byte, 12)...),
		append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, make([]byte, 10)...)...)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Action
		if _, err := a.decode(b); err != nil || a.Type != ActionExperimenter {
			return
		}
		n := 8 + len(a.Data)
		x, err := DecodeNXAction(&a)
		if err != nil {
			return
		}
		enc := x.Action()
		out, err := enc.AppendBinary(nil)
		if err != nil {
			t.Fatalf("%v: encode: %v", x, err)
		}
		// The subtypes of variable length may come with more zero
		// padding than their encoding has.
		variable := x.Subtype == NXDecTTLCntIDs || x.Subtype == NXRegMove || x.Subtype == NXOutputReg2 || x.Subtype == NXRegLoad2
		if want := nxIgnored(b[:n]); !variable || len(out) == n {
			if !bytes.Equal(out, want) {
				t.Fatalf("%s: encoded\n%x\nwant\n%x", x.String(), out, want)
			}
		}
		y, err := DecodeNXAction(&enc)
		if err != nil {
			t.Fatalf("%s: decoding the encoding: %v", x.String(), err)
		}
		if diff := cmp.Diff(x, y); diff != "" {
			t.Fatalf("decode(encode(x)) differs:\n%s", diff)
		}
	})
}

package openflow

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// benchFlowMod is a FLOW_MOD with a 5-field match and 2 actions.
func benchFlowMod() *FlowMod {
	return &FlowMod{
		Header:   Header{XID: 42},
		Cookie:   0x1234,
		Command:  FlowAdd,
		Priority: 400,
		BufferID: NoBuffer,
		OutPort:  PortAny,
		OutGroup: GroupAny,
		Flags:    FlowSendFlowRem,
		Match: Match{Fields: []OXM{
			InPort(1), EthType(0x0800), IPProto(6),
			IPv4Dst(netip.MustParsePrefix("127.0.0.0/8")), TCPDst(80),
		}},
		Instructions: []Instruction{ApplyActions(
			SetField(EthDst([6]byte{2, 0, 0, 0, 0, 0x0b})),
			Output(2, 0),
		)},
	}
}

func TestFlowModRoundTripAndView(t *testing.T) {
	fm := benchFlowMod()
	b, err := fm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b)%8 != 0 || int(binary.BigEndian.Uint16(b[2:])) != len(b) {
		t.Fatalf("length %d, header says %d", len(b), binary.BigEndian.Uint16(b[2:]))
	}
	var got FlowMod
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	want := *fm
	want.Header = Header{Version: Version13, Type: TypeFlowMod, Length: uint16(len(b)), XID: 42}
	if diff := cmp.Diff(&want, &got, cmpOpts...); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	v := FlowModView(b)
	if err := v.Check(); err != nil {
		t.Fatal(err)
	}
	if v.Priority() != 400 || v.Command() != FlowAdd || v.Cookie() != 0x1234 || v.XID() != 42 ||
		v.BufferID() != NoBuffer || v.OutPort() != PortAny || v.OutGroup() != GroupAny || v.Flags() != FlowSendFlowRem ||
		v.TableID() != 0 || v.IdleTimeout() != 0 || v.HardTimeout() != 0 || v.CookieMask() != 0 || v.Header().Length != uint16(len(b)) {
		t.Fatalf("view fields disagree: %+v", v.Header())
	}
	if p, masked := v.Lookup(FieldTCPDst); masked || binary.BigEndian.Uint16(p) != 80 {
		t.Fatalf("Lookup(tcp_dst) = %x, %t", p, masked)
	}
	if p, masked := v.Lookup(FieldIPv4Dst); !masked || len(p) != 8 || p[4] != 0xff || p[5] != 0 {
		t.Fatalf("Lookup(ipv4_dst) = %x, %t", p, masked)
	}
	if p, _ := v.Lookup(FieldUDPDst); p != nil {
		t.Fatalf("Lookup(udp_dst) = %x", p)
	}
	it, n := v.OXMs(), 0
	for _, _, ok := it.Next(); ok; _, _, ok = it.Next() {
		n++
	}
	if n != 5 {
		t.Fatalf("OXMs yielded %d fields", n)
	}
	if len(v.InstructionBytes()) != fm.Instructions[0].Len() {
		t.Fatalf("InstructionBytes = %d bytes", len(v.InstructionBytes()))
	}
	var kinds []uint16
	walk := func() {
		kinds = kinds[:0]
		ins := v.Instructions()
		for typ, tlv, ok := ins.Next(); ok; typ, tlv, ok = ins.Next() {
			kinds = append(kinds, typ)
			acts := Actions(tlv)
			for at, _, ok := acts.Next(); ok; at, _, ok = acts.Next() {
				kinds = append(kinds, at)
			}
		}
	}
	walk()
	if diff := cmp.Diff([]uint16{uint16(InstructionApplyActions), uint16(ActionSetField), uint16(ActionOutput)}, kinds); diff != "" {
		t.Fatalf("instruction walk (-want +got):\n%s", diff)
	}
	if allocs := testing.AllocsPerRun(100, walk); allocs != 0 {
		t.Errorf("instruction walk: %v allocs", allocs)
	}
	var reuse FlowMod
	buf := make([]byte, 0, 256)
	if allocs := testing.AllocsPerRun(200, func() {
		if v.Check() != nil || v.Priority() != 400 {
			t.Fatal("view check failed")
		}
		if _, masked := v.Lookup(FieldIPv4Dst); !masked {
			t.Fatal("lookup failed")
		}
	}); allocs != 0 {
		t.Errorf("FlowModView Check+accessors: %v allocs, want 0", allocs)
	}
	if allocs := testing.AllocsPerRun(200, func() {
		if err := reuse.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("FlowMod.UnmarshalBinary into a reused value: %v allocs, want 0", allocs)
	}
	if allocs := testing.AllocsPerRun(200, func() {
		buf, _ = fm.AppendBinary(buf[:0])
	}); allocs != 0 {
		t.Errorf("FlowMod.AppendBinary: %v allocs, want 0", allocs)
	}
	// OpenFlow 1.4 carries importance in the former pad bytes.
	fm14 := *fm
	fm14.Version, fm14.Importance = Version14, 7
	b14, _ := fm14.MarshalBinary()
	if binary.BigEndian.Uint16(b14[46:]) != 7 {
		t.Fatalf("importance not encoded: %x", b14[40:48])
	}
	fm13 := *fm
	fm13.Importance = 7
	b13, _ := fm13.MarshalBinary()
	if binary.BigEndian.Uint16(b13[46:]) != 0 {
		t.Fatal("importance encoded in an OpenFlow 1.3 FLOW_MOD")
	}
}

// TestFlowModErrors corrupts one field at a time and checks that
// UnmarshalBinary and FlowModView.Check report the same sentinel, field
// offset and OFPT_ERROR code.
func TestFlowModErrors(t *testing.T) {
	base, err := benchFlowMod().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// Layout: 48 fixed, match at 48 (len 4+8+6+5+12+6=41, padded 48), instructions at 96.
	const matchAt, insAt = 48, 96
	const actAt = insAt + 8
	for _, tt := range []struct {
		name   string
		mutate func(b []byte) []byte
		err    error
		etype  ErrorType
		code   uint16
		offset int
	}{
		{"bad command", func(b []byte) []byte { b[25] = 9; return b }, ErrBadFlowCommand, ErrTypeFlowModFailed, uint16(FlowModFailedBadCommand), 25},
		{"truncated", func(b []byte) []byte { return b[:len(b)-8] }, ErrBadLength, ErrTypeBadRequest, uint16(BadRequestBadLen), 2},
		{"duplicate instruction", func(b []byte) []byte {
			b = append(b, 0, 1, 0, 8, 1, 0, 0, 0, 0, 1, 0, 8, 2, 0, 0, 0) // GOTO_TABLE twice
			binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
			return b
		}, ErrDuplicateInstruction, ErrTypeBadInstruction, uint16(BadInstructionDupInst), 144},
		{"match type standard", func(b []byte) []byte { b[matchAt+1] = 0; return b }, ErrBadMatchType, ErrTypeBadMatch, uint16(BadMatchBadType), matchAt},
		{"match length overruns", func(b []byte) []byte { b[matchAt+2] = 0x10; return b }, ErrBadMatchLength, ErrTypeBadMatch, uint16(BadMatchBadLen), matchAt + 2},
		{"oxm length wrong", func(b []byte) []byte { b[matchAt+4+3] = 3; return b }, ErrBadMatchLength, ErrTypeBadMatch, uint16(BadMatchBadLen), matchAt + 4 + 3},
		{"unknown basic field", func(b []byte) []byte { b[matchAt+4+2] = 60 << 1; return b }, ErrBadField, ErrTypeBadMatch, uint16(BadMatchBadField), matchAt + 4 + 2},
		{"unknown instruction", func(b []byte) []byte { b[insAt+1] = 9; return b }, ErrUnknownInstruction, ErrTypeBadInstruction, uint16(BadInstructionUnknownInst), insAt},
		{"instruction length", func(b []byte) []byte { b[insAt+3] = 7; return b }, ErrBadInstructionLength, ErrTypeBadInstruction, uint16(BadInstructionBadLen), insAt + 2},
		{"unknown action", func(b []byte) []byte { b[actAt+1] = 99; return b }, ErrBadActionType, ErrTypeBadAction, uint16(BadActionBadType), actAt},
		{"action length", func(b []byte) []byte { b[actAt+3] = 24; return b }, ErrBadActionLength, ErrTypeBadAction, uint16(BadActionBadLen), actAt + 2},
		{"set_field unknown field", func(b []byte) []byte { b[actAt+6] = 70 << 1; return b }, ErrBadSetType, ErrTypeBadAction, uint16(BadActionBadSetType), actAt + 6},
		{"set_field with mask", func(b []byte) []byte { b[actAt+6] |= 1; return b }, ErrBadSetLength, ErrTypeBadAction, uint16(BadActionBadSetLen), actAt + 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.mutate(append([]byte(nil), base...))
			var fm FlowMod
			errs := []error{fm.UnmarshalBinary(b), FlowModView(b).Check()}
			if errs[0] != nil && errs[1] != nil && errs[0].Error() != errs[1].Error() {
				t.Errorf("value and view disagree:\n%v\n%v", errs[0], errs[1])
			}
			for i, err := range errs {
				if !errors.Is(err, tt.err) {
					t.Fatalf("decoder %d: err = %v, want %v", i, err, tt.err)
				}
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("decoder %d: %T", i, err)
				}
				if de.Type != TypeFlowMod || de.Offset != tt.offset {
					t.Errorf("decoder %d: %v: type %v offset %d, want offset %d", i, de, de.Type, de.Offset, tt.offset)
				}
				em := ErrorFor(err, b)
				if em.Type != tt.etype || em.Code != tt.code || em.XID != 42 {
					t.Errorf("decoder %d: ErrorFor = %v xid %d, want %v/%d", i, em, em.XID, tt.etype, tt.code)
				}
			}
		})
	}
}

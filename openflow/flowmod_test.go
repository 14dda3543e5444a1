package openflow

import (
	"bytes"
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

// TestOXMHeader reads the fields of OXM headers as the specification lays
// them out (OpenFlow 1.3.5 §7.2.3.2).
func TestOXMHeader(t *testing.T) {
	for _, tt := range []struct {
		h       OXMHeader
		class   OXMClass
		field   OXMField
		hasMask bool
		length  int
	}{
		{0x80000a02, OXMClassOpenFlow, FieldEthType, false, 2},
		{0x80001908, OXMClassOpenFlow, FieldIPv4Dst, true, 8},
		{0x80003720, OXMClassOpenFlow, FieldIPv6Dst, true, 32},
		{0xffff5408, OXMClassExperimenter, ONFFieldTCPFlags, false, 8},
	} {
		if tt.h.Class() != tt.class || tt.h.Field() != tt.field || tt.h.HasMask() != tt.hasMask || tt.h.Len() != tt.length {
			t.Errorf("%#08x: class %#x field %d mask %v len %d; want %#x %d %v %d", uint32(tt.h),
				tt.h.Class(), tt.h.Field(), tt.h.HasMask(), tt.h.Len(), tt.class, tt.field, tt.hasMask, tt.length)
		}
	}
}

// templateFlowMods returns two FLOW_MODs whose matches have the same OXMs
// (fields, order, masks) with other values, and whose fixed parts differ
// in every field.
func templateFlowMods() (first, next *FlowMod) {
	first = &FlowMod{
		Header: Header{XID: 1}, Cookie: 1, CookieMask: 2, TableID: 3, Command: FlowAdd,
		IdleTimeout: 4, HardTimeout: 5, Priority: 6, BufferID: NoBuffer, OutPort: PortAny,
		OutGroup: GroupAny, Flags: FlowSendFlowRem, Importance: 7,
		Match: Match{Fields: []OXM{
			InPort(1), NewOXM(FieldMetadata, []byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0}),
			EthType(0x86dd), IPProto(17),
			NewOXM(FieldIPv6Src, bytes.Repeat([]byte{0x20}, 16), append(bytes.Repeat([]byte{0xff}, 8), make([]byte, 8)...)),
			UDPDst(53),
		}},
		Instructions: []Instruction{ApplyActions(Output(2, 0))},
	}
	next = &FlowMod{
		Header: Header{XID: 0xdeadbeef}, Cookie: 0x1122334455667788, CookieMask: ^uint64(0), TableID: 200,
		Command: FlowModifyStrict, IdleTimeout: 0xfffe, HardTimeout: 300, Priority: 0x8000, BufferID: 0x01020304,
		OutPort: 9, OutGroup: 10, Flags: FlowCheckOverlap | FlowResetCounts, Importance: 0xabcd,
		Match: Match{Fields: []OXM{
			InPort(0xfffffff0), NewOXM(FieldMetadata, []byte{9, 0, 9, 0, 9, 0, 9, 0}, []byte{0xff, 0xff, 0, 0, 0xff, 0xff, 0, 0}),
			EthType(0x86dd), IPProto(17),
			NewOXM(FieldIPv6Src, bytes.Repeat([]byte{0x30}, 16), bytes.Repeat([]byte{0xff}, 16)),
			UDPDst(5353),
		}},
		Instructions: first.Instructions,
	}
	return first, next
}

// TestFlowModTemplate: a copy of a template with the fixed part set
// through the view's setters and each OXM's value and mask written over
// at its offset is, byte for byte, the FLOW_MOD that AppendBinary encodes
// with those fields and values: in OpenFlow 1.3, which has no importance,
// and 1.4.
func TestFlowModTemplate(t *testing.T) {
	first, next := templateFlowMods()
	for _, version := range []uint8{Version13, Version14} {
		first.Version, next.Version = version, version
		msg, err := first.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var tm FlowModTemplate
		if err := tm.Reset(msg); err != nil {
			t.Fatal(err)
		}
		if tm.Len() != len(msg) || len(tm.OXMs()) != len(first.Match.Fields) {
			t.Fatalf("version %d: template of %d bytes with %d OXMs; want %d, %d", version, tm.Len(), len(tm.OXMs()), len(msg), len(first.Match.Fields))
		}
		b := bytes.Repeat([]byte{0xee}, tm.Len())
		v := tm.Copy(b)
		if !bytes.Equal(b, msg) {
			t.Fatalf("version %d: Copy gave % x, want % x", version, b, msg)
		}
		v.SetXID(next.XID)
		v.SetCookie(next.Cookie)
		v.SetCookieMask(next.CookieMask)
		v.SetTableID(next.TableID)
		v.SetCommand(next.Command)
		v.SetIdleTimeout(next.IdleTimeout)
		v.SetHardTimeout(next.HardTimeout)
		v.SetPriority(next.Priority)
		v.SetBufferID(next.BufferID)
		v.SetOutPort(next.OutPort)
		v.SetOutGroup(next.OutGroup)
		v.SetFlags(next.Flags)
		v.SetImportance(next.Importance)
		for i, o := range tm.OXMs() {
			f := &next.Match.Fields[i]
			n := f.Field.Size()
			if o.Header.Field() != f.Field || o.Header.HasMask() != f.HasMask || o.Header.Class() != OXMClassOpenFlow {
				t.Fatalf("version %d: OXM %d has header %#08x, want field %v (mask %v)", version, i, uint32(o.Header), f.Field, f.HasMask)
			}
			copy(b[o.Offset:o.Offset+n], f.Value[:n])
			if f.HasMask {
				copy(b[o.Offset+n:o.Offset+2*n], f.Mask[:n])
			}
		}
		want, err := next.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("version %d: patched copy\n% x\nfull encoding\n% x", version, b, want)
		}
	}
}

// TestFlowModTemplateGolden: the OXMs of a template made from a golden
// FLOW_MOD lie where the vector's annotations put them, and a copy with
// the priority and a value written over decodes to the FlowMod with them.
func TestFlowModTemplateGolden(t *testing.T) {
	_, msg := readGolden(t, "flow_mod_cidr_normal.hex")
	var tm FlowModTemplate
	if err := tm.Reset(msg); err != nil {
		t.Fatal(err)
	}
	want := []TemplateOXM{{0x80000a02, 56}, {0x80001708, 62}, {0x80001908, 74}}
	if diff := cmp.Diff(want, tm.OXMs()); diff != "" {
		t.Fatalf("OXMs (-want +got):\n%s", diff)
	}
	b := make([]byte, tm.Len())
	v := tm.Copy(b)
	v.SetPriority(301)
	copy(b[tm.OXMs()[2].Offset:], []byte{127, 9, 9, 0})
	var got, orig FlowMod
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if err := orig.UnmarshalBinary(msg); err != nil {
		t.Fatal(err)
	}
	orig.Priority = 301
	orig.Match.Fields[2] = IPv4Dst(netip.MustParsePrefix("127.9.9.0/24"))
	if diff := cmp.Diff(&orig, &got, cmpOpts...); diff != "" {
		t.Errorf("patched golden (-want +got):\n%s", diff)
	}
}

// TestFlowModTemplateReset: Reset refuses a message whose lengths do not
// hold together and leaves the template empty.
func TestFlowModTemplateReset(t *testing.T) {
	good, err := benchFlowMod().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var tm FlowModTemplate
	for _, tt := range []struct {
		name string
		edit func(b []byte) []byte
		err  error
	}{
		{"short", func(b []byte) []byte { return b[:FlowModMinLen-1] }, ErrBadLength},
		{"not a FLOW_MOD", func(b []byte) []byte { b[1] = byte(TypePacketOut); return b }, ErrBadLength},
		{"length field", func(b []byte) []byte { return b[:len(b)-8] }, ErrBadLength},
		{"match past the end", func(b []byte) []byte { binary.BigEndian.PutUint16(b[FlowModMatchOffset+2:], uint16(len(b))); return b }, ErrBadMatchLength},
		{"OXM past the match", func(b []byte) []byte { b[FlowModMatchOffset+4+3] = 0x7f; return b }, ErrBadMatchLength},
	} {
		if err := tm.Reset(good); err != nil || tm.Len() == 0 {
			t.Fatalf("Reset of a good message: %v", err)
		}
		if err := tm.Reset(tt.edit(bytes.Clone(good))); !errors.Is(err, tt.err) || tm.Len() != 0 || len(tm.OXMs()) != 0 {
			t.Errorf("%s: err %v, template of %d bytes with %d OXMs; want %v and an empty template", tt.name, err, tm.Len(), len(tm.OXMs()), tt.err)
		}
	}
}

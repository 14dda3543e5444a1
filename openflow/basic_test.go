package openflow

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var cmpOpts = []cmp.Option{cmpopts.EquateEmpty()}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.Join(strings.Fields(s), "")
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip decodes in into m, compares with want, re-encodes into a
// 0xFF-prefilled buffer and compares bytes.
func roundTrip(t *testing.T, in []byte, m, want Message) {
	t.Helper()
	if err := m.UnmarshalBinary(in); err != nil {
		t.Fatalf("UnmarshalBinary: %v", err)
	}
	if want != nil {
		if diff := cmp.Diff(want, m, cmpOpts...); diff != "" {
			t.Fatalf("decoded (-want +got):\n%s", diff)
		}
	}
	buf := bytes.Repeat([]byte{0xff}, len(in)+64)
	out, err := m.AppendBinary(buf[:0])
	if err != nil {
		t.Fatalf("AppendBinary: %v", err)
	}
	if !bytes.Equal(out, in) {
		t.Fatalf("re-encoded\n got %x\nwant %x", out, in)
	}
}

func TestHelloOVS(t *testing.T) {
	// Open vSwitch 3.1 sends a version 6 HELLO with bitmap 0x72 = {1.0, 1.3, 1.4, 1.5}.
	in := mustHex(t, "06 00 00 10 00 00 00 01  00 01 00 08 00 00 00 72")
	var h Hello
	roundTrip(t, in, &h, &Hello{Header: Header{Version: 6, Type: TypeHello, Length: 16, XID: 1},
		Elements: []HelloElem{{Type: HelloElemVersionBitmap, Bitmaps: []uint32{0x72}}}})
	v, err := Negotiate(VersionBit(Version13), &h)
	if err != nil || v != Version13 {
		t.Fatalf("Negotiate = %d, %v; want 4", v, err)
	}
	v, err = Negotiate(VersionBit(Version13)|VersionBit(Version14), &h)
	if err != nil || v != Version14 {
		t.Fatalf("Negotiate(1.3|1.4) = %d, %v; want 5", v, err)
	}
	_, err = Negotiate(VersionBit(Version12), &h)
	if !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Negotiate(1.2) err = %v, want ErrIncompatible", err)
	}
	em := ErrorFor(err, in)
	if em.Type != ErrTypeHelloFailed || em.Code != uint16(HelloFailedIncompatible) || em.XID != 1 {
		t.Fatalf("ErrorFor = %+v", em)
	}
	// Without a bitmap the header version means "up to this version".
	bare := Hello{Header: Header{Version: Version14}}
	if v, _ := Negotiate(VersionBit(Version13), &bare); v != Version13 {
		t.Fatalf("bare hello negotiated %d", v)
	}
	nh := NewHello(7, Version13)
	b, _ := nh.MarshalBinary()
	if want := mustHex(t, "04 00 00 10 00 00 00 07 00 01 00 08 00 00 00 10"); !bytes.Equal(b, want) {
		t.Fatalf("NewHello = %x", b)
	}
}

func TestHelloErrors(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		err      error
	}{
		{"short", "04 00 00", ErrShortBuffer},
		{"length below header", "04 00 00 04 00 00 00 01", ErrBadLength},
		{"length disagrees", "04 00 00 09 00 00 00 01", ErrBadLength},
		{"element overruns", "04 00 00 10 00 00 00 01 00 01 00 10 00 00 00 10", ErrBadHelloElement},
		{"odd bitmap", "04 00 00 10 00 00 00 01 00 01 00 07 00 00 00 00", ErrBadHelloElement},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var h Hello
			err := h.UnmarshalBinary(mustHex(t, tt.in))
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Field == "" {
				t.Fatalf("err %v is not a *DecodeError naming a field", err)
			}
		})
	}
}

func TestSimpleMessages(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		m    Message
		want Message
	}{
		{"echo request", "04 02 00 0c 00 00 00 05 de ad be ef", &EchoRequest{},
			&EchoRequest{Header{4, TypeEchoRequest, 12, 5}, []byte{0xde, 0xad, 0xbe, 0xef}}},
		{"echo reply", "04 03 00 08 00 00 00 05", &EchoReply{}, &EchoReply{Header: Header{4, TypeEchoReply, 8, 5}}},
		{"features request", "04 05 00 08 00 00 00 02", &Empty{}, &Empty{Header{4, TypeFeaturesRequest, 8, 2}}},
		{"barrier reply", "04 15 00 08 00 00 00 09", &Empty{}, &Empty{Header{4, TypeBarrierReply, 8, 9}}},
		{"features reply", "04 06 00 20 00 00 00 02  00 00 ae 1b 2c 3d 4e 5f  00 00 01 00 fe 00 00 00  00 00 00 4f 00 00 00 00",
			&FeaturesReply{}, &FeaturesReply{Header: Header{4, TypeFeaturesReply, 32, 2}, DatapathID: 0xae1b2c3d4e5f,
				NBuffers: 256, NTables: 254, Capabilities: CapFlowStats | CapTableStats | CapPortStats | CapGroupStats | CapQueueStats}},
		{"get config reply", "04 08 00 0c 00 00 00 03 00 00 ff e5", &SwitchConfig{},
			&SwitchConfig{Header: Header{4, TypeGetConfigReply, 12, 3}, MissSendLen: 0xffe5}},
		{"set config", "04 09 00 0c 00 00 00 03 00 01 00 80", &SwitchConfig{},
			&SwitchConfig{Header: Header{4, TypeSetConfig, 12, 3}, Flags: ConfigFragDrop, MissSendLen: 128}},
		{"role request", "04 18 00 18 00 00 00 04 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 2a", &Role{},
			&Role{Header: Header{4, TypeRoleRequest, 24, 4}, Role: RoleMaster, GenerationID: 42}},
		{"role reply", "04 19 00 18 00 00 00 04 00 00 00 03 00 00 00 00 00 00 00 00 00 00 00 2b", &Role{},
			&Role{Header: Header{4, TypeRoleReply, 24, 4}, Role: RoleSlave, GenerationID: 43}},
		{"set async", "04 1c 00 20 00 00 00 06  00 00 00 03 00 00 00 00  00 00 00 07 00 00 00 01  00 00 00 0f 00 00 00 00",
			&AsyncConfig{}, &AsyncConfig{Header: Header{4, TypeSetAsync, 32, 6}, PacketInMask: [2]uint32{3, 0},
				PortStatusMask: [2]uint32{7, 1}, FlowRemovedMask: [2]uint32{15, 0}}},
		{"error", "04 01 00 14 00 00 00 07 00 02 00 09 04 0e 00 50 00 00 00 07", &ErrorMsg{},
			&ErrorMsg{Header: Header{4, TypeError, 20, 7}, Type: ErrTypeBadAction, Code: uint16(BadActionBadOutGroup),
				Data: []byte{4, 0x0e, 0, 0x50, 0, 0, 0, 7}}},
		{"experimenter error", "04 01 00 14 00 00 00 07 ff ff 00 01 00 00 23 20 01 02 03 04", &ErrorMsg{},
			&ErrorMsg{Header: Header{4, TypeError, 20, 7}, Type: ErrTypeExperimenter, Code: 1, Experimenter: 0x2320,
				Data: []byte{1, 2, 3, 4}}},
		{"experimenter", "04 04 00 14 00 00 00 08 00 00 23 20 00 00 00 10 aa bb cc dd", &Experimenter{},
			&Experimenter{Header: Header{4, TypeExperimenter, 20, 8}, Experimenter: 0x2320, ExpType: 16, Data: []byte{0xaa, 0xbb, 0xcc, 0xdd}}},
	} {
		t.Run(tt.name, func(t *testing.T) { roundTrip(t, mustHex(t, tt.in), tt.m, tt.want) })
	}
}

func TestErrorMapping(t *testing.T) {
	if got := (ErrorMsg{Type: ErrTypeBadMatch, Code: uint16(BadMatchBadField)}).Error(); got != "openflow: OFPET_BAD_MATCH/OFPBMC_BAD_FIELD" {
		t.Errorf("Error() = %q", got)
	}
	for _, tt := range []struct {
		err  error
		typ  ErrorType
		code uint16
	}{
		{ErrBadLength, ErrTypeBadRequest, uint16(BadRequestBadLen)},
		{ErrBadType, ErrTypeBadRequest, uint16(BadRequestBadType)},
		{ErrBadField, ErrTypeBadMatch, uint16(BadMatchBadField)},
		{ErrBadPrereq, ErrTypeBadMatch, uint16(BadMatchBadPrereq)},
		{ErrUnknownInstruction, ErrTypeBadInstruction, uint16(BadInstructionUnknownInst)},
		{ErrBadActionLength, ErrTypeBadAction, uint16(BadActionBadLen)},
		{ErrBadFlowCommand, ErrTypeFlowModFailed, uint16(FlowModFailedBadCommand)},
		{errors.New("other"), ErrTypeBadRequest, uint16(BadRequestEPerm)},
	} {
		de := &DecodeError{Type: TypeFlowMod, Field: "x", Offset: 3, Err: tt.err}
		if em := de.ErrorMsg(); em.Type != tt.typ || em.Code != tt.code {
			t.Errorf("%v → %v/%d, want %v/%d", tt.err, em.Type, em.Code, tt.typ, tt.code)
		}
	}
	req := bytes.Repeat([]byte{0xab}, 100)
	copy(req, mustHex(t, "04 0e 00 64 00 00 00 2a"))
	em := ErrorFor(&DecodeError{Err: ErrBadField}, req)
	if em.XID != 42 || em.Version != 4 || len(em.Data) != 64 || em.Type != ErrTypeBadMatch {
		t.Errorf("ErrorFor = %+v", em)
	}
	passthrough := ErrorFor(ErrorMsg{Type: ErrTypeFlowModFailed, Code: uint16(FlowModFailedTableFull)}, req[:8])
	if passthrough.Type != ErrTypeFlowModFailed || passthrough.Code != uint16(FlowModFailedTableFull) {
		t.Errorf("ErrorFor(ErrorMsg) = %+v", passthrough)
	}
	for _, s := range []string{TypeFlowMod.String(), ErrTypeBadMatch.String(), BadMatchDupField.String(),
		MeterModFailedOutOfBands.String(), TableFeaturesFailedEPerm.String(), ErrTypeBundleFailed.String(),
		BundleFailedUnknown.String(), BundleFailedBundleInProgress.String()} {
		if !strings.HasPrefix(s, "OFP") || strings.ContainsAny(s, "0123456789") {
			t.Errorf("String() = %q", s)
		}
	}
	if got := (ErrorMsg{Type: ErrTypeBundleFailed, Code: uint16(BundleFailedMsgFailed)}).Error(); got != "openflow: OFPET_BUNDLE_FAILED/OFPBFC_MSG_FAILED" {
		t.Errorf("bundle failure: %q", got)
	}
}

type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(c.n, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// TestReaderReady checks Ready on a header Next refuses: Next returns its
// error without reading, so the Reader is ready.
func TestReaderReady(t *testing.T) {
	for _, length := range []uint16{4, 2000} {
		hdr := []byte{Version13, byte(TypeEchoRequest), byte(length >> 8), byte(length), 0, 0, 0, 1}
		r := NewReader(bytes.NewReader(append(hdr, make([]byte, 8)...)), 1024)
		if r.Ready() {
			t.Fatalf("length %d: ready before any read", length)
		}
		if _, err := r.Next(); err == nil {
			t.Fatalf("length %d: Next accepted the header", length)
		}
		if !r.Ready() {
			t.Errorf("length %d: not ready with the refused header buffered", length)
		}
	}
}

func TestReaderWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	msgs := []Message{
		&EchoRequest{Header: Header{XID: 1}, Data: bytes.Repeat([]byte{1}, 300)},
		&Empty{Header{Type: TypeBarrierRequest, XID: 2}},
		&SwitchConfig{Header: Header{XID: 3}, MissSendLen: 128},
	}
	for _, m := range msgs[:2] {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMessage(msgs[2]); err != nil {
		t.Fatal(err)
	}
	stream := buf.Bytes()
	for _, chunk := range []int{1, 3, 7, 1000} {
		r := NewReader(&chunkReader{data: append([]byte(nil), stream...), n: chunk}, 1024)
		var xids []uint32
		var offs []int64
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("chunk %d: %v", chunk, err)
			}
			var h Header
			if err := h.UnmarshalBinary(b); err != nil || int(h.Length) != len(b) {
				t.Fatalf("chunk %d: framed %x", chunk, b)
			}
			xids = append(xids, h.XID)
			offs = append(offs, r.Offset())
			// What was read and not returned yet: each read brought
			// one chunk (the stream is smaller than the buffer).
			read := min(len(stream), int(r.Reads())*chunk)
			if got, want := r.Buffered(), read-int(r.Offset())-len(b); got != want {
				t.Errorf("chunk %d, xid %d: Buffered %d, want %d", chunk, h.XID, got, want)
			}
			// Ready: the next message is buffered whole.
			next := int(r.Offset()) + len(b)
			ready := next+HeaderLen <= read && next+int(binary.BigEndian.Uint16(stream[next+2:])) <= read
			if r.Ready() != ready {
				t.Errorf("chunk %d, xid %d: Ready %v with %d bytes buffered", chunk, h.XID, r.Ready(), r.Buffered())
			}
		}
		if diff := cmp.Diff([]uint32{1, 2, 3}, xids); diff != "" {
			t.Fatalf("chunk %d xids: %s", chunk, diff)
		}
		if diff := cmp.Diff([]int64{0, 308, 316}, offs); diff != "" {
			t.Fatalf("chunk %d offsets: %s", chunk, diff)
		}
		// One read per chunk of the stream, and none for the end.
		if want := uint64((len(stream) + chunk - 1) / chunk); r.Reads() != want {
			t.Errorf("chunk %d: %d reads counted, want %d", chunk, r.Reads(), want)
		}
	}
	// Messages larger than the buffer a Reader starts with, between small
	// ones, in reads of every size: the buffer grows and nothing is lost.
	var big bytes.Buffer
	w = NewWriter(&big)
	sizes := []int{0, 40000, 5, MaxMessageLen - HeaderLen, 100, 20000, 65000, 0}
	for i, n := range sizes {
		if err := w.Append(&EchoRequest{Header: Header{XID: uint32(i)}, Data: bytes.Repeat([]byte{byte(i)}, n)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{1000, 4096, 50000, 1 << 20} {
		r := NewReader(&chunkReader{data: append([]byte(nil), big.Bytes()...), n: chunk}, 0)
		for i, n := range sizes {
			b, err := r.Next()
			if err != nil {
				t.Fatalf("chunk %d, message %d: %v", chunk, i, err)
			}
			var m EchoRequest
			if err := m.UnmarshalBinary(b); err != nil || m.XID != uint32(i) || !bytes.Equal(m.Data, bytes.Repeat([]byte{byte(i)}, n)) {
				t.Fatalf("chunk %d, message %d: xid %d, %d bytes, err %v", chunk, i, m.XID, len(m.Data), err)
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("chunk %d: after the last message: %v", chunk, err)
		}
	}
	// Truncated stream, oversize and undersize lengths.
	r := NewReader(bytes.NewReader(stream[:20]), 0)
	if _, err := r.Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("truncated: err = %v", err)
	}
	r = NewReader(bytes.NewReader(stream), 100)
	if _, err := r.Next(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("oversize: err = %v", err)
	}
	r = NewReader(bytes.NewReader(mustHex(t, "04 00 00 02 00 00 00 00")), 0)
	if _, err := r.Next(); !errors.Is(err, ErrBadLength) {
		t.Fatalf("undersize: err = %v", err)
	}
	// Steady-state reading allocates nothing.
	rd := bytes.NewReader(nil)
	r = NewReader(rd, 0)
	allocs := testing.AllocsPerRun(100, func() {
		rd.Reset(stream)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("Reader.Next allocates %v times per stream", allocs)
	}
}

// TestWriterReserve: bytes a caller writes into Reserve's slice go out in
// place, between the messages appended before and after, and the buffer
// grows past its first size to take them.
func TestWriterReserve(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	first := &Empty{Header{Type: TypeBarrierRequest, XID: 1}}
	if err := w.Append(first); err != nil {
		t.Fatal(err)
	}
	echo := &EchoRequest{Header: Header{XID: 2}, Data: bytes.Repeat([]byte{7}, 5000)}
	raw, err := echo.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	copy(w.Reserve(len(raw)), raw)
	if err := w.Append(&Empty{Header{Type: TypeBarrierRequest, XID: 3}}); err != nil {
		t.Fatal(err)
	}
	if w.Buffered() != 8+len(raw)+8 {
		t.Fatalf("Buffered = %d, want %d", w.Buffered(), 16+len(raw))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&buf, 0)
	for i, want := range []uint32{1, 2, 3} {
		msg, err := r.Next()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if got := binary.BigEndian.Uint32(msg[4:]); got != want {
			t.Fatalf("message %d has xid %d, want %d", i, got, want)
		}
		if i == 1 && !bytes.Equal(msg, raw) {
			t.Fatalf("reserved message came out as % x", msg[:16])
		}
	}
}

// TestWriterBuffer: messages a caller appends to Buffer's slice and hands
// back with SetBuffer go out in place, between the messages appended
// before and after.
func TestWriterBuffer(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Append(&Empty{Header{Type: TypeBarrierRequest, XID: 1}}); err != nil {
		t.Fatal(err)
	}
	echo := &EchoRequest{Header: Header{XID: 2}, Data: bytes.Repeat([]byte{7}, 5000)}
	b, err := echo.AppendBinary(w.Buffer())
	if err != nil {
		t.Fatal(err)
	}
	w.SetBuffer(b)
	if err := w.Append(&Empty{Header{Type: TypeBarrierRequest, XID: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&buf, 0)
	for i, want := range []uint32{1, 2, 3} {
		msg, err := r.Next()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if got := binary.BigEndian.Uint32(msg[4:]); got != want || (i == 1 && len(msg) != 8+5000) {
			t.Fatalf("message %d: xid %d, %d bytes; want xid %d", i, got, len(msg), want)
		}
	}
}

package openflow

import (
	"encoding/binary"
	"errors"
	"testing"
)

// TestDecodeErrorCodes feeds malformed messages of several families to
// Decode and checks the sentinel, the field named and the OFPT_ERROR that
// ErrorFor builds (type, code, xid, data = the request's first bytes).
func TestDecodeErrorCodes(t *testing.T) {
	enc := func(m Message) []byte {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	set := func(b []byte, off int, v ...byte) []byte {
		b = append([]byte(nil), b...)
		copy(b[off:], v)
		return b
	}
	group := enc(syntheticOf(TypeGroupMod, 0))
	meter := enc(syntheticOf(TypeMeterMod, 0))
	mpReq := enc(&MultipartRequest{Header: Header{XID: 7}, Part: MultipartPortStats, PortNo: PortAny})
	pktOut := enc(syntheticOf(TypePacketOut, 0))
	bundleAdd := enc(syntheticOf(TypeBundleAddMessage, 0))
	for _, tt := range []struct {
		name  string
		in    []byte
		err   error
		field string
		typ   ErrorType
		code  uint16
	}{
		{"unknown type", set(enc(&EchoRequest{}), 1, 99), ErrBadType, "header.type", ErrTypeBadRequest, uint16(BadRequestBadType)},
		{"OpenFlow 1.1", set(enc(&EchoRequest{}), 0, Version11), ErrUnsupportedVersion, "header.version", ErrTypeBadRequest, uint16(BadRequestBadVersion)},
		{"1.4 packet-out", set(pktOut, 0, Version14), ErrUnsupportedVersion, "header.version", ErrTypeBadRequest, uint16(BadRequestBadVersion)},
		{"group command", set(group, 8, 0, 9), ErrBadGroupCommand, "command", ErrTypeGroupModFailed, uint16(GroupModFailedBadCommand)},
		{"bucket length", set(group, 16, 0, 12), ErrBadBucket, "buckets[0].len", ErrTypeGroupModFailed, uint16(GroupModFailedBadBucket)},
		{"bucket action", set(group, 32+1, 0x77), ErrBadActionType, "buckets[0].actions[0].type", ErrTypeBadAction, uint16(BadActionBadType)},
		{"meter command", set(meter, 8, 0, 7), ErrBadMeterCommand, "command", ErrTypeMeterModFailed, uint16(MeterModFailedBadCommand)},
		{"meter band length", set(meter, 16+2, 0, 20), ErrBadMeterBand, "bands[0].len", ErrTypeMeterModFailed, uint16(MeterModFailedBadBand)},
		{"multipart type", set(mpReq, 8, 0, 99), ErrBadMultipart, "type", ErrTypeBadRequest, uint16(BadRequestBadMultipart)},
		{"multipart body", append(set(mpReq, 2, 0, 28), 0, 0, 0, 0), ErrBadLength, "body", ErrTypeBadRequest, uint16(BadRequestBadLen)},
		{"packet-out actions_len", set(pktOut, 16, 0xff, 0), ErrBadLength, "actions_len", ErrTypeBadRequest, uint16(BadRequestBadLen)},
		{"bundle inner length", set(bundleAdd, 16+2, 0xff, 0xff), ErrBadBundle, "message.length", ErrTypeBadRequest, uint16(BadRequestBadLen)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Field != tt.field {
				t.Fatalf("err %v: field %q, want %q", err, de.Field, tt.field)
			}
			em := ErrorFor(err, tt.in)
			if em.Type != tt.typ || em.Code != tt.code {
				t.Errorf("ErrorFor = %v, want %v/%s", em, tt.typ, tt.typ.CodeString(tt.code))
			}
			if em.XID != binary.BigEndian.Uint32(tt.in[4:]) || len(em.Data) != min(64, len(tt.in)) {
				t.Errorf("ErrorFor xid %d data %d bytes", em.XID, len(em.Data))
			}
			if want := tt.in[0]; want != Version13 && want != Version14 && em.Version != 0 {
				t.Errorf("reply to version %d carries version %d", want, em.Version)
			}
			reply, err := em.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var back ErrorMsg
			if err := back.UnmarshalBinary(reply); err != nil || back.Type != tt.typ || back.Code != tt.code {
				t.Errorf("error reply does not decode: %v", err)
			}
		})
	}
}

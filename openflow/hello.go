package openflow

import (
	"encoding/binary"
	"math/bits"

	"github.com/ofswitch/ofswitch/internal/wire"
)

// Hello element types (OpenFlow 1.3.5 §7.5.1, enum ofp_hello_elem_type).
const (
	HelloElemVersionBitmap uint16 = 1 // OFPHET_VERSIONBITMAP
)

// HelloElem is one ofp_hello_elem_header element of a HELLO. A version
// bitmap element (Type HelloElemVersionBitmap) keeps its bitmaps in Bitmaps;
// any other element keeps its body, without padding, in Data.
type HelloElem struct {
	Type    uint16
	Bitmaps []uint32 // OFPHET_VERSIONBITMAP: bit n of word i means version 32*i+n
	Data    []byte   // other element types: body after the 4-byte element header
}

// Hello is an OFPT_HELLO message (OpenFlow 1.3.5 §7.5.1). A peer may send a
// header version higher than ours together with a version bitmap;
// Negotiate picks the version both sides use.
//
// The zero Hello is a bare OpenFlow 1.3 HELLO without elements.
type Hello struct {
	Header
	Elements []HelloElem
}

// NewHello returns a HELLO that offers exactly the given versions: the
// header carries the highest one and a version bitmap element lists all.
func NewHello(xid uint32, versions ...uint8) Hello {
	var bm uint32
	var hi uint8
	for _, v := range versions {
		if v < 32 {
			bm |= 1 << v
		}
		hi = max(hi, v)
	}
	return Hello{Header: Header{Version: hi, XID: xid},
		Elements: []HelloElem{{Type: HelloElemVersionBitmap, Bitmaps: []uint32{bm}}}}
}

// AppendBinary appends the wire form of m to dst.
func (m *Hello) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeHello)
	for i := range m.Elements {
		e := &m.Elements[i]
		es := len(dst)
		dst = binary.BigEndian.AppendUint16(dst, e.Type)
		dst = append(dst, 0, 0)
		if e.Type == HelloElemVersionBitmap {
			for _, w := range e.Bitmaps {
				dst = binary.BigEndian.AppendUint32(dst, w)
			}
		} else {
			dst = append(dst, e.Data...)
		}
		if len(dst)-es > 0xffff {
			return dst[:start], &EncodeError{Type: TypeHello, Field: "elements.length", Err: ErrTooLong}
		}
		binary.BigEndian.PutUint16(dst[es+2:], uint16(len(dst)-es))
		dst = wire.PadTo8(dst, es)
	}
	return finish(dst, start, TypeHello)
}

// MarshalBinary returns the wire form of m.
func (m *Hello) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one HELLO of any version. Elements are parsed as
// OpenFlow 1.3 defines them; padding after each element is skipped.
func (m *Hello) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeHello, HeaderLen); err != nil {
		return err
	}
	m.Elements = m.Elements[:0]
	for off := HeaderLen; off < len(b); {
		if len(b)-off < 4 {
			return &DecodeError{Type: TypeHello, Field: "elements", Offset: off, Err: ErrBadHelloElement}
		}
		typ := binary.BigEndian.Uint16(b[off:])
		n := int(binary.BigEndian.Uint16(b[off+2:]))
		if n < 4 || off+n > len(b) {
			return &DecodeError{Type: TypeHello, Field: "elements.length", Offset: off + 2, Err: ErrBadHelloElement}
		}
		m.Elements = append(m.Elements, HelloElem{})
		e := &m.Elements[len(m.Elements)-1]
		e.Type = typ
		body := b[off+4 : off+n]
		if typ == HelloElemVersionBitmap {
			if len(body)%4 != 0 {
				return &DecodeError{Type: TypeHello, Field: "elements.bitmaps", Offset: off + 4, Err: ErrBadHelloElement}
			}
			e.Bitmaps = e.Bitmaps[:0]
			for i := 0; i < len(body); i += 4 {
				e.Bitmaps = append(e.Bitmaps, binary.BigEndian.Uint32(body[i:]))
			}
			e.Data = nil
		} else {
			e.Data = append(e.Data[:0], body...)
			e.Bitmaps = nil
		}
		off += wire.Align8(n)
		if off > len(b) {
			// §7.5.1: each element is followed by zero bytes up to a
			// multiple of 8; a message that cuts them short is malformed.
			return &DecodeError{Type: TypeHello, Field: "elements.padding", Offset: len(b), Err: ErrBadHelloElement}
		}
	}
	return nil
}

// Versions returns the set of versions this HELLO offers as a bitmap over
// versions 0..63 (bit v set means version v): the union of its version
// bitmap elements or, without one, every version up to the header's.
func (m *Hello) Versions() uint64 {
	var set uint64
	found := false
	for _, e := range m.Elements {
		if e.Type != HelloElemVersionBitmap {
			continue
		}
		found = true
		for i, w := range e.Bitmaps {
			if i < 2 {
				set |= uint64(w) << (32 * i)
			}
		}
	}
	if !found {
		v := min(m.Version, 63)
		set = (uint64(1) << (v + 1)) - 1
		set &^= 1 // version 0 does not exist
	}
	return set
}

// Negotiate returns the version to use after exchanging HELLOs (OpenFlow
// 1.3.5 §6.3.1): the highest version both sides support. ours lists the
// versions we speak as a bitmap (bit v means version v; use VersionBit).
// It returns ErrIncompatible if there is none, in which case the switch
// sends HELLO_FAILED/INCOMPATIBLE (ErrorFor) and closes the connection.
func Negotiate(ours uint64, peer *Hello) (uint8, error) {
	common := ours & peer.Versions()
	if common == 0 {
		return 0, &DecodeError{Type: TypeHello, Field: "version", Offset: 0, Err: ErrIncompatible}
	}
	return uint8(63 - bits.LeadingZeros64(common)), nil
}

// VersionBit returns the bitmap bit of version v, for building the set
// passed to Negotiate: VersionBit(Version13)|VersionBit(Version14).
func VersionBit(v uint8) uint64 { return 1 << (v & 63) }

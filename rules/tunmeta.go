package rules

// TunMetadataLayout places Open vSwitch's tunnel metadata fields
// tun_metadata0-63 in the option space (FieldTunOpts0-3, TunOptsBytes
// bytes): a switch's TLV table does, which gives each mapped field a
// length and its bytes' places. The flow text (package ofctl) and the
// wire translation (package ofrules) read and write the fields through
// one.
type TunMetadataLayout interface {
	// TunMetadataPlace appends to dst, for each byte of tun_metadata<idx>
	// in order, its index in the option space (0 to TunOptsBytes-1), and
	// reports whether idx is mapped.
	TunMetadataPlace(dst []uint8, idx int) ([]uint8, bool)
}

// TunOptByte returns byte i (0 to TunOptsBytes-1) of k's option space.
func (k *Key) TunOptByte(i uint8) byte {
	return byte(k.Get(FieldTunOpts0+Field(i/8)) >> (56 - 8*(i%8)))
}

// SetTunOptByte sets byte i (0 to TunOptsBytes-1) of k's option space.
func (k *Key) SetTunOptByte(i uint8, b byte) {
	f := FieldTunOpts0 + Field(i/8)
	sh := 56 - 8*(i%8)
	k.Set(f, k.Get(f)&^(0xff<<sh)|uint64(b)<<sh)
}

// SetTunMetadata makes m match the field whose bytes are at place (as
// TunMetadataLayout gives them) with val under mask, both len(place)
// bytes; value bits outside the mask are dropped.
func (m *Match) SetTunMetadata(place []uint8, val, mask []byte) {
	for i, p := range place {
		m.Key.SetTunOptByte(p, val[i]&mask[i])
		m.Mask.SetTunOptByte(p, mask[i])
	}
}

// TunMetadata appends the value and mask m matches the field whose bytes
// are at place with to val and mask.
func (m *Match) TunMetadata(place []uint8, val, mask []byte) ([]byte, []byte) {
	for _, p := range place {
		val = append(val, m.Key.TunOptByte(p))
		mask = append(mask, m.Mask.TunOptByte(p))
	}
	return val, mask
}

// TunMetadataLoads appends the actions of a set_field of
// tun_metadata<idx>, whose bytes are at place, to val under mask (both
// len(place) bytes): one ActionLoad for each word of the option space
// (FieldTunOpts0-3) that a byte under the mask is in, in word order,
// marked with ActionExt.TunMetadata (TunFirst on the first). It appends
// nothing when the mask is all zeros.
func TunMetadataLoads(dst []Action, idx int, place []uint8, val, mask []byte) []Action {
	var wv, wm [TunOptsBytes / 8]uint64
	for i, p := range place {
		sh := 56 - 8*uint(p%8)
		wm[p/8] |= uint64(mask[i]) << sh
		wv[p/8] |= uint64(val[i]&mask[i]) << sh
	}
	first := true
	for w := range wm {
		if wm[w] == 0 {
			continue
		}
		dst = append(dst, Action{Kind: ActionLoad, Field: FieldTunOpts0 + Field(w),
			Value: [2]uint64{wm[w], wv[w]}, Ext: &ActionExt{TunMetadata: uint8(idx) + 1, TunFirst: first}})
		first = false
	}
	return dst
}

// tunOptsRows are the rows of SubfieldFields of FieldTunOpts0-3.
var tunOptsRows = func() (r [TunOptsBytes / 8]uint8) {
	for w := range r {
		r[w] = uint8(SubfieldByHeader(1, 0xf0+uint8(w)))
	}
	return r
}()

// TunMetadataSubfield returns the Subfield of bits [ofs, ofs+n) (bit 0
// the least significant) of the tunnel metadata field whose bytes are at
// place: bits of the option space word (FieldTunOpts0-3) they are in,
// whose row is that word's. ok is false when the bits are beyond the
// field or not contiguous in one word (across two words, or two runs of
// the option space).
func TunMetadataSubfield(place []uint8, ofs, n int) (s Subfield, ok bool) {
	l := len(place)
	if n <= 0 || n > 64 || ofs < 0 || ofs+n > 8*l {
		return s, false
	}
	lo, hi := l-1-ofs/8, l-1-(ofs+n-1)/8 // bytes of the lowest and highest bit
	for b := hi; b < lo; b++ {
		if place[b+1] != place[b]+1 {
			return s, false
		}
	}
	if place[hi]/8 != place[lo]/8 {
		return s, false
	}
	w := place[lo] / 8
	shift := 56 - 8*(place[lo]%8)
	return Subfield{Field: FieldTunOpts0 + Field(w), Ofs: shift + uint8(ofs%8), Bits: uint8(n), Row: tunOptsRows[w]}, true
}

// TunMetadataOfs returns the offset in the tunnel metadata field whose
// bytes are at place of s's bit 0 (s from TunMetadataSubfield), false
// if the field does not hold it.
func TunMetadataOfs(place []uint8, s Subfield) (int, bool) {
	if s.Field < FieldTunOpts0 || s.Field > FieldTunOpts3 {
		return 0, false
	}
	p := 8*uint8(s.Field-FieldTunOpts0) + 7 - s.Ofs/8
	for b, q := range place {
		if q == p {
			return 8*(len(place)-1-b) + int(s.Ofs%8), true
		}
	}
	return 0, false
}

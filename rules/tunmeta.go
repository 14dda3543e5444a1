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

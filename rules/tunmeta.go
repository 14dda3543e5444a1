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

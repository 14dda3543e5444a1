package bench

import "encoding/binary"

// Multipliers of Hash: odd 64-bit constants with well-spread bits (the
// golden ratio and the two of the splitmix64 finalizer).
const (
	hashK0 = 0x9e3779b97f4a7c15
	hashK1 = 0xbf58476d1ce4e5b9
	hashK2 = 0x94d049bb133111eb
)

// Hash returns a 64-bit hash of p, for keys given as bytes. Each 8-byte
// word is folded in with a shift and a multiply, the zero-padded tail and
// the length join them, and a two-round finalizer (xor-shift, multiply)
// spreads every input bit over the whole result, so that both the low bits
// (the filter's bucket index) and the high bits (its fingerprint) are
// usable. For a fixed length up to 8 bytes the map from keys to hashes is a
// bijection, so such keys never collide. It is small enough to inline.
func Hash(p []byte) uint64 {
	h := uint64(len(p)) * hashK0
	for ; len(p) >= 8; p = p[8:] {
		h = (h ^ h>>31 ^ binary.LittleEndian.Uint64(p)) * hashK1
	}
	var t uint64
	for i, c := range p {
		t |= uint64(c) << (8 * i)
	}
	h = (h ^ h>>27 ^ t) * hashK2
	h = (h ^ h>>31) * hashK1
	return h ^ h>>29
}

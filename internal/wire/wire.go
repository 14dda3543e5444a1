// Package wire holds the few byte-level helpers the OpenFlow codec shares:
// zero padding and 8-byte alignment. Big-endian integers come from
// encoding/binary, whose Append and Uint functions the compiler inlines.
package wire

// AppendZeros appends n zero bytes to dst and returns the extended slice.
// It does not allocate when dst has room for them.
func AppendZeros(dst []byte, n int) []byte {
	for ; n >= len(zeros); n -= len(zeros) {
		dst = append(dst, zeros[:]...)
	}
	return append(dst, zeros[:n]...)
}

// zeros is read-only.
var zeros [64]byte

// Align8 rounds n up to the next multiple of 8 (OpenFlow pads most
// variable-length structures to 64-bit boundaries).
func Align8(n int) int { return (n + 7) &^ 7 }

// PadTo8 appends the zero bytes that bring the bytes written since start to a
// multiple of 8.
func PadTo8(dst []byte, start int) []byte {
	return AppendZeros(dst, Align8(len(dst)-start)-(len(dst)-start))
}

// AllZero reports whether every byte of b is zero.
func AllZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

package ofctl

// tun_metadata<n> in flow text: its values and masks, placed as
// ParseOptions.TunMetadata maps each field, in matches and set_field.

import (
	"strconv"
	"strings"

	"github.com/ofswitch/ofswitch/rules"
)

// tunMetadata sets tun_metadata<n> of m from val, "V" or "V/M" (hex with
// 0x of up to 124 bytes, or decimal), as ParseOptions.TunMetadata places
// it: the value right-aligned in the mapped length; one longer than it
// is an error. As ovs-ofctl's text reaches Open vSwitch's flow tables, a
// mask all ones over the bytes the value and mask need (0xff for 0x1)
// matches the whole field exactly.
func (p *flowParser) tunMetadata(m *rules.Match, n int, key, val string, col, vcol int) error {
	var buf [rules.TunOptsBytes]uint8
	place, v, mk, err := p.tunMetadataValue(buf[:0], n, key, val, col, vcol, true)
	if err != nil {
		return err
	}
	m.SetTunMetadata(place, v, mk)
	for f := rules.FieldTunOpts0; f <= rules.FieldTunOpts3; f++ {
		if p.cols[f] == 0 {
			p.cols[f] = int32(col) + 1
		}
	}
	return nil
}

// setTunMetadata parses the argument of set_field:V[/M]->tun_metadataN
// (col its column) into the loads of the option space words the field
// is in (rules.TunMetadataLoads), the value read as a match's is but
// for the mask, which writes the bytes it covers and no others even when
// all ones there: ovs-ofctl sends a set_field whose mask is not all ones
// over the whole 124 bytes of a tun_metadata field masked, in as many
// bytes as the longer of value and mask needs (mf_field_len), and the
// switch then writes those bytes alone (set_field:0x1/0xff->tun_metadata1
// writes the last byte).
func (p *flowParser) setTunMetadata(arg string, col int) ([]rules.Action, error) {
	vs, fname, _ := strings.Cut(arg, "->")
	fcol := col + len(vs) + 2
	n, ok := regNumber(fname, "tun_metadata", 64)
	if !ok {
		return nil, p.errAt(fcol, "unknown set_field field %q", fname)
	}
	var buf [rules.TunOptsBytes]uint8
	place, v, mk, err := p.tunMetadataValue(buf[:0], n, fname, vs, fcol, col, false)
	if err != nil {
		return nil, err
	}
	as := rules.TunMetadataLoads(nil, n, place, v, mk)
	if len(as) == 0 {
		return nil, p.errAt(col, "set_field of %s writes no bit", fname)
	}
	return as, nil
}

// tunMetadataValue reads val, "V" or "V/M", as the value and mask of
// tun_metadata<n> as ParseOptions.TunMetadata maps it (col the field's
// column, vcol the value's), and returns the field's place in the option
// space (appended to dst) with them. A match's (match true) mask that is
// all ones over the bytes value and mask need is all ones (see
// tunMetadata); a set_field's is kept.
func (p *flowParser) tunMetadataValue(dst []uint8, n int, key, val string, col, vcol int, match bool) (place []uint8, v, mk []byte, err error) {
	ok := false
	if p.opt != nil && p.opt.TunMetadata != nil {
		place, ok = p.opt.TunMetadata.TunMetadataPlace(dst, n)
	}
	if !ok {
		e := p.errAt(col, "match field %s is not mapped (no TLV table maps it: add-tlv-map)", key)
		e.Err = ErrNotMapped
		return nil, nil, nil, e
	}
	size := len(place)
	vs, ms, masked := strings.Cut(val, "/")
	v, okv := varBytes(vs, size)
	mk, okm := varBytes(ms, size)
	if !masked {
		mk, okm = make([]byte, size), true
		for i := range mk {
			mk[i] = 0xff
		}
	}
	if !okv || !okm {
		return nil, nil, nil, p.errAt(vcol, "%s: %q is not a value of at most %d bytes", key, val, size)
	}
	if match && masked && onesTail(mk, max(sigBytes(v), sigBytes(mk))) {
		// ovs-ofctl sends the value and mask in as many bytes as the
		// longer needs, and unmasked when the mask is all ones there:
		// the switch then takes all of the field's bytes.
		for i := range mk {
			mk[i] = 0xff
		}
	}
	for i := range v {
		if v[i]&^mk[i] != 0 {
			return nil, nil, nil, p.errAt(vcol, "%s: value %s has bits outside the mask %s", key, vs, ms)
		}
	}
	return place, v, mk, nil
}

// sigBytes returns the number of bytes of b from its first non-zero one.
func sigBytes(b []byte) int {
	for i, c := range b {
		if c != 0 {
			return len(b) - i
		}
	}
	return 0
}

// onesTail reports whether the last n bytes of b are all ones (true for
// n 0).
func onesTail(b []byte, n int) bool {
	for _, c := range b[len(b)-n:] {
		if c != 0xff {
			return false
		}
	}
	return true
}

// varBytes reads s, hex with 0x (any number of digits) or decimal, as a
// big-endian number of n bytes; false if it is not one or does not fit.
func varBytes(s string, n int) ([]byte, bool) {
	out := make([]byte, n)
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		h = strings.TrimLeft(h, "0")
		if len(h) > 2*n {
			return nil, false
		}
		for i := 0; i < len(h); i++ {
			d, ok := hexDigit(h[len(h)-1-i])
			if !ok {
				return nil, false
			}
			out[n-1-i/2] |= d << (4 * (i % 2))
		}
		return out, len(s) > 2
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil, false
	}
	for i := n - 1; i >= 0 && v != 0; i-- {
		out[i] = byte(v)
		v >>= 8
	}
	return out, v == 0
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

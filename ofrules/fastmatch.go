package ofrules

// The fast path of FLOW_MOD ingest; doc.go's "Ingest" says what it takes
// and why it gives what the full path gives.

import (
	"encoding/binary"
	"math/bits"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// wireShape is a match shape (see matchShape) as it is on the wire: the
// ofp_match length and the OXM headers of a match that passed the checks,
// in order, and the whole payload of each field that a prerequisite tests
// (ETH_TYPE, IP_PROTO, ICMPV6_TYPE, VLAN_VID). A match with the same
// length, headers and prerequisite payloads passes the same checks:
//   - openflow's decoding: each header fixes its OXM's class, field, mask
//     bit and length, so the lengths agree as they did;
//   - the wire-level checks of matchChecked and Match.Validate:
//     known basic fields, no duplicate, prerequisites met, all of which
//     depend on the headers and prerequisite payloads only.
//
// Only the values are new, and each is checked against its mask
// (BAD_WILDCARDS) as it is read.
type wireShape struct {
	ok   bool
	mlen uint16 // ofp_match length: header and OXMs, not the padding
	n    int
	oxms [maxShapeFields]wireOXM
}

// wireOXM is one OXM of a wireShape. The shape fixes every OXM's length,
// so it fixes where each lies in the match too: hoff, vend and mend.
type wireOXM struct {
	hdr      openflow.OXMHeader // class, field, hasmask, length
	f        rules.Field        // the rules field that holds the OXM's field
	slot     fieldSlot          // where f lies in a rules.Key, if not wide
	size     uint8              // bytes of the value (of the mask too, if masked)
	wide     bool               // a 128-bit field: rules.Match.Set128
	masked   bool               // the OXM carries a mask after its value
	tested   bool               // a prerequisite tests the payload: it must be pre
	pre      uint32             // the payload of a tested field (at most 4 bytes)
	hoff     uint16             // the OXM header's offset in the match
	vend     uint16             // the end of the value, hoff+4+size
	mend     uint16             // the end of the mask, if masked
	vmask    uint64             // the low 8*size bits, for a field of at most 8 bytes
	mhi, mlo uint64             // the mask of an unmasked field, as oxmValue gives it
}

// fieldSlot is where a rules field of at most 64 bits lies in a
// rules.Key: bits shift to shift+width of word word, full being the
// field's all-ones mask (Field.FullMask). With it the fast path ORs a value
// and mask into a Match whose bits for the field are still zero, which is
// what Match.Set does there, without looking the field up again.
type fieldSlot struct {
	word, shift uint8
	full        uint64
	ok          bool // derived; false for 128-bit fields
}

// fieldSlots holds the slot of each rules field, derived from Match.Set
// itself: the bits a field's all-ones value and mask set must be one run
// of FullMask's width in one word of Mask and the same bits of Key. A
// field that did not fit (none does today) gets no slot, and a match with
// it no wire shape: it would take the full path.
var fieldSlots = func() (s [rules.NumFields]fieldSlot) {
	for f := rules.Field(0); int(f) < rules.NumFields; f++ {
		if f.Bits() > 64 {
			continue
		}
		var m rules.Match
		m.Set(f, ^uint64(0), ^uint64(0))
		w := -1
		for i, x := range m.Mask {
			if x != 0 {
				if w >= 0 {
					w = -2 // in two words
				} else if w == -1 {
					w = i
				}
			}
		}
		if w < 0 {
			continue
		}
		shift := bits.TrailingZeros64(m.Mask[w])
		var want rules.Match
		want.Mask[w], want.Key[w] = f.FullMask()<<shift, f.FullMask()<<shift
		if m != want || f.FullMask()<<shift>>shift != f.FullMask() {
			continue
		}
		s[f] = fieldSlot{word: uint8(w), shift: uint8(shift), full: f.FullMask(), ok: true}
	}
	return s
}()

// set makes s the shape of m, the ofp_match (at least its unpadded
// length) of a FLOW_MOD that the full path accepted. A match with more
// OXMs than a shape holds, or with an OXM the checks would have refused
// (they do not get here), leaves s without a shape.
func (s *wireShape) set(m []byte) {
	s.ok = false
	if len(m) < openflow.MatchHeaderLen {
		return
	}
	_, ml := openflow.MatchHeader(m)
	mlen := int(ml)
	if mlen < openflow.MatchHeaderLen || mlen > len(m) {
		return
	}
	n := 0
	var used rules.Key // bits of the fields so far, which must not overlap
	for off := openflow.MatchHeaderLen; off < mlen; n++ {
		if n == maxShapeFields || mlen-off < 4 {
			return
		}
		h := openflow.OXMHeader(binary.BigEndian.Uint32(m[off:]))
		k := h.Len()
		of := h.Field()
		size := of.Size()
		masked := h.HasMask()
		if h.Class() != openflow.OXMClassOpenFlow || size == 0 || fieldMap[of] == noField ||
			(!masked && k != size) || (masked && k != 2*size) || off+4+k > mlen {
			return
		}
		o := wireOXM{hdr: h, f: fieldMap[of], size: uint8(size), wide: size == 16, masked: masked,
			hoff: uint16(off), vend: uint16(off + 4 + size), mend: uint16(off + 4 + k)}
		if size <= 8 {
			o.vmask = ^uint64(0) >> (64 - 8*uint(size))
		}
		// Match.Set on a zero Match and ORs into one are the same while
		// no two fields of the shape share a bit (none can: no field
		// twice, and the fields that share rules' L4 and ICMP bits have
		// prerequisites that exclude each other).
		fb := &fieldKeyBits[o.f]
		for ws := fieldWords[o.f]; ws != 0; ws &= ws - 1 {
			w := bits.TrailingZeros64(ws)
			if used[w]&fb[w] != 0 {
				return
			}
			used[w] |= fb[w]
		}
		if o.slot = fieldSlots[o.f]; !o.wide && !o.slot.ok {
			return
		}
		switch of {
		case openflow.FieldEthType, openflow.FieldIPProto, openflow.FieldICMPv6Type, openflow.FieldVLANVID:
			o.tested, o.pre = true, uint32(beUint(m[off+4:off+4+k]))
		}
		switch {
		case masked:
		case o.wide:
			o.mhi, o.mlo = ^uint64(0), ^uint64(0)
		default:
			o.mlo = ^uint64(0) >> (64 - 8*uint(size))
		}
		s.oxms[n] = o
		off += 4 + k
	}
	s.mlen, s.n, s.ok = uint16(mlen), n, true
}

// decode translates the ofp_match at the start of m into *out, which must
// be the zero Match, and reports whether the match has shape s and every
// value lies within its mask. When it reports false, *out is partly
// written and the full path must decide.
//
// The shape fixes each OXM's offset, so decode reads each header where it
// must be and a value of at most 8 bytes as the 8 bytes that end where it
// ends, masked to its size: one load, no switch on the size. Those 8
// bytes start at least 8+size-8 bytes into m (the match header and the
// OXM's own header come first), so they lie in m.
func (s *wireShape) decode(out *rules.Match, m []byte) bool {
	if !s.ok || len(m) < openflow.MatchHeaderLen {
		return false
	}
	if typ, mlen := openflow.MatchHeader(m); typ != openflow.MatchTypeOXM || mlen != s.mlen || openflow.MatchPaddedLen(int(mlen)) > len(m) {
		return false
	}
	for i := range s.n {
		o := &s.oxms[i]
		if openflow.OXMHeader(binary.BigEndian.Uint32(m[o.hoff:])) != o.hdr {
			return false
		}
		if o.wide {
			if !decodeWide(out, o, m) {
				return false
			}
			continue
		}
		vlo := binary.BigEndian.Uint64(m[o.vend-8:]) & o.vmask
		mlo := o.mlo
		if o.masked {
			mlo = binary.BigEndian.Uint64(m[o.mend-8:]) & o.vmask
		}
		if o.tested {
			// The payload, value then mask if masked, at most 4 bytes.
			p := vlo
			if o.masked {
				p = vlo<<(8*o.size) | mlo
			}
			if uint32(p) != o.pre {
				return false
			}
		}
		if vlo&^mlo != 0 {
			return false // BAD_WILDCARDS, which the full path answers
		}
		// out.Set(o.f, vlo, mlo), on bits that are still zero.
		sl := &o.slot
		if vlo&^sl.full != 0 {
			return false // BAD_VALUE, which the full path answers
		}
		mlo &= sl.full
		out.Mask[sl.word] |= mlo << sl.shift
		out.Key[sl.word] |= (vlo & mlo) << sl.shift
	}
	return true
}

// decodeWide is decode's step for o, a 128-bit field (no prerequisite
// tests one): value and mask as hi and lo words, as oxmValue gives them.
func decodeWide(out *rules.Match, o *wireOXM, m []byte) bool {
	v := m[o.vend-16 : o.vend]
	vhi, vlo := binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])
	mhi, mlo := o.mhi, o.mlo
	if o.masked {
		mk := m[o.mend-16 : o.mend]
		mhi, mlo = binary.BigEndian.Uint64(mk), binary.BigEndian.Uint64(mk[8:])
	}
	if (vhi&^mhi) != 0 || (vlo&^mlo) != 0 {
		return false // BAD_WILDCARDS, which the full path answers
	}
	out.Set128(o.f, vhi, vlo, mhi, mlo)
	return true
}

// fastFlowMod translates the FLOW_MOD msg into *u, which must be the zero
// Update, in one pass over its bytes, and reports whether it could: the
// match has shape s and the instructions are the bytes that ic holds (or,
// for a delete, which ignores them, none). It then gives the Update that
// the Decoder's full path would give, and it reports false whenever the
// full path would refuse msg. It reads msg only and changes neither s nor
// ic; *u is partly written when it reports false.
func fastFlowMod(u *rules.Update, msg []byte, tables int, s *wireShape, ic *insCache) bool {
	// The header and fixed part, checked as FlowMod.UnmarshalBinary
	// checks them; the view's accessors of the fixed part read the
	// FlowModMinLen bytes checked here and no others.
	if len(msg) < openflow.FlowModMinLen {
		return false
	}
	v := openflow.FlowModView(msg)
	if h := v.Header(); h.Version == 0 || h.Type != openflow.TypeFlowMod || int(h.Length) != len(msg) {
		return false
	}
	cmd, table := v.Command(), v.TableID()
	if cmd > openflow.FlowDeleteStrict {
		return false
	}
	// translate's checks of the command, table and buffer.
	isDelete := cmd == openflow.FlowDelete || cmd == openflow.FlowDeleteStrict
	if int(table) >= tables && !(isDelete && table == openflow.TableAll) {
		return false
	}
	if v.BufferID() != openflow.NoBuffer && cmd <= openflow.FlowModifyStrict {
		return false
	}
	if !s.decode(&u.Match, msg[openflow.FlowModMatchOffset:]) {
		return false
	}
	// The instructions follow the padded match. Bytes that ic holds
	// decoded and translated without error (for this table) when the
	// full path cached them; a delete's are decoded but not translated.
	raw := msg[openflow.FlowModMatchOffset+openflow.MatchPaddedLen(int(s.mlen)):]
	hit := ic.ins != nil && !ic.perMatch && string(ic.raw) == string(raw)
	if isDelete {
		if len(raw) != 0 && !hit {
			return false
		}
	} else if !hit || ic.table != table {
		return false
	}
	u.Command, u.Table, u.Priority = rules.Command(cmd), table, v.Priority()
	u.Cookie, u.CookieMask = v.Cookie(), v.CookieMask()
	u.IdleTimeout, u.HardTimeout = v.IdleTimeout(), v.HardTimeout()
	u.Flags, u.OutPort, u.OutGroup = rules.FlowFlags(v.Flags()), v.OutPort(), v.OutGroup()
	u.Importance = v.Importance()
	if !isDelete {
		u.Instructions = ic.ins
	}
	return true
}

package dataplane

import (
	"encoding/binary"

	"github.com/ofswitch/ofswitch/rules"
)

// The MPLS, PBB and TTL-copy actions (OpenFlow 1.3.5 §7.2.5). An MPLS
// label stack or a PBB I-TAG of an Ethernet frame starts right after the
// MAC addresses and the VLAN tags, at tagOff; the EtherType that announces
// it is the two bytes before. An action that does not apply to a frame
// (pop_mpls of a frame without a label, say) leaves it as it is and is
// counted as skipped, as Open vSwitch's datapath leaves such frames alone.
//
// A push or pop changes which headers the frame has: the frame is parsed
// again (Parser.reparse) and its key rebuilt, keeping the metadata and
// tunnel_id words that no header holds, so that set_field and later
// tables see the frame as it now is.

// MPLS label stack entry bits (RFC 3032).
const (
	mplsBoS      = 1 << 8
	mplsTCShift  = 9
	mplsLblShift = 12
)

// tagOff returns the offset of the MPLS label stack or I-TAG of an
// Ethernet frame: after the addresses, the VLAN tags and the EtherType.
func (fs *frameState) tagOff() int { return 14 + 4*fs.vlans }

// mplsOff returns the offset of the outermost label of an MPLS frame, or
// -1 when the frame has no complete one.
func (fs *frameState) mplsOff() int {
	off := fs.tagOff()
	if !fs.eth || fs.ethType != EtherTypeMPLS && fs.ethType != EtherTypeMPLSMC || len(fs.data) < off+4 {
		return -1
	}
	return off
}

// pbbOff returns the offset of the I-TAG TCI of a PBB frame, or -1 when
// the frame has no complete I-TAG (TCI, C-DA, C-SA and an EtherType).
func (fs *frameState) pbbOff() int {
	off := fs.tagOff()
	if !fs.eth || fs.ethType != EtherTypePBB || len(fs.data) < off+4+14 {
		return -1
	}
	return off
}

// tagAct runs one MPLS, PBB or TTL-copy action of entry e in table t on
// parsed frame j and counts it: a rewrite, a skip, or (dec_mpls_ttl at TTL
// 0 or 1) an invalid-TTL packet-in and a drop, as for dec_ttl.
func (w *Worker) tagAct(j int, a *rules.Action, e *rules.Rule, t uint8) {
	r := ttlSkipped
	switch a.Kind {
	case rules.ActionPushMPLS:
		r = w.pushMPLS(j, a.EthType)
	case rules.ActionPopMPLS:
		r = w.popMPLS(j, a.EthType)
	case rules.ActionSetMPLSTTL:
		r = w.setMPLSTTL(j, a.TTL)
	case rules.ActionDecMPLSTTL:
		r = w.decMPLSTTL(j)
	case rules.ActionPushPBB:
		r = w.pushPBB(j, a.EthType)
	case rules.ActionPopPBB:
		r = w.popPBB(j)
	case rules.ActionCopyTTLOut:
		r = w.copyTTLOut(j)
	case rules.ActionCopyTTLIn:
		r = w.copyTTLIn(j)
	}
	switch r {
	case ttlDone:
		w.stats.Rewrites++
	case ttlExpired:
		w.ttlExpired(j, nil, e, t)
	default:
		w.stats.Skipped++
	}
}

// grow makes frame j the worker's own copy and extends it by n bytes at
// the end (their contents undefined), reusing the worker's buffer.
func (w *Worker) grow(j, n int) []byte {
	d := w.writable(j)
	if cap(d) < len(d)+n {
		nd := make([]byte, len(d), len(d)+n+64) // beyond the buffer's 2 KB: a jumbo frame
		copy(nd, d)
		d = nd
	}
	d = d[:len(d)+n]
	w.bufs[j], w.pkt[j].data = d, d
	return d
}

// setData makes d, a slice of the worker's buffer, frame j's bytes.
func (w *Worker) setData(j int, d []byte) { w.bufs[j], w.pkt[j].data = d, d }

// reparse parses frame j again after a push or pop and rebuilds its key
// and offsets, keeping the metadata (word 4), tunnel_id (word 13),
// pkt_mark and tun_flags (word 17's low bits), the registers and the
// tunnel fields (words 18-35): what no header of the frame holds.
func (w *Worker) reparse(j int) {
	fs := &w.pkt[j]
	h := &w.rehdr
	w.parser.reparse(fs.data, fs.inPort, h)
	fs.l3, fs.l4, fs.vlans = int(h.L3Off), int(h.L4Off), int(h.VLANs)
	fs.ethType, fs.proto = h.EthType, h.IPProto
	k := &w.keys[j]
	meta, tun, keep := k[4], k[13], k[17]&keepMask
	regs := [rules.KeyWords - 18]uint64(k[18:])
	h.Key(k)
	k[4], k[13] = meta, tun
	k[17] |= keep
	copy(k[18:], regs[:])
}

// ipTTLAt returns the offset of the TTL (IPv4) or hop limit (IPv6) of an
// IP header at off, told by its version, or -1.
func ipTTLAt(d []byte, off int) int {
	if off >= len(d) {
		return -1
	}
	switch d[off] >> 4 {
	case 4:
		if len(d) >= off+20 && d[off]&0x0f >= 5 {
			return off + 8
		}
	case 6:
		if len(d) >= off+40 {
			return off + 7
		}
	}
	return -1
}

// setIPTTL writes ttl into the IP header at off whose TTL is at at,
// folding the change into an IPv4 header checksum.
func setIPTTL(d []byte, off, at int, ttl uint8) {
	if at == off+8 { // IPv4
		replace16(d, at, uint16(ttl)<<8|uint16(d[at+1]), off+10)
		return
	}
	d[at] = ttl
}

// pushMPLS pushes a label stack entry after the VLAN tags (OpenFlow 1.3's
// place for it, and Open vSwitch's) and sets the EtherType to et. The new
// entry copies label, TC and TTL from the outermost label if there is one
// and clears its bottom of stack; else it has label 0, TC 0, bottom of
// stack set and the IP TTL (0 for a frame without IP), the defaults of
// §7.2.5 that Ryu's test suite expects. Open vSwitch differs there: label
// 2 (IPv6 explicit null) for IPv6, TC from the low bits of the DSCP, TTL
// 64 without IP (TestMPLSAgainstOVS).
func (w *Worker) pushMPLS(j int, et uint16) int {
	fs := &w.pkt[j]
	off := fs.tagOff()
	if !fs.eth || len(fs.data) < off {
		return ttlSkipped
	}
	var lse uint32
	if o := fs.mplsOff(); o >= 0 {
		lse = binary.BigEndian.Uint32(fs.data[o:]) &^ mplsBoS
	} else {
		lse = mplsBoS
		if (fs.ethType == EtherTypeIPv4 || fs.ethType == EtherTypeIPv6) && fs.l3 > 0 {
			if at := ipTTLAt(fs.data, fs.l3); at >= 0 {
				lse |= uint32(fs.data[at])
			}
		}
	}
	n := len(fs.data)
	d := w.grow(j, 4)
	copy(d[off+4:], d[off:n])
	binary.BigEndian.PutUint16(d[off-2:], et)
	binary.BigEndian.PutUint32(d[off:], lse)
	w.reparse(j)
	return ttlDone
}

// popMPLS removes the outermost label and sets the EtherType to et.
func (w *Worker) popMPLS(j int, et uint16) int {
	off := w.pkt[j].mplsOff()
	if off < 0 {
		return ttlSkipped
	}
	d := w.writable(j)
	binary.BigEndian.PutUint16(d[off-2:], et)
	copy(d[off:], d[off+4:])
	w.setData(j, d[:len(d)-4])
	w.reparse(j)
	return ttlDone
}

// setMPLSTTL sets the TTL of the outermost label.
func (w *Worker) setMPLSTTL(j int, ttl uint8) int {
	off := w.pkt[j].mplsOff()
	if off < 0 {
		return ttlSkipped
	}
	d := w.writable(j)
	d[off+3] = ttl
	return ttlDone
}

// decMPLSTTL decrements the TTL of the outermost label; a TTL of 0 or 1
// expires.
func (w *Worker) decMPLSTTL(j int) int {
	off := w.pkt[j].mplsOff()
	if off < 0 {
		return ttlSkipped
	}
	if w.pkt[j].data[off+3] <= 1 {
		return ttlExpired
	}
	d := w.writable(j)
	d[off+3]--
	return ttlDone
}

// copyTTLOut copies the TTL of the header after the outermost label (the
// next label, or the IP header under a bottom-of-stack label) into it.
func (w *Worker) copyTTLOut(j int) int {
	fs := &w.pkt[j]
	off := fs.mplsOff()
	if off < 0 {
		return ttlSkipped
	}
	at := off + 4 + 3 // the next label's TTL
	if fs.data[off+2]&1 != 0 {
		at = ipTTLAt(fs.data, off+4)
	} else if len(fs.data) < off+8 {
		at = -1
	}
	if at < 0 {
		return ttlSkipped
	}
	d := w.writable(j)
	d[off+3] = d[at]
	return ttlDone
}

// copyTTLIn copies the TTL of the outermost label into the header after
// it: the next label, or the IP header (its checksum fixed) under a
// bottom-of-stack label.
func (w *Worker) copyTTLIn(j int) int {
	fs := &w.pkt[j]
	off := fs.mplsOff()
	if off < 0 {
		return ttlSkipped
	}
	ttl := fs.data[off+3]
	if fs.data[off+2]&1 == 0 {
		if len(fs.data) < off+8 {
			return ttlSkipped
		}
		d := w.writable(j)
		d[off+7] = ttl
		return ttlDone
	}
	at := ipTTLAt(fs.data, off+4)
	if at < 0 {
		return ttlSkipped
	}
	d := w.writable(j)
	setIPTTL(d, off+4, at, ttl)
	return ttlDone
}

// pushPBB encapsulates the frame behind a new backbone Ethernet header and
// I-TAG (IEEE 802.1ah), EtherType et: the backbone addresses are the
// customer's (OpenFlow 1.3.5 §7.2.5, Table 7: C-DA and C-SA are copied from
// the Ethernet addresses, and B-DA and B-SA keep them), the I-SID is
// copied from an outer I-TAG if the frame has one, the I-PCP from the
// outer VLAN tag's priority if it has one, the other bits are 0. The
// customer frame (its VLAN tags with it) follows the I-TAG whole.
func (w *Worker) pushPBB(j int, et uint16) int {
	fs := &w.pkt[j]
	if !fs.eth || len(fs.data) < 14 {
		return ttlSkipped
	}
	var tci uint32
	if o := fs.pbbOff(); o >= 0 {
		tci = binary.BigEndian.Uint32(fs.data[o:]) & 0xffffff
	}
	if fs.vlans > 0 && len(fs.data) >= 16 {
		tci |= uint32(fs.data[14]>>5) << 29
	}
	n := len(fs.data)
	d := w.grow(j, 18)
	copy(d[18:], d[:n])
	copy(d[0:12], d[18:30])
	binary.BigEndian.PutUint16(d[12:], et)
	binary.BigEndian.PutUint32(d[14:], tci)
	w.reparse(j)
	return ttlDone
}

// popPBB removes the backbone header: the addresses, VLAN tags, EtherType
// and I-TAG TCI, leaving the customer frame that starts with C-DA.
func (w *Worker) popPBB(j int) int {
	off := w.pkt[j].pbbOff()
	if off < 0 {
		return ttlSkipped
	}
	d := w.writable(j)
	n := copy(d, d[off+4:])
	w.setData(j, d[:n])
	w.reparse(j)
	return ttlDone
}

// setTagField writes an MPLS field of the outermost label, or the I-SID or
// UCA bit of the I-TAG, and the key. It returns false when the frame has no such
// header.
func (w *Worker) setTagField(j int, f rules.Field, v uint64) bool {
	fs := &w.pkt[j]
	if f == rules.FieldPBBISID || f == rules.FieldPBBUCA {
		off := fs.pbbOff()
		if off < 0 {
			return false
		}
		d := w.writable(j)
		tci := binary.BigEndian.Uint32(d[off:])
		if f == rules.FieldPBBISID {
			v &= 0xffffff
			tci = tci&^0xffffff | uint32(v)
		} else {
			v &= 1
			tci = tci&^(1<<27) | uint32(v)<<27
		}
		binary.BigEndian.PutUint32(d[off:], tci)
		w.keys[j].Set(f, v)
		return true
	}
	off := fs.mplsOff()
	if off < 0 {
		return false
	}
	d := w.writable(j)
	lse := binary.BigEndian.Uint32(d[off:])
	switch f {
	case rules.FieldMPLSLabel:
		v &= 0xfffff
		lse = lse&(1<<mplsLblShift-1) | uint32(v)<<mplsLblShift
	case rules.FieldMPLSTC:
		v &= 7
		lse = lse&^(7<<mplsTCShift) | uint32(v)<<mplsTCShift
	case rules.FieldMPLSBoS:
		v &= 1
		lse = lse&^mplsBoS | uint32(v)<<8
	}
	binary.BigEndian.PutUint32(d[off:], lse)
	w.keys[j].Set(f, v)
	return true
}

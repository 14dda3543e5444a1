package dataplane

// Rewriting a frame's fields for set_field and the checksums that cover
// them: incremental Internet checksum updates (RFC 1624) for IPv4 headers
// and the transports' pseudo-headers, SCTP's CRC32c recomputed.

import (
	"encoding/binary"
	"hash/crc32"
	"sync"

	"github.com/ofswitch/ofswitch/rules"
)

// csum16 updates the Internet checksum sum for a 16-bit word changing
// from old to new (RFC 1624, eqn. 3).
func csum16(sum, old, new uint16) uint16 {
	s := uint32(^sum) + uint32(^old) + uint32(new)
	s = s&0xffff + s>>16
	s = s&0xffff + s>>16
	return ^uint16(s)
}

// replace16 writes the 16-bit word at d[off:] and folds the change into the
// checksums at the given offsets (negative: none; for UDP over IPv4, a
// zero checksum means none and stays zero).
func replace16(d []byte, off int, v uint16, sums ...int) {
	old := binary.BigEndian.Uint16(d[off:])
	binary.BigEndian.PutUint16(d[off:], v)
	for _, c := range sums {
		if c < 0 {
			continue
		}
		binary.BigEndian.PutUint16(d[c:], csum16(binary.BigEndian.Uint16(d[c:]), old, v))
	}
}

// l4Sum returns the offset of the transport checksum that covers the
// pseudo-header (TCP, UDP, ICMPv6), or -1. udpZero reports a UDP/IPv4
// datagram without checksum.
func (fs *frameState) l4Sum(d []byte, pseudo bool) int {
	if fs.l4 == 0 {
		return -1
	}
	off := -1
	switch fs.proto {
	case ProtoTCP:
		off = fs.l4 + 16
	case ProtoUDP:
		off = fs.l4 + 6
	case ProtoICMPv6:
		off = fs.l4 + 2
	case ProtoICMPv4:
		if !pseudo {
			off = fs.l4 + 2
		}
	}
	if off < 0 || off+2 > len(d) {
		return -1
	}
	if fs.proto == ProtoUDP && fs.ethType == EtherTypeIPv4 && binary.BigEndian.Uint16(d[off:]) == 0 {
		return -1
	}
	return off
}

// castagnoli returns the CRC32c table. It is made at the first SCTP port
// rewrite, not at init: on amd64 MakeTable(Castagnoli) also builds the
// SSE4.2 folding tables, work every command of the binary would otherwise pay
// at start-up. After the first call it costs one atomic load.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// sctpFix recomputes the CRC32c of an SCTP packet after a port change.
func (fs *frameState) sctpFix(d []byte) {
	p := d[fs.l4:]
	if len(p) < 12 {
		return
	}
	binary.LittleEndian.PutUint32(p[8:], 0)
	binary.LittleEndian.PutUint32(p[8:], crc32.Checksum(p, castagnoli()))
}

// udpFix turns a UDP checksum that became 0 into 0xffff (RFC 768).
func (fs *frameState) udpFix(d []byte, sum int) {
	if sum >= 0 && fs.proto == ProtoUDP && binary.BigEndian.Uint16(d[sum:]) == 0 {
		binary.BigEndian.PutUint16(d[sum:], 0xffff)
	}
}

func has(d []byte, off, n int) bool { return off > 0 && off+n <= len(d) }

// setField rewrites one field of frame j and of its key, fixing checksums.
// It returns false when the field does not apply to the frame.
func (w *Worker) setField(j int, a *rules.Action) bool {
	fs := &w.pkt[j]
	k := &w.keys[j]
	v := a.Value[1]
	d := fs.data
	switch a.Field {
	case rules.FieldEthDst, rules.FieldEthSrc:
		if !fs.eth || len(d) < 14 {
			return false
		}
		d = w.writable(j)
		off := 0
		if a.Field == rules.FieldEthSrc {
			off = 6
		}
		put48(d[off:], v)
	case rules.FieldVLANVID, rules.FieldVLANPCP:
		if !fs.eth || fs.vlans == 0 || len(d) < 16 {
			return false
		}
		d = w.writable(j)
		tci := binary.BigEndian.Uint16(d[14:])
		if a.Field == rules.FieldVLANVID {
			tci = tci&^0x0fff | uint16(v)&0x0fff
			v = rules.VIDPresent | v&0x0fff
		} else {
			tci = tci&0x1fff | uint16(v&7)<<13
		}
		binary.BigEndian.PutUint16(d[14:], tci)
	case rules.FieldIPv4Src, rules.FieldIPv4Dst:
		if fs.ethType != EtherTypeIPv4 || !has(d, fs.l3, 20) {
			return false
		}
		d = w.writable(j)
		off := fs.l3 + 12
		if a.Field == rules.FieldIPv4Dst {
			off += 4
		}
		sum := fs.l4Sum(d, true)
		replace16(d, off, uint16(v>>16), fs.l3+10, sum)
		replace16(d, off+2, uint16(v), fs.l3+10, sum)
		fs.udpFix(d, sum)
	case rules.FieldIPv6Src, rules.FieldIPv6Dst:
		if fs.ethType != EtherTypeIPv6 || !has(d, fs.l3, 40) {
			return false
		}
		d = w.writable(j)
		off := fs.l3 + 8
		if a.Field == rules.FieldIPv6Dst {
			off += 16
		}
		sum := fs.l4Sum(d, true)
		for i, half := range a.Value {
			for s := 0; s < 4; s++ {
				replace16(d, off+8*i+2*s, uint16(half>>(48-16*s)), sum)
			}
		}
		fs.udpFix(d, sum)
		k.Set128(a.Field, a.Value[0], a.Value[1])
		return true
	case rules.FieldIPDSCP, rules.FieldIPECN:
		switch {
		case fs.ethType == EtherTypeIPv4 && has(d, fs.l3, 20):
			d = w.writable(j)
			tos := d[fs.l3+1]
			if a.Field == rules.FieldIPDSCP {
				tos = tos&3 | uint8(v&0x3f)<<2
			} else {
				tos = tos&^3 | uint8(v&3)
			}
			replace16(d, fs.l3, uint16(d[fs.l3])<<8|uint16(tos), fs.l3+10)
		case fs.ethType == EtherTypeIPv6 && has(d, fs.l3, 40):
			d = w.writable(j)
			tc := d[fs.l3]<<4 | d[fs.l3+1]>>4
			if a.Field == rules.FieldIPDSCP {
				tc = tc&3 | uint8(v&0x3f)<<2
			} else {
				tc = tc&^3 | uint8(v&3)
			}
			d[fs.l3] = d[fs.l3]&0xf0 | tc>>4
			d[fs.l3+1] = d[fs.l3+1]&0x0f | tc<<4
		default:
			return false
		}
	case rules.FieldL4Src, rules.FieldL4Dst:
		if fs.proto != ProtoTCP && fs.proto != ProtoUDP && fs.proto != ProtoSCTP || !has(d, fs.l4, 4) {
			return false
		}
		d = w.writable(j)
		off := fs.l4
		if a.Field == rules.FieldL4Dst {
			off += 2
		}
		if fs.proto == ProtoSCTP {
			binary.BigEndian.PutUint16(d[off:], uint16(v))
			fs.sctpFix(d)
			break
		}
		sum := fs.l4Sum(d, true)
		replace16(d, off, uint16(v), sum)
		fs.udpFix(d, sum)
	case rules.FieldICMPType, rules.FieldICMPCode:
		if fs.proto != ProtoICMPv4 && fs.proto != ProtoICMPv6 || !has(d, fs.l4, 4) {
			return false
		}
		d = w.writable(j)
		typ, code := d[fs.l4], d[fs.l4+1]
		if a.Field == rules.FieldICMPType {
			typ = uint8(v)
		} else {
			code = uint8(v)
		}
		replace16(d, fs.l4, uint16(typ)<<8|uint16(code), fs.l4Sum(d, false))
	case rules.FieldMetadata, rules.FieldTunnelID, rules.FieldPktMark, rules.FieldTunFlags,
		rules.FieldTunSrc, rules.FieldTunDst, rules.FieldTunGbpID, rules.FieldTunGbpFlags:
		// Pipeline metadata: the key only (no tunnel takes the frame,
		// and pkt_mark is no socket mark here).
	case rules.FieldTunIPv6Src, rules.FieldTunIPv6Dst:
		k.Set128(a.Field, a.Value[0], a.Value[1]) // metadata, as above
		return true
	case rules.FieldNwTTL:
		return w.setTTL(j, uint8(v)) // as mod_nw_ttl: the checksum fixed, the key too
	case rules.FieldIPv6FLabel, rules.FieldNDTarget:
		return w.setIPv6(j, a)
	case rules.FieldARPOp, rules.FieldARPSPA, rules.FieldARPTPA, rules.FieldARPSHA, rules.FieldARPTHA:
		if fs.ethType == EtherTypeIPv6 && (a.Field == rules.FieldARPSHA || a.Field == rules.FieldARPTHA) {
			return w.setNDOption(j, a)
		}
		if fs.ethType != EtherTypeARP || !has(d, fs.l3, 28) {
			return false
		}
		d = w.writable(j)
		p := d[fs.l3:]
		switch a.Field {
		case rules.FieldARPOp:
			binary.BigEndian.PutUint16(p[6:], uint16(v))
		case rules.FieldARPSHA:
			put48(p[8:], v)
		case rules.FieldARPSPA:
			binary.BigEndian.PutUint32(p[14:], uint32(v))
		case rules.FieldARPTHA:
			put48(p[18:], v)
		case rules.FieldARPTPA:
			binary.BigEndian.PutUint32(p[24:], uint32(v))
		}
	case rules.FieldMPLSLabel, rules.FieldMPLSTC, rules.FieldMPLSBoS, rules.FieldPBBISID, rules.FieldPBBUCA:
		return w.setTagField(j, a.Field, v)
	case rules.FieldEthType:
		off := 12 + 4*fs.vlans
		if !fs.eth || len(d) < off+2 {
			return false
		}
		d = w.writable(j)
		binary.BigEndian.PutUint16(d[off:], uint16(v))
		w.reparse(j) // what follows is read by the new EtherType
		return true
	case rules.FieldIPProto:
		return w.setIPProto(j, uint8(v))
	default: // in_port, ...: refused at FLOW_MOD time
		return false
	}
	k.Set(a.Field, v)
	return true
}

// setIPProto rewrites the protocol of frame j's IP header (IPv4's protocol,
// or the next-header field that names the transport after IPv6's extension
// headers), folds the change into the IPv4 header checksum and into the
// transport checksum that covers the pseudo-header, and parses the frame
// again: the transport header is then read as the new protocol's.
func (w *Worker) setIPProto(j int, p uint8) bool {
	fs := &w.pkt[j]
	d := fs.data
	var at int
	switch fs.ethType {
	case EtherTypeIPv4:
		if !has(d, fs.l3, 20) {
			return false
		}
		at = fs.l3 + 9
	case EtherTypeIPv6:
		if !has(d, fs.l3, 40) {
			return false
		}
		// The last next-header field of the chain: the one that names
		// the transport.
		at = fs.l3 + 6
		for off, nh := fs.l3+40, d[at]; off+2 <= len(d) && (fs.l4 == 0 || off < fs.l4); {
			var n int
			switch nh {
			case 0, 43, 60: // hop-by-hop, routing, destination options
				n = (int(d[off+1]) + 1) * 8
			case 44: // fragment
				n = 8
			case 51: // authentication: length in 4-byte units, less 2
				n = (int(d[off+1]) + 2) * 4
			default:
				n = 0
			}
			if n == 0 {
				break
			}
			at, nh = off, d[off]
			off += n
		}
	default:
		return false
	}
	d = w.writable(j)
	old := d[at]
	if old == p {
		return true
	}
	sum := fs.l4Sum(d, true)
	if fs.ethType == EtherTypeIPv4 {
		replace16(d, fs.l3+8, uint16(d[fs.l3+8])<<8|uint16(p), fs.l3+10)
	} else {
		d[at] = p
	}
	if sum >= 0 {
		binary.BigEndian.PutUint16(d[sum:], csum16(binary.BigEndian.Uint16(d[sum:]), uint16(old), uint16(p)))
	}
	w.reparse(j)
	return true
}

func put48(d []byte, v uint64) {
	_ = d[5]
	d[0], d[1], d[2], d[3], d[4], d[5] = byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

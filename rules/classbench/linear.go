package classbench

// MatchesHeader reports whether r matches h as ClassBench defines it, on
// the rule as written: source and destination prefixes, inclusive port
// ranges, the protocol under its mask. The flags column plays no part.
func (r *Rule) MatchesHeader(h *Header) bool {
	pm := func(a, p uint32, l int) bool {
		if l == 0 {
			return true
		}
		return a>>(32-l) == p>>(32-l)
	}
	return pm(h.Src, r.Src, r.SrcLen) && pm(h.Dst, r.Dst, r.DstLen) &&
		r.SportLo <= h.Sport && h.Sport <= r.SportHi &&
		r.DportLo <= h.Dport && h.Dport <= r.DportHi &&
		h.Proto&r.ProtoMask == r.Proto
}

// First returns the index in rs of the first rule in file order that
// matches h (MatchesHeader), or -1: ClassBench's own classification, a
// linear scan over the rules as written (port ranges, not their prefix
// expansion). It favours being obviously right over being fast, and is
// the reference the classifier is checked against (Check).
func First(rs []Rule, h *Header) int {
	for i := range rs {
		if rs[i].MatchesHeader(h) {
			return i
		}
	}
	return -1
}

// MatchesPacket reports whether r matches h as OpenFlow sees the packet:
// as MatchesHeader, but only TCP, UDP and SCTP packets have ports, and a
// packet without ports satisfies only the full ranges 0 : 65535. It is
// what r's OpenFlow flows (Flows) match.
func (r *Rule) MatchesPacket(h *Header) bool {
	return r.MatchesHeader(h) && (portProto(h.Proto) || r.AnyPort())
}

// FirstPacket is First by MatchesPacket: the rule a packet with h's
// fields meets first in OpenFlow terms, the reference for Updates.
func FirstPacket(rs []Rule, h *Header) int {
	for i := range rs {
		if rs[i].MatchesPacket(h) {
			return i
		}
	}
	return -1
}

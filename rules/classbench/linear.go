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

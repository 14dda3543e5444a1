package rules

import (
	"fmt"
	"math/bits"
)

// PortRange is an inclusive range of L4 port numbers, [Lo, Hi].
//
// The zero PortRange tests nothing: a range is kept only where a value and
// mask cannot say it (Update.SetPortRange), so port 0 alone is an exact
// match in the Match, and 0-65535 no test at all.
type PortRange struct{ Lo, Hi uint16 }

// Ranges are the L4 port ranges a rule tests besides its Match: ClassBench
// rule sets match ports by range, which a value and mask can say only as
// up to 30 prefixes per port. OpenFlow has no ranges, so only rules added
// through the Go API carry them (Update.Ranges); the zero Ranges tests
// nothing, and a rule without ranges is classified exactly as before.
//
// A port with a range is wildcarded in the rule's Match (mask 0), and the
// rule lives in a subtable whose mask does not test it: the rule is one
// entry, and its node's check tests Lo <= port <= Hi after the hash match,
// as TupleMerge does. The ports a ranged rule's Match tests (the other
// port, exact or by a prefix) are tested by the check as ranges too, so
// they must be prefixes.
//
// Ranges take part in the FLOW_MOD semantics as a part of the match:
//
//   - identity (ADD replacing a rule, MODIFY_STRICT and DELETE_STRICT):
//     equal Match, equal Ranges and equal priority;
//   - non-strict MODIFY and DELETE select the rules whose packets the
//     update's match and ranges all match (CoveredBy), each port field
//     compared as a set of ports;
//   - OFPFF_CHECK_OVERLAP refuses an add for which some packet matches
//     both it and a rule of the same priority (ranges intersected with
//     ranges and masked ports);
//   - Rule.Matches tests the Match and the ranges, and Rule.Ranges (with
//     Ranges.String) shows them to the Go API. OpenFlow cannot carry
//     them: a flow-stats reply of a ranged rule (only a rule loaded
//     through the Go API has one) shows its Match, the ranged port
//     wildcarded, and the controller selects rules for statistics by
//     Match.Covers on the Match alone, so a request that tests a ranged
//     port does not select the rule.
type Ranges struct{ Src, Dst PortRange }

// IsZero reports whether rg tests nothing.
func (rg Ranges) IsZero() bool { return rg == Ranges{} }

// String formats rg as "l4_src=1024-65535,l4_dst=80-88", naming only the
// ranges it has ("" for none).
func (rg Ranges) String() string {
	s := ""
	if rg.Src != (PortRange{}) {
		s = fmt.Sprintf("l4_src=%d-%d", rg.Src.Lo, rg.Src.Hi)
	}
	if rg.Dst != (PortRange{}) {
		if s != "" {
			s += ","
		}
		s += fmt.Sprintf("l4_dst=%d-%d", rg.Dst.Lo, rg.Dst.Hi)
	}
	return s
}

// SetPortRange makes u match f (FieldL4Src or FieldL4Dst) in [lo, hi]: a
// single port as an exact match in u.Match, 0-65535 as no test, any other
// range as a range in u.Ranges with f wildcarded in u.Match. Other fields
// are a mistake of the caller's and panic. lo > hi is kept as given, for
// the pipeline to refuse.
func (u *Update) SetPortRange(f Field, lo, hi uint16) {
	var pr *PortRange
	switch f {
	case FieldL4Src:
		pr = &u.Ranges.Src
	case FieldL4Dst:
		pr = &u.Ranges.Dst
	default:
		panic(fmt.Sprintf("rules: SetPortRange of %v", f))
	}
	*pr = PortRange{}
	switch {
	case lo == hi:
		u.Match.SetExact(f, uint64(lo))
	case lo == 0 && hi == 0xffff:
		u.Match.Clear(f)
	default:
		u.Match.Clear(f)
		*pr = PortRange{Lo: lo, Hi: hi}
	}
}

// Matches reports whether the packet key k matches r: its Match and its
// Ranges.
func (r *Rule) Matches(k *Key) bool {
	return r.Match.Matches(k) && r.Ranges.Contains(k)
}

// Contains reports whether k's ports are in rg's ranges (true for the
// zero Ranges).
func (rg *Ranges) Contains(k *Key) bool {
	return rg.Src.admits(uint16(k.Get(FieldL4Src))) && rg.Dst.admits(uint16(k.Get(FieldL4Dst)))
}

// admits reports whether port x is in pr; the zero PortRange admits all.
func (pr PortRange) admits(x uint16) bool {
	return pr == PortRange{} || pr.Lo <= x && x <= pr.Hi
}

// CoveredBy reports whether every packet that matches r matches m and rg
// too: the non-strict selection of FLOW_MOD MODIFY and DELETE. Without
// ranges on either side it is m.Covers(&r.Match).
func (r *Rule) CoveredBy(m *Match, rg Ranges) bool {
	if rg.IsZero() && r.Ranges.IsZero() {
		return m.Covers(&r.Match)
	}
	um, rm, ok := portsThen(m, rg, r, portCovers)
	return ok && um.Covers(&rm)
}

// overlapsRule reports whether some packet matches both (m, rg) and r.
func overlapsRule(m *Match, rg Ranges, r *Rule) bool {
	if rg.IsZero() && r.Ranges.IsZero() {
		return m.Overlaps(&r.Match)
	}
	um, rm, ok := portsThen(m, rg, r, portOverlaps)
	return ok && um.Overlaps(&rm)
}

// portsThen compares (m, rg) with r port field by port field, each
// side's range and value/mask together, with test (portCovers or
// portOverlaps); ok is false at the first port that fails. It returns
// copies of m and of r's match with the port fields cleared, which the
// caller compares for the other fields.
func portsThen(m *Match, rg Ranges, r *Rule, test func(ur PortRange, uv, umk uint16, rr PortRange, rv, rmk uint16) bool) (um, rm Match, ok bool) {
	um, rm = *m, r.Match
	for _, pf := range portFields {
		uv, umk := um.Get(pf.f)
		rv, rmk := rm.Get(pf.f)
		if !test(*pf.of(&rg), uint16(uv), uint16(umk), *pf.of(&r.Ranges), uint16(rv), uint16(rmk)) {
			return um, rm, false
		}
		um.Clear(pf.f)
		rm.Clear(pf.f)
	}
	return um, rm, true
}

// portFields pairs the port fields with their ranges.
var portFields = [2]struct {
	f  Field
	of func(*Ranges) *PortRange
}{
	{FieldL4Src, func(rg *Ranges) *PortRange { return &rg.Src }},
	{FieldL4Dst, func(rg *Ranges) *PortRange { return &rg.Dst }},
}

// bounds returns the least and greatest port of a port field: its range,
// or its value and mask's (v and v with every unmasked bit set).
func bounds(pr PortRange, v, m uint16) (lo, hi uint16) {
	if pr != (PortRange{}) {
		return pr.Lo, pr.Hi
	}
	return v, v | ^m
}

// portCovers reports whether the ports a rule admits on one field (its
// range r, or its value rv under mask rm) are all admitted by an update's
// (u, or uv under um). The set of a value and mask holds its bounds, and a
// range its every port, so:
//
//   - under a range, the rule's bounds must be inside it;
//   - under a value and mask, a rule's value and mask as Match.Covers
//     says; a rule's range [Lo, Hi], Lo < Hi, holds both values of every
//     bit at or below the highest one where Lo and Hi differ (it holds
//     Lo's prefix followed by 01..1 and by 10..0), so the mask must test
//     none of those bits and Lo must agree with it above them.
//
// A DELETE is not validated, and may test a port by a range and a value
// and mask at once: its set is their intersection, and the rule's must
// pass both tests.
func portCovers(u PortRange, uv, um uint16, r PortRange, rv, rm uint16) bool {
	if u != (PortRange{}) {
		lo, hi := bounds(r, rv, rm)
		if lo < u.Lo || u.Hi < hi {
			return false
		}
		if um == 0 {
			return true
		}
	}
	if r == (PortRange{}) {
		return um&^rm == 0 && rv&um == uv
	}
	low := uint16(1)<<(16-bits.LeadingZeros16(r.Lo^r.Hi)) - 1
	return um&low == 0 && r.Lo&um == uv
}

// portOverlaps reports whether some port is admitted by both sides of one
// field (see portCovers for the arguments).
func portOverlaps(a PortRange, av, am uint16, b PortRange, bv, bm uint16) bool {
	switch {
	case a == (PortRange{}) && b == (PortRange{}):
		return (av^bv)&am&bm == 0
	case a == (PortRange{}):
		a, av, am, b, bv, bm = b, bv, bm, a, av, am
	}
	// a is a range.
	if b != (PortRange{}) {
		return a.Lo <= b.Hi && b.Lo <= a.Hi
	}
	x, ok := leastAtLeast(a.Lo, bv, bm)
	return ok && x <= a.Hi
}

// leastAtLeast returns the least port x >= a with x&m == v (v within m),
// and false if there is none. Past a, the least such x keeps a's bits
// above some bit i where a has a 0, sets bit i and takes v's bits below
// it (0 where m does not test them); the lowest i for which that agrees
// with v gives the least x.
func leastAtLeast(a, v, m uint16) (uint16, bool) {
	if a&m == v {
		return a, true
	}
	for i := range 16 {
		bit := uint16(1) << i
		if a&bit != 0 || m&bit != 0 && v&bit == 0 {
			continue
		}
		high := ^(bit<<1 - 1)
		if a&high&m != v&high {
			continue
		}
		return a&high | bit | v&(bit-1), true
	}
	return 0, false
}

// checkRanges refuses ranges a rule cannot have (OFPBMC_BAD_VALUE,
// OFPBMC_BAD_MASK, OFPBMC_BAD_PREREQ): a range must be one SetPortRange
// keeps (Lo < Hi, not 0-65535), its port must be wildcarded in m, the
// other port tested by a prefix if at all, no ARP address tested, and
// without noPrereqs ip_proto must be TCP, UDP or SCTP, as for a port in
// the Match.
func checkRanges(m *Match, rg Ranges, noPrereqs bool) error {
	for i, pf := range portFields {
		// Selected here, not by pf.of: rg's address passed to a
		// function value would move rg to the heap, an allocation for
		// every update checked.
		pr := rg.Src
		if i == 1 {
			pr = rg.Dst
		}
		v, mk := m.Get(pf.f)
		if pr == (PortRange{}) {
			if mk != 0 && prefixMask(16, bits.LeadingZeros16(^uint16(mk))) != mk {
				return &Error{Type: ErrTypeBadMatch, Code: BadMatchBadMask, Field: pf.f.String(),
					Why: fmt.Sprintf("mask %#x on a port of a rule with port ranges: only prefixes", mk)}
			}
			continue
		}
		if pr.Lo >= pr.Hi || pr.Lo == 0 && pr.Hi == 0xffff {
			return &Error{Type: ErrTypeBadMatch, Code: BadMatchBadValue, Field: pf.f.String(),
				Why: fmt.Sprintf("range %d-%d: want lo < hi and not 0-65535 (SetPortRange)", pr.Lo, pr.Hi)}
		}
		if mk != 0 || v != 0 {
			return &Error{Type: ErrTypeBadMatch, Code: BadMatchBadValue, Field: pf.f.String(),
				Why: "a port with a range must be wildcarded in the match"}
		}
	}
	// Packets with ports have no ARP addresses; the check of a ranged
	// rule relies on it (rangedMark), so even NoPrereqs does not lift it.
	if m.Mask[10] != 0 {
		return &Error{Type: ErrTypeBadMatch, Code: BadMatchBadPrereq, Field: "arp_spa,arp_tpa",
			Why: "a rule with port ranges tests no ARP address"}
	}
	if !noPrereqs {
		proto, pm := m.Get(FieldIPProto)
		if pm != 0xff || !(proto == IPProtoTCP || proto == IPProtoUDP || proto == IPProtoSCTP) {
			return prereq(FieldL4Src, "port ranges need ip_proto=6, 17 or 132")
		}
	}
	return nil
}

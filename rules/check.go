package rules

// A node's checks: what a lookup still tests of a merged rule beyond its
// subtable's mask, kept in the node (index.go) so that a scan loads no rule.

import "unsafe"

// relaxedWords are the Key words on which a merged subtable's mask may
// test less than its rules' masks (see compatible): ip_proto with eth_dst,
// the IPv4 addresses, the L4 ports with ICMP and arp_op, the ARP
// addresses. On every other word a rule's mask equals its subtable's, so a
// node whose key matches has checked them already. A check is then four
// value/mask pairs, one cache line.
var relaxedWords = [4]uint8{3, 0, 2, 10}

// check is what a lookup must still test of a rule whose mask is not its
// subtable's: the rule's value and mask on the relaxed words. Kept in the
// node, so that the test does not load the rule.
type check struct {
	k, m [len(relaxedWords)]uint64
}

func (c *check) set(r *Rule) {
	for i, w := range relaxedWords {
		c.k[i], c.m[i] = r.Match.Key[w], r.Match.Mask[w]
	}
	if !r.Ranges.IsZero() {
		// Word 2 of a ranged rule's check: the low 32 bits (ICMP and
		// arp_op) as a value and mask, the ports as ranges: the high
		// halves of k and m hold each port's low end and span (see
		// matchesRanges). A port without a range is a prefix or
		// wildcarded (checkRanges), a range too.
		var lo, span [2]uint64
		for j, pf := range portFields {
			v, mk := r.Match.Get(pf.f)
			l, h := bounds(*pf.of(&r.Ranges), uint16(v), uint16(mk))
			lo[j], span[j] = uint64(l), uint64(h-l)
		}
		c.k[2] = lo[0]<<48 | lo[1]<<32 | c.k[2]&0xffffffff
		c.m[2] = span[0]<<48 | span[1]<<32 | c.m[2]&0xffffffff
		// A value bit outside the mask, so that matches fails on a
		// ranged check and lookups go on to matchesRanges (scanChecks).
		c.k[3] |= rangedMark
	}
}

// rangedMark is the bit of a ranged check's value on word 10 (the ARP
// addresses') that lies outside its mask, which is 0: a ranged rule tests
// no ARP address (checkRanges), so no key meets the value and mask.
const rangedMark = 1 << 63

// ranged reports whether c is a ranged rule's check: its value has a bit
// outside its mask on word 10, which no rule's masked value has. The mark
// bit alone does not tell: an ARP rule's address from 128.0.0.0 up has it
// in its value, and is no ranged rule.
func (c *check) ranged() bool { return c.k[3]&^c.m[3] != 0 }

// matches reports whether k meets c's values and masks: the four pairs
// folded into one word, one branch. (Word 10 is on another line of the
// key than the other three; reading it only for checks that test ARP
// addresses, behind a branch, measured 0.91x on the fw sets.)
func (c *check) matches(k *Key) bool {
	return (k[3]&c.m[0]^c.k[0])|(k[0]&c.m[1]^c.k[1])|(k[2]&c.m[2]^c.k[2])|(k[10]&c.m[3]^c.k[3]) == 0
}

// matchesPast is matches for a key whose IPv4 addresses (word 0) met c's
// already, by the packed address pair a node's scan tests first
// (addrPair): the other three pairs.
func (c *check) matchesPast(k *Key) bool {
	return (k[3]&c.m[0]^c.k[0])|(k[2]&c.m[2]^c.k[2])|(k[10]&c.m[3]^c.k[3]) == 0
}

// matchesRanges is matches for the check of a ranged rule: the low half
// of word 2 by value and mask, and each port p in range when p - lo, in 16
// bits, is at most the span. The two ports are subtracted as one 32-bit
// word: a borrow out of the destination port's half means that port is
// below its range, and the test fails on that half whatever the source
// port's half says.
//
// Only for a ranged check (c.ranged): a ranged rule tests no ARP address
// (checkRanges), its mask on word 10 is 0, and the word is not read.
func (c *check) matchesRanges(k *Key) bool {
	w := k[2]
	if (k[3]&c.m[0]^c.k[0])|(k[0]&c.m[1]^c.k[1])|uint64(uint32((w^c.k[2])&c.m[2])) != 0 {
		return false
	}
	d, sp := uint32(w>>32)-uint32(c.k[2]>>32), uint32(c.m[2]>>32)
	return uint16(d) <= uint16(sp) && d>>16 <= sp>>16
}

// setChecks gives n its checks, from t.chkSlab, if one of its rules
// needs them. A copy of a node (from not nil) takes the check of entry i
// from entry from[i] of old when that is not -1 and old has checks: a
// rule's check never changes, and the copy reads one cache line of old's
// checks where check.set reads four lines of the rule's Match.
func (n *inode) setChecks(t *Table, old *inode, from []int32) {
	for i := range n.ents {
		if !n.ents[i].exact {
			nc := cap(n.ents) + addrChecks(cap(n.ents))
			var chk []check
			if len(n.ents) == 1 {
				chk = unsafe.Slice(&n.own, 1)
			} else if x := t.chkPool.get(len(n.ents)); x != nil {
				chk = unsafe.Slice(x, nc)
			} else {
				chk = t.chkSlab.take(nc)
			}
			if old != nil && old.chk != nil {
				och := unsafe.Slice(old.chk, len(old.all()))
				for j, f := range from {
					if f >= 0 {
						chk[j] = och[f]
					} else {
						chk[j].set(n.ents[j].r)
					}
				}
			} else {
				for j := range n.ents {
					chk[j].set(n.ents[j].r)
				}
			}
			n.chk = &chk[0]
			n.setAddrs()
			return
		}
	}
}

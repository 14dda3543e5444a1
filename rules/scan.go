package rules

import "unsafe"

// A node of several entries with checks keeps, after its checks, the
// address word of every check packed (addrPair): the IPv4 addresses'
// value and mask, 16 bytes an entry, four to a cache line. A lookup's
// scan of the node tests the key's addresses against them first and
// reads an entry's check (a line of its own) only where they match: the
// rules merged into one node differ mostly in their addresses beyond the
// subtable's prefixes, so that the scan of a node of 16 entries reads
// 4 lines and the check of the one or two entries whose addresses match,
// not 16 lines of checks (ClassBench's ACL sets scan 16-17 entries a
// lookup at the collision limit of 64). A node of one entry has none: its
// one check is one line anyway, and it is in the node (inode.own), whose
// other lines a probe loads already.
type addrPair struct{ k, m uint64 }

// addrChecks is how many checks' room the addresses of a node of n
// entries take after its n checks.
func addrChecks(n int) int {
	if n < 2 {
		return 0
	}
	per := int(unsafe.Sizeof(check{}) / unsafe.Sizeof(addrPair{}))
	return (n + per - 1) / per
}

// addrs returns the packed addresses of n's ranked checks; n has checks
// and more than one entry.
func (n *inode) addrs() []addrPair {
	return n.addrsTo(len(n.ents))
}

// addrsTo returns the packed addresses of n's first k checks, k at most
// cap(n.ents): they follow the room for cap(n.ents) checks.
func (n *inode) addrsTo(k int) []addrPair {
	p := unsafe.Add(unsafe.Pointer(n.chk), uintptr(cap(n.ents))*unsafe.Sizeof(check{}))
	return unsafe.Slice((*addrPair)(p), k)
}

// setAddrs packs the address words of n's checks after them (see
// addrPair); n's checks are set, in a block with room for them.
func (n *inode) setAddrs() {
	if len(n.ents) < 2 {
		return
	}
	chk := unsafe.Slice(n.chk, len(n.ents))
	as := n.addrs()
	for i := range as {
		as[i] = addrPair{chk[i].k[1], chk[i].m[1]}
	}
}

// scanChecks returns the best of best (of rank bestRank, nil if none) and
// the first entry of n, a node with checks (n.chk), that is visible at
// version v and whose check k meets. It is the scan of a node's entries
// that lookups make once a probe found n; a node without checks (all of
// its entries exact) is scanned inline by its callers instead.
//
// It tests an entry's addresses (addrPair), then its check, before the
// entry itself: most fail (a merged node holds rules that agree only on
// the subtable's mask), and a failing one then costs a quarter of a line
// and one branch, without loading the check or the entry (its rank and
// versions). The entry is read only where the check passes, and the scan
// ends there: at the first entry the key meets, visible or not, if it is
// not of a better rank than best's (entries are rank descending), or, if
// it is visible, with it. The entries of n's tail (see appendEntry) come
// after that, each of them against the best so far (scanTail).
func (n *inode) scanChecks(k *Key, v uint64, best *Rule, bestRank uint64) (*Rule, uint64) {
	if best != nil && n.ents[0].rank <= bestRank {
		return best, bestRank
	}
	if len(n.ents) == 1 {
		c, e := &n.own, &n.ents[0]
		if (c.matches(k) || c.ranged() && c.matchesRanges(k)) && e.added <= v && v < e.removed.Load() {
			return e.r, e.rank
		}
		return best, bestRank
	}
	// The walk goes by a pointer to the packed addresses: the node's
	// invariants (len(ents) checks, then the room's, then the packed
	// addresses) bound it, where slices over them would cost two overflow
	// tests each a scan, and the check and entry of the few addresses
	// that match are found from the address's index.
	chk := unsafe.Pointer(n.chk)
	// addrsTo's base, spelled out: through a shared helper the loop
	// below was laid out with its alignment padding on the back edge
	// again (30 instructions a lookup more, counted on acl1_1k).
	a0 := unsafe.Add(chk, uintptr(cap(n.ents))*unsafe.Sizeof(check{}))
	end := unsafe.Add(a0, uintptr(len(n.ents))*unsafe.Sizeof(addrPair{}))
	k4 := k[0]
	for p := a0; p != end; p = unsafe.Add(p, unsafe.Sizeof(addrPair{})) {
		if a := (*addrPair)(p); k4&a.m != a.k {
			continue
		}
		i := (uintptr(p) - uintptr(a0)) / unsafe.Sizeof(addrPair{})
		if c := (*check)(unsafe.Add(chk, i*unsafe.Sizeof(check{}))); !c.matchesPast(k) && (!c.ranged() || !c.matchesRanges(k)) {
			continue
		}
		e := &n.ents[i]
		if best != nil && e.rank <= bestRank {
			break
		}
		if e.added <= v && v < e.removed.Load() {
			best, bestRank = e.r, e.rank
			break
		}
	}
	if nt := n.nt.Load(); nt != 0 && (best == nil || n.tmax.Load() > bestRank) {
		return n.scanTail(k, v, best, bestRank, int(nt))
	}
	return best, bestRank
}

// scanTail returns the best of best (of rank bestRank) and the entries of
// n's tail of nt entries that k meets and that are visible at version v.
// The tail is in no order: every entry is tested.
func (n *inode) scanTail(k *Key, v uint64, best *Rule, bestRank uint64, nt int) (*Rule, uint64) {
	l := len(n.ents)
	ents := n.ents[l : l+nt]
	chk := unsafe.Slice(n.chk, l+nt)[l:]
	k4 := k[0]
	for i, a := range n.addrsTo(l + nt)[l:] {
		if k4&a.m != a.k {
			continue
		}
		if c := &chk[i]; !c.matchesPast(k) && (!c.ranged() || !c.matchesRanges(k)) {
			continue
		}
		e := &ents[i]
		if best != nil && e.rank <= bestRank {
			continue
		}
		if e.added <= v && v < e.removed.Load() {
			best, bestRank = e.r, e.rank
		}
	}
	return best, bestRank
}

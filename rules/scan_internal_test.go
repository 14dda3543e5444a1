package rules

import (
	"fmt"
	"unsafe"
)

// checkNodeChecks returns an error if n's checks are not those of its
// rules (check.set), if it has checks while every entry is exact or none
// while one is not, if a node of one entry keeps its check elsewhere than
// in itself (inode.own), or if a node of several entries does not hold its
// checks' address words packed after them (addrPair), as scanChecks reads
// them.
func checkNodeChecks(n *inode) error {
	need := false
	for i := range n.ents {
		need = need || !n.ents[i].exact
	}
	if need != (n.chk != nil) {
		return fmt.Errorf("node of %d entries: checks %v, needed %v", len(n.ents), n.chk != nil, need)
	}
	if n.chk == nil {
		return nil
	}
	if len(n.ents) == 1 && n.chk != &n.own {
		// scanChecks reads a node of one entry's check from n.own.
		return fmt.Errorf("node of one entry: its check is not the node's own")
	}
	all := n.all()
	chk := unsafe.Slice(n.chk, len(all))
	for i := range all {
		var c check
		c.set(all[i].r)
		if chk[i] != c {
			return fmt.Errorf("node of %d entries: entry %d's check is not its rule's", len(n.ents), i)
		}
		if len(n.ents) > 1 && n.addrsTo(len(all))[i] != (addrPair{c.k[1], c.m[1]}) {
			return fmt.Errorf("node of %d entries: entry %d's packed addresses are not its check's", len(n.ents), i)
		}
	}
	return nil
}

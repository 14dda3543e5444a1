package rules

import "fmt"

// The test hooks of Pipeline: its unexported fields that only tests set or
// read are set and read here.

// Poison makes p overwrite every rule and index node it reclaims for reuse
// with values no flow has, so that a reader that still held one fails its
// oracle (and the race detector sees the writes).
func Poison(p *Pipeline) { p.poisonRule, p.poisonNode = poisonRule, poisonNode }

// PrepHits returns how many updates p has applied with the subtable and
// hash that prefetch worked out for them while it applied the update
// before.
func PrepHits(p *Pipeline) int { return p.prepHits }

// LeftOut returns how many removed rules p's node copies left out before
// their turn to be unlinked: those no lookup could see, and those whose
// removal was published.
func LeftOut(p *Pipeline) (unseen, seen int) { return p.leftOut[0], p.leftOut[1] }

// HeldPrepared returns the indices of p's prefetch slots that still hold
// an update: none may between bursts, since the caller may reuse its
// updates.
func HeldPrepared(p *Pipeline) []int {
	var held []int
	for i := range p.pre {
		if p.pre[i].u != nil {
			held = append(held, i)
		}
	}
	return held
}

// poisonRule and poisonNode overwrite what lookups read of a reclaimed rule
// or node with values no flow has (set by Poison), so that a
// reader that still held one gives an answer an oracle refuses, and the
// race detector sees the writes.
func poisonRule(x *ruleWithStats) {
	x.r.Priority, x.r.Cookie, x.r.seq = 0xdead, 0xdeaddeaddeaddead, 1<<46
	for i := range x.r.Match.Key {
		x.r.Match.Key[i], x.r.Match.Mask[i] = ^uint64(0), ^uint64(0)
	}
	x.s.packets.Store(1 << 60)
}

func poisonNode(n *inode) {
	for i := range n.key {
		n.key[i] = ^uint64(0)
	}
	n.one[0].rank, n.one[0].added = ^uint64(0), ^uint64(0)
	n.one[0].removed.Store(^uint64(0))
}

// CheckOrder returns an error if the subtable order a table of p
// publishes differs from the one built from scratch from its subtables;
// call it between bursts, when every change is published.
func CheckOrder(p *Pipeline) error {
	for _, t := range p.tables {
		got, want := t.state.Load().order, t.fullOrder(nil)
		if len(got) != len(want) {
			return fmt.Errorf("table %d: %d subtables in the published order, %d in the table", t.id, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				return fmt.Errorf("table %d: order entry %d is subtable %d (best rank %#x), want %d (%#x)",
					t.id, i, got[i].st.id, got[i].maxRank, want[i].st.id, want[i].maxRank)
			}
		}
	}
	return nil
}

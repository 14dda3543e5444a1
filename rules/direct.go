package rules

import "sync/atomic"

// directHint names the subtable, if any, that holds more than three
// quarters of its table's index nodes (distinct masked keys): lookups that
// consult the filter probe that one subtable without it.
//
// The filter can save a probe only of a subtable that lacks the key. A
// subtable that holds most of the table's keys is the one a key is most
// likely to be found in (a table of exact flows and a few wildcards: the
// exact subtable decides every lookup that hits), and where it finds the
// key the filter check is pure cost. The other subtables, where a key is
// more likely absent, stay behind the filter. The share is high, not a
// bare majority: a subtable of half the keys (ClassBench's acl1_8k has one)
// still sees many lookups that miss it. Only one subtable can hold more
// than half, so the hint is one pointer: no per-subtable state, nothing
// on the order.
//
// The writer updates the hint as nodes come and go (noteNodes), so it is
// O(1) per index change; lookups load it once, with an atomic read of a
// line written only when the hint changes (lookupChunk skips the filter
// for the named subtable's pass), and only where a subtable is named do
// single lookups take lookupFrom's second loop, which compares each
// visited subtable with it: where none is, a lookup pays one load for the
// rule. It affects only which subtables a lookup checks against the
// filter, never an answer.
type directHint struct {
	st atomic.Pointer[subtable]
	_  [56]byte // a line of its own: no other write invalidates it
}

// noteNodes brings t's directHint up to date after st gained or lost an
// index node (t.nodes already counts it).
func (t *Table) noteNodes(st *subtable) {
	cur := t.directSub
	switch {
	case directShare(len(st.nodes), t.nodes):
		cur = st
	case cur != nil && !directShare(len(cur.nodes), t.nodes):
		cur = nil
	}
	if cur != t.directSub {
		t.directSub = cur
		t.direct.st.Store(cur)
	}
}

// directShare reports whether a subtable of n of a table's total index
// nodes is probed without the filter: n > 3/4 of total.
func directShare(n, total int) bool { return 4*n > 3*total }

package rules

import (
	"testing"
	"time"
)

// TestNodeTail: single adds into a merged node with room, below its first
// rank, go into its tail in place (no node copy); an add above the first
// rank, or one past the room, copies the node, and the copy holds every
// entry rank descending with no tail. A tail rule of a higher priority
// than a ranked rule of the same match wins the lookup, and loses it again
// once deleted. Rebalance, the idle work, ranks a tail in a copy, and
// copies nothing when no node has one. Lookups and CheckIndex (which
// counts the nodes with tails) agree after each step.
func TestNodeTail(t *testing.T) {
	for _, kind := range []FilterKind{FilterBloomCuckoo, FilterNone} {
		p, err := New(&Config{Filter: kind, Recycle: true})
		if err != nil {
			t.Fatal(err)
		}
		tbl := p.Table(0)
		match := func(port int) Match {
			var m Match
			m.Set(FieldEthType, 0x0800, FieldEthType.FullMask())
			m.Set(FieldIPProto, 6, FieldIPProto.FullMask())
			m.Set(FieldIPv4Src, 0x0a010200, 0xffffff00)
			m.Set(FieldL4Dst, uint64(port), FieldL4Dst.FullMask())
			return m
		}
		add := func(id, port int, pri uint16) Update {
			return Update{Command: CmdAdd, Priority: pri, Match: match(port), ID: id,
				Instructions: []Instruction{{Kind: InstApplyActions, Actions: []Action{{Kind: ActionOutput, Port: 1}}}}}
		}
		// want[port] is the ID a lookup of the port's key finds.
		want := map[int]int{}
		check := func(step string) {
			t.Helper()
			if err := CheckIndex(p); err != nil {
				t.Fatalf("%v, %s: %v", kind, step, err)
			}
			for port, id := range want {
				m := match(port)
				if r := tbl.Lookup(&m.Key); r == nil || r.ID != id {
					t.Fatalf("%v, %s: port %d found %v, want rule %d", kind, step, port, r, id)
				}
			}
		}
		// One node of 12 ranked entries, priorities 100-122 (even).
		const k = 12
		var ups []Update
		for i := range k {
			ups = append(ups, add(i, 1000+i, uint16(100+2*i)))
			want[1000+i] = i
		}
		mustApply(t, p, ups)
		if tbl.nodes != 1 {
			t.Fatalf("%v: %d nodes, want the rules merged into 1", kind, tbl.nodes)
		}
		var node *inode
		for _, st := range tbl.subs {
			if len(st.nodes) == 1 {
				node = st.nodes[0]
			}
		}
		if node == nil || len(node.ents) != k || cap(node.ents) != k+nodeSlack || node.chk == nil {
			t.Fatalf("%v: the merged node is not one of %d entries with room for %d and checks", kind, k, nodeSlack)
		}
		check("ranked")
		// Adds below the first rank fill the tail, one burst each.
		c0 := tbl.copies
		id := k
		for j := range nodeSlack {
			mustApply(t, p, []Update{add(id, 2000+j, uint16(101+2*j))})
			want[2000+j] = id
			id++
			if tbl.copies != c0 || node.nt.Load() != int32(j+1) {
				t.Fatalf("%v: add %d into the tail: %d copies, a tail of %d", kind, j, tbl.copies-c0, node.nt.Load())
			}
			check("tail")
		}
		// Of the same match as ranked rule 0 (priority 100), priority
		// 105: a rule of its own, which the lookup prefers. The tail is
		// full: the node is copied, with all entries ranked.
		mustApply(t, p, []Update{add(id, 1000, 105)})
		want[1000] = id
		id++
		if tbl.copies != c0+1 {
			t.Fatalf("%v: an add past the room made %d copies, want 1", kind, tbl.copies-c0)
		}
		for _, st := range tbl.subs {
			if len(st.nodes) == 1 {
				node = st.nodes[0]
			}
		}
		if node.nt.Load() != 0 || len(node.ents) != k+nodeSlack+1 {
			t.Fatalf("%v: the copy has %d ranked entries and a tail of %d, want %d and 0", kind, len(node.ents), node.nt.Load(), k+nodeSlack+1)
		}
		check("copied")
		// Above the first rank: copied, not appended.
		c0 = tbl.copies
		mustApply(t, p, []Update{add(id, 3000, 500)})
		want[3000] = id
		id++
		if tbl.copies != c0+1 {
			t.Fatalf("%v: an add above the first rank made %d copies, want 1", kind, tbl.copies-c0)
		}
		check("above")
		// Into the tail again: rule 0's match at priority 103, below
		// the 105's, and then the 105 deleted: the lookup finds the tail's
		// 103, then, with it deleted too, ranked rule 0.
		for _, st := range tbl.subs {
			if len(st.nodes) == 1 {
				node = st.nodes[0]
			}
		}
		c0 = tbl.copies
		mustApply(t, p, []Update{add(id, 1000, 103)})
		under := id
		if tbl.copies != c0 || node.nt.Load() != 1 {
			t.Fatalf("%v: priority 103 was not appended (%d copies, tail %d)", kind, tbl.copies-c0, node.nt.Load())
		}
		check("under")
		del := func(port int, pri uint16) {
			u := add(0, port, pri)
			u.Command = CmdDeleteStrict
			mustApply(t, p, []Update{u})
			for range 10 {
				time.Sleep(time.Millisecond)
				p.ApplyBurst(nil, true) // a cleanup after UnlinkAfter
				if err := CheckIndex(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		del(1000, 105)
		want[1000] = under
		check("over deleted")
		// Idle work ranks the tail: a copy, with no tail, that answers
		// as before.
		c0 = tbl.copies
		p.Rebalance(1 << 10)
		for _, st := range tbl.subs {
			if len(st.nodes) == 1 {
				node = st.nodes[0]
			}
		}
		if tbl.copies != c0+1 || tbl.tailed != 0 || node.nt.Load() != 0 {
			t.Fatalf("%v: Rebalance made %d copies, left %d nodes with tails", kind, tbl.copies-c0, tbl.tailed)
		}
		check("ranked by Rebalance")
		c0 = tbl.copies
		p.Rebalance(1 << 10)
		if tbl.copies != c0 {
			t.Fatalf("%v: Rebalance of a table without tails made %d copies", kind, tbl.copies-c0)
		}
		del(1000, 103)
		want[1000] = 0
		check("under deleted")
	}
}

// TestCompactTailsBudget: Rebalance ranks tails a budget at a time. Ten
// merged nodes, each with a tail, and a small budget: every call does at
// most its budget and one copy more, ranks some tails, and the calls
// rank them all; lookups and CheckIndex agree throughout.
func TestCompactTailsBudget(t *testing.T) {
	p, err := New(&Config{Filter: FilterBloomCuckoo, Recycle: true})
	if err != nil {
		t.Fatal(err)
	}
	tbl := p.Table(0)
	const nodes, per = 40, 6
	match := func(node, port int) Match {
		var m Match
		m.Set(FieldEthType, 0x0800, FieldEthType.FullMask())
		m.Set(FieldIPProto, 6, FieldIPProto.FullMask())
		m.Set(FieldIPv4Src, uint64(0x0a000000|node<<8), 0xffffff00)
		m.Set(FieldL4Dst, uint64(port), FieldL4Dst.FullMask())
		return m
	}
	add := func(node, port int, pri uint16) Update {
		return Update{Command: CmdAdd, Priority: pri, Match: match(node, port), ID: node<<16 | port,
			Instructions: []Instruction{{Kind: InstApplyActions, Actions: []Action{{Kind: ActionOutput, Port: 1}}}}}
	}
	var ups []Update
	for n := range nodes {
		for i := range per {
			ups = append(ups, add(n, 1000+i, uint16(100+2*i)))
		}
	}
	mustApply(t, p, ups)
	for n := range nodes {
		mustApply(t, p, []Update{add(n, 2000, 101)})
	}
	// The /24s merge four to a node of a /22 subtable (see relaxMask).
	if tbl.tailed != tbl.nodes || tbl.nodes < nodes/4 {
		t.Fatalf("%d nodes with tails of %d, want all of at least %d", tbl.tailed, tbl.nodes, nodes/4)
	}
	check := func() {
		t.Helper()
		if err := CheckIndex(p); err != nil {
			t.Fatal(err)
		}
		for n := range nodes {
			for _, port := range []int{1000, 1000 + per - 1, 2000} {
				m := match(n, port)
				if r := tbl.Lookup(&m.Key); r == nil || r.ID != n<<16|port {
					t.Fatalf("node %d port %d: found %v", n, port, r)
				}
			}
		}
	}
	check()
	const budget = 2 * compactCost
	for calls := 1; tbl.tailed > 0; calls++ {
		if calls > nodes {
			t.Fatalf("%d calls left %d tails", calls, tbl.tailed)
		}
		before := tbl.tailed
		if w := p.Rebalance(budget); w > budget+compactCost || w == 0 {
			t.Fatalf("call %d: work %d, budget %d", calls, w, budget)
		}
		if tbl.tailed >= before || calls == 1 && tbl.tailed == 0 {
			t.Fatalf("call %d: %d tails before, %d after", calls, before, tbl.tailed)
		}
		check()
	}
}

// TestSmallNodeTail: a merged node of two entries has room too (slackMin):
// an add below its first rank goes into its tail in place, not into a copy.
func TestSmallNodeTail(t *testing.T) {
	p, err := New(&Config{Filter: FilterBloomCuckoo, Recycle: true})
	if err != nil {
		t.Fatal(err)
	}
	tbl := p.Table(0)
	add := func(id, port int, pri uint16) Update {
		var m Match
		m.Set(FieldEthType, 0x0800, FieldEthType.FullMask())
		m.Set(FieldIPProto, 6, FieldIPProto.FullMask())
		m.Set(FieldIPv4Src, 0x0a010200, 0xffffff00)
		m.Set(FieldL4Dst, uint64(port), FieldL4Dst.FullMask())
		return Update{Command: CmdAdd, Priority: pri, Match: m, ID: id,
			Instructions: []Instruction{{Kind: InstApplyActions, Actions: []Action{{Kind: ActionOutput, Port: 1}}}}}
	}
	mustApply(t, p, []Update{add(0, 1000, 100), add(1, 1001, 102)})
	var node *inode
	for _, st := range tbl.subs {
		if len(st.nodes) == 1 {
			node = st.nodes[0]
		}
	}
	if tbl.nodes != 1 || node == nil || len(node.ents) != 2 || cap(node.ents) != 2+nodeSlack || node.chk == nil {
		t.Fatalf("the two rules are not one merged node of 2 entries with room for %d", nodeSlack)
	}
	c0 := tbl.copies
	mustApply(t, p, []Update{add(2, 1002, 101)})
	if tbl.copies != c0 || node.nt.Load() != 1 {
		t.Fatalf("an add into a node of 2: %d copies, a tail of %d, want 0 and 1", tbl.copies-c0, node.nt.Load())
	}
	if err := CheckIndex(p); err != nil {
		t.Fatal(err)
	}
	for port, id := range map[int]int{1000: 0, 1001: 1, 1002: 2} {
		u := add(0, port, 0)
		if r := tbl.Lookup(&u.Match.Key); r == nil || r.ID != id {
			t.Fatalf("port %d found %v, want rule %d", port, r, id)
		}
	}
}

package rules

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestRelaxedWords checks the premise of a node's checks: relaxMask changes
// only the relaxed words, and every mask compatible with a rule's (any
// subset of it on the relaxed words), so a rule of a merged subtable
// matches a key exactly when the key matches the node's key and the rule's
// check.
func TestRelaxedWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	relaxed := map[int]bool{}
	for _, w := range relaxedWords {
		relaxed[int(w)] = true
	}
	prefixed := [...]Field{FieldIPv4Src, FieldIPv4Dst, FieldL4Src, FieldL4Dst, FieldARPSPA, FieldARPTPA}
	for range 2000 {
		var m Match
		for f := Field(0); f < numFields; f++ {
			if f.Bits() == 128 || rng.IntN(3) != 0 {
				continue
			}
			m.Set(f, rng.Uint64(), f.FullMask())
		}
		for _, f := range prefixed {
			if rng.IntN(2) == 0 {
				m.SetPrefix(f, rng.Uint64(), rng.IntN(f.Bits()+1))
			}
		}
		sub := m.Mask
		for _, w := range relaxedWords {
			sub[w] &= rng.Uint64()
		}
		for g, cm := range [...]Key{relaxMask(&m.Mask, 0, false), relaxMask(&m.Mask, 1, false), sub} {
			for w := range cm {
				if cm[w] != m.Mask[w] && !relaxed[w] {
					t.Fatalf("mask %d of %v changed word %d", g, m.Mask, w)
				}
			}
			if !compatible(&cm, &m.Mask) {
				t.Fatalf("mask %d %v not compatible with %v", g, cm, m.Mask)
			}
			if w := rng.IntN(KeyWords); !relaxed[w] {
				other := cm
				other[w] ^= 1
				if compatible(&other, &m.Mask) {
					t.Fatalf("mask %v with word %d changed compatible with %v", other, w, m.Mask)
				}
			}
			st := &subtable{mask: cm}
			for w := range cm {
				if cm[w] != 0 {
					st.words[st.nw] = uint8(w)
					st.nw++
				}
			}
			pk := st.pack(&m.Key)
			r := &Rule{Match: m}
			n := &inode{st: st, key: [packedWords]uint64(pk[:packedWords])}
			n.one[0].r = r
			n.ents = n.one[:]
			var c check
			c.set(r)
			for range 8 {
				k := m.Key
				for w := range k {
					if rng.IntN(4) == 0 {
						k[w] ^= uint64(1) << rng.IntN(64)
					}
				}
				want := m.Matches(&k)
				got := keyEqual(n, st, &k) && wideEqual(n, st, &k) && c.matches(&k)
				if got != want {
					t.Fatalf("match %v mask %v g %d key %v: node and check say %v, Matches %v", m.Key, m.Mask, g, k, got, want)
				}
			}
		}
	}
}

// TestSpareNodes: a table emptied and refilled gives the new subtable the
// nodes list of the one it dropped, with the room it had grown to.
func TestSpareNodes(t *testing.T) {
	p, err := New(&Config{UnlinkAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	ups, _ := emptyTestFlows(1000, 0, 10)
	mustApply(t, p, ups)
	tbl := p.Table(0)
	if len(tbl.subs) != 1 {
		t.Fatalf("%d subtables, want 1", len(tbl.subs))
	}
	var old *subtable
	for _, st := range tbl.subs {
		old = st
	}
	room := cap(old.nodes)
	mustApply(t, p, []Update{{Command: CmdDelete, Table: TableAll}})
	if len(tbl.subs) != 0 || cap(tbl.spareNodes) != room || len(tbl.spareNodes) != 0 {
		t.Fatalf("after deleting all: %d subtables, spare list len %d cap %d; want none, 0 and %d",
			len(tbl.subs), len(tbl.spareNodes), cap(tbl.spareNodes), room)
	}
	mustApply(t, p, ups)
	for _, st := range tbl.subs {
		if st == old || cap(st.nodes) != room || &st.nodes[0] != &old.nodes[:1][0] {
			t.Fatalf("the refilled table's subtable did not take the dropped one's nodes list (cap %d, want %d)", cap(st.nodes), room)
		}
	}
	if tbl.spareNodes != nil {
		t.Fatal("the spare list was not handed over")
	}
}

// TestDuplicatesInOneBurst checks that a flow replaced N times within one
// burst (N adds of one match, or N modifies) leaves its node with a bounded
// number of entries, so that each replacement's node copy costs O(1), not
// O(N): the versions no lookup can see are left out of the copies, and
// once a node holds more than maxDeadEntries removed rules, those whose
// removal is published too. The last version is the one found, and after
// cleanup the table holds one rule.
func TestDuplicatesInOneBurst(t *testing.T) {
	const n = 3000
	for _, tc := range []struct {
		name   string
		atomic bool
		cmd    Command
		cfg    Config
	}{
		{"atomic adds", true, CmdAdd, Config{}},
		{"adds", false, CmdAdd, Config{}},
		{"atomic modifies", true, CmdModifyStrict, Config{}},
		{"modifies", false, CmdModify, Config{}},
		{"adds, recycling", false, CmdAdd, Config{Recycle: true}},
		{"atomic adds, one subtable per mask", true, CmdAdd, Config{NoMerge: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(&tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var m Match
			m.Set(FieldEthType, 0x0800, FieldEthType.FullMask())
			m.Set(FieldIPv4Dst, 0x0a000001, FieldIPv4Dst.FullMask())
			first := Update{Command: CmdAdd, Priority: 7, Match: m, Instructions: []Instruction{{Kind: InstApplyActions, Actions: []Action{{Kind: ActionOutput, Port: 1}}}}}
			mustApply(t, p, []Update{first})
			ups := make([]Update, n)
			for i := range ups {
				ups[i] = first
				ups[i].Command = tc.cmd
				ups[i].Instructions = []Instruction{{Kind: InstApplyActions, Actions: []Action{{Kind: ActionOutput, Port: uint32(i + 2)}}}}
			}
			res := p.ApplyBurst(ups, tc.atomic)
			for i, err := range res.Errs {
				if err != nil {
					t.Fatalf("update %d: %v", i, err)
				}
			}
			tbl := p.Table(0)
			most := 0
			for _, st := range tbl.subs {
				for _, nd := range st.nodes {
					most = max(most, len(nd.ents))
				}
			}
			if most > maxDeadEntries+2 {
				t.Errorf("a node holds %d entries after %d replacements of one flow, want at most %d", most, n, maxDeadEntries+2)
			}
			k := m.Key
			r := tbl.Lookup(&k)
			if r == nil || r.Instructions[0].Actions[0].Port != n+1 {
				t.Fatalf("lookup after the burst: %+v, want the last version (output:%d)", r, n+1)
			}
			p.ApplyBurst(nil, true) // a cleanup after UnlinkAfter
			for range 100 {
				if tbl.rules == 1 {
					break
				}
				time.Sleep(time.Millisecond)
				p.Rebalance(0)
			}
			if tbl.rules != 1 || tbl.flows != 1 {
				t.Errorf("after cleanup the table counts %d rules and %d flows, want 1 and 1", tbl.rules, tbl.flows)
			}
		})
	}
}

// TestOneCopyPerRun adds the entries of one rule whose port ranges
// expanded (one tcp_dst each, an IPv4 prefix) in one atomic burst: they
// merge into one node of a subtable that tests no ports, which is copied
// once for the run (pendingCopy), not once per entry; deleting them all
// in one burst removes the node without a copy (unlink takes the run).
// Lookups find each entry after the adds and none after the deletes.
func TestOneCopyPerRun(t *testing.T) {
	const k = 36
	p, err := New(&Config{})
	if err != nil {
		t.Fatal(err)
	}
	ups := make([]Update, k)
	for i := range ups {
		var m Match
		m.Set(FieldEthType, 0x0800, FieldEthType.FullMask())
		m.Set(FieldIPProto, 6, FieldIPProto.FullMask())
		m.Set(FieldIPv4Src, 0x0a010200, 0xffffff00)
		m.Set(FieldL4Dst, uint64(1000+i), FieldL4Dst.FullMask())
		ups[i] = Update{Command: CmdAdd, Priority: 9, Match: m, ID: i,
			Instructions: []Instruction{{Kind: InstApplyActions, Actions: []Action{{Kind: ActionOutput, Port: 1}}}}}
	}
	tbl := p.Table(0)
	c0 := tbl.copies
	mustApply(t, p, ups)
	if c := tbl.copies - c0; c > 1 {
		t.Errorf("%d entries into one node in one burst made %d node copies, want at most 1", k, c)
	}
	if tbl.nodes != 1 {
		t.Fatalf("%d index nodes, want the entries merged into 1", tbl.nodes)
	}
	for i := range ups {
		key := ups[i].Match.Key
		if r := tbl.Lookup(&key); r == nil || r.ID != i {
			t.Fatalf("entry %d: lookup found %v", i, r)
		}
	}
	for i := range ups {
		ups[i].Command = CmdDeleteStrict
	}
	c0 = tbl.copies
	mustApply(t, p, ups)
	for range 100 {
		if tbl.rules == 0 {
			break
		}
		time.Sleep(time.Millisecond)
		p.ApplyBurst(nil, true) // a cleanup after UnlinkAfter
	}
	if tbl.rules != 0 || tbl.nodes != 0 {
		t.Fatalf("after the deletes and cleanup: %d rules, %d nodes, want 0", tbl.rules, tbl.nodes)
	}
	if c := tbl.copies - c0; c != 0 {
		t.Errorf("deleting the %d entries of one node made %d node copies, want 0", k, c)
	}
	for i := range ups {
		key := ups[i].Match.Key
		if r := tbl.Lookup(&key); r != nil {
			t.Fatalf("entry %d: lookup found %v after the deletes", i, r)
		}
	}
}

// TestMaskChains checks Table.masks' chains of masks of one hash: maskOf
// walks a chain past masks that are not its own and dropMask unlinks a
// mask from the head, the middle or the end of one. No two masks found
// have one maskHash, so the chain is made by hand: b and c file under a's
// hash.
func TestMaskChains(t *testing.T) {
	p, err := New(&Config{NoPrereqs: true})
	if err != nil {
		t.Fatal(err)
	}
	tb := p.Table(0)
	var ma, mb, mc Key
	ma[0], mb[1], mc[2] = 1, 1, 1
	a := tb.maskFor(&ma)
	b := &maskInfo{mask: mb, hash: a.hash}
	c := &maskInfo{mask: mc, hash: a.hash}
	// The chain a's hash files: c, b, a.
	b.next, c.next = a, b
	tb.masks[a.hash] = c
	find := func(m *Key) *maskInfo {
		tb.lastMask = nil
		mi := tb.masks[a.hash]
		for ; mi != nil; mi = mi.next {
			if mi.mask == *m {
				return mi
			}
		}
		return nil
	}
	for _, mi := range []*maskInfo{a, b, c} {
		if got := find(&mi.mask); got != mi {
			t.Fatalf("mask %v: chain found %p, want %p", mi.mask[:3], got, mi)
		}
	}
	if got := tb.maskOf(&ma); got != a {
		t.Fatalf("maskOf(a) = %p, want %p (the end of its chain)", got, a)
	}
	if len(tb.masks) != 1 {
		t.Fatalf("%d chains, want 1", len(tb.masks))
	}
	tb.dropMask(b) // the middle
	if find(&mb) != nil || find(&ma) != a || find(&mc) != c || !b.gone || b.next != nil {
		t.Fatal("dropMask of the middle of a chain")
	}
	tb.dropMask(c) // the head
	if tb.masks[a.hash] != a || tb.maskOf(&ma) != a || !c.gone {
		t.Fatal("dropMask of the head of a chain")
	}
	tb.dropMask(a) // the last
	if len(tb.masks) != 0 || tb.maskOf(&ma) != nil {
		t.Fatalf("dropMask of a chain's last: %d chains left", len(tb.masks))
	}
}

// TestHostPairsMerge: rules of exact addresses that are not full 5-tuples
// (a host pair with ip_proto and one port, as ClassBench's sets have)
// merge into relaxed subtables, while full 5-tuples keep their exact
// subtable of one rule a node; strict adds, modifies and deletes find
// each rule wherever link put it, with a collision limit that sends some
// of the pairs to their own mask's subtable too.
func TestHostPairsMerge(t *testing.T) {
	for _, limit := range []int{0, 2} {
		p, err := New(&Config{Filter: FilterBloomCuckoo})
		if err != nil {
			t.Fatal(err)
		}
		if limit > 0 {
			p.tables[0].mergeLimit = limit
		}
		var icmp Match
		icmp.SetExact(FieldEthType, EthTypeIPv4)
		icmp.SetExact(FieldIPProto, IPProtoICMP)
		icmp.SetExact(FieldIPv4Src, 10<<24|1)
		icmp.SetExact(FieldIPv4Dst, 10<<24|2)
		icmp.SetExact(FieldICMPType, 8)
		icmp.SetExact(FieldICMPCode, 0)
		if relaxMask(&icmp.Mask, 0, false) != icmp.Mask {
			t.Fatal("an ICMP microflow's mask relaxed")
		}
		var arp Match
		arp.SetExact(FieldEthType, EthTypeARP)
		arp.SetExact(FieldARPSPA, 10<<24|1)
		arp.SetExact(FieldARPTPA, 10<<24|2)
		if relaxMask(&arp.Mask, 0, false) != arp.Mask {
			t.Fatal("an ARP host pair's mask relaxed")
		}
		// A source host and both ports: no microflow.
		half := icmp
		half.Set(FieldIPv4Dst, 0, 0)
		half.Set(FieldICMPType, 0, 0)
		half.Set(FieldICMPCode, 0, 0)
		half.SetExact(FieldIPProto, IPProtoTCP)
		half.SetExact(FieldL4Src, 1)
		half.SetExact(FieldL4Dst, 2)
		if relaxMask(&half.Mask, 0, false) == half.Mask {
			t.Fatal("the mask of a source host and both ports left as it is")
		}
		const n = 24
		flow := func(i int, full bool) Match {
			var m Match
			m.SetExact(FieldEthType, EthTypeIPv4)
			m.SetExact(FieldIPProto, IPProtoTCP)
			m.SetExact(FieldIPv4Src, uint64(10<<24|i))
			m.SetExact(FieldIPv4Dst, uint64(10<<24|1<<16|i%3))
			m.SetExact(FieldL4Dst, uint64(80+i%2))
			if full {
				m.SetExact(FieldL4Src, 1024)
			}
			return m
		}
		var adds []Update
		for i := range n {
			adds = append(adds,
				Update{Match: flow(i, false), Priority: uint16(100 + i), ID: i},
				Update{Match: flow(i, true), Priority: uint16(200 + i), ID: n + i})
		}
		// Pairs of another host mask (a source port, no destination
		// port) that relaxes into the same subtable: merged, the pairs
		// save a visit only where they share subtables (see rehome).
		const mates = 8
		for i := range mates {
			m := flow(i, false)
			m.Set(FieldL4Dst, 0, 0)
			m.SetExact(FieldL4Src, 7)
			m.SetExact(FieldIPv4Src, uint64(10<<24|2<<16|i<<4)) // a node of its own
			adds = append(adds, Update{Match: m, Priority: 90, ID: 2*n + i})
		}
		apply := func(ups []Update) {
			t.Helper()
			for i, err := range p.ApplyBurst(ups, true).Errs {
				if err != nil {
					t.Fatalf("limit %d: update %d: %v", limit, i, err)
				}
			}
		}
		apply(adds)
		tbl := p.Table(0)
		merged, own := 0, 0
		for i := range n {
			k := flow(i, true).Key
			r := tbl.Lookup(&k)
			if r == nil || r.Match != flow(i, true) {
				t.Fatalf("limit %d: 5-tuple %d: lookup found %v", limit, i, r)
			}
			if r.st.mask != r.Match.Mask || !r.exact {
				t.Fatalf("limit %d: 5-tuple %d merged", limit, i)
			}
			k.Set(FieldL4Src, 999)
			pr := tbl.Lookup(&k)
			if pr == nil || pr.Match != flow(i, false) {
				t.Fatalf("limit %d: pair %d: lookup found %v", limit, i, pr)
			}
			if pr.st.mask != pr.Match.Mask {
				merged++
			} else {
				own++
			}
		}
		if merged == 0 || limit > 0 && own == 0 {
			t.Fatalf("limit %d: %d pairs merged, %d in their own subtable", limit, merged, own)
		}
		// Adding every rule again replaces it in place.
		apply(adds)
		if f := tbl.Stats().Flows; f != 2*n+mates {
			t.Fatalf("limit %d: %d flows after adding all again, want %d", limit, f, 2*n+mates)
		}
		var mods, dels []Update
		meta7 := []Instruction{{Kind: InstWriteMetadata, Metadata: 7, MetadataMask: 0xff}}
		for i := range n {
			mods = append(mods, Update{Command: CmdModifyStrict, Match: flow(i, false), Priority: uint16(100 + i), Instructions: meta7})
			dels = append(dels, Update{Command: CmdDeleteStrict, Match: flow(i, false), Priority: uint16(100 + i)})
		}
		apply(mods)
		for i := range n {
			k := flow(i, false).Key
			k.Set(FieldL4Src, 999)
			if r := tbl.Lookup(&k); r == nil || len(r.Instructions) != 1 || r.Instructions[0].Metadata != 7 {
				t.Fatalf("limit %d: pair %d not modified: %v", limit, i, r)
			}
		}
		apply(dels)
		if f := tbl.Stats().Flows; f != n+mates {
			t.Fatalf("limit %d: %d flows after deleting the pairs, want %d", limit, f, n+mates)
		}
		for i := range n {
			k := flow(i, false).Key
			k.Set(FieldL4Src, 999)
			if r := tbl.Lookup(&k); r != nil {
				t.Fatalf("limit %d: pair %d deleted, lookup found %v", limit, i, r)
			}
		}
		t.Logf("limit %d: %d pairs merged, %d in their own subtable", limit, merged, own)
	}
}

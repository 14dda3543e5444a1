package rules

import (
	"testing"
	"time"
)

// hostRoute is ip,nw_dst=10.0.0.0+i.
func hostRoute(i int) Match {
	var m Match
	m.SetExact(FieldEthType, EthTypeIPv4)
	m.SetExact(FieldIPv4Dst, uint64(10<<24|i))
	return m
}

// tcpTo is a TCP packet from 172.16.0.1 to port 80 of 10.0.0.0+i.
func tcpTo(i int) Key {
	var k Key
	k.Set(FieldEthType, EthTypeIPv4)
	k.Set(FieldIPProto, IPProtoTCP)
	k.Set(FieldIPv4Src, 172<<24|16<<16|1)
	k.Set(FieldIPv4Dst, uint64(10<<24|i))
	k.Set(FieldL4Src, 40000)
	k.Set(FieldL4Dst, 80)
	return k
}

// TestHostRoutesStayExact: a host-route table (1,000 ip,nw_dst=10.0.x.y
// rules and a priority-0 match-all) keeps its host rules in their own
// subtable, one rule a node, whether loaded in one burst or one update a
// burst: the host mask is the table, and relaxing it would only add a
// node scan to every lookup. A lookup visits one subtable.
func TestHostRoutesStayExact(t *testing.T) {
	const n = 1000
	for _, perBurst := range []bool{false, true} {
		p, err := New(&Config{Filter: FilterBloomCuckoo})
		if err != nil {
			t.Fatal(err)
		}
		var ups []Update
		for i := range n {
			ups = append(ups, Update{Match: hostRoute(i), Priority: 100, ID: i})
		}
		ups = append(ups, Update{Priority: 0, ID: n})
		applyAll(t, p, ups, perBurst)
		tbl := p.Table(0)
		m0 := hostRoute(0)
		mi := tbl.maskOf(&m0.Mask)
		if mi == nil || !mi.host || mi.merged || len(mi.subs) != 0 {
			t.Fatalf("per burst %v: host mask %+v", perBurst, mi)
		}
		if s := tbl.Stats().Subtables; s != 2 {
			t.Fatalf("per burst %v: %d subtables, want 2", perBurst, s)
		}
		var c Counters
		for i := range n {
			k := tcpTo(i)
			before := c.Visited
			r, _ := tbl.LookupVersion(&k, &c)
			if r == nil || r.ID != i {
				t.Fatalf("per burst %v: host %d: found %v", perBurst, i, r)
			}
			if !r.exact || r.st != mi.own {
				t.Fatalf("per burst %v: host %d not in its own subtable (exact %v)", perBurst, i, r.exact)
			}
			if v := c.Visited - before; v != 1 {
				t.Fatalf("per burst %v: host %d: %d subtables visited, want 1", perBurst, i, v)
			}
		}
	}
}

// TestHostRoutesWithNetsStayExact: 1,000 host routes beside 1,500 or
// 4,000 /24 routes of other addresses (ip,nw_dst=10.16.j.0/24) and a
// match-all, loaded in one burst (hosts first or last) or one update a
// burst: the hosts are under half the table, but merged they would sit
// in a relaxed subtable of their own, which every lookup reaching them
// still visits, and scan their neighbours on every hit. They stay in
// their own subtable, one rule a node; a lookup to a host visits one
// subtable, and one to a /24 finds its route.
func TestHostRoutesWithNetsStayExact(t *testing.T) {
	const n = 1000
	net := func(j int) Match {
		var m Match
		m.SetExact(FieldEthType, EthTypeIPv4)
		m.SetPrefix(FieldIPv4Dst, uint64(10<<24|16<<16|j<<8), 24)
		return m
	}
	for _, nets := range []int{1500, 4000} {
		for _, load := range []string{"hosts first", "nets first", "per burst"} {
			p, err := New(&Config{Filter: FilterBloomCuckoo})
			if err != nil {
				t.Fatal(err)
			}
			var hs, ns []Update
			for i := range n {
				hs = append(hs, Update{Match: hostRoute(i), Priority: 100, ID: i})
			}
			for j := range nets {
				ns = append(ns, Update{Match: net(j), Priority: 50, ID: n + j})
			}
			ups := append(append([]Update{}, hs...), ns...)
			if load == "nets first" {
				ups = append(append([]Update{}, ns...), hs...)
			}
			ups = append(ups, Update{Priority: 0, ID: n + nets})
			applyAll(t, p, ups, load == "per burst")
			tbl := p.Table(0)
			m0 := hostRoute(0)
			mi := tbl.maskOf(&m0.Mask)
			if mi == nil || !mi.host || mi.merged || len(mi.subs) != 0 {
				t.Fatalf("%d nets, %s: host mask %+v", nets, load, mi)
			}
			var c Counters
			for i := range n {
				k := tcpTo(i)
				before := c.Visited
				r, _ := tbl.LookupVersion(&k, &c)
				if r == nil || r.ID != i {
					t.Fatalf("%d nets, %s: host %d: found %v", nets, load, i, r)
				}
				if !r.exact || r.st != mi.own {
					t.Fatalf("%d nets, %s: host %d not in its own subtable (exact %v)", nets, load, i, r.exact)
				}
				if v := c.Visited - before; v != 1 {
					t.Fatalf("%d nets, %s: host %d: %d subtables visited, want 1", nets, load, i, v)
				}
			}
			for j := 0; j < nets; j += 7 {
				k := tcpTo(0)
				k.Set(FieldIPv4Dst, uint64(10<<24|16<<16|j<<8|j%256))
				if r, _ := tbl.LookupVersion(&k, &c); r == nil || r.ID != n+j {
					t.Fatalf("%d nets, %s: net %d: found %v", nets, load, j, r)
				}
			}
		}
	}
}

// TestHomeFlips: a host mask moves to merged subtables when other rules
// come to outnumber it, and back home when they go, each time at the end
// of the burst, without a Change or FlowRemoved of its own, with its
// counters, flow count and timeouts as they were; strict modifies and
// deletes find its rules wherever they are.
func TestHomeFlips(t *testing.T) {
	now := time.Unix(1000, 0)
	p, err := New(&Config{Filter: FilterBloomCuckoo, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	p.Watch(true)
	tbl := p.Table(0)
	const hosts, others = 100, 300
	// Every fourth other rule is of a host mask (TCP to port 80 of a
	// host) that relaxes into the subtable the hosts merge into: merged,
	// the hosts share it and save a visit (see rehome).
	other := func(i int) Match {
		var m Match
		m.SetExact(FieldEthType, EthTypeIPv4)
		if i%4 == 3 {
			m.SetExact(FieldIPProto, IPProtoTCP)
			m.SetExact(FieldIPv4Dst, uint64(10<<24|1<<16|i))
			m.SetExact(FieldL4Dst, 80)
			return m
		}
		m.SetPrefix(FieldIPv4Src, uint64(20<<24|i<<8), 24)
		return m
	}
	apply := func(ups []Update) BurstResult {
		t.Helper()
		res := p.ApplyBurst(ups, true)
		for i, err := range res.Errs {
			if err != nil {
				t.Fatalf("update %d: %v", i, err)
			}
		}
		for _, fr := range res.Removed {
			if fr.Rule.ID != 2 {
				t.Fatalf("flow removed record of rule %d", fr.Rule.ID)
			}
		}
		for _, c := range res.Changes {
			if c.Update < 0 || c.Update >= len(ups) || c.Rule.Match.Mask != ups[c.Update].Match.Mask {
				t.Fatalf("a change not of an update: %+v", c)
			}
		}
		return res
	}
	var ups []Update
	for i := range hosts {
		u := Update{Match: hostRoute(i), Priority: 100, ID: i, Flags: FlagSendFlowRem}
		if i == 3 {
			u.IdleTimeout = 10
		}
		ups = append(ups, u)
	}
	apply(ups)
	m0 := hostRoute(0)
	hit := false
	home := func(want bool, flows int) {
		t.Helper()
		mi := tbl.maskOf(&m0.Mask)
		if mi == nil || mi.merged != want {
			t.Fatalf("host mask %+v, want merged %v", mi, want)
		}
		if f := tbl.Stats().Flows; f != flows {
			t.Fatalf("%d flows, want %d", f, flows)
		}
		for i := range hosts {
			if i == 2 {
				continue // deleted below
			}
			k := tcpTo(i)
			r := tbl.Lookup(&k)
			if r == nil || r.ID != i {
				t.Fatalf("host %d: found %v", i, r)
			}
			if own := r.st == mi.own && r.exact; own == want {
				t.Fatalf("host %d: in its own subtable %v, want merged %v", i, own, want)
			}
			if i == 0 && hit && r.Packets() != 5 {
				t.Fatalf("host 0: %d packets, want 5", r.Packets())
			}
			if i == 1 && hit && len(r.Instructions) != 1 {
				t.Fatalf("host 1: instructions %v", r.Instructions)
			}
		}
		if !want && len(mi.subs) != 0 {
			t.Fatalf("back home with %d merged subtables listed", len(mi.subs))
		}
	}
	home(false, hosts)
	k0 := tcpTo(0)
	for r := tbl.Lookup(&k0); r.Packets() < 5; {
		r.Hit(64)
	}
	hit = true
	p.Expire() // lastActive of host 0
	meta := []Instruction{{Kind: InstWriteMetadata, Metadata: 7, MetadataMask: 0xff}}
	apply([]Update{{Command: CmdModifyStrict, Match: hostRoute(1), Priority: 100, Instructions: meta}})
	var adds, dels []Update
	for i := range others {
		adds = append(adds, Update{Match: other(i), Priority: 50, ID: 1000 + i})
		dels = append(dels, Update{Command: CmdDeleteStrict, Match: other(i), Priority: 50})
	}
	now = now.Add(4 * time.Second)
	if res := apply(adds); len(res.Changes) != others {
		t.Fatalf("%d changes for %d adds", len(res.Changes), others)
	}
	home(true, hosts+others)
	// Strict delete finds a merged host rule.
	if res := apply([]Update{{Command: CmdDeleteStrict, Match: hostRoute(2), Priority: 100}}); len(res.Changes) != 1 {
		t.Fatalf("delete of host 2: %d changes", len(res.Changes))
	}
	now = now.Add(4 * time.Second)
	if res := apply(dels); len(res.Changes) != others {
		t.Fatalf("%d changes for %d deletes", len(res.Changes), others)
	}
	home(false, hosts-1)
	apply(adds)
	home(true, hosts-1+others)
	// Host 3 idled since the start: its timeout is not reset by moves.
	now = now.Add(3 * time.Second)
	rem := p.Expire()
	if len(rem) != 1 || rem[0].Rule.ID != 3 || rem[0].Reason != RemovedIdleTimeout {
		t.Fatalf("expired %+v, want host 3 by idle timeout", rem)
	}
}

// TestHostMasksDropped: a host mask whose rule is added and deleted over
// and over, staying in its own subtable, leaves no trail of dropped
// maskInfos behind.
func TestHostMasksDropped(t *testing.T) {
	p, err := New(&Config{Filter: FilterBloomCuckoo, UnlinkAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		p.ApplyBurst([]Update{{Match: hostRoute(i % 3), Priority: 100}}, true)
		p.ApplyBurst([]Update{{Command: CmdDeleteStrict, Match: hostRoute(i % 3), Priority: 100}}, true)
		p.Rebalance(0)
	}
	if n := len(p.Table(0).hostMasks); n > 1 {
		t.Fatalf("%d host masks listed, want 1 at most", n)
	}
}

// TestHostPairsFirst: ClassBench's order, host pairs first and then the
// prefix rules in one burst. The pairs start in their own subtable and
// move to merged subtables at the end of the burst, before it is
// published: their own subtable is gone at once. Strict adds, modifies
// and deletes then find each pair where it went.
func TestHostPairsFirst(t *testing.T) {
	const pairs, prefixes = 200, 2000
	pair := func(i int) Match {
		var m Match
		m.SetExact(FieldEthType, EthTypeIPv4)
		m.SetExact(FieldIPProto, IPProtoTCP)
		m.SetExact(FieldIPv4Src, uint64(10<<24|i*13))
		m.SetExact(FieldIPv4Dst, uint64(11<<24|i*7))
		m.SetExact(FieldL4Dst, 80)
		return m
	}
	// Pairs of another host mask (a source port instead) that relaxes
	// into the pairs' subtable: merged, the pairs share it (see rehome).
	const mates = 50
	mate := func(i int) Match {
		m := pair(i)
		m.Set(FieldL4Dst, 0, 0)
		m.SetExact(FieldL4Src, 80)
		m.Set(FieldIPv4Src, uint64(12<<24|i), 1<<32-1)
		return m
	}
	key := func(i int) Key {
		k := pair(i).Key
		k.Set(FieldL4Src, 5555)
		return k
	}
	p, err := New(&Config{Filter: FilterBloomCuckoo})
	if err != nil {
		t.Fatal(err)
	}
	var ups []Update
	for i := range pairs {
		ups = append(ups, Update{Match: pair(i), Priority: 1000, ID: i})
	}
	for i := range mates {
		ups = append(ups, Update{Match: mate(i), Priority: 1000, ID: pairs + prefixes + i})
	}
	for i := range prefixes {
		var m Match
		m.SetExact(FieldEthType, EthTypeIPv4)
		m.SetPrefix(FieldIPv4Src, uint64(20<<24|i<<8), 16+i%9)
		m.SetPrefix(FieldIPv4Dst, uint64(30<<24|i<<8), 16+i%7)
		ups = append(ups, Update{Match: m, Priority: 500, ID: pairs + i})
	}
	apply := func(ups []Update) {
		t.Helper()
		mustApply(t, p, ups)
	}
	apply(ups)
	tbl := p.Table(0)
	m0 := pair(0)
	mi := tbl.maskOf(&m0.Mask)
	if mi == nil || !mi.merged || mi.own != nil {
		t.Fatalf("pairs' mask %+v: want merged, own subtable gone", mi)
	}
	check := func(what string, gone func(int) bool, meta uint64) {
		t.Helper()
		for i := range pairs {
			k := key(i)
			r := tbl.Lookup(&k)
			if gone(i) {
				if r != nil {
					t.Fatalf("%s: pair %d deleted, found %v", what, i, r)
				}
				continue
			}
			if r == nil || r.ID != i || r.exact {
				t.Fatalf("%s: pair %d: found %v", what, i, r)
			}
			if meta != 0 && (len(r.Instructions) != 1 || r.Instructions[0].Metadata != meta) {
				t.Fatalf("%s: pair %d: instructions %v", what, i, r.Instructions)
			}
		}
	}
	none := func(int) bool { return false }
	check("loaded", none, 0)
	flows := tbl.Stats().Flows // some prefix rules are the same
	apply(ups[:pairs])         // strict adds replace
	if f := tbl.Stats().Flows; f != flows {
		t.Fatalf("%d flows after adding the pairs again, want %d", f, flows)
	}
	check("added again", none, 0)
	var mods, dels []Update
	meta := []Instruction{{Kind: InstWriteMetadata, Metadata: 9, MetadataMask: 0xff}}
	for i := range pairs {
		mods = append(mods, Update{Command: CmdModifyStrict, Match: pair(i), Priority: 1000, Instructions: meta})
		if i%2 == 0 {
			dels = append(dels, Update{Command: CmdDeleteStrict, Match: pair(i), Priority: 1000})
		}
	}
	apply(mods)
	check("modified", none, 9)
	apply(dels)
	check("half deleted", func(i int) bool { return i%2 == 0 }, 9)
	if f := tbl.Stats().Flows; f != flows-pairs/2 {
		t.Fatalf("%d flows after deleting half the pairs, want %d", f, flows-pairs/2)
	}
}

// applyAll applies ups in one burst, or one update a burst if each.
func applyAll(t *testing.T, p *Pipeline, ups []Update, each bool) {
	t.Helper()
	if !each {
		mustApply(t, p, ups)
		return
	}
	for i := range ups {
		mustApply(t, p, ups[i:i+1])
	}
}

package rules

// A host mask (hostMask: an exact flow that tests an IPv4 or ARP address
// and is no microflow, such as ip,nw_dst=10.0.0.1 or ClassBench's rules of
// exact address pairs with a protocol and one port) has its host rules
// (those without port ranges) in one home: its own subtable, one rule a node and no check, or merged
// subtables (mergeTarget), where they share nodes with their neighbours
// and a lookup that reaches them scans the node. Which pays depends on
// the mask's share of the table, not its shape. Its own subtable costs
// every lookup that reaches it a hash and a filter check; merged, it
// costs only the lookups that hit its rules a node scan. Where the mask
// is a minority whose rules rank first (ClassBench's host pairs: 12% of
// fw1_10k, visited by nearly every lookup, the answer of 0.3%), merging
// saves a visit a lookup; where the mask is the table (a host-route
// table), its subtable decides every lookup anyway and merging only adds
// the scan.
//
// So a host mask starts in its own subtable; rehome, at the end of a
// burst, moves it to merged when its live host rules (maskInfo.n) are at
// most half the table's flows and its rules would share a subtable with
// other masks' (a merged subtable of its own rules only is still a visit,
// and adds a scan to its hits), and back to own when they are more than
// three quarters (its subtable then decides most lookups) or share none:
// the gap keeps a mask from flipping back and forth on a few updates. A mask is
// re-decided when its n doubled or halved since its last decision
// (countHost puts it on the dirty list), and every host mask is when the
// table's flows doubled or halved.

// countHost adds d to mi's count of live host rules and puts mi on t's
// dirty list when the count doubled or halved since its home was decided.
func (t *Table) countHost(mi *maskInfo, d int) {
	mi.n += d
	if !mi.dirty && (mi.n >= 2*mi.evalN || 2*mi.n <= mi.evalN) {
		mi.dirty = true
		t.dirty = append(t.dirty, mi)
	}
}

// rehome decides the homes of the host masks of p's tables whose share
// may have changed and moves the host rules of those whose home changed,
// in the version being built. It returns the rules moved, and the first
// error of their insertion (a filter that could not grow, as an add's).
func (p *Pipeline) rehome(now *clock) (int, error) {
	if p.cfg.NoMerge {
		return 0, nil
	}
	moved := 0
	var err error
	for _, t := range p.tables {
		if len(t.hostMasks) > 0 {
			m, e := t.rehome(now)
			moved += m
			if err == nil {
				err = e
			}
		}
		t.grownFrom = 0
	}
	return moved, err
}

// rehome is Pipeline.rehome for t.
func (t *Table) rehome(now *clock) (int, error) {
	n := t.flows
	cands := t.dirty
	all := n >= 2*t.evalFlows || 2*n <= t.evalFlows
	if all {
		t.evalFlows = n
		// A copy: a move may drop a host mask (one whose subtable took
		// the moved rules only), and dropMask edits hostMasks.
		cands = append(t.evalBuf[:0], t.hostMasks...)
		t.evalBuf = cands
	}
	moved := 0
	var err error
	mv := func(mi *maskInfo, merged bool) {
		m, e := t.move(mi, merged, now)
		moved += m
		if err == nil {
			err = e
		}
	}
	check, joins := t.checkBuf[:0], t.joinBuf[:0]
	for _, mi := range cands {
		if mi.gone {
			continue
		}
		mi.evalN = mi.n
		want := mi.merged
		if !mi.merged && mi.n > 0 && 2*mi.n <= n {
			want = true
		} else if mi.merged && 4*mi.n > 3*n {
			want = false
		}
		switch {
		case want && !mi.merged:
			joins = append(joins, mi)
		case want:
			check = append(check, mi)
		case mi.merged:
			mv(mi, false)
		}
	}
	// Merged, a mask saves a visit only where its rules share subtables
	// with other masks' (several host masks relaxed into one subtable,
	// as ClassBench's, or prefix rules'): a mask whose merged subtables
	// hold its own rules only (hosts beside /24 routes of other
	// addresses) is still one subtable every lookup reaching it visits,
	// and its hits scan a node of neighbours. A mask joins merged
	// subtables only where it would share the one its rules try first
	// (see mergeTarget: its relaxed mask's), which already holds rules
	// or which another joining mask relaxes to; a group-by of the
	// joining masks by relaxed mask. Then every mask that is merged and
	// was decided now goes back home if its subtables hold no rule of
	// another mask after all (its rules went elsewhere, or its partners'
	// did); the check follows all of the burst's moves, so that masks
	// merged together see each other, and a mask alone in its subtables
	// leaving them makes no other mask alone.
	if len(joins) > 0 {
		cnt := t.joinCount
		if cnt == nil {
			cnt = make(map[Key]int32)
			t.joinCount = cnt
		}
		for _, mi := range joins {
			cnt[relaxMask(&mi.mask, 0, false)]++
		}
		for _, mi := range joins {
			cm := relaxMask(&mi.mask, 0, false)
			if st := t.subs[cm]; cnt[cm] > 1 || st != nil && !st.dead && st.n > 0 {
				mv(mi, true)
				check = append(check, mi)
			}
		}
		clear(cnt)
	}
	if len(check) > 0 {
		t.p.flushPending() // nodes as linked
	}
	for _, mi := range check {
		if !mi.gone && mi.merged && t.mergedAlone(mi) {
			mv(mi, false)
		}
	}
	clear(joins)
	t.joinBuf = joins[:0]
	clear(check)
	t.checkBuf = check[:0]
	// The nodes the moves left took filter slots: they may have made the
	// burst grow the filter, which the set without them does not need
	// (ClassBench's host pairs, loaded first in their own subtables, one
	// node a rule), or pushed the burst's keys into its Bloom part (a
	// lookup's false positive there costs a probe). The filter goes back
	// to the smallest size since the burst began that holds the nodes at
	// Config.MaxOccupancy, or its Bloom part back to cuckoo slots.
	if f := t.state.Load().filter; f != nil && moved > 0 {
		nb := t.grownFrom
		for nb > 0 && nb < f.Buckets() && f.Occupancy()*float64(f.Buckets())/float64(nb) > t.p.cfg.MaxOccupancy {
			nb *= 2
		}
		if nb > 0 && nb < f.Buckets() {
			if e := t.rebuildFilter(nb); e != nil && err == nil {
				err = e
			}
		} else {
			f.Rebalance(moved)
		}
	}
	// The moves counted each rule out and in again: whatever they put on
	// the list was decided just now.
	for _, mi := range t.dirty {
		mi.dirty = false
	}
	clear(t.dirty)
	t.dirty = t.dirty[:0]
	if all {
		// Only a call that evaluated every host mask filled evalBuf:
		// clearing it in the others cost a pass over a table's worth
		// of host masks per burst.
		clear(t.evalBuf)
		t.evalBuf = t.evalBuf[:0]
	}
	return moved, err
}

// move gives mi's host rules the home merged says and returns how many
// it moved, with the first error of their insertion. A move is a MODIFY without new instructions: the rule's
// successor (same flow, sequence, counters and timeouts) replaces it in
// the version being built, without FlowRemoved record or Change, and
// link puts it by its mask's new home. Lookups see the rule in its old
// place before that version and in its new one from it, never both. The
// rules go best first, TupleMerge's first fit in priority order.
func (t *Table) move(mi *maskInfo, merged bool, now *clock) (int, error) {
	p := t.p
	p.flushPending()
	rs := t.moveBuf[:0]
	collect := func(st *subtable) (rangedLeft bool) {
		for _, n := range st.nodes {
			all := n.all()
			for i := range all {
				r := all[i].r
				if r.Match.Mask != mi.mask || !p.live(r) {
					continue
				}
				if r.Ranges.IsZero() { // a host rule
					rs = append(rs, r)
				} else {
					rangedLeft = true
				}
			}
		}
		return rangedLeft
	}
	if merged {
		if mi.own != nil {
			collect(mi.own)
		}
	} else {
		// Back home, mi.subs keeps the subtables that hold ranged rules
		// of the mask: identical no longer probes the others.
		kept := mi.subs[:0]
		for _, st := range mi.subs {
			if !st.dead && collect(st) {
				kept = append(kept, st)
			}
		}
		clear(mi.subs[len(kept):])
		mi.subs = kept
	}
	mi.merged = merged
	sortRules(rs)
	var err error
	d0 := len(p.dead)
	t.moving = merged
	for _, r := range rs {
		r2 := p.successor(r, r.Instructions, false)
		p.remove(r, RemovedDelete, now, nil)
		if e := p.insert(t, r2, nil); e != nil && err == nil {
			err = e
		}
	}
	t.moving = false
	// A rule moved in the version that added it (a host mask's rules
	// moved at the end of the burst that loaded them) is visible at no
	// version: it leaves its old place now, not after Config.UnlinkAfter,
	// so that a table loaded in one burst does not keep the subtables
	// it left in the order its first lookups read. No lookup misses it,
	// so none needs to retry (p.unlinked stays).
	p.flushPending()
	kept := d0
	for i := d0; i < len(p.dead); i++ {
		if r := p.dead[i].r; r.added == r.removed.Load() {
			t.unlink(p.dead[i : i+1])
			continue
		}
		p.dead[kept] = p.dead[i]
		kept++
	}
	clear(p.dead[kept:])
	p.dead = p.dead[:kept]
	clear(rs)
	t.moveBuf = rs[:0]
	return len(rs), err
}

// mergedAlone says whether no live subtable of mi.subs holds a live rule
// of another mask than mi's. It stops at the first such rule: a mask
// that shares its subtables costs a few entries, one that does not its
// own rules there.
func (t *Table) mergedAlone(mi *maskInfo) bool {
	for _, st := range mi.subs {
		if st.dead {
			continue
		}
		for _, nd := range st.nodes {
			all := nd.all()
			for i := range all {
				if r := all[i].r; r.Match.Mask != mi.mask && t.p.live(r) {
					return false
				}
			}
		}
	}
	return true
}

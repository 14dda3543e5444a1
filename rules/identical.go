package rules

// Finding the rule an update names: the live rule of exactly its match,
// ranges and priority, in every subtable link could have put it in.

// probe finds the node of (st, key), key masked by st's mask, and fills
// in hint with st, the hash, the packed key (its first st.nw words: the
// rest are left as they were, and nothing reads them) and the slot and
// node (nil and nil when there is none). hint.mi is left alone. The
// packed key is written in place: a [KeyWords]uint64 returned by value
// costs a zeroing and a copy of 288 bytes per probe.
func (t *Table) probe(st *subtable, key *Key, hint *nodeHint) {
	hint.st = st
	hint.h = st.hash(key)
	st.packInto(key, &hint.pk)
	hint.sl, hint.n = t.state.Load().findPacked(hint.h, st, &hint.pk)
}

// identical returns the live rule with exactly this match, ranges and
// priority. It
// looks in the subtables link could have put such a rule in: those of the
// relaxed masks, then the mask's own. If hint is not nil, it fills it in
// with the mask's maskInfo and what it found in the mask's own subtable.
// pre, if not nil, is what prefetch found for the update.
func (t *Table) identical(m *Match, rg Ranges, pri uint16, p *Pipeline, hint *nodeHint, pre *prepared) *Rule {
	var mi *maskInfo
	if pre != nil && pre.mi != nil && !pre.mi.gone {
		mi = pre.mi
	} else {
		mi = t.maskOf(&m.Mask)
	}
	if hint != nil {
		hint.mi, hint.st = mi, nil
	}
	if mi == nil {
		return nil // no subtable holds a rule of the mask
	}
	own := mi.own
	// mi.subs lists the merged subtables that took rules of the mask:
	// its ranged rules, and its host rules while or since their home was
	// merged (see rehome). A rule is in one place; the first live match
	// is it.
	if len(mi.subs) > 0 && (!rg.IsZero() || !mi.stay[0]) {
		for _, st := range mi.subs {
			if st.dead {
				continue
			}
			if r := t.identicalIn(st, m, rg, pri, p, nil, nil); r != nil {
				return r
			}
		}
	}
	return t.identicalIn(own, m, rg, pri, p, hint, pre)
}

// nodeHint is the node of a match's key in a subtable as identical (or
// hasRoom) found it (nil if there was none), so that link, which looks for
// the same node when the rule goes to that subtable, need not hash and
// probe again. It stays true until the index changes, and identical,
// hasRoom and link run back to back. pk holds the packed key's first
// st.nw words only.
type nodeHint struct {
	mi *maskInfo // the match's mask's, if it had one
	st *subtable // nil: no hint
	h  uint64
	pk [KeyWords]uint64
	sl *slot
	n  *inode
}

func (t *Table) identicalIn(st *subtable, m *Match, rg Ranges, pri uint16, p *Pipeline, hint *nodeHint, pre *prepared) *Rule {
	if st == nil {
		return nil
	}
	if hint == nil {
		hint = &t.scratch
	}
	if pre != nil && pre.st == st {
		hint.st, hint.h = st, pre.h
		st.packInto(&m.Key, &hint.pk)
		hint.sl, hint.n = t.state.Load().findPacked(hint.h, st, &hint.pk)
	} else {
		t.probe(st, &m.Key, hint)
	}
	n := hint.n
	if n == nil {
		return nil
	}
	if n == t.pend.old {
		for _, r := range t.pend.rs {
			if r.Priority == pri && r.Match == *m && r.Ranges == rg && p.live(r) {
				return r
			}
		}
		return nil
	}
	// An entry's rank holds its rule's priority (makeRank), and its
	// removal version its rule's: only the rule of the priority sought
	// and not removed is loaded and compared. The ranked entries are
	// rank descending: a binary search finds the first of the priority
	// or below (a merged node has tens of entries, and an add's priority
	// is mostly new to it), and the scan ends at the first below; the
	// tail's are in no order.
	all := n.all()
	ents := n.ents
	bound := (uint64(pri) + 1) << rankSeqBits // the least rank above pri's
	lo, hi := 0, len(ents)
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); ents[mid].rank >= bound {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < len(ents); i++ {
		e := &ents[i]
		if uint16(e.rank>>rankSeqBits) != pri {
			break
		}
		if e.removed.Load() != never {
			continue
		}
		if r := e.r; r.Match == *m && r.Ranges == rg {
			return r
		}
	}
	for i := len(n.ents); i < len(all); i++ {
		e := &all[i]
		if uint16(e.rank>>rankSeqBits) != pri || e.removed.Load() != never {
			continue
		}
		if r := e.r; r.Match == *m && r.Ranges == rg {
			return r
		}
	}
	return nil
}

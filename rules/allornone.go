package rules

import "errors"

// ApplyAllTo applies ups in order as one atomic burst that takes effect
// whole or not at all (an OpenFlow atomic bundle, OpenFlow 1.4.1 §7.3.9):
// if an update fails, every change the burst made is undone before
// anything is published, and it returns the index of the first update
// that failed (res.Errs holds its error; the other entries are nil, and
// res.Removed is empty). Otherwise it calls before, if not nil, just
// before the burst is published, and returns -1: before lets the caller
// publish what the new rules rely on (the groups and meters they name)
// after every check passed and before a lookup can meet them. If before
// returns an error, the burst is undone all the same and ApplyAllTo
// returns len(ups): so a caller that found a message after ups to be bad
// learns whether an update of ups fails first.
//
// The burst costs what ApplyBurstTo's atomic burst costs: the check for a
// failure is one pass over res.Errs after the last update, and the undo
// work is paid by a failed burst only. That undo removes the rules the
// burst inserted (a walk of the tables) and puts back, as copies that
// keep their counters, sequence and timeouts, the rules it removed; the
// copies are what lookups see from the next version on, exactly the
// rules they saw before. Two failures cannot be undone and are reported
// as ApplyBurstTo reports them, after publication: a table whose filter
// could not grow (every update then carries the error) and, in the undo
// itself, a copy whose insertion finds no room (joined to the failed
// update's error).
func (p *Pipeline) ApplyAllTo(res *BurstResult, ups []Update, costs []UpdateCost, before func() error) (failed int) {
	if before == nil {
		before = func() error { return nil }
	}
	p.allOrNone = before
	p.failedAt = -1
	p.ndead = len(p.dead)
	defer func() { p.allOrNone = nil }()
	p.ApplyBurstTo(res, ups, true, costs)
	return p.failedAt
}

// allOrNoneEnd ends an ApplyAllTo burst before its publication: it
// undoes the burst if an update failed, and calls the hook otherwise.
func (p *Pipeline) allOrNoneEnd(res *BurstResult) {
	for i, err := range res.Errs {
		if err != nil {
			p.failedAt = i
			break
		}
	}
	if p.failedAt < 0 {
		if p.allOrNone() == nil {
			return
		}
		p.failedAt = len(res.Errs)
	}
	// Later updates ran after the failure; their errors are not the
	// bundle's.
	clear(res.Errs[min(p.failedAt+1, len(res.Errs)):])
	clear(res.Removed)
	res.Removed = res.Removed[:0]
	clear(res.Changes)
	res.Changes = res.Changes[:0]
	if err := p.undo(p.ndead); err != nil && p.failedAt < len(res.Errs) {
		res.Errs[p.failedAt] = errors.Join(res.Errs[p.failedAt], err)
	}
}

// undo takes back the changes of the burst being applied, not yet
// published: the rules it inserted are removed (they become visible at no
// version: added and removed are both the next one), and the rules it
// removed, p.dead[ndead:], come back as copies visible from the next
// version, as modify puts a rule's new version in place.
func (p *Pipeline) undo(ndead int) error {
	now := &clock{p: p}
	var fresh []*Rule
	for _, t := range p.tables {
		t.each(func(r *Rule) bool {
			if r.added == p.next && p.live(r) {
				fresh = append(fresh, r)
			}
			return true
		})
	}
	for _, r := range fresh {
		p.remove(r, RemovedDelete, now, nil)
	}
	// The rules the burst removed that were there before it, in the order
	// they went (a rule the burst inserted and removed stays gone). The
	// rules the burst inserted give up the counters they took over from
	// their predecessors (see successor): the copies of those take them
	// back.
	gone := p.dead[ndead:]
	back := make([]*Rule, 0, len(gone))
	for _, d := range gone {
		if d.r.added != p.next {
			back = append(back, d.r)
		} else {
			d.r.shared = false
		}
	}
	var errs []error
	for _, old := range back {
		r := p.successor(old, old.Instructions, false)
		if err := p.insert(p.tables[old.table], r, nil); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

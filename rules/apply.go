package rules

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/prefetch"
)

// ApplyBurstTo applies ups in order with FLOW_MOD semantics into res and
// sets res.Errs[i] to update i's error (an *Error carrying the OpenFlow
// type and code), nil where it succeeded. With atomic set, the whole burst
// becomes visible to lookups at once, by one atomic store; otherwise each
// update is published as soon as it is applied. Either way no lookup ever
// sees part of one update.
//
// res is the caller's, kept from burst to burst: res.Errs is reused when it
// has room for len(ups) and res.Removed is emptied, so that a caller that
// applies burst after burst allocates nothing for their results. If costs
// is not nil, ApplyBurstTo also records what each update cost in costs[i],
// which must be at least len(ups) long; it then reads the clock once per
// update.
func (p *Pipeline) ApplyBurstTo(res *BurstResult, ups []Update, atomic bool, costs []UpdateCost) {
	if costs != nil && len(costs) < len(ups) {
		panic(fmt.Sprintf("rules: ApplyBurstTo with %d costs for %d updates", len(costs), len(ups)))
	}
	if cap(res.Errs) >= len(ups) {
		res.Errs = res.Errs[:len(ups)]
		clear(res.Errs)
	} else {
		res.Errs = make([]error, len(ups))
	}
	clear(res.Removed)
	res.Removed = res.Removed[:0]
	clear(res.Changes)
	res.Changes = res.Changes[:0]
	if costs != nil {
		costs = costs[:len(ups)]
	}
	p.applyBurst(res, ups, atomic, costs)
}

// ApplyBurst is ApplyBurstTo with a result of its own and no costs, for a
// caller that applies a burst now and then.
func (p *Pipeline) ApplyBurst(ups []Update, atomic bool) BurstResult {
	res := BurstResult{Errs: make([]error, len(ups))}
	p.applyBurst(&res, ups, atomic, nil)
	return res
}

// applyBurst applies ups into res, whose Errs has room for them.
func (p *Pipeline) applyBurst(res *BurstResult, ups []Update, atomic bool, costs []UpdateCost) {
	now := clock{p: p}
	// Each update reads only the monotonic clock (time.Since of a time
	// with a monotonic reading), not the wall clock too, as time.Now does.
	var (
		base time.Time
		last time.Duration
	)
	if costs != nil {
		base = time.Now()
	}
	if len(ups) > 0 {
		p.prefetch(&ups[0])
	}
	p.tails = len(ups) <= tailBurst
	p.recording = p.watch
	for i := range ups {
		p.cur = i
		// What prefetch found for this update, while the one before
		// was applied, is pre[0]; the next update's goes to pre[1].
		p.pre[0], p.pre[1] = p.pre[1], prepared{}
		if i+2 < len(ups) {
			// The update after next, 11 cache lines (its Match is 576
			// bytes): prefetch below reads its mask, and an add then
			// reads all of its match, while the next one is applied.
			prefetchAll(unsafe.Pointer(&ups[i+2]), unsafe.Sizeof(ups[i+2]))
		}
		if i+1 < len(ups) {
			p.prefetch(&ups[i+1])
		}
		iters := p.iters
		res.Errs[i] = p.apply(&ups[i], &now, &res.Removed)
		if !atomic {
			p.publish()
		}
		if costs != nil {
			t := time.Since(base)
			costs[i] = UpdateCost{Time: t - last, Iterations: p.iters - iters}
			last = t
		}
	}
	p.pre = [2]prepared{} // the caller may reuse ups: no stale pointer
	p.flushPending()
	if p.recording {
		// Handed over by copy: a pointer to res kept in p would make
		// every caller's result escape to the heap.
		p.recording = false // undo below records nothing: allOrNoneEnd drops the changes
		res.Changes = append(res.Changes, p.changes...)
		clear(p.changes)
		p.changes = p.changes[:0]
	}
	if p.allOrNone != nil {
		p.allOrNoneEnd(res)
	}
	// Host masks change home only here, once the burst is whole: a
	// bundle's undo never meets a moved rule.
	moved, err := p.rehome(&now)
	if err != nil {
		for i := range res.Errs {
			if res.Errs[i] == nil {
				res.Errs[i] = err
			}
		}
	}
	if moved > 0 && !atomic {
		p.publish()
	}
	if !p.tails {
		for _, t := range p.tables {
			t.rankFresh()
		}
	}
	if atomic {
		p.publish()
	}
	p.cleanup(&now)
	for _, t := range p.tables {
		if err := t.maybeGrow(p.cfg.MaxOccupancy); err != nil {
			for i := range res.Errs {
				if res.Errs[i] == nil {
					res.Errs[i] = err
				}
			}
		}
	}
	res.Version = p.version.Load()
}

// prefetch starts loading the index slot that applying u will probe first,
// and for an add the filter buckets its insertion will read, so that the
// cache misses overlap the update before it.
func (p *Pipeline) prefetch(u *Update) {
	t := p.Table(u.Table)
	if t == nil {
		return
	}
	mi := t.maskOf(&u.Match.Mask)
	p.pre[1] = prepared{u: u, t: t, mi: mi, gen: t.dropped}
	if mi == nil || mi.own == nil {
		return
	}
	st := mi.own
	s := t.state.Load()
	h := st.hash(&u.Match.Key)
	p.pre[1].st, p.pre[1].h = st, h
	prefetch.Line(unsafe.Pointer(&s.slots[h&s.smask]))
	if s.filter != nil && u.Command == CmdAdd {
		s.filter.Prefetch(h)
	}
}

// prepared is the maskInfo of an update's mask (nil if it had none), the
// subtable of the mask and the hash of its key there (nil and 0 if it had
// none), as prefetch found them while the update before was applied, so
// that applying it need not look the mask up (a map lookup by a whole
// Key) and hash the key again. It holds while its table deletes no
// subtable (gen is the table's count of deletions then; a maskInfo goes
// only with its subtable); a subtable's hash of a key never changes. An
// update before may have made the mask's maskInfo or subtable since:
// identical looks again for a maskInfo prefetch did not find, and takes
// the subtable from the maskInfo.
type prepared struct {
	u   *Update
	t   *Table
	mi  *maskInfo
	st  *subtable
	h   uint64
	gen uint64
}

// prepared returns what prefetch found for u in t, or nil.
func (p *Pipeline) prepared(u *Update, t *Table) *prepared {
	if pr := &p.pre[0]; pr.u == u && pr.t == t && pr.gen == t.dropped {
		p.prepHits++
		return pr
	}
	return nil
}

func (p *Pipeline) apply(u *Update, now *clock, removed *[]FlowRemoved) error {
	if u.Command != CmdAdd || u.Flags&FlagCheckOverlap != 0 {
		// Only an add reads the rules of a node link is copying from
		// that copy (see pendingCopy).
		p.flushPending()
	}
	switch u.Command {
	case CmdAdd:
		return p.add(u, now)
	case CmdModify, CmdModifyStrict:
		return p.modify(u, now)
	case CmdDelete, CmdDeleteStrict:
		return p.delete(u, now, removed)
	}
	return &Error{Type: ErrTypeFlowModFailed, Code: FlowModBadCommand, Why: fmt.Sprintf("command %d", u.Command)}
}

func (p *Pipeline) checkUpdate(u *Update) (*Table, error) {
	t := p.Table(u.Table)
	if t == nil {
		return nil, &Error{Type: ErrTypeFlowModFailed, Code: FlowModBadTableID, Why: fmt.Sprintf("table %d of %d", u.Table, len(p.tables))}
	}
	// Prerequisites are validation's last check: a BAD_PREREQ error means
	// the match passed every other.
	// The mask's maskInfo, if prefetch found one, remembers whether the
	// mask passed validation's mask checks before.
	var mi *maskInfo
	if pr := &p.pre[0]; pr.u == u && pr.t == t {
		mi = pr.mi
	}
	if err := u.Match.validateCached(p.cfg.StrictPorts, &p.masks, mi); err != nil && !(p.cfg.NoPrereqs && errors.Is(err, ErrBadPrereq)) {
		return nil, err
	}
	for i := range u.Instructions {
		in := &u.Instructions[i]
		if in.Kind == InstGotoTable && (in.Table <= u.Table || int(in.Table) >= len(p.tables)) {
			return nil, &Error{Type: ErrTypeBadInstruction, Code: BadInstBadTableID, Field: "goto_table",
				Why: fmt.Sprintf("goto_table:%d from table %d of %d", in.Table, u.Table, len(p.tables))}
		}
		if in.Kind == InstMeter {
			if err := p.checkMeter(u.Instructions, i); err != nil {
				return nil, err
			}
		}
		for _, a := range in.Actions {
			if a.Kind == ActionOutput && (a.Port == 0 || a.Port == PortAny || (a.Port > PortMax && a.Port < PortInPort)) {
				return nil, &Error{Type: ErrTypeBadAction, Code: BadActionBadOutPort, Field: "output",
					Why: fmt.Sprintf("port %#x", a.Port)}
			}
		}
	}
	if !u.Ranges.IsZero() {
		if err := checkRanges(&u.Match, u.Ranges, p.cfg.NoPrereqs); err != nil {
			return nil, err
		}
	}
	if err := CheckActions(&u.Match, u.Instructions); err != nil {
		return nil, err
	}
	return t, nil
}

func (p *Pipeline) add(u *Update, now *clock) error {
	t, err := p.checkUpdate(u)
	if err != nil {
		return err
	}
	if u.Flags&FlagCheckOverlap != 0 {
		var clash *Rule
		t.each(func(r *Rule) bool {
			// An identical rule is no overlap: the add replaces it
			// (as in Open vSwitch).
			if p.live(r) && r.Priority == u.Priority && overlapsRule(&u.Match, u.Ranges, r) &&
				(r.Match != u.Match || r.Ranges != u.Ranges) {
				clash = r
				return false
			}
			return true
		})
		if clash != nil {
			return &Error{Type: ErrTypeFlowModFailed, Code: FlowModOverlap,
				Why: fmt.Sprintf("overlaps a priority-%d rule", clash.Priority)}
		}
	}
	// The rule and its counters in one slab slot, fresh (zero) memory:
	// set field by field, so that no whole-struct copy is made.
	x := p.ruleSlab.next()
	r := &x.r
	r.Match, r.Ranges = u.Match, u.Ranges
	r.Priority, r.Cookie, r.IdleTimeout, r.HardTimeout = u.Priority, u.Cookie, u.IdleTimeout, u.HardTimeout
	// All of the add's flags stay with the rule, as Open vSwitch keeps
	// them: check_overlap and reset_counts act on the add, and flow
	// statistics report them.
	r.Flags = u.Flags
	r.Instructions, r.ID, r.Importance = u.Instructions, u.ID, u.Importance
	r.recycle = p.cfg.Recycle
	ns := now.stamp()
	x.s.created, x.s.lastActive = ns, ns
	r.stats = &x.s
	// The hint is the pipeline's: one on the stack would be zeroed, 300
	// bytes, at every add.
	hint := &p.hint
	if old := t.identical(&u.Match, u.Ranges, u.Priority, p, hint, p.prepared(u, t)); old != nil {
		r.seq = old.seq
		if u.Flags&FlagResetCounts == 0 {
			pk, by := old.Packets(), old.Bytes()
			r.stats.packets.Store(pk)
			r.stats.bytes.Store(by)
			r.stats.lastPackets = pk
		}
		p.remove(old, RemovedDelete, now, nil)
		if err := p.insert(t, r, hint); err != nil {
			return err
		}
		p.record(ChangeAdded, r, 0, true, nil)
		return nil
	}
	r.seq = p.seq
	p.seq++
	if err := p.insert(t, r, hint); err != nil {
		return err
	}
	p.record(ChangeAdded, r, 0, false, nil)
	return nil
}

// record notes a change of r for Watch, if the burst under way records.
func (p *Pipeline) record(kind ChangeKind, r *Rule, reason RemovedReason, replaced bool, old []Instruction) {
	if !p.recording {
		return
	}
	rec := r
	if r.recycle {
		rec = recordCopy(r)
	}
	p.changes = append(p.changes, Change{Kind: kind, Reason: reason, Replaced: replaced, Update: p.cur, Rule: rec, OldInstructions: old})
}

// Watch makes every later burst and Expire record the changes they make
// (BurstResult.Changes, ExpireChanges), or stops it. Call it as a writer.
func (p *Pipeline) Watch(on bool) { p.watch = on }

// clock is a burst's reading of the pipeline's clock (Config.Now), as a
// stamp, taken when an update first needs one (an add, a flow-removed
// record): a burst of deletes reads none. With the default clock it
// reads the monotonic clock only (time.Since), all that a stamp keeps
// of time.Now's reading of both clocks.
type clock struct {
	p  *Pipeline
	ns int64
	ok bool
}

// stamp returns the reading, taken on the first call.
func (c *clock) stamp() int64 {
	if !c.ok {
		if c.p.realClock {
			c.ns = int64(time.Since(clockEpoch))
		} else {
			c.ns = stamp(c.p.cfg.Now())
		}
		c.ok = true
	}
	return c.ns
}

type ruleWithStats struct {
	r Rule
	s ruleStats
}

// insert links r into t; hint, if not nil, is where identical found r's
// match in the subtable of r's mask (see nodeHint).
func (p *Pipeline) insert(t *Table, r *Rule, hint *nodeHint) error {
	r.table = t.id
	r.added = p.next
	r.removed.Store(never)
	t.flows++
	if holdsResubmit(r.Instructions) {
		p.nres++
		if !p.resubmit.Load() {
			p.resubmit.Store(true) // before the publication: see MayResubmit
		}
	}
	if r.IdleTimeout != 0 || r.HardTimeout != 0 {
		p.timed[r] = struct{}{}
	}
	return t.link(r, hint)
}

func cookieOK(u *Update, r *Rule) bool {
	return r.Cookie&u.CookieMask == u.Cookie&u.CookieMask
}

// selected returns the rules u selects, in p.sel: valid until the next call.
// They are in lookup order, except for a DELETE none of whose rules asked
// for a flow-removed record: there the order is not observable, and
// sorting a whole table's rules is a good part of the cost of deleting it.
func (p *Pipeline) selected(t *Table, u *Update, strict bool) []*Rule {
	clear(p.sel)
	out := p.sel[:0]
	if strict {
		if r := t.identical(&u.Match, u.Ranges, u.Priority, p, nil, p.prepared(u, t)); r != nil && cookieOK(u, r) {
			out = append(out, r)
		}
	} else {
		t.each(func(r *Rule) bool {
			if p.live(r) && r.CoveredBy(&u.Match, u.Ranges) && cookieOK(u, r) {
				out = append(out, r)
			}
			return true
		})
	}
	ordered := true
	if u.Command == CmdDelete || u.Command == CmdDeleteStrict {
		n := 0
		ordered = false
		for _, r := range out {
			if (u.OutPort == 0 || r.OutputsTo(u.OutPort)) && (u.OutGroup == 0 || r.UsesGroup(u.OutGroup)) &&
				(u.Meter == 0 || r.UsesMeter(u.Meter)) {
				out[n] = r
				n++
				ordered = ordered || r.Flags&FlagSendFlowRem != 0
			}
		}
		out = out[:n]
	}
	if ordered {
		sortRules(out)
	}
	p.sel = out
	return out
}

func (p *Pipeline) modify(u *Update, now *clock) error {
	t, err := p.checkUpdate(u)
	if err != nil {
		return err
	}
	for _, old := range p.selected(t, u, u.Command == CmdModifyStrict) {
		r := p.successor(old, u.Instructions, u.Flags&FlagResetCounts != 0)
		oldIns := old.Instructions
		p.remove(old, RemovedDelete, now, nil)
		if err := p.insert(t, r, nil); err != nil {
			return err
		}
		p.record(ChangeModified, r, 0, false, oldIns)
	}
	return nil
}

// successor returns the version of old that replaces it with ins: the
// same flow (match, priority, cookie, timeouts, flags, order), in a rule
// of the slab as add's are. Unless reset, it goes on with old's counters,
// which live in the slab slot of the flow's first version: that slot goes
// back to the slab once both that version and the last version using its
// counters have (Rule.refs, Rule.shared). So a flow modified over and over
// holds two slots, not one per version.
func (p *Pipeline) successor(old *Rule, ins []Instruction, reset bool) *Rule {
	x := p.ruleSlab.next()
	r := &x.r
	r.Match, r.Ranges = old.Match, old.Ranges
	r.Priority, r.Cookie, r.IdleTimeout, r.HardTimeout = old.Priority, old.Cookie, old.IdleTimeout, old.HardTimeout
	r.Flags, r.Instructions, r.ID, r.seq, r.Importance = old.Flags, ins, old.ID, old.seq, old.Importance
	r.recycle = p.cfg.Recycle
	if reset {
		x.s.created, x.s.lastActive = old.stats.created, old.stats.lastActive
		r.stats = &x.s
		return r
	}
	r.stats, r.shared = old.stats, true
	if old.shared {
		old.shared = false // r takes over old's hold on the counters' slot
	} else if old.stats == &(*ruleWithStats)(unsafe.Pointer(old)).s && old.refs == 0 {
		old.refs = 2 // old's own turn to go, and its last successor's
	}
	// Otherwise old's counters were shared and the version holding them
	// gave its hold up (undo): r takes it.
	return r
}

func (p *Pipeline) delete(u *Update, now *clock, removed *[]FlowRemoved) error {
	var tables []*Table
	if u.Table == TableAll {
		tables = p.tables
	} else {
		t := p.Table(u.Table)
		if t == nil {
			return &Error{Type: ErrTypeFlowModFailed, Code: FlowModBadTableID, Why: fmt.Sprintf("table %d of %d", u.Table, len(p.tables))}
		}
		tables = []*Table{t}
	}
	for _, t := range tables {
		for _, r := range p.selected(t, u, u.Command == CmdDeleteStrict) {
			p.record(ChangeRemoved, r, RemovedDelete, false, nil)
			p.remove(r, RemovedDelete, now, removed)
		}
	}
	return nil
}

func (p *Pipeline) remove(r *Rule, reason RemovedReason, now *clock, out *[]FlowRemoved) {
	r.removed.Store(p.next)
	p.tables[r.table].refresh(r)
	p.tables[r.table].flows--
	if holdsResubmit(r.Instructions) {
		p.nres-- // MayResubmit follows at the publication
	}
	// A host rule (of a host mask, without port ranges) leaves its
	// mask's count; a table without host masks looks no mask up. (The
	// mask lookup is mostly maskOf's last mask: a strict delete's.)
	if t := p.tables[r.table]; len(t.hostMasks) > 0 && r.Ranges.IsZero() {
		if mi := t.maskOf(&r.Match.Mask); mi != nil && mi.host {
			t.countHost(mi, -1)
		}
	}
	d := deadRule{r: r, table: r.table}
	if n := r.node; n != nil {
		d.node, d.si = n, n.si
	}
	p.pushDead(d)
	delete(p.timed, r)
	if out != nil && r.Flags&FlagSendFlowRem != 0 {
		rec := r
		if r.recycle {
			rec = recordCopy(r)
		}
		*out = append(*out, FlowRemoved{Rule: rec, Reason: reason, Duration: time.Duration(now.stamp() - r.stats.created),
			Packets: r.Packets(), Bytes: r.Bytes()})
	}
}

// recordCopy returns a copy of r, a rule of the slab that goes back to it
// (Rule.recycle), for its FlowRemoved record, which its reader may read at
// any time: the flow (match, priority, cookie, timeouts, flags,
// importance, instructions, table and ID) and its versions, without
// counters (the record has them). Kept out of recycling instead, r would
// hold its slab slot, and its chunk, for good: under churn with timeouts,
// each expiry would leave a slot behind.
func recordCopy(r *Rule) *Rule {
	c := &Rule{Match: r.Match, Ranges: r.Ranges, Priority: r.Priority, IdleTimeout: r.IdleTimeout, HardTimeout: r.HardTimeout,
		Flags: r.Flags, Cookie: r.Cookie, Instructions: r.Instructions, ID: r.ID,
		seq: r.seq, added: r.added, table: r.table, exact: r.exact, Importance: r.Importance}
	c.removed.Store(r.removed.Load())
	return c
}

// pushDead appends d to p.dead. Cleanup takes the rules it unlinks off
// the front of p.dead by reslicing, not by moving the rest down at every
// burst; the array's front is reused here, once the end is reached, by
// moving p.dead down to it (indexes into p.dead stay valid: the
// elements keep their order and p.dead its start).
func (p *Pipeline) pushDead(d deadRule) {
	if len(p.dead) == cap(p.dead) {
		if off := cap(p.deadArr) - cap(p.dead); off > 0 {
			n := copy(p.deadArr[:len(p.dead)], p.dead)
			clear(p.deadArr[n : n+off])
			p.dead = p.deadArr[:n]
		}
	}
	p.dead = append(p.dead, d)
	if cap(p.dead) > cap(p.deadArr) {
		p.deadArr = p.dead[:0]
	}
}

func (p *Pipeline) live(r *Rule) bool { return r.removed.Load() == never }

func (p *Pipeline) publish() {
	p.flushPending()
	for _, t := range p.tables {
		t.publishOrder()
	}
	p.version.Store(p.next)
	p.next++
	if p.nres == 0 && p.resubmit.Load() {
		p.resubmit.Store(false) // after the version: see MayResubmit
	}
}

// holdsResubmit reports whether instructions ins hold a resubmit action
// (in apply- or write-actions).
func holdsResubmit(ins []Instruction) bool {
	for i := range ins {
		for k := range ins[i].Actions {
			if ins[i].Actions[k].Kind == ActionResubmit {
				return true
			}
		}
	}
	return false
}

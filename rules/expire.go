package rules

import (
	"time"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/prefetch"
)

// Expire removes the rules whose idle or hard timeout has passed on the
// pipeline's clock, as one burst, and returns the flow-removed records of
// those that asked for them. A rule counts as idle from the last Expire
// that saw its packet counter unchanged.
func (p *Pipeline) Expire() []FlowRemoved {
	out, _ := p.ExpireChanges(nil)
	return out
}

// ExpireChanges is Expire that also appends to changes, while the
// pipeline watches, the removal of every rule it removed (Update -1).
func (p *Pipeline) ExpireChanges(changes []Change) ([]FlowRemoved, []Change) {
	p.recording, p.cur = p.watch, -1
	ndead := len(p.dead)
	now := p.cfg.Now()
	ns := stamp(now)
	var out []FlowRemoved
	for r := range p.timed {
		st := r.stats
		if pk := st.packets.Load(); pk != st.lastPackets {
			st.lastPackets, st.lastActive = pk, ns
		}
		reason := RemovedReason(255)
		switch {
		case r.HardTimeout != 0 && time.Duration(ns-st.created) >= time.Duration(r.HardTimeout)*time.Second:
			reason = RemovedHardTimeout
		case r.IdleTimeout != 0 && time.Duration(ns-st.lastActive) >= time.Duration(r.IdleTimeout)*time.Second:
			reason = RemovedIdleTimeout
		}
		if reason != 255 {
			p.record(ChangeRemoved, r, reason, false, nil)
			p.remove(r, reason, &clock{ns: ns, ok: true}, &out)
		}
	}
	if len(p.dead) > ndead {
		p.publish()
	}
	p.cleanup(nil)
	if p.recording {
		p.recording = false
		changes = append(changes, p.changes...)
		clear(p.changes)
		p.changes = p.changes[:0]
	}
	return out, changes
}

// Rebalance lets each table's filter move up to budget elements from its
// Bloom part back to cuckoo slots, after unlinking the removed rules whose
// Config.UnlinkAfter has passed, and then ranks the tails of index nodes
// (see appendEntry) with what is left of the budget; call it when the
// writer is idle. It returns the work done: the filter elements moved,
// and for the tails compactCost for each node ranked and one for each
// node looked at, so that a caller that goes on while the work reaches
// its budget goes on while there is more.
func (p *Pipeline) Rebalance(budget int) int {
	p.cleanup(nil)
	n := 0
	for _, t := range p.tables {
		if f := t.state.Load().filter; f != nil {
			n += f.Rebalance(budget)
		}
	}
	for _, t := range p.tables {
		if n >= budget {
			break
		}
		n += t.compactTails(budget - n)
	}
	return n
}

// cleanup unlinks the rules removed at published versions at least
// Config.UnlinkAfter ago, then recycles what no reader can hold any more
// (see recycle). It raises p.unlinked before it unlinks, so that a lookup
// at an older version that overlaps it starts over. c, if not nil, is
// the clock of the burst that just ended (see unlinkDead).
func (p *Pipeline) cleanup(c *clock) {
	p.unlinkDead(c)
	p.recycle()
}

// unlinkDead is cleanup's unlinking.
//
// A rule's grace counts from a reading of the real clock taken after the
// version removing it was published (deadRule.at), and a rule is
// unlinked only once a reading at least UnlinkAfter later is taken: an
// earlier reading than the true time of either only delays its unlink.
// So when the burst just ended removed nothing (every dead rule has its
// time) and read the real clock for its adds (c, on the default clock),
// that reading, taken after the publications of the rules stamped
// before it, serves: a burst of adds reads the clock once, not twice
// (time.Since was a twentieth of an update one rule a call).
func (p *Pipeline) unlinkDead(c *clock) {
	if len(p.dead) == 0 {
		return
	}
	grace := p.cfg.UnlinkAfter
	if grace == 0 {
		grace = defaultUnlinkAfter
	}
	k := len(p.dead)
	if grace > 0 {
		var now time.Duration
		if p.stamped == len(p.dead) && c != nil && c.ok && p.realClock {
			now = time.Duration(c.ns)
		} else {
			// dead[p.stamped:] were removed by versions published just now.
			now = time.Since(clockEpoch) // the real clock: the grace is for lookups running now
			for i := p.stamped; i < len(p.dead); i++ {
				p.dead[i].at = now
			}
			p.stamped = len(p.dead)
		}
		k = 0
		for k < len(p.dead) && now-p.dead[k].at >= grace {
			k++
		}
	}
	if k == 0 {
		return
	}
	if v := p.dead[k-1].r.removed.Load(); v > p.unlinked.Load() {
		p.unlinked.Store(v)
	}
	// Unlinking is a chain of cache misses (rule, node, slot) per rule;
	// start those of the rule unlinkAhead places on while unlinking this
	// one, from what remove recorded (reading the rule would wait for it).
	// The rules of one node removed together (the entries a rule's port
	// ranges expanded into, deleted in one call) follow each other in
	// dead: unlink takes such a run at once, copying the node once
	// instead of once per rule.
	pf := 0
	for i := 0; i < k; {
		for ; pf < min(i+unlinkAhead, k); pf++ {
			a := &p.dead[pf]
			prefetch.Line(unsafe.Pointer(a.r))
			if n := a.node; n != nil {
				prefetch.Line(unsafe.Pointer(n))
				prefetch.Line(unsafe.Pointer(&n.pos))
				s := p.tables[a.table].state.Load()
				prefetch.Line(unsafe.Pointer(&s.slots[uint64(a.si)&s.smask]))
			}
		}
		d := &p.dead[i]
		j := i + 1
		if n := d.r.node; n != nil {
			for j < k && p.dead[j].table == d.table && p.dead[j].r.node == n {
				j++
			}
		}
		p.tables[d.table].unlink(p.dead[i:j])
		i = j
	}
	clear(p.dead[:k])
	p.dead = p.dead[k:] // see pushDead
	p.stamped -= k
	for _, t := range p.tables {
		t.refreshMaxRanks()
		t.publishOrder()
	}
}

// defaultUnlinkAfter is Config.UnlinkAfter's default: several times what a
// batch of 32 lookups takes (unless its goroutine is descheduled), and short
// enough that a burst's deletes free their filter slots within the burst.
const defaultUnlinkAfter = 50 * time.Microsecond

// deadRule is a removed rule waiting to be unlinked, with the time (since
// clockEpoch) the version removing it was published.
type deadRule struct {
	r  *Rule
	at time.Duration
	// node and si are r's node and its slot when r was removed, and table
	// its table, for cleanup to prefetch: by unlink time node and si may
	// be stale (link replaces nodes, a grown index moves them), which costs
	// only a useless prefetch.
	node  *inode
	si    uint32
	table uint8
}

// unlinkAhead is how many rules ahead of the one it unlinks cleanup
// prefetches: enough that a rule's misses are resolved by its turn.
const unlinkAhead = 8

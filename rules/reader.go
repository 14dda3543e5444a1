package rules

import (
	"slices"
	"sync/atomic"
	"unsafe"
)

// Reader is a goroutine's registration as a looker-up of a pipeline that
// recycles the memory of removed rules and index nodes (Config.Recycle).
//
// Such a pipeline reuses a rule's memory for another rule once no reader
// can still hold it, and it knows which readers can from their Readers: a
// goroutine that looks rules up calls Enter before it does, may then use the
// rules it finds (their fields, Hit) until it calls Leave or Enter again,
// and calls Leave when it has nothing more to look up for a while. The
// writer never waits for readers: a reader that stays entered only keeps
// the pipeline from reusing what was removed after it entered, which then
// costs fresh memory instead, as without recycling.
//
// This is epoch-based reclamation, with quiescent states announced by the
// readers: each removed rule and replaced node is retired, tagged with the
// pipeline's epoch, after it left the index; the writer then advances the
// epoch and reuses what was retired before the oldest epoch any entered
// reader announced. A reader that entered at epoch e loaded the index after
// the writer advanced past e-1, so nothing retired at e-1 or earlier is
// reachable for it.
//
// On a pipeline that does not recycle, a Reader costs an atomic load and
// store per Enter and a store per Leave, and changes nothing.
//
// # Concurrency
//
// A Reader belongs to one goroutine at a time. NewReader and Close are
// safe from any goroutine.
type Reader struct {
	p    *Pipeline
	slot *readerSlot
}

// readerSlot is the epoch a reader entered at, 0 while it holds nothing,
// alone on its cache line (the allocator aligns 64-byte objects to 64).
type readerSlot struct {
	epoch atomic.Uint64
	_     [56]byte
}

// NewReader registers a reader of p. It starts out left (holding nothing).
func (p *Pipeline) NewReader() *Reader {
	s := new(readerSlot)
	p.rmu.Lock()
	defer p.rmu.Unlock()
	var rs []*readerSlot
	if old := p.readers.Load(); old != nil {
		rs = slices.Clone(*old)
	}
	rs = append(rs, s)
	p.readers.Store(&rs)
	return &Reader{p: p, slot: s}
}

// Enter announces that the reader is about to look rules up, and that it
// holds no rule, node or answer of its lookups before this call.
func (r *Reader) Enter() { r.slot.epoch.Store(r.p.epoch.Load()) }

// Leave announces that the reader holds no rule, node or answer of its
// lookups.
func (r *Reader) Leave() { r.slot.epoch.Store(0) }

// Close leaves and unregisters the reader. It must not be used again.
func (r *Reader) Close() {
	r.Leave()
	p := r.p
	p.rmu.Lock()
	defer p.rmu.Unlock()
	old := p.readers.Load()
	if old == nil {
		return
	}
	rs := slices.DeleteFunc(slices.Clone(*old), func(s *readerSlot) bool { return s == r.slot })
	p.readers.Store(&rs)
}

// oldestReader returns the smallest epoch an entered reader announced, or
// the largest uint64 when none is entered.
func (p *Pipeline) oldestReader() uint64 {
	m := ^uint64(0)
	if rs := p.readers.Load(); rs != nil {
		for _, s := range *rs {
			if e := s.epoch.Load(); e != 0 && e < m {
				m = e
			}
		}
	}
	return m
}

// recycle, when anything is retired, advances the epoch and makes what was
// retired before the oldest entered reader's epoch available for reuse.
// Writer only.
func (p *Pipeline) recycle() {
	if !p.cfg.Recycle {
		return
	}
	pending := len(p.ruleSlab.limbo)
	for _, t := range p.tables {
		pending += len(t.nodeSlab.limbo) + len(t.ordLimbo)
	}
	if pending == 0 {
		return
	}
	p.epoch.Add(1)
	oldest := p.oldestReader()
	n := p.ruleSlab.reclaim(oldest, p.poisonRule)
	for _, t := range p.tables {
		k := t.nodeSlab.reclaim(oldest, p.poisonNode)
		n += k
		for _, x := range t.nodeSlab.recycled[len(t.nodeSlab.recycled)-k:] {
			t.keepArrays(x)
		}
		t.reclaimOrders(oldest, p.poisonOrder)
	}
	p.recycled.Add(uint64(n))
}

// retireRule hands r, which no index node reaches any more, to recycling
// if it came from the rule slab and nothing else keeps it (see
// Rule.recycle); if r held the counters of an earlier version (Rule.shared),
// it lets that version's slot go too. A slot whose counters later versions
// use goes back only when the last of its two holders lets it go
// (Rule.refs). Writer only.
func (p *Pipeline) retireRule(r *Rule) {
	if !r.recycle {
		return
	}
	r.recycle = false
	if r.shared {
		r.shared = false
		p.releaseSlot((*ruleWithStats)(unsafe.Add(unsafe.Pointer(r.stats), -int(unsafe.Offsetof(ruleWithStats{}.s)))))
	}
	// r is the first field of the ruleWithStats add took from the slab.
	p.releaseSlot((*ruleWithStats)(unsafe.Pointer(r)))
}

// releaseSlot lets one holder of x go, and retires x once none is left.
func (p *Pipeline) releaseSlot(x *ruleWithStats) {
	if x.r.refs > 0 {
		x.r.refs--
		if x.r.refs > 0 {
			return
		}
	}
	p.ruleSlab.retire(x, p.epoch.Load())
}

// keepArrays moves the entry and check arrays of n, a reclaimed node, to
// the table's pools; n no longer holds them. Writer only.
func (t *Table) keepArrays(n *inode) {
	if len(n.ents) > 1 {
		t.entPool.put(len(n.ents), &n.ents[0])
	}
	if n.chk != nil && n.chk != &n.own {
		t.chkPool.put(len(n.ents), n.chk)
	}
	n.ents, n.chk = nil, nil
}

// retireNode hands n, which no slot reaches any more, to recycling, with
// the rules of its entries marked unlinked (unlinked while n stayed in
// the index), not those of the others: a node that replaced n holds
// them, or a copy left them out early and unlink retires them in their
// turn. It reads n's entries, not their rules. Writer only.
func (t *Table) retireNode(n *inode) {
	p := t.p
	if !p.cfg.Recycle {
		return
	}
	all := n.all()
	for i := range all {
		if e := &all[i]; e.unlinked {
			p.retireRule(e.r)
		}
	}
	t.nodeSlab.retire(n, p.epoch.Load())
}

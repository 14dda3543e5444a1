package rules

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/prefetch"
)

// Config sets up a Pipeline. The zero value is usable: one table, a
// Bloom-Cuckoo filter with t = 0, the real clock.
type Config struct {
	// Tables is the number of flow tables, 1 to 255. Zero means 1.
	Tables int
	// Filter selects the filter in front of each table's subtables.
	Filter FilterKind
	// BloomAfter is the Bloom-Cuckoo filter's t (ignored by other kinds).
	BloomAfter int
	// FilterBuckets is the initial number of filter buckets (a power of
	// two); zero means 256. The filter is rebuilt larger when it fills.
	FilterBuckets int
	// FingerprintBits is the filter's f; zero means the filter's default.
	FingerprintBits int
	// Seed seeds the filters' kick walks.
	Seed uint64
	// Now is the clock for timeouts and durations; nil means time.Now.
	// Tests pass a fake clock.
	Now func() time.Time
	// MaxOccupancy is the filter occupancy above which a table's filter is
	// rebuilt twice as large at the end of a burst. Zero means 0.9; the
	// filter is also rebuilt whenever an insertion finds it full.
	MaxOccupancy float64
	// NoMerge gives every mask a subtable of its own (plain tuple space
	// search); by default similar masks share one, as in TupleMerge.
	NoMerge bool
	// StrictPorts rejects masked TCP/UDP/SCTP ports with OFPBMC_BAD_MASK,
	// as a strict OpenFlow 1.3 switch must. By default they are accepted,
	// as Open vSwitch accepts them.
	StrictPorts bool
	// UnlinkAfter is how long a removed rule stays physically in the index
	// after the version that removes it is published, so that lookups
	// running then (which may still see it) finish without a retry. Zero
	// means 50 µs; a negative value unlinks at the end of every burst.
	UnlinkAfter time.Duration
	// PrefaultRules is how many rules (with their index nodes and
	// entries) the pipeline keeps memory made and mapped for ahead of
	// need, so that adds do not pay for first-touch page faults; Prefault
	// makes it, from another goroutine. Zero keeps none. A burst's worth
	// (the agent's batch maximum, 1024) takes about 600 KB per table in use.
	PrefaultRules int
	// Recycle makes the pipeline reuse the memory of removed rules and of
	// replaced index nodes for the rules and nodes of later adds, once no
	// reader can still hold them, instead of leaving it to the garbage
	// collector: a table whose flows come and go then takes no new memory
	// (and no page faults) for them, and the collector runs less often.
	// Its lookups must then all come from goroutines that announce them
	// through a Reader, and a caller of the writer methods may use a rule
	// they return (Rules, a Lookup of its own) only until its next writer
	// call; FlowRemoved records are the exception: their rules are never
	// reused. The memory of the largest table held stays with the
	// pipeline.
	Recycle bool
}

// Command is a FLOW_MOD command (enum ofp_flow_mod_command).
type Command uint8

// Commands.
const (
	CmdAdd          Command = 0 // OFPFC_ADD
	CmdModify       Command = 1 // OFPFC_MODIFY
	CmdModifyStrict Command = 2 // OFPFC_MODIFY_STRICT
	CmdDelete       Command = 3 // OFPFC_DELETE
	CmdDeleteStrict Command = 4 // OFPFC_DELETE_STRICT
)

// String returns the OpenFlow name's suffix, e.g. "add".
func (c Command) String() string {
	switch c {
	case CmdAdd:
		return "add"
	case CmdModify:
		return "modify"
	case CmdModifyStrict:
		return "modify_strict"
	case CmdDelete:
		return "delete"
	case CmdDeleteStrict:
		return "delete_strict"
	}
	return fmt.Sprintf("command(%d)", uint8(c))
}

// Update is one FLOW_MOD, already translated from the wire.
//
// The zero Update adds a priority-0 match-all rule with no instructions (a
// drop-all table-miss entry) to table 0.
type Update struct {
	Command      Command
	Table        uint8 // TableAll (0xff) selects all tables for DELETE
	Match        Match
	Priority     uint16
	Cookie       uint64
	CookieMask   uint64 // MODIFY/DELETE: only rules with cookie&mask == Cookie&mask
	IdleTimeout  uint16
	HardTimeout  uint16
	Flags        FlowFlags
	Importance   uint16 // ADD: the rule's Importance (OpenFlow 1.4); MODIFY keeps the rule's
	OutPort      uint32 // DELETE: only rules that output to it; 0 or PortAny means no filter
	OutGroup     uint32 // DELETE: only rules that use it; 0 or GroupAny means no filter
	Instructions []Instruction
	ID           int // copied into Rule.ID by ADD
}

// RemovedReason says why a rule left its table (enum ofp_flow_removed_reason).
type RemovedReason uint8

// Reasons.
const (
	RemovedIdleTimeout RemovedReason = 0 // OFPRR_IDLE_TIMEOUT
	RemovedHardTimeout RemovedReason = 1 // OFPRR_HARD_TIMEOUT
	RemovedDelete      RemovedReason = 2 // OFPRR_DELETE
)

// FlowRemoved is the record of a rule that left its table with
// OFPFF_SEND_FLOW_REM set: what the controller gets as OFPT_FLOW_REMOVED.
// A pipeline that recycles (Config.Recycle) never reuses the memory of a
// rule that has a record, so the record may be read at any time.
type FlowRemoved struct {
	Rule     *Rule
	Reason   RemovedReason
	Duration time.Duration
	Packets  uint64
	Bytes    uint64
}

// BatchResult is what ApplyBatch did.
type BatchResult struct {
	Errs    []error // one per update; nil where it succeeded
	Removed []FlowRemoved
	Version uint64 // the published version after the batch
}

// Pipeline is a set of flow tables that share one version clock, so that a
// burst of updates touching several tables is published at once.
//
// # Concurrency
//
// Lookups on its tables run on any number of goroutines and never block.
// ApplyBatch, Expire, Rebalance and Rules are writer methods: one goroutine
// at a time.
type Pipeline struct {
	cfg     Config
	tables  []*Table
	version atomic.Uint64 // published
	// unlinked is the largest removal version of the rules cleanup has
	// taken out of the index, stored before it takes them out. A lookup at
	// version v that then reads unlinked <= v saw only rules and nodes it
	// could rely on; otherwise it retries.
	unlinked atomic.Uint64
	// epoch is the recycling epoch readers announce (see Reader); the
	// writer advances it. readers are the registered readers' slots,
	// replaced whole under rmu.
	epoch   atomic.Uint64
	readers atomic.Pointer[[]*readerSlot]
	rmu     sync.Mutex
	// recycled counts the rules and nodes reclaimed for reuse.
	recycled atomic.Uint64
	_        [64]byte // keep the writer's fields off the readers' cache line

	// writer only
	next    uint64
	seq     uint64
	timed   map[*Rule]struct{}
	dead    []deadRule // removed, still in the index; removal versions ascending
	stamped int        // dead[:stamped] have their publication time
	sel     []*Rule    // selected's buffer
	masks   maskCache
	// ruleSlab holds the rules (with their counters) that add makes.
	ruleSlab slab[ruleWithStats]
	// prefaultLow is set when a slab has used half of its spare chunks
	// (see PrefaultDue); it is read and cleared on any goroutine.
	prefaultLow atomic.Bool
	// iters adds up the iterations of the filter insertions made so far
	// (see ApplyBatchCosts).
	iters int
	// pre is what prefetch worked out for the update being applied
	// (pre[0]) and for the one after it (pre[1]).
	pre [2]prepared
	// prepHits counts the updates that found pre[0] theirs (a test reads
	// it: prefetch's work is lost without a sign otherwise).
	prepHits int
	// poison makes a test's pipeline overwrite each rule and node it
	// reclaims for reuse.
	poison bool
}

// prepared is the subtable of an update's own mask and the hash of its key
// there, as prefetch found them while the update before was applied, so
// that applying it need not look the subtable up (a compare of whole
// masks) and hash the key again. It holds while its table deletes no
// subtable (gen is the table's count of deletions then); a subtable's hash
// of a key never changes.
type prepared struct {
	u   *Update
	t   *Table
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

// New returns an empty pipeline.
func New(cfg *Config) (*Pipeline, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.Tables == 0 {
		c.Tables = 1
	}
	if c.Tables < 1 || c.Tables > 255 {
		return nil, fmt.Errorf("rules: %d tables: want 1 to 255", c.Tables)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.MaxOccupancy == 0 {
		c.MaxOccupancy = 0.9
	}
	if c.PrefaultRules < 0 {
		return nil, fmt.Errorf("rules: PrefaultRules %d: want 0 or more", c.PrefaultRules)
	}
	p := &Pipeline{cfg: c, timed: map[*Rule]struct{}{}}
	p.ruleSlab.keepSpare(c.PrefaultRules, &p.prefaultLow)
	p.version.Store(1)
	p.next = 2
	p.epoch.Store(1) // 0 is a reader that holds nothing
	for i := range c.Tables {
		t, err := newTable(p, uint8(i))
		if err != nil {
			return nil, err
		}
		p.tables = append(p.tables, t)
	}
	return p, nil
}

// Prefault makes, for every table that has had rules added, the memory
// of the next Config.PrefaultRules rules, index nodes and entries that
// isn't made yet, and writes to each of its pages, so that the writer's
// next burst takes memory that is already mapped. It returns the number of
// chunks it made. It may be called from any goroutine, while the writer
// applies a burst too; it takes no lock and changes nothing the writer or
// the lookups read. A caller runs it after each burst, in the time before
// the next one arrives.
func (p *Pipeline) Prefault() int {
	p.prefaultLow.Store(false) // a chunk taken from here on sets it again
	n := p.ruleSlab.fill()
	for _, t := range p.tables {
		n += t.nodeSlab.fill() + t.entSlab.fill()
	}
	return n
}

// PrefaultDue reports whether a burst has taken half or more of the spare
// chunks of some table's rules, nodes or entries (or needed one where none
// was left) since Prefault last ran: a caller that runs Prefault after
// bursts need wake it only then. It may be called from any goroutine.
func (p *Pipeline) PrefaultDue() bool { return p.prefaultLow.Load() }

// Prefaulted returns the number of chunks of memory Prefault has made
// that no burst has taken yet (each holds 23 rules, 42 index nodes or 204
// entries). It may be called from any goroutine.
func (p *Pipeline) Prefaulted() int {
	n := len(p.ruleSlab.spare)
	for _, t := range p.tables {
		n += len(t.nodeSlab.spare) + len(t.entSlab.spare)
	}
	return n
}

// Recycled returns how many removed rules and replaced index nodes the
// pipeline has reclaimed for reuse so far (zero unless Config.Recycle). It
// may be called from any goroutine.
func (p *Pipeline) Recycled() uint64 { return p.recycled.Load() }

// Table returns table i, or nil if there is none.
func (p *Pipeline) Table(i uint8) *Table {
	if int(i) >= len(p.tables) {
		return nil
	}
	return p.tables[i]
}

// NumTables returns the number of tables.
func (p *Pipeline) NumTables() int { return len(p.tables) }

// Version returns the published version.
func (p *Pipeline) Version() uint64 { return p.version.Load() }

// FilterSummary is the state of a pipeline's filters, its tables' summed.
type FilterSummary struct {
	Len       int     // elements in the filters
	BloomLen  int     // of which in their Bloom parts
	Occupancy float64 // the occupancy of the fullest filter
}

// Filters returns the state of the tables' filters (zero without filters).
// Safe from any goroutine; while the writer works, each table's figures
// are read at slightly different instants.
func (p *Pipeline) Filters() FilterSummary {
	var fs FilterSummary
	for _, t := range p.tables {
		if f := t.state.Load().filter; f != nil {
			fs.Len += f.Len()
			fs.BloomLen += f.BloomLen()
			fs.Occupancy = max(fs.Occupancy, f.Occupancy())
		}
	}
	return fs
}

// ApplyBatch applies ups in order with FLOW_MOD semantics and returns an
// error per update (an *Error carrying the OpenFlow type and code). With
// atomic set, the whole burst becomes visible to lookups at once, by one
// atomic store; otherwise each update is published as soon as it is applied.
// Either way no lookup ever sees part of one update.
func (p *Pipeline) ApplyBatch(ups []Update, atomic bool) BatchResult {
	return p.applyBatch(ups, atomic, nil)
}

// UpdateCost is what applying one update of a burst cost (DESIGN.md,
// "Update latency during bursts").
type UpdateCost struct {
	// Time is from the end of the update before (or the start of the
	// burst) to the end of this one, on the real clock.
	Time time.Duration
	// Iterations is the filter iterations of the insertions the update
	// made (the paper's count: 1 for a key placed at once); 0 if it made
	// none, as a delete, an update of a present key or a table without a
	// filter. An insertion that found the filter full counts the walk that
	// failed and not the rebuild after it.
	Iterations int
}

// ApplyBatchCosts is ApplyBatch that also records what each update cost
// in costs[i], which must be at least len(ups) long. It reads the clock
// once per update.
func (p *Pipeline) ApplyBatchCosts(ups []Update, atomic bool, costs []UpdateCost) BatchResult {
	if len(costs) < len(ups) {
		panic(fmt.Sprintf("rules: ApplyBatchCosts with %d costs for %d updates", len(costs), len(ups)))
	}
	return p.applyBatch(ups, atomic, costs[:len(ups)])
}

// ApplyBatchTo is ApplyBatchCosts (ApplyBatch if costs is nil) with a
// result the caller keeps from burst to burst: res.Errs is reused when it
// has room for len(ups) and res.Removed is emptied, so that a caller that
// applies burst after burst allocates nothing for their results.
func (p *Pipeline) ApplyBatchTo(res *BatchResult, ups []Update, atomic bool, costs []UpdateCost) {
	if costs != nil && len(costs) < len(ups) {
		panic(fmt.Sprintf("rules: ApplyBatchTo with %d costs for %d updates", len(costs), len(ups)))
	}
	if cap(res.Errs) >= len(ups) {
		res.Errs = res.Errs[:len(ups)]
		clear(res.Errs)
	} else {
		res.Errs = make([]error, len(ups))
	}
	clear(res.Removed)
	res.Removed = res.Removed[:0]
	if costs != nil {
		costs = costs[:len(ups)]
	}
	p.applyBatchTo(res, ups, atomic, costs)
}

func (p *Pipeline) applyBatch(ups []Update, atomic bool, costs []UpdateCost) BatchResult {
	res := BatchResult{Errs: make([]error, len(ups))}
	p.applyBatchTo(&res, ups, atomic, costs)
	return res
}

// applyBatchTo applies ups into res, whose Errs has room for them.
func (p *Pipeline) applyBatchTo(res *BatchResult, ups []Update, atomic bool, costs []UpdateCost) {
	now := p.cfg.Now()
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
	for i := range ups {
		// What prefetch found for this update, while the one before
		// was applied, is pre[0]; the next update's goes to pre[1].
		p.pre[0], p.pre[1] = p.pre[1], prepared{}
		if i+1 < len(ups) {
			p.prefetch(&ups[i+1])
		}
		iters := p.iters
		res.Errs[i] = p.apply(&ups[i], now, &res.Removed)
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
	if atomic {
		p.publish()
	}
	p.cleanup()
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
	st := t.sub(&u.Match.Mask)
	if st == nil {
		return
	}
	s := t.state.Load()
	h := st.hash(&u.Match.Key)
	p.pre[1] = prepared{u: u, t: t, st: st, h: h, gen: t.dropped}
	prefetch.Line(unsafe.Pointer(&s.slots[h&s.smask]))
	if s.filter != nil && u.Command == CmdAdd {
		s.filter.Prefetch(h)
	}
}

// Expire removes the rules whose idle or hard timeout has passed on the
// pipeline's clock, as one burst, and returns the flow-removed records of
// those that asked for them. A rule counts as idle from the last Expire that
// saw its packet counter unchanged.
func (p *Pipeline) Expire() []FlowRemoved {
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
			p.remove(r, reason, now, &out)
		}
	}
	if len(p.dead) > ndead {
		p.publish()
	}
	p.cleanup()
	return out
}

// Rebalance lets each table's filter move up to budget elements from its
// Bloom part back to cuckoo slots, after unlinking the removed rules whose
// Config.UnlinkAfter has passed; call it when the writer is idle. It returns
// the number of filter elements moved.
func (p *Pipeline) Rebalance(budget int) int {
	p.cleanup()
	n := 0
	for _, t := range p.tables {
		if f := t.state.Load().filter; f != nil {
			n += f.Rebalance(budget)
		}
	}
	return n
}

// Rules returns the rules of table id visible at the published version, in
// lookup order (priority descending, then insertion order). Writer only.
func (p *Pipeline) Rules(id uint8) []*Rule {
	t := p.Table(id)
	if t == nil {
		return nil
	}
	v := p.version.Load()
	var out []*Rule
	for _, st := range t.subs {
		for _, n := range st.nodes {
			for i := range n.ents {
				if r := n.ents[i].r; r.Visible(v) {
					out = append(out, r)
				}
			}
		}
	}
	sortRules(out)
	return out
}

// Reserve grows the filter of table id ahead of a bulk load of n distinct
// keys so that its occupancy stays near target (0 < target ≤ 1).
func (p *Pipeline) Reserve(id uint8, n int, target float64) error {
	t := p.Table(id)
	if t == nil {
		return ErrBadTableID
	}
	return t.ensureFilterCapacity(n, target)
}

func (p *Pipeline) publish() {
	for _, t := range p.tables {
		t.publishOrder()
	}
	p.version.Store(p.next)
	p.next++
}

// cleanup unlinks the rules removed at published versions at least
// Config.UnlinkAfter ago, then recycles what no reader can hold any more
// (see recycle). It raises p.unlinked before it unlinks, so that a lookup
// at an older version that overlaps it starts over.
func (p *Pipeline) cleanup() {
	p.unlinkDead()
	p.recycle()
}

// unlinkDead is cleanup's unlinking.
func (p *Pipeline) unlinkDead() {
	if len(p.dead) == 0 {
		return
	}
	// dead[p.stamped:] were removed by versions published just now.
	now := time.Since(clockEpoch) // the real clock: the grace is for lookups running now
	for i := p.stamped; i < len(p.dead); i++ {
		p.dead[i].at = now
	}
	p.stamped = len(p.dead)
	grace := p.cfg.UnlinkAfter
	if grace == 0 {
		grace = defaultUnlinkAfter
	}
	k := len(p.dead)
	if grace > 0 {
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
	for i, d := range p.dead[:k] {
		if j := i + unlinkAhead; j < k {
			a := &p.dead[j]
			prefetch.Line(unsafe.Pointer(a.r))
			if n := a.node; n != nil {
				prefetch.Line(unsafe.Pointer(n))
				prefetch.Line(unsafe.Pointer(&n.pos))
				s := p.tables[a.table].state.Load()
				prefetch.Line(unsafe.Pointer(&s.slots[uint64(a.si)&s.smask]))
			}
		}
		p.tables[d.table].unlink(d.r)
	}
	n := copy(p.dead, p.dead[k:])
	clear(p.dead[n:])
	p.dead = p.dead[:n]
	p.stamped = n
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
	// be stale (link replaces nodes, growIndex moves them), which costs
	// only a useless prefetch.
	node  *inode
	si    uint32
	table uint8
}

// unlinkAhead is how many rules ahead of the one it unlinks cleanup
// prefetches: enough that a rule's misses are resolved by its turn.
const unlinkAhead = 8

func (p *Pipeline) live(r *Rule) bool { return r.removed.Load() == never }

func (p *Pipeline) remove(r *Rule, reason RemovedReason, now time.Time, out *[]FlowRemoved) {
	r.removed.Store(p.next)
	p.tables[r.table].refresh(r)
	p.tables[r.table].flows--
	d := deadRule{r: r, table: r.table}
	if n := r.node; n != nil {
		d.node, d.si = n, n.si
	}
	p.dead = append(p.dead, d)
	delete(p.timed, r)
	if out != nil && r.Flags&FlagSendFlowRem != 0 {
		r.recycle = false // the record's reader may read it at any time
		*out = append(*out, FlowRemoved{Rule: r, Reason: reason, Duration: time.Duration(stamp(now) - r.stats.created),
			Packets: r.Packets(), Bytes: r.Bytes()})
	}
}

// insert links r into t; hint, if not nil, is where identical found r's
// match in the subtable of r's mask (see nodeHint).
func (p *Pipeline) insert(t *Table, r *Rule, hint *nodeHint) error {
	r.table = t.id
	r.added = p.next
	r.removed.Store(never)
	t.flows++
	if r.IdleTimeout != 0 || r.HardTimeout != 0 {
		p.timed[r] = struct{}{}
	}
	return t.link(r, hint)
}

func (p *Pipeline) apply(u *Update, now time.Time, removed *[]FlowRemoved) error {
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
	if err := u.Match.validateCached(p.cfg.StrictPorts, &p.masks); err != nil {
		return nil, err
	}
	for i := range u.Instructions {
		in := &u.Instructions[i]
		if in.Kind == InstGotoTable && (in.Table <= u.Table || int(in.Table) >= len(p.tables)) {
			return nil, &Error{Type: ErrTypeBadInstruction, Code: BadInstBadTableID, Field: "goto_table",
				Why: fmt.Sprintf("goto_table:%d from table %d of %d", in.Table, u.Table, len(p.tables))}
		}
		for _, a := range in.Actions {
			if a.Kind == ActionOutput && (a.Port == 0 || a.Port == PortAny || (a.Port > PortMax && a.Port < PortInPort)) {
				return nil, &Error{Type: ErrTypeBadAction, Code: BadActionBadOutPort, Field: "output",
					Why: fmt.Sprintf("port %#x", a.Port)}
			}
		}
	}
	return t, nil
}

func (p *Pipeline) add(u *Update, now time.Time) error {
	t, err := p.checkUpdate(u)
	if err != nil {
		return err
	}
	if u.Flags&FlagCheckOverlap != 0 {
		var clash *Rule
		t.each(func(r *Rule) bool {
			// An identical rule is no overlap: the add replaces it
			// (as in Open vSwitch).
			if p.live(r) && r.Priority == u.Priority && r.Match.Overlaps(&u.Match) && r.Match != u.Match {
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
	r.Match = u.Match
	r.Priority, r.Cookie, r.IdleTimeout, r.HardTimeout = u.Priority, u.Cookie, u.IdleTimeout, u.HardTimeout
	// All of the add's flags stay with the rule, as Open vSwitch keeps
	// them: check_overlap and reset_counts act on the add, and flow
	// statistics report them.
	r.Flags = u.Flags
	r.Instructions, r.ID, r.Importance = u.Instructions, u.ID, u.Importance
	r.recycle = p.cfg.Recycle
	ns := stamp(now)
	x.s.created, x.s.lastActive = ns, ns
	r.stats = &x.s
	var hint nodeHint
	if old := t.identical(&u.Match, u.Priority, p, &hint, p.prepared(u, t)); old != nil {
		r.seq = old.seq
		if u.Flags&FlagResetCounts == 0 {
			pk, by := old.Packets(), old.Bytes()
			r.stats.packets.Store(pk)
			r.stats.bytes.Store(by)
			r.stats.lastPackets = pk
		}
		p.remove(old, RemovedDelete, now, nil)
	} else {
		r.seq = p.seq
		p.seq++
	}
	return p.insert(t, r, &hint)
}

type ruleWithStats struct {
	r Rule
	s ruleStats
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
		if r := t.identical(&u.Match, u.Priority, p, nil, p.prepared(u, t)); r != nil && cookieOK(u, r) {
			out = append(out, r)
		}
	} else {
		t.each(func(r *Rule) bool {
			if p.live(r) && u.Match.Covers(&r.Match) && cookieOK(u, r) {
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
			if (u.OutPort == 0 || r.OutputsTo(u.OutPort)) && (u.OutGroup == 0 || r.UsesGroup(u.OutGroup)) {
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

func (p *Pipeline) modify(u *Update, now time.Time) error {
	t, err := p.checkUpdate(u)
	if err != nil {
		return err
	}
	for _, old := range p.selected(t, u, u.Command == CmdModifyStrict) {
		r := &Rule{Match: old.Match, Priority: old.Priority, Cookie: old.Cookie, IdleTimeout: old.IdleTimeout,
			HardTimeout: old.HardTimeout, Flags: old.Flags, Instructions: u.Instructions, ID: old.ID, seq: old.seq,
			Importance: old.Importance}
		r.stats = old.stats
		if u.Flags&FlagResetCounts != 0 {
			r.stats = &ruleStats{created: old.stats.created, lastActive: old.stats.lastActive}
		} else {
			old.recycle = false // r counts on its counters
		}
		p.remove(old, RemovedDelete, now, nil)
		if err := p.insert(t, r, nil); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pipeline) delete(u *Update, now time.Time, removed *[]FlowRemoved) error {
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
			p.remove(r, RemovedDelete, now, removed)
		}
	}
	return nil
}

// identical returns the live rule with exactly this match and priority. It
// looks in the subtables link could have put such a rule in: those of the
// relaxed masks, then the mask's own. If hint is not nil, it fills it in
// with what it found in the mask's own subtable. pre, if not nil, is what
// prefetch found for the update.
func (t *Table) identical(m *Match, pri uint16, p *Pipeline, hint *nodeHint, pre *prepared) *Rule {
	var own *subtable
	if pre != nil {
		own = pre.st
	} else {
		own = t.sub(&m.Mask)
	}
	if !p.cfg.NoMerge && (own == nil || !own.noRelax) {
		for _, g := range mergeLevels {
			cm := coarseMask(&m.Mask, g)
			if cm == m.Mask {
				break
			}
			if r := t.identicalIn(t.sub(&cm), m, pri, p, nil, nil); r != nil {
				return r
			}
		}
	}
	return t.identicalIn(own, m, pri, p, hint, pre)
}

// nodeHint is the node of a match's key in a subtable as identical found it
// (nil if there was none), so that link, which looks for the same node when
// the rule goes to that subtable, need not hash and probe again. It stays
// true until the index changes, and identical and link run back to back.
type nodeHint struct {
	st *subtable // nil: no hint
	h  uint64
	pk [KeyWords]uint64
	sl *slot
	n  *inode
}

func (t *Table) identicalIn(st *subtable, m *Match, pri uint16, p *Pipeline, hint *nodeHint, pre *prepared) *Rule {
	if st == nil {
		return nil
	}
	var (
		h  uint64
		pk [KeyWords]uint64
		sl *slot
		n  *inode
	)
	if pre != nil && pre.st == st {
		h, pk = pre.h, st.pack(&m.Key)
		sl, n = t.state.Load().findPacked(h, st, &pk)
	} else {
		h, pk, sl, n = t.nodeOf(st, &m.Key)
	}
	if hint != nil {
		*hint = nodeHint{st: st, h: h, pk: pk, sl: sl, n: n}
	}
	if n == nil {
		return nil
	}
	for i := range n.ents {
		if r := n.ents[i].r; r.Priority == pri && r.Match == *m && p.live(r) {
			return r
		}
	}
	return nil
}

// each calls fn for every physically present rule until fn returns false.
func (t *Table) each(fn func(*Rule) bool) {
	for _, st := range t.subs {
		for _, n := range st.nodes {
			for i := range n.ents {
				if !fn(n.ents[i].r) {
					return
				}
			}
		}
	}
}

func sortRules(rs []*Rule) {
	slices.SortFunc(rs, func(a, b *Rule) int { return cmp.Compare(b.rankOf(), a.rankOf()) })
}

// Walk classifies k through the pipeline, all tables at one version: it
// starts at table 0, applies each hit's write_metadata to k's metadata and
// follows its goto_table, and stops at a rule without goto_table or at a
// miss (nil in the result when no table-miss entry caught the packet). It
// appends the rules hit to out and returns it; with a large enough out it
// allocates nothing. k is updated in place (metadata).
func (p *Pipeline) Walk(k *Key, out []*Rule, c *Counters) []*Rule {
	base := len(out)
	orig := k.Get(FieldMetadata)
	for {
		v := p.version.Load()
		out = out[:base]
		k.Set(FieldMetadata, orig)
		t := p.tables[0]
		for {
			r := lookup(k, v, t.state.Load(), c)
			c.Lookups++
			out = append(out, r)
			if r == nil {
				break
			}
			next := -1
			for i := range r.Instructions {
				in := &r.Instructions[i]
				switch in.Kind {
				case InstWriteMetadata:
					md := k.Get(FieldMetadata)
					k.Set(FieldMetadata, md&^in.MetadataMask|in.Metadata&in.MetadataMask)
				case InstGotoTable:
					next = int(in.Table)
				}
			}
			if next < 0 || next >= len(p.tables) {
				break
			}
			t = p.tables[next]
		}
		if p.unlinked.Load() <= v {
			return out
		}
		c.Retries++
	}
}

package rules

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// MaxPrefaultRules bounds Config.PrefaultRules. The pipeline keeps a queue
// of spare chunks sized for them in each table's slabs before any is
// made, and the garbage collector scans it: a million rules ahead is far
// more than a burst needs.
const MaxPrefaultRules = 1 << 20

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
	// NoPrereqs accepts matches that lack OpenFlow 1.3's prerequisites
	// (OFPBMC_BAD_PREREQ is not checked; masks and wildcards still are):
	// the fields of a key are then independent, as in ClassBench's five
	// fields, where a header carries ports whatever its protocol. It is for
	// classifying such abstract headers (package classbench), not for a
	// switch: its data plane's keys carry ports only for TCP, UDP and SCTP,
	// so a rule testing ports under another protocol would match the zeros
	// there.
	NoPrereqs bool
	// UnlinkAfter is how long a removed rule stays physically in the index
	// after the version that removes it is published, so that lookups
	// running then (which may still see it) finish without a retry. Zero
	// means 50 µs; a negative value unlinks at the end of every burst.
	UnlinkAfter time.Duration
	// PrefaultRules is how many rules (with their index nodes and
	// entries) the pipeline keeps memory made and mapped for ahead of
	// need, so that adds do not pay for first-touch page faults; Prefault
	// makes it, from another goroutine. Zero keeps none; at most
	// MaxPrefaultRules. A burst's worth (the channel's batch maximum,
	// 1024) takes about 600 KB per table in use.
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

	// paths overrides the index sizes at which lookups change strategy;
	// only tests set it (SetLookupPaths), to run every path on small
	// tables.
	paths lookupPaths
}

// Pipeline is a set of flow tables that share one version clock, so that a
// burst of updates touching several tables is published at once.
//
// # Concurrency
//
// Lookups on its tables run on any number of goroutines and never block.
// ApplyBurst, Expire, Rebalance and Rules are writer methods: one goroutine
// at a time.
type Pipeline struct {
	cfg       Config
	realClock bool // cfg.Now is time.Now, the default (see clock)
	tables    []*Table
	version   atomic.Uint64 // published
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
	// resubmit is set when a rule whose instructions hold a resubmit
	// action is inserted, and cleared at the publication of a version in
	// which no such rule is left (nres; see MayResubmit).
	resubmit atomic.Bool
	_        [64]byte // keep the writer's fields off the readers' cache line

	// writer only
	next uint64
	// nres counts the rules inserted and not removed whose instructions
	// hold a resubmit action.
	nres      int
	seq       uint64
	timed     map[*Rule]struct{}
	pendTable *Table               // the table whose link has a node copy pending (see pendingCopy), or nil
	tails     bool                 // the burst being applied leaves the tails it makes (tailBurst)
	dead      []deadRule           // removed, still in the index; removal versions ascending
	deadArr   []deadRule           // the array dead is a suffix of, from its start (see pushDead)
	stamped   int                  // dead[:stamped] have their publication time
	sel       []*Rule              // selected's buffer
	meterOK   func(id uint32) bool // SetMeterCheck
	// allOrNone is set while ApplyAllTo runs: its hook, called before
	// a burst that succeeded whole is published.
	allOrNone func() error
	failedAt  int // ApplyAllTo: the first update that failed, or -1
	ndead     int // ApplyAllTo: len(dead) when the burst began
	// watch makes bursts and Expire record every change (see Watch);
	// recording is set while the one under way records them into
	// changes, and cur is the index of its update being applied (-1 in
	// Expire).
	watch     bool
	recording bool
	changes   []Change
	cur       int
	masks     maskCache
	// ruleSlab holds the rules (with their counters) that add makes.
	ruleSlab slab[ruleWithStats]
	// prefaultLow is set when a slab has used half of its spare chunks
	// (see PrefaultDue); it is read and cleared on any goroutine.
	prefaultLow atomic.Bool
	// iters adds up the iterations of the filter insertions made so far
	// (see UpdateCost).
	iters int
	// pre is what prefetch worked out for the update being applied
	// (pre[0]) and for the one after it (pre[1]).
	pre [2]prepared
	// hint is add's nodeHint (see identical and link), kept here so that
	// no add zeroes one on its stack.
	hint nodeHint

	// Test hooks: only export_test.go reads or sets them.
	//
	// prepHits counts the updates that found pre[0] theirs: prefetch's
	// work is lost without a sign otherwise. An add to a writer-owned
	// counter per update, so that the burst loop has no branch for it.
	prepHits int
	// leftOut counts the removed rules node copies left out before their
	// turn to be unlinked (see Table.prunable): [0] those no lookup could
	// see, [1] those whose removal was published.
	leftOut [2]int
	// poisonRule, poisonNode and poisonOrder, when not nil, overwrite
	// each rule, index node and subtable order recycling reclaims for
	// reuse.
	poisonRule  func(*ruleWithStats)
	poisonNode  func(*inode)
	poisonOrder func([]orderEntry)
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
	realClock := c.Now == nil
	if realClock {
		c.Now = time.Now
	}
	if c.MaxOccupancy == 0 {
		c.MaxOccupancy = 0.9
	}
	if c.PrefaultRules < 0 || c.PrefaultRules > MaxPrefaultRules {
		return nil, fmt.Errorf("rules: PrefaultRules %d: want 0 to %d", c.PrefaultRules, MaxPrefaultRules)
	}
	p := &Pipeline{cfg: c, timed: map[*Rule]struct{}{}, realClock: realClock}
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

// MayResubmit reports whether an entry with a resubmit action may be
// visible: such an entry is in the pipeline, or was at a version readers
// may still be at. It becomes true when such an entry is inserted, before
// the burst that carried it is published, and false at the publication
// of the first version that has none left (after the version is stored),
// so that a data plane that reads it before it looks anything up never
// finds a resubmit with it false. Rules are counted where they are
// inserted and removed (add, modify, delete, expiry, a bundle's undo,
// rehoming), which every path goes through. Safe from any goroutine.
func (p *Pipeline) MayResubmit() bool { return p.resubmit.Load() }

// Prefault makes, for every table that has had rules added, the memory
// of the next Config.PrefaultRules rules, index nodes and entries that
// isn't made yet, and the larger flow index a table nearing its index's
// growth will copy into, and writes to each of its pages, so that the
// writer's next burst takes memory that is already mapped. It returns the
// number of chunks (and indexes) it made. It may be called from any goroutine, while the writer
// applies a burst too; it takes no lock and changes nothing the writer or
// the lookups read. A caller runs it after each burst, in the time before
// the next one arrives.
func (p *Pipeline) Prefault() int {
	p.prefaultLow.Store(false) // a chunk taken from here on sets it again
	n := p.ruleSlab.fill()
	for _, t := range p.tables {
		n += t.nodeSlab.fill() + t.entSlab.fill() + t.prefaultIndex()
	}
	return n
}

// PrefaultDue reports whether a burst has taken half or more of the spare
// chunks of some table's rules, nodes or entries (or needed one where none
// was left) since Prefault last ran: a caller that runs Prefault after
// bursts need wake it only then. It may be called from any goroutine.
func (p *Pipeline) PrefaultDue() bool { return p.prefaultLow.Load() }

// Prefaulted returns the number of chunks of memory Prefault has made
// that no burst has taken yet (each holds 11 rules, 27 index nodes or 204
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
			all := n.all()
			for i := range all {
				if r := all[i].r; r.Visible(v) {
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

func sortRules(rs []*Rule) {
	slices.SortFunc(rs, func(a, b *Rule) int { return cmp.Compare(b.rankOf(), a.rankOf()) })
}

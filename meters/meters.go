package meters

import (
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"
)

// Meter flags (enum ofp_meter_flags).
const (
	FlagKBPS  uint16 = 1 << 0 // OFPMF_KBPS: rates in kilobits per second
	FlagPKTPS uint16 = 1 << 1 // OFPMF_PKTPS: rates in packets per second
	FlagBurst uint16 = 1 << 2 // OFPMF_BURST: the bands' BurstSize applies
	FlagStats uint16 = 1 << 3 // OFPMF_STATS: collect statistics

	flagsAll = FlagKBPS | FlagPKTPS | FlagBurst | FlagStats
)

// Band types (enum ofp_meter_band_type).
const (
	BandDrop         uint16 = 1      // OFPMBT_DROP
	BandDSCPRemark   uint16 = 2      // OFPMBT_DSCP_REMARK
	BandExperimenter uint16 = 0xffff // OFPMBT_EXPERIMENTER (refused)
)

// Meter ids (enum ofp_meter).
const (
	Max        uint32 = 0xffff0000 // OFPM_MAX: the last flow meter
	Slowpath   uint32 = 0xfffffffd // OFPM_SLOWPATH
	Controller uint32 = 0xfffffffe // OFPM_CONTROLLER
	All        uint32 = 0xffffffff // OFPM_ALL
)

// Command is a meter mod command (enum ofp_meter_mod_command).
type Command uint16

// Commands.
const (
	Add    Command = 0 // OFPMC_ADD
	Modify Command = 1 // OFPMC_MODIFY
	Delete Command = 2 // OFPMC_DELETE
)

// Band is one band of a meter (ofp_meter_band_*). PrecLevel is for
// BandDSCPRemark.
type Band struct {
	Type      uint16
	Rate      uint32 // kbps or packets per second, as the meter's flags say
	BurstSize uint32 // kilobits or packets; used with FlagBurst
	PrecLevel uint8
}

// Config is a meter as a controller sets it.
type Config struct {
	ID    uint32
	Flags uint16
	Bands []Band
}

// Mod is a meter mod (OFPT_METER_MOD): Config.Flags and Config.Bands mean
// nothing for Delete.
type Mod struct {
	Command Command
	Config
}

// Code is an OFPET_METER_MOD_FAILED code (enum ofp_meter_mod_failed_code).
type Code uint16

// Codes.
const (
	CodeUnknown      Code = 0  // OFPMMFC_UNKNOWN
	CodeMeterExists  Code = 1  // OFPMMFC_METER_EXISTS
	CodeInvalidMeter Code = 2  // OFPMMFC_INVALID_METER
	CodeUnknownMeter Code = 3  // OFPMMFC_UNKNOWN_METER
	CodeBadCommand   Code = 4  // OFPMMFC_BAD_COMMAND
	CodeBadFlags     Code = 5  // OFPMMFC_BAD_FLAGS
	CodeBadRate      Code = 6  // OFPMMFC_BAD_RATE
	CodeBadBurst     Code = 7  // OFPMMFC_BAD_BURST
	CodeBadBand      Code = 8  // OFPMMFC_BAD_BAND
	CodeBadBandValue Code = 9  // OFPMMFC_BAD_BAND_VALUE
	CodeOutOfMeters  Code = 10 // OFPMMFC_OUT_OF_METERS
	CodeOutOfBands   Code = 11 // OFPMMFC_OUT_OF_BANDS
)

var codeNames = [...]string{"OFPMMFC_UNKNOWN", "OFPMMFC_METER_EXISTS", "OFPMMFC_INVALID_METER",
	"OFPMMFC_UNKNOWN_METER", "OFPMMFC_BAD_COMMAND", "OFPMMFC_BAD_FLAGS", "OFPMMFC_BAD_RATE",
	"OFPMMFC_BAD_BURST", "OFPMMFC_BAD_BAND", "OFPMMFC_BAD_BAND_VALUE", "OFPMMFC_OUT_OF_METERS",
	"OFPMMFC_OUT_OF_BANDS"}

// String returns the spec's name of c.
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("OFPMMFC_%d", uint16(c))
}

// Error is a refused Mod: Code is the OFPMMFC_* code to answer it with.
type Error struct {
	Code Code
	Why  string
}

func (e *Error) Error() string { return "meters: " + e.Code.String() + ": " + e.Why }

func errorf(c Code, format string, a ...any) *Error {
	return &Error{Code: c, Why: fmt.Sprintf(format, a...)}
}

// TableConfig sets up a Table. The zero value of every field means its
// default.
type TableConfig struct {
	// MaxMeters bounds the meters the table holds (the virtual meters
	// included); default DefaultMaxMeters.
	MaxMeters int
	// MaxBands bounds the bands of one meter; default DefaultMaxBands.
	MaxBands int
	// Clock returns the time in nanoseconds, on a clock that never goes
	// back, for the buckets and the meters' durations; default the
	// monotonic time since the table was made. Tests give a fake clock.
	Clock func() int64
}

// Defaults of TableConfig.
const (
	DefaultMaxMeters = 65536
	DefaultMaxBands  = 8
)

// Features are what the table supports (ofp_meter_features).
type Features struct {
	MaxMeter     uint32
	BandTypes    uint32 // bit 1<<BandDrop | 1<<BandDSCPRemark
	Capabilities uint32 // FlagKBPS | FlagPKTPS | FlagBurst | FlagStats
	MaxBands     uint8
	MaxColor     uint8
}

// Table is a switch's meter table.
//
// # Concurrency
//
// Apply, the one writer method, is called by one goroutine at a time (the
// flow tables' owner). Lookup, Controller, Meters, Len, Now and a Meter's
// methods are safe from any goroutine at any time and never block.
type Table struct {
	cfg  TableConfig
	base time.Time
	idx  atomic.Pointer[index]
	ctrl atomic.Pointer[Meter] // the Controller meter, or nil
	n    atomic.Int64          // meters
	used int                   // writer only: slots of idx holding a meter or a tombstone
}

// index is an open-addressing hash of the meters by id: a power-of-two
// number of slots, at most half of them used (so that a probe always
// ends at an empty one), each an atomic pointer. The writer stores into
// the slots of the current index only: a new meter into an empty slot or
// a tombstone, a modified meter over its predecessor, a tombstone over a
// deleted one. When used slots would pass half, it builds a bigger index
// of the live meters and publishes it with one atomic store; a reader
// still probing the old one sees the table as it was.
type index struct {
	slots []atomic.Pointer[Meter]
}

// tombstone marks a deleted meter's slot: probes go on past it.
var tombstone = &Meter{}

func newIndex(n int) *index { return &index{slots: make([]atomic.Pointer[Meter], n)} }

// NewTable returns an empty meter table; cfg may be nil for defaults.
func NewTable(cfg *TableConfig) *Table {
	t := &Table{base: time.Now()}
	if cfg != nil {
		t.cfg = *cfg
	}
	if t.cfg.MaxMeters <= 0 {
		t.cfg.MaxMeters = DefaultMaxMeters
	}
	if t.cfg.MaxBands <= 0 {
		t.cfg.MaxBands = DefaultMaxBands
	}
	t.cfg.MaxBands = min(t.cfg.MaxBands, 255)
	t.idx.Store(newIndex(8))
	return t
}

// Now returns the table's clock in nanoseconds.
func (t *Table) Now() int64 {
	if t.cfg.Clock != nil {
		return t.cfg.Clock()
	}
	return int64(time.Since(t.base))
}

// Features returns what the table supports.
func (t *Table) Features() Features {
	return Features{
		MaxMeter:     uint32(t.cfg.MaxMeters),
		BandTypes:    1<<BandDrop | 1<<BandDSCPRemark,
		Capabilities: uint32(flagsAll),
		MaxBands:     uint8(t.cfg.MaxBands),
		MaxColor:     0,
	}
}

// Len returns the number of meters.
func (t *Table) Len() int { return int(t.n.Load()) }

// Lookup returns meter id, or nil. It never blocks and allocates nothing.
func (t *Table) Lookup(id uint32) *Meter {
	ix := t.idx.Load()
	mask := len(ix.slots) - 1
	for i := hashID(id) & mask; ; i = (i + 1) & mask {
		m := ix.slots[i].Load()
		if m == nil {
			return nil
		}
		if m.id == id && m != tombstone {
			return m
		}
	}
}

// Controller returns the Controller meter, or nil.
func (t *Table) Controller() *Meter { return t.ctrl.Load() }

// Meters returns the meters in id order, in a new slice.
func (t *Table) Meters() []*Meter {
	ix := t.idx.Load()
	var out []*Meter
	for i := range ix.slots {
		if m := ix.slots[i].Load(); m != nil && m != tombstone {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *Meter) int { return cmpID(a.id, b.id) })
	return out
}

func hashID(id uint32) int { return int((uint64(id) * 0x9e3779b97f4a7c15) >> 32) }

// find returns the slot of meter id in ix, or -1, and the first slot a
// new meter of that id may take (an empty one or a tombstone). Writer
// only.
func (ix *index) find(id uint32) (at, free int) {
	mask := len(ix.slots) - 1
	free = -1
	for i := hashID(id) & mask; ; i = (i + 1) & mask {
		m := ix.slots[i].Load()
		switch {
		case m == nil:
			if free < 0 {
				free = i
			}
			return -1, free
		case m == tombstone:
			if free < 0 {
				free = i
			}
		case m.id == id:
			return i, free
		}
	}
}

// Check checks c as the Config of an ADD or MODIFY (see the package
// documentation for the codes).
func (t *Table) Check(c *Config) error {
	if c.ID == 0 || c.ID > Max && c.ID != Slowpath && c.ID != Controller {
		return errorf(CodeInvalidMeter, "meter id %#x", c.ID)
	}
	if c.Flags&^flagsAll != 0 || c.Flags&(FlagKBPS|FlagPKTPS) == 0 || c.Flags&(FlagKBPS|FlagPKTPS) == FlagKBPS|FlagPKTPS {
		return errorf(CodeBadFlags, "flags %#x: one of kbps and pktps, and burst and stats", c.Flags)
	}
	if len(c.Bands) == 0 || len(c.Bands) > t.cfg.MaxBands {
		return errorf(CodeOutOfBands, "%d bands, 1..%d", len(c.Bands), t.cfg.MaxBands)
	}
	for i := range c.Bands {
		b := &c.Bands[i]
		switch b.Type {
		case BandDrop:
		case BandDSCPRemark:
			if c.ID > Max {
				// Packet-ins are copies: a remark of the frame would
				// change what the flow's other actions send.
				return errorf(CodeBadBand, "band %d: dscp_remark on virtual meter %#x", i, c.ID)
			}
			if b.PrecLevel == 0 {
				return errorf(CodeBadBandValue, "band %d: dscp_remark with prec_level 0", i)
			}
		default:
			return errorf(CodeBadBand, "band %d: type %d", i, b.Type)
		}
		if b.Rate == 0 {
			return errorf(CodeBadRate, "band %d: rate 0", i)
		}
	}
	return nil
}

// Apply applies mod: it checks it (Check), then adds, modifies or deletes
// the meter, each visible to readers at once. It returns the ids of the
// meters a Delete removed (nil otherwise), so that the caller removes the
// flows that use them. An Apply costs O(1), amortised over the index's
// growth.
func (t *Table) Apply(mod *Mod) (deleted []uint32, err error) {
	ix := t.idx.Load()
	switch mod.Command {
	case Add, Modify:
		if err := t.Check(&mod.Config); err != nil {
			return nil, err
		}
		at, free := ix.find(mod.ID)
		if mod.Command == Add && at >= 0 {
			return nil, errorf(CodeMeterExists, "meter %d exists", mod.ID)
		}
		if mod.Command == Modify && at < 0 {
			return nil, errorf(CodeUnknownMeter, "meter %d does not exist", mod.ID)
		}
		if at < 0 && t.Len() >= t.cfg.MaxMeters {
			return nil, errorf(CodeOutOfMeters, "%d meters", t.Len())
		}
		var prev *Meter
		if at >= 0 {
			prev = ix.slots[at].Load()
		}
		m := newMeter(&mod.Config, prev, t.Now())
		switch {
		case at >= 0:
			ix.slots[at].Store(m)
		default:
			if ix.slots[free].Load() == nil {
				if 2*(t.used+1) > len(ix.slots) {
					ix = t.grow()
					_, free = ix.find(mod.ID)
				}
				t.used++
			}
			ix.slots[free].Store(m)
			t.n.Add(1)
		}
		if m.id == Controller {
			t.ctrl.Store(m)
		}
		return nil, nil
	case Delete:
		if mod.ID == All {
			for _, m := range t.Meters() {
				deleted = append(deleted, m.id)
			}
			t.idx.Store(newIndex(8))
			t.used = 0
			t.n.Store(0)
			t.ctrl.Store(nil)
			return deleted, nil
		}
		at, _ := ix.find(mod.ID)
		if at < 0 {
			return nil, nil // as Open vSwitch: deleting what is not there succeeds
		}
		ix.slots[at].Store(tombstone)
		t.n.Add(-1)
		if mod.ID == Controller {
			t.ctrl.Store(nil)
		}
		return []uint32{mod.ID}, nil
	}
	return nil, errorf(CodeBadCommand, "command %d", mod.Command)
}

// grow publishes a new index of the live meters, a quarter full, and
// returns it.
func (t *Table) grow() *index {
	live := t.Meters()
	n := 8
	for n < 4*(len(live)+1) {
		n *= 2
	}
	ix := newIndex(n)
	mask := n - 1
	for _, m := range live {
		i := hashID(m.id) & mask
		for ix.slots[i].Load() != nil {
			i = (i + 1) & mask
		}
		ix.slots[i].Store(m)
	}
	t.used = len(live)
	t.idx.Store(ix)
	return ix
}

func cmpID(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Meter is one meter of a table: its configuration, which does not change
// (a MODIFY makes a new Meter that shares the counters), and its buckets
// and counters, which the data plane changes with atomics.
type Meter struct {
	id    uint32
	flags uint16
	bands []Band
	bkts  []bucket
	st    *meterStats
}

// meterStats are a meter's counters, kept across MODIFY.
type meterStats struct {
	packets atomic.Uint64
	bytes   atomic.Uint64
	created int64 // table clock
}

// bucket is one band's token bucket (see the package documentation) and
// counters, on a cache line of its own.
type bucket struct {
	tat     atomic.Int64  // theoretical arrival time, table clock
	packets atomic.Uint64 // packets the band applied to
	bytes   atomic.Uint64
	perUnit uint64 // nanoseconds per packet (pktps) or byte (kbps), 32.32 fixed point, rounded up
	tol     int64  // the bucket's depth, in nanoseconds at the band's rate
	_       [24]byte
}

func newMeter(c *Config, prev *Meter, now int64) *Meter {
	m := &Meter{id: c.ID, flags: c.Flags, bands: slices.Clone(c.Bands), bkts: make([]bucket, len(c.Bands))}
	if prev != nil {
		m.st = prev.st
	} else {
		m.st = &meterStats{created: now}
	}
	for i := range m.bands {
		b := &m.bands[i]
		bk := &m.bkts[i]
		// Nanoseconds per unit times 2^32, rounded up: 1e9/rate per
		// packet, 8e6/rate per byte (rate in kilobits per second).
		num := uint64(1e9)
		if c.Flags&FlagKBPS != 0 {
			num = 8e6
		}
		hi, lo := bits.Mul64(num, 1<<32)
		q, r := bits.Div64(hi, lo, uint64(b.Rate))
		if r != 0 {
			q++
		}
		bk.perUnit = q
		// The burst as Open vSwitch keeps and reports it: none without
		// FlagBurst, one second at the band's rate for a burst of 0.
		switch {
		case c.Flags&FlagBurst == 0:
			b.BurstSize = 0
		case b.BurstSize == 0:
			b.BurstSize = b.Rate
		}
		burst := uint64(b.BurstSize)
		if burst == 0 {
			burst = uint64(b.Rate) // one second at the band's rate
		}
		// burst/rate seconds: at most 2^32 s, 4.3e18 ns, within int64.
		bk.tol = int64(burst * 1e9 / uint64(b.Rate))
		if prev != nil && i < len(prev.bkts) {
			// The bucket's state carries over a MODIFY, as Open
			// vSwitch's does: what the band let through before still
			// counts (a charge to the old meter racing the copy is
			// lost to it).
			bk.tat.Store(prev.bkts[i].tat.Load())
		} else {
			bk.tat.Store(now)
		}
	}
	return m
}

// ID returns the meter's id.
func (m *Meter) ID() uint32 { return m.id }

// Config returns the meter's configuration (a copy of its bands).
func (m *Meter) Config() Config {
	return Config{ID: m.id, Flags: m.flags, Bands: slices.Clone(m.bands)}
}

// Band returns band i.
func (m *Meter) Band(i int) *Band { return &m.bands[i] }

// Charge measures one packet of n bytes at time now (the table's clock)
// and returns the index of the band that applies to it, or -1 if none:
// of the bands whose bucket the packet exceeds, the one with the highest
// rate. Every other band's bucket is charged. Safe from any goroutine;
// it never blocks and allocates nothing.
func (m *Meter) Charge(now int64, n int) int {
	m.st.packets.Add(1)
	m.st.bytes.Add(uint64(n))
	units := uint64(1)
	if m.flags&FlagKBPS != 0 {
		units = uint64(n)
	}
	best := -1
	for i := range m.bkts {
		if m.bkts[i].take(now, units) {
			continue
		}
		if best < 0 || m.bands[i].Rate > m.bands[best].Rate {
			best = i
		}
	}
	if best >= 0 {
		m.bkts[best].packets.Add(1)
		m.bkts[best].bytes.Add(uint64(n))
	}
	return best
}

// take charges units to the bucket at time now and reports whether they
// conformed (see the package documentation).
func (b *bucket) take(now int64, units uint64) bool {
	hi, lo := bits.Mul64(units, b.perUnit)
	cost := int64(hi<<32 | lo>>32)
	if lo&(1<<32-1) != 0 {
		cost++
	}
	for {
		tat := b.tat.Load()
		next := max(tat, now) + cost
		if next-now > b.tol {
			return false
		}
		if b.tat.CompareAndSwap(tat, next) {
			return true
		}
	}
}

// Stats are a meter's statistics (ofp_meter_stats).
type Stats struct {
	ID            uint32
	FlowCount     uint32 // filled in by the flow tables' owner
	PacketInCount uint64
	ByteInCount   uint64
	Duration      time.Duration
	Bands         []BandStats
}

// BandStats are a band's statistics (ofp_meter_band_stats).
type BandStats struct {
	Packets uint64
	Bytes   uint64
}

// Stats returns m's statistics at time now (the table's clock).
func (m *Meter) Stats(now int64) Stats {
	s := Stats{ID: m.id, PacketInCount: m.st.packets.Load(), ByteInCount: m.st.bytes.Load(),
		Duration: time.Duration(max(0, now-m.st.created)), Bands: make([]BandStats, len(m.bkts))}
	for i := range m.bkts {
		s.Bands[i] = BandStats{m.bkts[i].packets.Load(), m.bkts[i].bytes.Load()}
	}
	return s
}

// RemarkDSCP returns the DSCP dscp with its drop precedence raised by
// prec levels, as a DSCP_REMARK band does: an Assured Forwarding code
// point (RFC 2597: class 1..4, drop precedence 1..3, AFcp = class<<3 |
// precedence<<1) moves to the precedence min(3, precedence+prec) of its
// class; any other code point has no drop precedence and is returned
// unchanged.
func RemarkDSCP(dscp, prec uint8) uint8 {
	class, p := dscp>>3, dscp>>1&3
	if class < 1 || class > 4 || dscp&1 != 0 || p == 0 {
		return dscp
	}
	np := min(3, int(p)+int(prec))
	return dscp&^6 | uint8(np)<<1
}

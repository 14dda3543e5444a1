package groups

import (
	"maps"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// Type is a group type (enum ofp_group_type).
type Type uint8

// Group types.
const (
	TypeAll      Type = 0 // OFPGT_ALL: every bucket
	TypeSelect   Type = 1 // OFPGT_SELECT: one bucket, by flow hash and weight
	TypeIndirect Type = 2 // OFPGT_INDIRECT: the one bucket
	TypeFF       Type = 3 // OFPGT_FF: the first live bucket
)

// Reserved group and port numbers.
const (
	Max     uint32 = 0xffffff00 // OFPG_MAX: the highest group id
	All     uint32 = 0xfffffffc // OFPG_ALL: every group (DELETE, statistics)
	Any     uint32 = 0xffffffff // OFPG_ANY: no group (watch_group)
	PortAny uint32 = 0xffffffff // OFPP_ANY: no port (watch_port)
)

// Limits of the table, which GROUP_FEATURES reports.
const (
	// MaxGroups is the most groups of each type.
	MaxGroups = 65536
	// MaxBuckets is the most buckets of a group.
	MaxBuckets = 1024
	// MaxDepth is the longest chain of groups a packet may go through
	// (a group whose buckets name no group has depth 1): Open vSwitch's
	// translation depth (64), which a chain of groups from table 0 may
	// use whole. Open vSwitch takes a longer chain and fails to
	// translate a packet that goes through it; a GROUP_MOD that makes
	// one is refused here (OFPGMFC_CHAINING_UNSUPPORTED). The data
	// plane keeps a copy of the packet per level of translation depth.
	MaxDepth = 64
)

// Command is a group mod command (enum ofp_group_mod_command).
type Command uint8

// Commands.
const (
	Add    Command = 0 // OFPGC_ADD
	Modify Command = 1 // OFPGC_MODIFY
	Delete Command = 2 // OFPGC_DELETE
)

// OpenFlow error types and codes the table answers with (OpenFlow 1.3.5
// §7.4.4), as rules.Error carries them.
const (
	errTypeBadAction      = 2 // OFPET_BAD_ACTION
	errTypeGroupModFailed = 6 // OFPET_GROUP_MOD_FAILED

	badActionBadOutGroup = 9 // OFPBAC_BAD_OUT_GROUP

	CodeGroupExists         = 0  // OFPGMFC_GROUP_EXISTS
	CodeInvalidGroup        = 1  // OFPGMFC_INVALID_GROUP
	CodeWeightUnsupported   = 2  // OFPGMFC_WEIGHT_UNSUPPORTED
	CodeOutOfGroups         = 3  // OFPGMFC_OUT_OF_GROUPS
	CodeOutOfBuckets        = 4  // OFPGMFC_OUT_OF_BUCKETS
	CodeChainingUnsupported = 5  // OFPGMFC_CHAINING_UNSUPPORTED
	CodeWatchUnsupported    = 6  // OFPGMFC_WATCH_UNSUPPORTED
	CodeLoop                = 7  // OFPGMFC_LOOP
	CodeUnknownGroup        = 8  // OFPGMFC_UNKNOWN_GROUP
	CodeChainedGroup        = 9  // OFPGMFC_CHAINED_GROUP
	CodeBadType             = 10 // OFPGMFC_BAD_TYPE
	CodeBadCommand          = 11 // OFPGMFC_BAD_COMMAND
	CodeBadBucket           = 12 // OFPGMFC_BAD_BUCKET
	CodeBadWatch            = 13 // OFPGMFC_BAD_WATCH
)

// Errf returns the OFPET_GROUP_MOD_FAILED error of code, with why.
func Errf(code int, why string) error {
	return &rules.Error{Type: errTypeGroupModFailed, Code: code, Why: why}
}

// ErrBadOutGroup is OFPBAC_BAD_OUT_GROUP: an action names a group that
// does not exist (or a reserved number).
var ErrBadOutGroup = &rules.Error{Type: errTypeBadAction, Code: badActionBadOutGroup, Why: "no such group"}

// Bucket is one action bucket of a group (ofp_bucket).
type Bucket struct {
	Weight     uint16 // SELECT only: share of the flows (0: none)
	WatchPort  uint32 // PortAny, or the port whose state makes the bucket live
	WatchGroup uint32 // Any, or the group whose liveness makes the bucket live
	Actions    []rules.Action
}

// Mod is a change to the group table (OFPT_GROUP_MOD).
type Mod struct {
	Command Command
	Type    Type
	ID      uint32
	Buckets []Bucket
	// Desc is the caller's own description of the group, kept with it
	// unchanged: ofrules keeps the buckets as they came on the wire, so
	// that GROUP_DESC answers with the very actions (a bucket has no
	// match to tell a TCP port's set_field from a UDP one's, as a flow's
	// does).
	Desc any
}

// Counter is a packet and byte counter that any goroutine may bump.
type Counter struct {
	packets atomic.Uint64
	bytes   atomic.Uint64
}

// Add counts one packet of n bytes.
func (c *Counter) Add(n int) {
	c.packets.Add(1)
	c.bytes.Add(uint64(n))
}

// Load returns the packets and bytes counted.
func (c *Counter) Load() (packets, bytes uint64) { return c.packets.Load(), c.bytes.Load() }

// Group is one group as a snapshot holds it. Its exported fields are the
// group as the controller set it and never change; a MODIFY replaces the
// Group.
type Group struct {
	ID      uint32
	Type    Type
	Buckets []Bucket
	Desc    any // Mod.Desc

	// Counters: the group's, then one per bucket, in their own
	// allocation.
	counters []Counter
	created  time.Time
	// SELECT: cum[i] is the sum of the weights of buckets 0..i, total
	// the sum of all.
	cum   []uint64
	total uint64
	// watched: some bucket watches a port or group (liveness matters).
	watched bool
	// refs are the groups the buckets name, as actions or watches.
	refs []uint32
	// exec[i] is what bucket i runs: its actions as an action set
	// (rules.ExecActionSet), in the order they execute.
	exec [][]rules.Action
	// resubmit: some bucket holds a resubmit action.
	resubmit bool
}

// BucketActions returns the actions bucket i runs, in the order it runs
// them: its actions as an action set (rules.ExecActionSet), as OpenFlow
// 1.3.5 §5.6 and Open vSwitch run a bucket. Buckets keeps them as given.
func (g *Group) BucketActions(i int) []rules.Action { return g.exec[i] }

// Created returns when the group was added (a MODIFY keeps it).
func (g *Group) Created() time.Time { return g.created }

// Count counts a packet of n bytes that entered the group.
func (g *Group) Count(n int) { g.counters[0].Add(n) }

// CountBucket counts a packet of n bytes that bucket i took.
func (g *Group) CountBucket(i, n int) { g.counters[1+i].Add(n) }

// Stats returns the group's packet and byte counters.
func (g *Group) Stats() (packets, bytes uint64) { return g.counters[0].Load() }

// BucketStats returns bucket i's packet and byte counters.
func (g *Group) BucketStats(i int) (packets, bytes uint64) { return g.counters[1+i].Load() }

// Refs returns the ids of the groups g's buckets name (group actions and
// watch_group), each once. The slice is g's: do not modify it.
func (g *Group) Refs() []uint32 { return g.refs }

// Ports tells the table which ports are up, for bucket liveness.
type Ports interface {
	// PortLive reports whether port is up: it exists, its link is up and
	// it is not administratively down (OFPPC_PORT_DOWN).
	PortLive(port uint32) bool
}

// Snapshot is the group table at one moment. It never changes; Table
// publishes a new one for every change.
type Snapshot struct {
	byID map[uint32]*Group
	ids  []uint32 // sorted
	// types counts the groups of each type.
	types [4]int
	// resubmits counts the groups with a resubmit action in a bucket.
	resubmits int
}

var empty = &Snapshot{byID: map[uint32]*Group{}}

// Get returns group id, or nil.
func (s *Snapshot) Get(id uint32) *Group { return s.byID[id] }

// Len returns the number of groups.
func (s *Snapshot) Len() int { return len(s.ids) }

// Groups returns the groups in increasing id order.
func (s *Snapshot) Groups() []*Group {
	out := make([]*Group, len(s.ids))
	for i, id := range s.ids {
		out[i] = s.byID[id]
	}
	return out
}

// BucketLive reports whether bucket b is live (OpenFlow 1.3.5 §6.5).
func (s *Snapshot) BucketLive(b *Bucket, ports Ports) bool {
	return s.bucketLive(b, ports, MaxDepth)
}

func (s *Snapshot) bucketLive(b *Bucket, ports Ports, depth int) bool {
	if b.WatchPort != PortAny && (ports == nil || !ports.PortLive(b.WatchPort)) {
		return false
	}
	if b.WatchGroup != Any {
		g := s.byID[b.WatchGroup]
		return g != nil && depth > 0 && s.groupLive(g, ports, depth-1)
	}
	return true
}

// groupLive reports whether g has a live bucket, as a watch_group tests it.
func (s *Snapshot) groupLive(g *Group, ports Ports, depth int) bool {
	for i := range g.Buckets {
		if s.bucketLive(&g.Buckets[i], ports, depth) {
			return true
		}
	}
	return false
}

// Pick returns the bucket of g that a packet whose flow hash is h takes,
// or -1 for none: for SELECT the bucket h falls on among the live buckets
// of nonzero weight, each with a share of hashes in proportion to its
// weight; for INDIRECT bucket 0; for FAST_FAILOVER the first live bucket.
// For ALL, which takes every bucket, it returns -1. It allocates nothing.
func (s *Snapshot) Pick(g *Group, h uint64, ports Ports) int {
	switch g.Type {
	case TypeIndirect:
		return 0
	case TypeFF:
		for i := range g.Buckets {
			if s.bucketLive(&g.Buckets[i], ports, MaxDepth) {
				return i
			}
		}
	case TypeSelect:
		if !g.watched {
			if g.total == 0 {
				return -1
			}
			v, _ := bits.Mul64(h, g.total) // v in [0, total), uniform for a uniform h
			lo, hi := 0, len(g.cum)-1
			for lo < hi {
				m := (lo + hi) / 2
				if g.cum[m] > v {
					hi = m
				} else {
					lo = m + 1
				}
			}
			return lo
		}
		return s.pickLive(g, h, ports)
	}
	return -1
}

// pickLive is Pick for a SELECT group whose buckets watch something: the
// weights of the live buckets are summed first.
func (s *Snapshot) pickLive(g *Group, h uint64, ports Ports) int {
	var total uint64
	var live [MaxBuckets / 64]uint64
	for i := range g.Buckets {
		b := &g.Buckets[i]
		if b.Weight != 0 && s.bucketLive(b, ports, MaxDepth) {
			live[i/64] |= 1 << (i % 64)
			total += uint64(b.Weight)
		}
	}
	if total == 0 {
		return -1
	}
	v, _ := bits.Mul64(h, total)
	for i := range g.Buckets {
		if live[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		w := uint64(g.Buckets[i].Weight)
		if v < w {
			return i
		}
		v -= w
	}
	return -1
}

// FlowHash returns the hash a SELECT group picks a bucket by: a hash of
// the flow's addresses and ports (Ethernet source and destination,
// EtherType, VLAN, IP protocol, IPv4, IPv6 and ARP addresses, transport
// ports and ICMP type and code) and its ingress port, the same for every
// packet of a flow whatever its DSCP, ECN or TCP flags.
func FlowHash(k *rules.Key) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	mix := func(h, w uint64) uint64 {
		h ^= w
		h *= 0xff51afd7ed558ccd
		return h ^ h>>32
	}
	h = mix(h, k[1])
	h = mix(h, k[9]&^0xffff) // eth_src, not vlan_pcp, dscp, ecn
	h = mix(h, k[3])
	h = mix(h, k[0])
	h = mix(h, k[5])
	h = mix(h, k[6])
	h = mix(h, k[7])
	h = mix(h, k[8])
	h = mix(h, k[2])
	h = mix(h, k[10])
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Table is the group table.
//
// # Concurrency
//
// Load is safe from any goroutine and never blocks. Apply may be called
// from any goroutine; changes are applied one at a time.
type Table struct {
	snap atomic.Pointer[Snapshot]
	// resubmit is set by an add or modify whose buckets hold a resubmit
	// action, before its table is published, and follows the published
	// table's count after (see MayResubmit).
	resubmit atomic.Bool
	// mu makes the changes one at a time.
	mu  sync.Mutex
	now func() time.Time
}

// New returns an empty group table. now, if not nil, is its clock (for
// durations); nil means time.Now.
func New(now func() time.Time) *Table {
	if now == nil {
		now = time.Now
	}
	t := &Table{now: now}
	t.snap.Store(empty)
	return t
}

// Load returns the table as it is now.
func (t *Table) Load() *Snapshot { return t.snap.Load() }

// Apply checks m against the table and applies it, publishing the table
// that results. It returns the ids of the groups a DELETE removed, in
// increasing order (the caller removes the flows that use them), or the
// error to answer m with (a *rules.Error carrying OpenFlow's type and
// code), in which case the table is unchanged. m's buckets are kept: the
// caller must not change them afterwards.
func (t *Table) Apply(m *Mod) (deleted []uint32, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.snap.Load()
	ns, deleted, err := t.Next(s, m)
	if err != nil {
		return nil, err
	}
	if ns != s {
		t.store(ns)
	}
	return deleted, nil
}

// Next returns the table that applying m to s gives, without publishing
// it, with the ids of the groups a DELETE removes (increasing), or the
// error to answer m with (s is then what it was). s is never changed: a
// caller may apply several mods in turn to what Next returns, check them
// all, and publish the last (Publish) or none. m's buckets are kept.
func (t *Table) Next(s *Snapshot, m *Mod) (ns *Snapshot, deleted []uint32, err error) {
	switch m.Command {
	case Add, Modify:
		g, err := check(s, m)
		if err != nil {
			return s, nil, err
		}
		g.created = t.now()
		for i := range m.Buckets {
			for k := range m.Buckets[i].Actions {
				if m.Buckets[i].Actions[k].Kind == rules.ActionResubmit {
					g.resubmit = true
				}
			}
		}
		if g.resubmit && !t.resubmit.Load() {
			t.resubmit.Store(true) // before the snapshot is published
		}
		if old := s.byID[g.ID]; old != nil {
			g.created = old.created // a MODIFY keeps the duration (Open vSwitch does)
		}
		ns := s.with(g)
		if err := ns.checkChains(g.ID); err != nil {
			return s, nil, err
		}
		return ns, nil, nil
	case Delete:
		var del []uint32
		switch {
		case m.ID == All:
			del = s.ids
		case s.byID[m.ID] != nil:
			del = []uint32{m.ID}
		default:
			return s, nil, nil // nothing to delete (Open vSwitch does the same)
		}
		if m.ID != All {
			for _, id := range s.ids {
				if id != m.ID && slices.Contains(s.byID[id].refs, m.ID) {
					return s, nil, Errf(CodeChainedGroup, "another group forwards to or watches it")
				}
			}
		}
		if len(del) == 0 {
			return s, nil, nil
		}
		return s.without(del), slices.Clone(del), nil
	}
	return s, nil, Errf(CodeBadCommand, "unknown command")
}

// MayResubmit reports whether a group with a resubmit action in a bucket
// may be in the table readers load: a Next made one, which may be
// published, or the published table has one. It becomes false when a
// table without one is published (after it is: see
// rules.Pipeline.MayResubmit). Safe from any goroutine.
func (t *Table) MayResubmit() bool { return t.resubmit.Load() }

// store publishes s, then makes MayResubmit follow it.
func (t *Table) store(s *Snapshot) {
	t.snap.Store(s)
	if s.resubmits == 0 && t.resubmit.Load() {
		t.resubmit.Store(false)
	}
}

// Publish makes s, which Next made from the table as it is now (Load),
// the table readers load. Its caller is the table's one writer: no Apply
// may run between the Load and the Publish.
func (t *Table) Publish(s *Snapshot) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.store(s)
}

// Union returns s with the groups of old whose ids s lacks, for readers
// while flows that name either table's groups are in place: every id of
// either resolves, to s's group where both have it. It is no table to
// apply mods to (no chain is checked), and is s itself when s has every
// id of old.
func (s *Snapshot) Union(old *Snapshot) *Snapshot {
	var extra []uint32
	for _, id := range old.ids {
		if s.byID[id] == nil {
			extra = append(extra, id)
		}
	}
	if len(extra) == 0 {
		return s
	}
	ns := &Snapshot{byID: make(map[uint32]*Group, len(s.byID)+len(extra)), types: s.types}
	for id, g := range s.byID {
		ns.byID[id] = g
	}
	ns.resubmits = s.resubmits
	for _, id := range extra {
		g := old.byID[id]
		ns.byID[id] = g
		ns.types[g.Type]++
		ns.resubmits += b2i(g.resubmit)
	}
	ns.ids = slices.Sorted(maps.Keys(ns.byID))
	return ns
}

// check validates an ADD or MODIFY against s and returns the new group.
func check(s *Snapshot, m *Mod) (*Group, error) {
	if m.ID > Max {
		return nil, Errf(CodeInvalidGroup, "reserved group id")
	}
	if m.Type > TypeFF {
		return nil, Errf(CodeBadType, "unknown group type")
	}
	old := s.byID[m.ID]
	switch {
	case m.Command == Add && old != nil:
		return nil, Errf(CodeGroupExists, "")
	case m.Command == Modify && old == nil:
		return nil, Errf(CodeUnknownGroup, "")
	}
	if len(m.Buckets) > MaxBuckets {
		return nil, Errf(CodeOutOfBuckets, "too many buckets")
	}
	n := s.types[m.Type]
	if old != nil && old.Type == m.Type {
		n--
	}
	if n >= MaxGroups {
		return nil, Errf(CodeOutOfGroups, "")
	}
	if m.Type == TypeIndirect && len(m.Buckets) != 1 {
		return nil, Errf(CodeInvalidGroup, "an indirect group has exactly one bucket")
	}
	g := &Group{ID: m.ID, Type: m.Type, Buckets: m.Buckets, Desc: m.Desc, counters: make([]Counter, 1+len(m.Buckets)),
		exec: make([][]rules.Action, len(m.Buckets))}
	for i := range m.Buckets {
		g.exec[i] = rules.ExecActionSet(m.Buckets[i].Actions)
	}
	for i := range m.Buckets {
		b := &m.Buckets[i]
		if b.Weight != 0 && m.Type != TypeSelect {
			return nil, Errf(CodeInvalidGroup, "only select groups have bucket weights")
		}
		live := b.WatchPort != PortAny || b.WatchGroup != Any
		switch {
		case live && (m.Type == TypeAll || m.Type == TypeIndirect):
			return nil, Errf(CodeWatchUnsupported, "only select and fast failover buckets watch")
		case !live && m.Type == TypeFF:
			return nil, Errf(CodeInvalidGroup, "a fast failover bucket watches a port or a group")
		}
		if b.WatchGroup != Any {
			switch {
			case b.WatchGroup > Max:
				return nil, Errf(CodeBadWatch, "reserved watch_group")
			case b.WatchGroup == m.ID:
				return nil, Errf(CodeLoop, "a bucket watches its own group")
			case s.byID[b.WatchGroup] == nil:
				return nil, Errf(CodeBadWatch, "watch_group does not exist")
			}
			g.addRef(b.WatchGroup)
		}
		g.watched = g.watched || live
		for _, a := range b.Actions {
			if a.Kind != rules.ActionGroup {
				continue
			}
			switch {
			case a.Group > Max:
				return nil, ErrBadOutGroup
			case a.Group == m.ID:
				return nil, Errf(CodeLoop, "a bucket forwards to its own group")
			case s.byID[a.Group] == nil:
				return nil, ErrBadOutGroup
			}
			g.addRef(a.Group)
		}
		if m.Type == TypeSelect {
			g.total += uint64(b.Weight)
			g.cum = append(g.cum, g.total)
		}
	}
	return g, nil
}

func (g *Group) addRef(id uint32) {
	if !slices.Contains(g.refs, id) {
		g.refs = append(g.refs, id)
	}
}

// with returns s with g added or replacing the group of its id.
func (s *Snapshot) with(g *Group) *Snapshot {
	ns := &Snapshot{byID: make(map[uint32]*Group, len(s.byID)+1), types: s.types, resubmits: s.resubmits}
	for id, o := range s.byID {
		ns.byID[id] = o
	}
	if old := s.byID[g.ID]; old != nil {
		ns.types[old.Type]--
		ns.resubmits -= b2i(old.resubmit)
		ns.ids = s.ids
	} else {
		i, _ := slices.BinarySearch(s.ids, g.ID)
		ns.ids = slices.Insert(slices.Clone(s.ids), i, g.ID)
	}
	ns.byID[g.ID] = g
	ns.types[g.Type]++
	ns.resubmits += b2i(g.resubmit)
	return ns
}

// without returns s without the groups del (sorted ids it holds).
func (s *Snapshot) without(del []uint32) *Snapshot {
	ns := &Snapshot{byID: make(map[uint32]*Group, len(s.byID)), types: s.types, resubmits: s.resubmits}
	for _, id := range s.ids {
		if _, gone := slices.BinarySearch(del, id); gone {
			ns.types[s.byID[id].Type]--
			ns.resubmits -= b2i(s.byID[id].resubmit)
			continue
		}
		ns.byID[id] = s.byID[id]
		ns.ids = append(ns.ids, id)
	}
	return ns
}

// checkChains checks, after group id changed, that no chain of groups
// through it loops or is deeper than MaxDepth. Only chains through id can
// have changed: the groups it reaches, and those that reach it.
func (s *Snapshot) checkChains(id uint32) error {
	// Depth below id (id included); a loop shows as reaching id again.
	below, err := s.depth(id, id, map[uint32]int{})
	if err != nil {
		return err
	}
	// Depth above: the longest chain of groups that reach id.
	above := s.height(id, map[uint32]int{})
	if below+above > MaxDepth {
		return Errf(CodeChainingUnsupported, "chain of groups too deep")
	}
	return nil
}

// depth returns the length of the longest chain from g down, failing with
// OFPGMFC_LOOP if it reaches root again, OFPGMFC_CHAINING_UNSUPPORTED if
// it is longer than MaxDepth; memo holds the answers found, so that the
// work is one visit a group however many chains share it. (No loop
// avoids root: the table had none before root changed.)
func (s *Snapshot) depth(g, root uint32, memo map[uint32]int) (int, error) {
	if d, ok := memo[g]; ok {
		return d, nil
	}
	d := 0
	for _, r := range s.byID[g].refs {
		if r == root {
			return 0, Errf(CodeLoop, "the chain of groups loops")
		}
		rd, err := s.depth(r, root, memo)
		if err != nil {
			return 0, err
		}
		d = max(d, rd)
	}
	if 1+d > MaxDepth {
		return 0, Errf(CodeChainingUnsupported, "chain of groups too deep")
	}
	memo[g] = 1 + d
	return 1 + d, nil
}

// height returns the length of the longest chain of groups leading to g,
// g excluded; memo holds the answers found.
func (s *Snapshot) height(g uint32, memo map[uint32]int) int {
	if h, ok := memo[g]; ok {
		return h
	}
	memo[g] = 0 // no loop exists above g: the table had none before
	h := 0
	for _, id := range s.ids {
		if slices.Contains(s.byID[id].refs, g) {
			h = max(h, 1+s.height(id, memo))
		}
	}
	memo[g] = h
	return h
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

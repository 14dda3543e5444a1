// Package oracle holds a naive reference classifier for tests and fuzzers:
// a linear scan over flow entries with OpenFlow FLOW_MOD semantics. It
// favours being obviously right over being fast. (ClassBench's own
// first-match scan is classbench.First.)
package oracle

import (
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// Entry is one flow entry of the oracle.
type Entry struct {
	Table        uint8
	Match        rules.Match
	Ranges       rules.Ranges // port ranges (rules.Update.Ranges)
	Priority     uint16
	Seq          uint64 // insertion order: among equal priorities the lower wins
	ID           int
	Cookie       uint64
	IdleTimeout  uint16
	HardTimeout  uint16
	Flags        rules.FlowFlags
	Instructions []rules.Instruction

	Packets     uint64
	Created     time.Time
	lastPackets uint64
	lastActive  time.Time
}

// Flows is a linear-scan flow table set with FLOW_MOD semantics.
type Flows struct {
	Tables      int
	StrictPorts bool
	NoPrereqs   bool       // as rules.Config.NoPrereqs, for port ranges only
	entries     [][]*Entry // per table, unordered
	seq         uint64
}

// NewFlows returns an empty oracle with n tables.
func NewFlows(n int) *Flows {
	return &Flows{Tables: n, entries: make([][]*Entry, n)}
}

// Entries returns table t's entries in priority order (then insertion order).
func (f *Flows) Entries(t uint8) []*Entry {
	out := append([]*Entry(nil), f.entries[t]...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && better(out[j], out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func better(a, b *Entry) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.Seq < b.Seq
}

// Lookup returns the first match of k in table t by a scan of every entry.
func (f *Flows) Lookup(t uint8, k *rules.Key) *Entry {
	var best *Entry
	for _, e := range f.entries[t] {
		if e.Matches(k) && (best == nil || better(e, best)) {
			best = e
		}
	}
	return best
}

// Matches reports whether k matches e: its match and its port ranges.
func (e *Entry) Matches(k *rules.Key) bool { return e.Match.Matches(k) && inRanges(&e.Ranges, k) }

// Removed is a flow-removed record of the oracle.
type Removed struct {
	Entry  *Entry
	Reason rules.RemovedReason
}

// Apply applies one FLOW_MOD at time now and returns its error (nil, or one
// matching the rules sentinels under errors.Is) and any flow-removed records.
func (f *Flows) Apply(u *rules.Update, now time.Time) ([]Removed, error) {
	switch u.Command {
	case rules.CmdAdd, rules.CmdModify, rules.CmdModifyStrict:
		if int(u.Table) >= f.Tables {
			return nil, rules.ErrBadTableID
		}
		var err error
		if f.StrictPorts {
			err = u.Match.ValidateStrict()
		} else {
			err = u.Match.Validate()
		}
		if err != nil {
			return nil, err
		}
		for _, in := range u.Instructions {
			if in.Kind == rules.InstGotoTable && (in.Table <= u.Table || int(in.Table) >= f.Tables) {
				return nil, rules.ErrBadGotoTable
			}
			for _, a := range in.Actions {
				if a.Kind == rules.ActionOutput && (a.Port == 0 || a.Port == rules.PortAny || a.Port > rules.PortMax && a.Port < rules.PortInPort) {
					return nil, rules.ErrBadOutPort
				}
			}
		}
		if err := rules.CheckActions(&u.Match, u.Instructions); err != nil {
			return nil, err
		}
		if u.Ranges != (rules.Ranges{}) && (u.Match.Has(rules.FieldARPSPA) || u.Match.Has(rules.FieldARPTPA)) {
			return nil, rules.ErrBadPrereq
		}
		if u.Ranges != (rules.Ranges{}) && !f.NoPrereqs {
			if p, m := u.Match.Get(rules.FieldIPProto); m != 0xff || p != rules.IPProtoTCP && p != rules.IPProtoUDP && p != rules.IPProtoSCTP {
				return nil, rules.ErrBadPrereq
			}
		}
	}
	cookieOK := func(e *Entry) bool { return e.Cookie&u.CookieMask == u.Cookie&u.CookieMask }
	strictSame := func(e *Entry) bool { return e.Match == u.Match && e.Ranges == u.Ranges && e.Priority == u.Priority }
	switch u.Command {
	case rules.CmdAdd:
		es := f.entries[u.Table]
		if u.Flags&rules.FlagCheckOverlap != 0 {
			for _, e := range es {
				if e.Priority == u.Priority && overlaps(e, u) && !(e.Match == u.Match && e.Ranges == u.Ranges) {
					return nil, rules.ErrOverlap
				}
			}
		}
		n := &Entry{Table: u.Table, Match: u.Match, Ranges: u.Ranges, Priority: u.Priority, ID: u.ID, Cookie: u.Cookie,
			IdleTimeout: u.IdleTimeout, HardTimeout: u.HardTimeout,
			Flags: u.Flags, Instructions: u.Instructions,
			Created: now, lastActive: now}
		for i, e := range es {
			if strictSame(e) {
				n.Seq = e.Seq
				if u.Flags&rules.FlagResetCounts == 0 {
					n.Packets, n.lastPackets = e.Packets, e.Packets
				}
				es[i] = n
				return nil, nil
			}
		}
		n.Seq = f.seq
		f.seq++
		f.entries[u.Table] = append(es, n)
	case rules.CmdModify, rules.CmdModifyStrict:
		for i, e := range f.entries[u.Table] {
			sel := covers(u, e)
			if u.Command == rules.CmdModifyStrict {
				sel = strictSame(e)
			}
			if sel && cookieOK(e) {
				c := *e
				c.Instructions = u.Instructions
				if u.Flags&rules.FlagResetCounts != 0 {
					c.Packets, c.lastPackets = 0, 0
				}
				f.entries[u.Table][i] = &c
			}
		}
	case rules.CmdDelete, rules.CmdDeleteStrict:
		var tables []uint8
		if u.Table == rules.TableAll {
			for t := range f.Tables {
				tables = append(tables, uint8(t))
			}
		} else if int(u.Table) < f.Tables {
			tables = []uint8{u.Table}
		} else {
			return nil, rules.ErrBadTableID
		}
		var rem []Removed
		for _, t := range tables {
			kept := f.entries[t][:0:0]
			for _, e := range f.entries[t] {
				sel := covers(u, e)
				if u.Command == rules.CmdDeleteStrict {
					sel = strictSame(e)
				}
				r := rules.Rule{Instructions: e.Instructions}
				if sel && cookieOK(e) && (u.OutPort == 0 || r.OutputsTo(u.OutPort)) && (u.OutGroup == 0 || r.UsesGroup(u.OutGroup)) {
					if e.Flags&rules.FlagSendFlowRem != 0 {
						rem = append(rem, Removed{Entry: e, Reason: rules.RemovedDelete})
					}
					continue
				}
				kept = append(kept, e)
			}
			f.entries[t] = kept
		}
		return rem, nil
	default:
		return nil, rules.ErrBadCommand
	}
	return nil, nil
}

// Hit counts a packet against e.
func (f *Flows) Hit(e *Entry) { e.Packets++ }

// Expire removes the entries whose timeouts have passed at now, with the
// same idle rule as rules.Pipeline.Expire: idle time counts from the last
// Expire that saw the packet counter change.
func (f *Flows) Expire(now time.Time) []Removed {
	var rem []Removed
	for t := range f.entries {
		kept := f.entries[t][:0:0]
		for _, e := range f.entries[t] {
			if e.Packets != e.lastPackets {
				e.lastPackets, e.lastActive = e.Packets, now
			}
			reason := rules.RemovedReason(255)
			switch {
			case e.HardTimeout != 0 && now.Sub(e.Created) >= time.Duration(e.HardTimeout)*time.Second:
				reason = rules.RemovedHardTimeout
			case e.IdleTimeout != 0 && now.Sub(e.lastActive) >= time.Duration(e.IdleTimeout)*time.Second:
				reason = rules.RemovedIdleTimeout
			}
			if reason == 255 {
				kept = append(kept, e)
				continue
			}
			if e.Flags&rules.FlagSendFlowRem != 0 {
				rem = append(rem, Removed{Entry: e, Reason: reason})
			}
		}
		f.entries[t] = kept
	}
	return rem
}

// The port fields and their ranges, for the brute-force set tests below.
var portFields = [2]rules.Field{rules.FieldL4Src, rules.FieldL4Dst}

func rangeOf(rg *rules.Ranges, i int) rules.PortRange {
	if i == 0 {
		return rg.Src
	}
	return rg.Dst
}

func inRanges(rg *rules.Ranges, k *rules.Key) bool {
	for i, f := range portFields {
		if pr := rangeOf(rg, i); pr != (rules.PortRange{}) {
			if x := uint16(k.Get(f)); x < pr.Lo || x > pr.Hi {
				return false
			}
		}
	}
	return true
}

// admits reports whether port x meets field i of a match and its ranges.
func admits(m *rules.Match, rg *rules.Ranges, i int, x uint16) bool {
	v, mk := m.Get(portFields[i])
	pr := rangeOf(rg, i)
	return uint64(x)&mk == v && (pr == (rules.PortRange{}) || pr.Lo <= x && x <= pr.Hi)
}

// withoutPorts returns m with the port fields wildcarded.
func withoutPorts(m rules.Match) rules.Match {
	for _, f := range portFields {
		m.Clear(f)
	}
	return m
}

// covers reports whether every packet e matches, u (its match and ranges)
// matches too. Port fields are compared as sets, port by port, over all
// 65536 ports when ranges are involved; the other fields by Match.Covers.
func covers(u *rules.Update, e *Entry) bool {
	if u.Ranges == (rules.Ranges{}) && e.Ranges == (rules.Ranges{}) {
		return u.Match.Covers(&e.Match)
	}
	um, em := withoutPorts(u.Match), withoutPorts(e.Match)
	if !um.Covers(&em) {
		return false
	}
	for i := range portFields {
		for x := range 1 << 16 {
			if admits(&e.Match, &e.Ranges, i, uint16(x)) && !admits(&u.Match, &u.Ranges, i, uint16(x)) {
				return false
			}
		}
	}
	return true
}

// overlaps reports whether some packet matches both e and u, port fields
// compared as sets over all 65536 ports when ranges are involved.
func overlaps(e *Entry, u *rules.Update) bool {
	if u.Ranges == (rules.Ranges{}) && e.Ranges == (rules.Ranges{}) {
		return e.Match.Overlaps(&u.Match)
	}
	um, em := withoutPorts(u.Match), withoutPorts(e.Match)
	if !um.Overlaps(&em) {
		return false
	}
	for i := range portFields {
		both := false
		for x := range 1 << 16 {
			if admits(&e.Match, &e.Ranges, i, uint16(x)) && admits(&u.Match, &u.Ranges, i, uint16(x)) {
				both = true
				break
			}
		}
		if !both {
			return false
		}
	}
	return true
}

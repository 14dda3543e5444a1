package rules_test

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// tcpTo is a TCP match from 10.0.0.0/8.
func tcpTo() rules.Match {
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	m.SetPrefix(rules.FieldIPv4Src, 10<<24, 8)
	return m
}

func tcpKey(sport, dport uint16) rules.Key {
	var k rules.Key
	k.Set(rules.FieldEthType, rules.EthTypeIPv4)
	k.Set(rules.FieldIPProto, rules.IPProtoTCP)
	k.Set(rules.FieldIPv4Src, 10<<24|5)
	k.Set(rules.FieldL4Src, uint64(sport))
	k.Set(rules.FieldL4Dst, uint64(dport))
	return k
}

// rangedAdd is an add of tcpTo with destination ports [lo, hi].
func rangedAdd(lo, hi uint16, pri uint16, id int) rules.Update {
	u := rules.Update{Match: tcpTo(), Priority: pri, ID: id}
	u.SetPortRange(rules.FieldL4Dst, lo, hi)
	return u
}

func TestSetPortRange(t *testing.T) {
	u := rangedAdd(80, 80, 1, 0)
	if !u.Ranges.IsZero() || !u.Match.Exact(rules.FieldL4Dst, 80) {
		t.Errorf("80-80: ranges %v, match %v", u.Ranges, u.Match)
	}
	u = rangedAdd(0, 65535, 1, 0)
	if !u.Ranges.IsZero() || u.Match.Has(rules.FieldL4Dst) {
		t.Errorf("0-65535: ranges %v", u.Ranges)
	}
	u.Match.SetExact(rules.FieldL4Dst, 22)
	u.SetPortRange(rules.FieldL4Dst, 1024, 65535)
	if u.Ranges != (rules.Ranges{Dst: rules.PortRange{Lo: 1024, Hi: 65535}}) || u.Match.Has(rules.FieldL4Dst) {
		t.Errorf("1024-65535 over 22: ranges %v, match %v", u.Ranges, u.Match)
	}
	if s := u.Ranges.String(); s != "l4_dst=1024-65535" {
		t.Errorf("String: %q", s)
	}
}

// TestRangesValidate: the pipeline refuses ranges SetPortRange would not
// make, a ranged port tested in the match, a non-prefix mask on the other
// port, and ranges without TCP, UDP or SCTP unless NoPrereqs.
func TestRangesValidate(t *testing.T) {
	cases := []struct {
		name string
		u    rules.Update
		want error
	}{
		{"lo > hi", rules.Update{Match: tcpTo(), Ranges: rules.Ranges{Dst: rules.PortRange{Lo: 9, Hi: 8}}}, rules.ErrBadValue},
		{"lo == hi", rules.Update{Match: tcpTo(), Ranges: rules.Ranges{Dst: rules.PortRange{Lo: 9, Hi: 9}}}, rules.ErrBadValue},
		{"full", rules.Update{Match: tcpTo(), Ranges: rules.Ranges{Src: rules.PortRange{Lo: 0, Hi: 65535}}}, rules.ErrBadValue},
		{"port in match too", func() rules.Update {
			u := rangedAdd(10, 20, 1, 0)
			u.Match.SetExact(rules.FieldL4Dst, 15)
			return u
		}(), rules.ErrBadValue},
		{"non-prefix mask", func() rules.Update {
			u := rangedAdd(10, 20, 1, 0)
			u.Match.Set(rules.FieldL4Src, 1, 0x00ff)
			return u
		}(), rules.ErrBadMask},
		{"no protocol", func() rules.Update {
			u := rangedAdd(10, 20, 1, 0)
			u.Match.Clear(rules.FieldIPProto)
			return u
		}(), rules.ErrBadPrereq},
	}
	for _, c := range cases {
		p, _ := rules.New(nil)
		if err := p.ApplyBurst([]rules.Update{c.u}, true).Errs[0]; !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	p, _ := rules.New(&rules.Config{NoPrereqs: true})
	u := rangedAdd(10, 20, 1, 0)
	u.Match.SetPrefix(rules.FieldARPSPA, 1<<31, 1)
	if err := p.ApplyBurst([]rules.Update{u}, true).Errs[0]; !errors.Is(err, rules.ErrBadPrereq) {
		t.Errorf("ARP address with ranges under NoPrereqs: %v, want bad prereq", err)
	}
	u = rangedAdd(10, 20, 1, 0)
	u.Match.Clear(rules.FieldIPProto)
	if err := p.ApplyBurst([]rules.Update{u}, true).Errs[0]; err != nil {
		t.Errorf("no protocol with NoPrereqs: %v", err)
	}
	u = rangedAdd(10, 20, 1, 0)
	u.Match.Set(rules.FieldL4Src, 0x100, 0xff00)
	if err := p.ApplyBurst([]rules.Update{u}, true).Errs[0]; err != nil {
		t.Errorf("prefix on the other port: %v", err)
	}
}

// TestRangesSemantics: lookups test ranges; identity is match, ranges and
// priority; non-strict selection compares port sets; the overlap check
// intersects them.
func TestRangesSemantics(t *testing.T) {
	p, err := rules.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	apply := func(us ...rules.Update) []error { return p.ApplyBurst(us, true).Errs }
	if errs := apply(rangedAdd(1000, 1999, 10, 1), rangedAdd(1500, 2499, 10, 2), rangedAdd(0, 65535, 5, 3)); errors.Join(errs...) != nil {
		t.Fatal(errs)
	}
	tbl := p.Table(0)
	look := func(dport uint16) int {
		k := tcpKey(7, dport)
		r := tbl.Lookup(&k)
		if r == nil {
			return -1
		}
		if !r.Matches(&k) {
			t.Errorf("port %d: rule %d does not match the key", dport, r.ID)
		}
		return r.ID
	}
	for _, c := range []struct {
		port uint16
		want int
	}{{999, 3}, {1000, 1}, {1999, 1}, {2000, 2}, {2499, 2}, {2500, 3}} {
		if got := look(c.port); got != c.want {
			t.Errorf("port %d: rule %d, want %d", c.port, got, c.want)
		}
	}
	// ADD of the same match and ranges replaces; other ranges add.
	k := tcpKey(7, 1200)
	tbl.Lookup(&k).Hit(100)
	if errs := apply(rangedAdd(1000, 1999, 10, 4)); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if r := tbl.Lookup(&k); r.ID != 4 || r.Packets() != 1 || len(p.Rules(0)) != 3 {
		t.Errorf("replacing add: rule %d, %d packets, %d rules", r.ID, r.Packets(), len(p.Rules(0)))
	}
	// DELETE_STRICT needs the ranges too.
	del := rangedAdd(1000, 1998, 10, 0)
	del.Command = rules.CmdDeleteStrict
	apply(del)
	if len(p.Rules(0)) != 3 {
		t.Errorf("strict delete of other ranges removed a rule")
	}
	// Non-strict DELETE: 1500-2600 covers rule 2 (1500-2499) only.
	del = rangedAdd(1500, 2600, 0, 0)
	del.Command = rules.CmdDelete
	apply(del)
	if got := look(2000); got != 3 || len(p.Rules(0)) != 2 {
		t.Errorf("after delete 1500-2600: port 2000 -> %d, %d rules", got, len(p.Rules(0)))
	}
	// A value and mask covers a range inside its block only: 1024/0xfc00
	// (1024-2047) does not hold rule 4 (1000-1999), 0/0xf800 (0-2047)
	// does.
	del = rules.Update{Command: rules.CmdDelete, Match: tcpTo()}
	del.Match.Set(rules.FieldL4Dst, 1024, 0xfc00)
	apply(del)
	if len(p.Rules(0)) != 2 {
		t.Errorf("1024/0xfc00 deleted a rule of 1000-1999")
	}
	del.Match.Set(rules.FieldL4Dst, 0, 0xf800) // 0-2047
	apply(del)
	if got := look(1200); got != 3 || len(p.Rules(0)) != 1 {
		t.Errorf("after delete 0/0xf800: port 1200 -> %d, %d rules", got, len(p.Rules(0)))
	}
	// Overlap check: a same-priority rule of ports 80/0xfff0 (80-95)
	// overlaps 90-100, not 96-100.
	var m rules.Match = tcpTo()
	m.Set(rules.FieldL4Dst, 80, 0xfff0)
	if errs := apply(rules.Update{Match: m, Priority: 20, ID: 5}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	u := rangedAdd(90, 100, 20, 6)
	u.Flags = rules.FlagCheckOverlap
	if err := apply(u)[0]; !errors.Is(err, rules.ErrOverlap) {
		t.Errorf("90-100 over 80/0xfff0: %v, want overlap", err)
	}
	u = rangedAdd(96, 100, 20, 6)
	u.Flags = rules.FlagCheckOverlap
	if err := apply(u)[0]; err != nil {
		t.Errorf("96-100 over 80/0xfff0: %v", err)
	}
	// MODIFY_STRICT finds the rule by its ranges.
	mod := rangedAdd(96, 100, 20, 0)
	mod.Command = rules.CmdModifyStrict
	mod.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 3}}}}
	apply(mod)
	if k := tcpKey(7, 97); tbl.Lookup(&k).Instructions == nil {
		t.Errorf("modify_strict by ranges left the rule alone")
	}
}

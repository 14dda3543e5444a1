package rules_test

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestNoPrereqs: Config.NoPrereqs takes ports under ICMP and without a
// protocol, and the entries match keys that carry those fields; masks and
// wildcards are still checked, and without it the same match is refused.
func TestNoPrereqs(t *testing.T) {
	icmp21 := func() rules.Match {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPProto, rules.IPProtoICMP)
		m.SetExact(rules.FieldL4Src, 21)
		return m
	}
	var anyProto rules.Match
	anyProto.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	anyProto.Set(rules.FieldL4Dst, 0x400, 0xfc00)
	ups := []rules.Update{
		{Command: rules.CmdAdd, Match: icmp21(), Priority: 10, ID: 1},
		{Command: rules.CmdAdd, Match: anyProto, Priority: 5, ID: 2},
	}
	if errs := mustNew(t, nil).ApplyBurst(ups, false).Errs; !errors.Is(errs[0], rules.ErrBadPrereq) || !errors.Is(errs[1], rules.ErrBadPrereq) {
		t.Fatalf("without NoPrereqs: %v", errs)
	}
	p := mustNew(t, &rules.Config{NoPrereqs: true})
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	key := func(proto uint8, sport, dport uint16) rules.Key {
		var k rules.Key
		k.Set(rules.FieldEthType, rules.EthTypeIPv4)
		k.Set(rules.FieldIPProto, uint64(proto))
		k.Set(rules.FieldL4Src, uint64(sport))
		k.Set(rules.FieldL4Dst, uint64(dport))
		return k
	}
	for _, c := range []struct {
		k    rules.Key
		want int
	}{
		{key(1, 21, 0), 1}, {key(1, 22, 0), 0}, {key(6, 21, 0), 0},
		{key(47, 0, 1024), 2}, {key(1, 21, 2047), 1}, {key(1, 20, 2048), 0},
	} {
		got := 0
		if r := p.Table(0).Lookup(&c.k); r != nil {
			got = r.ID
		}
		if got != c.want {
			t.Errorf("key %v: rule %d, want %d", c.k, got, c.want)
		}
	}
	bad := icmp21()
	bad.Set(rules.FieldIPProto, 1, 0xfe)
	wild := icmp21()
	wild.Key.Set(rules.FieldL4Dst, 7)
	errs := p.ApplyBurst([]rules.Update{{Command: rules.CmdAdd, Match: bad}, {Command: rules.CmdAdd, Match: wild}}, false).Errs
	if !errors.Is(errs[0], rules.ErrBadMask) || !errors.Is(errs[1], rules.ErrBadWildcards) {
		t.Errorf("NoPrereqs let through %v", errs)
	}
}

func mustNew(t *testing.T, cfg *rules.Config) *rules.Pipeline {
	t.Helper()
	p, err := rules.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

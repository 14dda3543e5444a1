package rules_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// TestHostHomeConcurrent: bursts that push a host mask's share of the
// table across both of rehome's bounds, over and over, so that its rules
// move to merged subtables and back while lookups run; every answer is
// the oracle's at the version the lookup read. With Recycle, the readers
// enter and leave around their lookups and moved rules go back to the
// slab.
func TestHostHomeConcurrent(t *testing.T) {
	for _, v := range []struct {
		ua      time.Duration
		recycle bool
	}{{-1, false}, {0, false}, {50 * time.Microsecond, false}, {50 * time.Microsecond, true}} {
		t.Run(fmt.Sprintf("unlink-after=%v/recycle=%v", v.ua, v.recycle), func(t *testing.T) {
			testHostHomeConcurrent(t, v.ua, v.recycle)
		})
	}
}

func testHostHomeConcurrent(t *testing.T, unlinkAfter time.Duration, recycle bool) {
	rounds := 300
	if raceEnabled {
		rounds = 100
	}
	p, o, snaps, record := newOracled(t, &rules.Config{Filter: rules.FilterBloomCuckoo, FilterBuckets: 4, Seed: 3,
		UnlinkAfter: unlinkAfter, Recycle: recycle})
	if recycle {
		rules.Poison(p)
	}
	const hosts, others = 24, 64
	host := func(i int) rules.Match {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPv4Dst, uint64(10<<24|i))
		return m
	}
	// Every fourth other rule is of a host mask (TCP to port 80 of a
	// host) that relaxes into the subtable the hosts merge into: merged,
	// the hosts share it and save a visit (see rehome).
	other := func(i int) rules.Match {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		if i%4 == 3 {
			m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
			m.SetExact(rules.FieldIPv4Dst, uint64(10<<24|i%(hosts+2)))
			m.SetExact(rules.FieldL4Dst, 80)
			return m
		}
		m.SetPrefix(rules.FieldIPv4Src, uint64(20<<24|i<<8), 24)
		return m
	}
	rng := rand.New(rand.NewPCG(25, 26))
	keys := make([]rules.Key, 64)
	for i := range keys {
		k := &keys[i]
		k.Set(rules.FieldEthType, rules.EthTypeIPv4)
		k.Set(rules.FieldIPProto, rules.IPProtoTCP)
		src := uint64(172<<24 | rng.IntN(1<<16))
		if i%2 == 0 {
			src = uint64(20<<24 | rng.IntN(others+4)<<8 | 5)
		}
		k.Set(rules.FieldIPv4Src, src)
		k.Set(rules.FieldIPv4Dst, uint64(10<<24|rng.IntN(hosts+2)))
		k.Set(rules.FieldL4Src, uint64(1024+i))
		k.Set(rules.FieldL4Dst, 80)
	}
	ck := newCheckers(2)
	for g := range 2 {
		rd := p.NewReader()
		ck.wg.Go(func() {
			defer rd.Close()
			var c rules.Counters
			out := make([]*rules.Rule, 8)
			for i := 0; !ck.stop.Load(); i++ {
				rd.Enter()
				if !ck.lookupRound(p.Table(0), keys, snaps, g, i, out, &c) {
					rd.Leave()
					return
				}
				rd.Leave()
			}
		})
	}
	hm := host(0)
	flips, merged := 0, false
	for round := range rounds {
		// Ten rounds of adding the other rules (the hosts become a
		// minority), then ten of deleting them (the hosts are the
		// table); host rules come and go throughout.
		crowd := round/10%2 == 0
		ups := make([]rules.Update, 1+rng.IntN(24))
		for i := range ups {
			u := &ups[i]
			if rng.IntN(3) == 0 {
				u.Match, u.Priority = host(rng.IntN(hosts)), 100
				if rng.IntN(3) == 0 {
					u.Command = rules.CmdDeleteStrict
				} else if rng.IntN(2) == 0 {
					u.Command = rules.CmdModifyStrict
					u.Instructions = []rules.Instruction{{Kind: rules.InstWriteMetadata, Metadata: uint64(round), MetadataMask: 0xff}}
				}
				continue
			}
			u.Match, u.Priority = other(rng.IntN(others)), 50
			if !crowd && rng.IntN(4) == 0 {
				// All of them: hosts alone make the table.
				u.Command = rules.CmdDelete
				if rng.IntN(2) == 0 {
					u.Match.SetPrefix(rules.FieldIPv4Src, 20<<24, 8)
				} else { // the host mask of TCP to port 80
					u.Match = rules.Match{}
					u.Match.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
					u.Match.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
					u.Match.SetExact(rules.FieldL4Dst, 80)
				}
			} else if !crowd {
				u.Command = rules.CmdDeleteStrict
			}
		}
		switch rng.IntN(3) {
		case 0: // one version
			p.ApplyBurst(ups, true)
			for i := range ups {
				o.Apply(&ups[i], time.Time{})
			}
			record()
		case 1: // a version an update, and one more if hosts moved
			p.ApplyBurst(ups, false)
			for i := range ups {
				o.Apply(&ups[i], time.Time{})
			}
			record()
		default: // a burst an update
			for i := range ups {
				p.ApplyBurst(ups[i:i+1], true)
				o.Apply(&ups[i], time.Time{})
				record()
			}
		}
		if _, m := rules.HostHome(p, &hm.Mask); m != merged {
			flips++
			merged = m
		}
		if rng.IntN(4) == 0 {
			time.Sleep(100 * time.Microsecond)
			p.Rebalance(64)
		}
	}
	ck.done(t)
	if flips < 4 {
		t.Fatalf("the host mask changed home %d times, want 4 at least", flips)
	}
	t.Logf("%d lookups checked against %d versions; home changed %d times", ck.checked.Load(), snaps.len(), flips)
}

package rules_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/oracle"
	"github.com/ofswitch/ofswitch/rules"
)

// wideFields are the fields of the wide rules: eth_type, the IPv6
// addresses, the eight register pairs, the tunnel addresses (IPv4 and
// IPv6) and the group policy fields, besides metadata, the MAC
// addresses, ip_proto, the ports, tunnel_id and pkt_mark. Their mask
// tests 27 words, more than a node keeps packed, so that the index
// compares the last words against its rules' keys.
var wideFields = []rules.Field{
	rules.FieldMetadata, rules.FieldEthSrc, rules.FieldEthDst, rules.FieldL4Src, rules.FieldTunnelID, rules.FieldPktMark,
	rules.FieldXReg0, rules.FieldXReg1, rules.FieldXReg2, rules.FieldXReg3,
	rules.FieldXReg4, rules.FieldXReg5, rules.FieldXReg6, rules.FieldXReg7, rules.FieldTunSrc, rules.FieldTunDst,
	rules.FieldTunGbpID, rules.FieldTunGbpFlags,
}

// wideMatch returns a match of the wide mask. Most fields have one value;
// ipv6_src, xreg6, xreg7 (the mask's last word but one packed and the
// first not packed), tun_src, tun_dst, tun_gbp_flags and the IPv6 tunnel
// addresses (the last) take one of two, so
// that matches often share their first 18 packed words, differ after them
// and collide.
func wideMatch(r *rand.Rand) rules.Match {
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv6)
	m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	m.Set128(rules.FieldIPv6Src, 0x20010db8<<32, uint64(r.IntN(2)), ^uint64(0), ^uint64(0))
	m.Set128(rules.FieldIPv6Dst, 0x20010db8<<32|1, 0x100, ^uint64(0), 0xffff_ffff_ffff_ff00)
	for i, f := range wideFields {
		v := uint64(i+1) << (f.Bits() - 8)
		switch f {
		case rules.FieldXReg6, rules.FieldXReg7, rules.FieldTunSrc, rules.FieldTunDst, rules.FieldTunGbpFlags:
			v |= uint64(r.IntN(2))
		}
		m.SetExact(f, v)
	}
	m.Set128(rules.FieldTunIPv6Src, 0xfe80<<48, uint64(r.IntN(2)), ^uint64(0), ^uint64(0))
	m.Set128(rules.FieldTunIPv6Dst, 0x20010db8<<32|uint64(r.IntN(2)), 0, ^uint64(0), 0)
	return m
}

// TestWideSubtable: a subtable whose mask tests more words than a node
// keeps packed (registers and IPv6 addresses) answers as a linear scan of
// the same flows does, through adds, modifies and deletes (nodes copied,
// the index grown), one key at a time and in batches, with rules and
// nodes recycled and poisoned.
func TestWideSubtable(t *testing.T) {
	for _, recycle := range []bool{false, true} {
		r := rand.New(rand.NewPCG(26, 3))
		clk := &clock{t: time.Unix(1_000_000, 0)}
		cfg := &rules.Config{Now: clk.now, Seed: 3}
		if recycle {
			cfg.Recycle, cfg.UnlinkAfter = true, -1
		}
		p, err := rules.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if recycle {
			rules.Poison(p)
		}
		rules.SmallIndex(p, 16)
		if m := wideMatch(r); countWords(&m.Mask) <= 18 {
			t.Fatalf("the wide mask tests %d words, want more than 18", countWords(&m.Mask))
		}
		o := oracle.NewFlows(1)
		hits := 0
		for step := range 400 {
			ups := make([]rules.Update, 1+r.IntN(4))
			for i := range ups {
				u := &ups[i]
				u.Command = []rules.Command{rules.CmdAdd, rules.CmdAdd, rules.CmdAdd, rules.CmdModifyStrict, rules.CmdDeleteStrict}[r.IntN(5)]
				u.Match, u.Priority = wideMatch(r), uint16(100*r.IntN(3))
				if r.IntN(8) == 0 {
					// A narrower mask: the same fields less one register.
					u.Match.Clear(rules.FieldXReg3)
				}
				u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: uint32(1 + r.IntN(3))}}}}
			}
			res := p.ApplyBurst(ups, false)
			for i := range ups {
				if _, oerr := o.Apply(&ups[i], clk.t); !sameErr(res.Errs[i], oerr) {
					t.Fatalf("step %d update %d: err %v, oracle %v", step, i, res.Errs[i], oerr)
				}
			}
			if err := rules.CheckIndex(p); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			keys := make([]rules.Key, 8)
			for i := range keys {
				k := wideMatch(r).Key
				if r.IntN(4) == 0 {
					w := r.IntN(rules.KeyWords)
					k[w] ^= 1 << r.IntN(64)
				}
				keys[i] = k
				got, want := p.Table(0).Lookup(&k), o.Lookup(0, &k)
				if (got == nil) != (want == nil) || got != nil && (got.Match != want.Match || got.Priority != want.Priority) {
					t.Fatalf("step %d key %v: got %v, oracle %v", step, k, got, want)
				}
				if got != nil {
					hits++
				}
			}
			out := make([]*rules.Rule, len(keys))
			var c rules.Counters
			p.Table(0).LookupBatch(keys, out, &c)
			for i := range keys {
				if out[i] != p.Table(0).Lookup(&keys[i]) {
					t.Fatalf("step %d key %v: batch %v, single %v", step, keys[i], out[i], p.Table(0).Lookup(&keys[i]))
				}
			}
		}
		if got, want := len(p.Rules(0)), len(o.Entries(0)); got != want || want < 20 || hits < 400 {
			t.Fatalf("recycle %v: %d rules, oracle %d; %d hits: the test exercises too little", recycle, got, want, hits)
		}
		t.Logf("recycle %v: %d rules, %d lookups hit", recycle, len(o.Entries(0)), hits)
	}
}

func countWords(k *rules.Key) int {
	n := 0
	for _, w := range k {
		if w != 0 {
			n++
		}
	}
	return n
}

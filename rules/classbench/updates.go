package classbench

import (
	"github.com/ofswitch/ofswitch/rules"
)

// Key returns the flow key of an IPv4 packet with h's header fields. Ports
// are set only for TCP, UDP and SCTP, as the data plane extracts them.
func (h *Header) Key() rules.Key {
	var k rules.Key
	k.Set(rules.FieldEthType, rules.EthTypeIPv4)
	k.Set(rules.FieldIPProto, uint64(h.Proto))
	k.Set(rules.FieldIPv4Src, uint64(h.Src))
	k.Set(rules.FieldIPv4Dst, uint64(h.Dst))
	switch h.Proto {
	case rules.IPProtoTCP, rules.IPProtoUDP, rules.IPProtoSCTP:
		k.Set(rules.FieldL4Src, uint64(h.Sport))
		k.Set(rules.FieldL4Dst, uint64(h.Dport))
	}
	return k
}

// PortPrefix is one value/mask pair of a port range's prefix expansion.
type PortPrefix struct{ Value, Mask uint16 }

// ExpandPortRange splits the inclusive range [lo, hi] into the fewest
// value/mask prefixes that cover exactly it (at most 30 for 16 bits).
// 0:65535 gives the single prefix 0/0.
func ExpandPortRange(lo, hi uint16) []PortPrefix {
	var out []PortPrefix
	l, h := uint32(lo), uint32(hi)
	for l <= h {
		// Largest aligned block starting at l that fits in [l, h].
		size := uint32(1)
		for size < 1<<16 && l&(size*2-1) == 0 && l+size*2-1 <= h {
			size *= 2
		}
		out = append(out, PortPrefix{Value: uint16(l), Mask: uint16(^(size - 1))})
		l += size
	}
	return out
}

// Matches returns r's prefix expansion: one Match per (source port prefix,
// destination port prefix) pair, with eth_type=0x0800 and only the fields r
// constrains.
func (r *Rule) Matches() []rules.Match {
	var base rules.Match
	base.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	base.SetPrefix(rules.FieldIPv4Src, uint64(r.Src), r.SrcLen)
	base.SetPrefix(rules.FieldIPv4Dst, uint64(r.Dst), r.DstLen)
	if r.ProtoMask != 0 {
		base.Set(rules.FieldIPProto, uint64(r.Proto), uint64(r.ProtoMask))
	}
	sp := ExpandPortRange(r.SportLo, r.SportHi)
	dp := ExpandPortRange(r.DportLo, r.DportHi)
	out := make([]rules.Match, 0, len(sp)*len(dp))
	for _, s := range sp {
		for _, d := range dp {
			m := base
			m.Set(rules.FieldL4Src, uint64(s.Value), uint64(s.Mask))
			m.Set(rules.FieldL4Dst, uint64(d.Value), uint64(d.Mask))
			out = append(out, m)
		}
	}
	return out
}

// Priority is the priority base: rule i gets priority
// Priority - i, floored at 1; the insertion order (line order)
// breaks ties once priorities run out.
const Priority = 65535

// Expansion reports what Updates produced.
type Expansion struct {
	Rules   int // ClassBench rules in
	Entries int // flow entries out
	MaxPer  int // most entries from one rule
}

// Factor returns Entries / Rules.
func (e Expansion) Factor() float64 {
	if e.Rules == 0 {
		return 0
	}
	return float64(e.Entries) / float64(e.Rules)
}

// Updates turns ClassBench rules into ADD updates for table
// (in file order, so that insertion order breaks priority ties as the file
// does) with the given instructions; each entry's ID is its rule's index.
func Updates(rs []Rule, table uint8, inst []rules.Instruction) ([]rules.Update, Expansion) {
	var ups []rules.Update
	ex := Expansion{Rules: len(rs)}
	for i := range rs {
		r := &rs[i]
		ms := r.Matches()
		ex.MaxPer = max(ex.MaxPer, len(ms))
		pri := max(Priority-r.Index, 1)
		for _, m := range ms {
			ups = append(ups, rules.Update{Command: rules.CmdAdd, Table: table, Match: m, Priority: uint16(pri), Instructions: inst, ID: r.Index})
		}
	}
	ex.Entries = len(ups)
	return ups, ex
}

// PrioritizeByLine gives ClassBench-style priorities to flows parsed from a
// file without priorities (ClassBench-ng's OpenFlow sets, which
// ofctl.ParseFlows reads with ParseOptions.NoActions): the flow from
// line L (Update.ID, 1-based) gets Priority - (L-1), floored at
// 1, so that the first line wins, and its ID becomes the 0-based line index.
func PrioritizeByLine(ups []rules.Update) {
	for i := range ups {
		idx := ups[i].ID - 1
		ups[i].ID = idx
		ups[i].Priority = uint16(max(Priority-idx, 1))
	}
}

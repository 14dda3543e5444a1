package classbench

import (
	"github.com/ofswitch/ofswitch/rules"
)

// Key returns the flow key of h: an IPv4 packet with h's addresses and
// protocol, and h's ports in the L4 fields whatever the protocol, since
// ClassBench's five fields are independent. TupleUpdates' entries classify
// such keys as First does. The flows of Updates test ports only under
// TCP, UDP and SCTP, so there the ports of other protocols play no part, as
// in a packet that has none, and they classify as FirstPacket does.
func (h *Header) Key() rules.Key {
	var k rules.Key
	k.Set(rules.FieldEthType, rules.EthTypeIPv4)
	k.Set(rules.FieldIPProto, uint64(h.Proto))
	k.Set(rules.FieldIPv4Src, uint64(h.Src))
	k.Set(rules.FieldIPv4Dst, uint64(h.Dst))
	k.Set(rules.FieldL4Src, uint64(h.Sport))
	k.Set(rules.FieldL4Dst, uint64(h.Dport))
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

// Priority is the priority base: rule i gets priority
// Priority - i, floored at 1; the insertion order (line order)
// breaks ties once priorities run out.
const Priority = 65535

// Expansion reports what Updates or TupleUpdates produced.
type Expansion struct {
	Rules   int // ClassBench rules in
	Entries int // flow entries out
	MaxPer  int // most entries from one rule
	Noted   int // rules whose flows differ from them (Notes); Updates only
}

// Factor returns Entries / Rules.
func (e Expansion) Factor() float64 {
	if e.Rules == 0 {
		return 0
	}
	return float64(e.Entries) / float64(e.Rules)
}

// Ports says how a rule's port ranges become entries.
type Ports uint8

const (
	// PortRanges makes a rule one entry per protocol, with its port
	// ranges in Update.Ranges (SetPortRange): the pipeline checks them
	// after the hash match. Only the Go API takes such updates.
	PortRanges Ports = iota
	// PortPrefixes makes a rule one entry per protocol and (source port
	// prefix, destination port prefix) pair of ExpandPortRange: OpenFlow's
	// value and mask, up to 900 entries a protocol (36 on ClassBench's
	// own sets).
	PortPrefixes
)

// String returns "ranges" or "prefixes".
func (p Ports) String() string {
	if p == PortPrefixes {
		return "prefixes"
	}
	return "ranges"
}

// Updates turns ClassBench rules into ADD updates of OpenFlow flows
// (Rule.Flows) for table, with the given instructions: they load into any
// pipeline, and classify a packet (or a Header's Key) as FirstPacket does.
// The updates come in file order, so that insertion order breaks priority
// ties as the file does; each entry's ID is its rule's index. Their ports
// are prefixes (PortPrefixes), which OpenFlow can say; UpdatesWith
// chooses.
func Updates(rs []Rule, table uint8, inst []rules.Instruction) ([]rules.Update, Expansion) {
	return UpdatesWith(rs, table, inst, PortPrefixes)
}

// UpdatesWith is Updates with the ports made entries as ports says.
func UpdatesWith(rs []Rule, table uint8, inst []rules.Instruction, ports Ports) ([]rules.Update, Expansion) {
	return updates(rs, table, inst, ports, func(r *Rule) ([]rules.Match, bool) {
		ms, note := r.flowBases()
		return ms, note != ""
	})
}

// TupleUpdates is Updates over ClassBench's five independent fields
// (Rule.TupleMatches), one entry per rule and protocol with its port
// ranges (PortRanges): the entries classify a Header's Key exactly as
// First does, but load only into a pipeline with Config.NoPrereqs when a
// rule constrains ports of a protocol other than TCP, UDP and SCTP, or of
// any protocol. Check classifies with them. TupleUpdatesWith chooses how
// ports become entries.
func TupleUpdates(rs []Rule, table uint8, inst []rules.Instruction) ([]rules.Update, Expansion) {
	return TupleUpdatesWith(rs, table, inst, PortRanges)
}

// TupleUpdatesWith is TupleUpdates with the ports made entries as ports
// says: PortPrefixes gives the matches of TupleMatches.
func TupleUpdatesWith(rs []Rule, table uint8, inst []rules.Instruction, ports Ports) ([]rules.Update, Expansion) {
	return updates(rs, table, inst, ports, func(r *Rule) ([]rules.Match, bool) { return r.tupleBases(), false })
}

// updates makes the updates of rs from each rule's matches without ports
// (bases), its ports as ports says.
func updates(rs []Rule, table uint8, inst []rules.Instruction, ports Ports, bases func(*Rule) ([]rules.Match, bool)) ([]rules.Update, Expansion) {
	var (
		ups []rules.Update
		ms  []rules.Match
	)
	ex := Expansion{Rules: len(rs)}
	for i := range rs {
		r := &rs[i]
		bs, noted := bases(r)
		if noted {
			ex.Noted++
		}
		pri := uint16(max(Priority-r.Index, 1))
		n := len(ups)
		if ports == PortRanges {
			for _, m := range bs {
				u := rules.Update{Command: rules.CmdAdd, Table: table, Match: m, Priority: pri, Instructions: inst, ID: r.Index}
				u.SetPortRange(rules.FieldL4Src, r.SportLo, r.SportHi)
				u.SetPortRange(rules.FieldL4Dst, r.DportLo, r.DportHi)
				ups = append(ups, u)
			}
		} else {
			ms = ms[:0]
			for _, m := range bs {
				ms = r.withPorts(ms, m)
			}
			for _, m := range ms {
				ups = append(ups, rules.Update{Command: rules.CmdAdd, Table: table, Match: m, Priority: pri, Instructions: inst, ID: r.Index})
			}
		}
		ex.MaxPer = max(ex.MaxPer, len(ups)-n)
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

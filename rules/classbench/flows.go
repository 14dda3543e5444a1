package classbench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ofswitch/ofswitch/rules"
)

// portProto reports whether OpenFlow 1.3 matches the ports of protocol p
// (the prerequisite of tcp_src and friends).
func portProto(p uint8) bool {
	return p == rules.IPProtoTCP || p == rules.IPProtoUDP || p == rules.IPProtoSCTP
}

// portProtos are the protocols whose ports OpenFlow matches, in the order
// Flows writes their copies.
var portProtos = []uint8{rules.IPProtoTCP, rules.IPProtoUDP, rules.IPProtoSCTP}

// AnyPort reports whether r leaves both ports unconstrained (0 : 65535).
func (r *Rule) AnyPort() bool {
	return r.SportLo == 0 && r.SportHi == 65535 && r.DportLo == 0 && r.DportHi == 65535
}

// protocols returns the protocols r admits, in increasing order, or nil
// when its mask is 0 (every protocol). OpenFlow's ip_proto takes no mask,
// so a partial mask becomes the list of the values under it.
func (r *Rule) protocols() []uint8 {
	switch r.ProtoMask {
	case 0:
		return nil
	case 0xff:
		return []uint8{r.Proto}
	}
	var out []uint8
	for v := range 256 {
		if uint8(v)&r.ProtoMask == r.Proto {
			out = append(out, uint8(v))
		}
	}
	return out
}

// base is r's match without protocol and ports: eth_type and the prefixes.
func (r *Rule) base() rules.Match {
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	m.SetPrefix(rules.FieldIPv4Src, uint64(r.Src), r.SrcLen)
	m.SetPrefix(rules.FieldIPv4Dst, uint64(r.Dst), r.DstLen)
	return m
}

// withPorts appends to out one copy of m per (source port prefix,
// destination port prefix) pair of r's ranges.
func (r *Rule) withPorts(out []rules.Match, m rules.Match) []rules.Match {
	sp := ExpandPortRange(r.SportLo, r.SportHi)
	dp := ExpandPortRange(r.DportLo, r.DportHi)
	for _, s := range sp {
		for _, d := range dp {
			c := m
			c.Set(rules.FieldL4Src, uint64(s.Value), uint64(s.Mask))
			c.Set(rules.FieldL4Dst, uint64(d.Value), uint64(d.Mask))
			out = append(out, c)
		}
	}
	return out
}

// TupleMatches returns r over ClassBench's five independent fields: one
// match per (protocol, source port prefix, destination port prefix), with
// eth_type=0x0800 and only the fields r constrains. The protocol is
// ip_proto exactly (a partial mask gives one match per value under it; a
// zero mask none), and the ports are tested whatever the protocol, so the
// matches lack OpenFlow's prerequisites where r constrains ports of a
// protocol other than TCP, UDP and SCTP, or of any protocol: they load
// only into a pipeline with Config.NoPrereqs. Matched against Header.Key,
// they match exactly the headers MatchesHeader does.
func (r *Rule) TupleMatches() []rules.Match {
	var out []rules.Match
	for _, m := range r.tupleBases() {
		out = r.withPorts(out, m)
	}
	return out
}

// tupleBases is TupleMatches without the ports: one match per protocol.
func (r *Rule) tupleBases() []rules.Match {
	ps := r.protocols()
	if ps == nil {
		return []rules.Match{r.base()}
	}
	out := make([]rules.Match, 0, len(ps))
	for _, p := range ps {
		m := r.base()
		m.SetExact(rules.FieldIPProto, uint64(p))
		out = append(out, m)
	}
	return out
}

// Flows returns r as OpenFlow 1.3 matches, each meeting OpenFlow's
// prerequisites, and a note saying how they differ from r as ClassBench
// reads it ("" when they do not). In OpenFlow only TCP, UDP and SCTP
// packets have ports, so:
//
//   - a rule that constrains ports and admits every protocol becomes one
//     copy per tcp, udp and sctp: packets of other protocols, which have
//     no ports, match none of them;
//   - a rule that constrains ports of another protocol (ICMP with source
//     port 21, say) has no flow for it: no packet of that protocol has
//     ports in its range;
//   - a partial protocol mask, which ip_proto does not take, becomes one
//     copy per protocol value under it.
//
// The flows thus match exactly the headers MatchesPacket does: a packet of
// a protocol without ports satisfies only the full port ranges. Port
// ranges become masked ports as in TupleMatches.
func (r *Rule) Flows() ([]rules.Match, string) {
	bs, note := r.flowBases()
	var out []rules.Match
	for _, m := range bs {
		out = r.withPorts(out, m)
	}
	return out, note
}

// flowBases is Flows without the ports: one match per protocol.
func (r *Rule) flowBases() ([]rules.Match, string) {
	ps := r.protocols()
	if ps == nil {
		if r.AnyPort() {
			return []rules.Match{r.base()}, ""
		}
		var out []rules.Match
		for _, p := range portProtos {
			m := r.base()
			m.SetExact(rules.FieldIPProto, uint64(p))
			out = append(out, m)
		}
		return out, fmt.Sprintf("any protocol with %s: one copy per tcp, udp and sctp; packets of other protocols have no ports in OpenFlow and match none", r.portText())
	}
	var (
		out     []rules.Match
		dropped []uint8
	)
	for _, p := range ps {
		if !r.AnyPort() && !portProto(p) {
			dropped = append(dropped, p)
			continue
		}
		m := r.base()
		m.SetExact(rules.FieldIPProto, uint64(p))
		out = append(out, m)
	}
	var notes []string
	if len(ps) > 1 {
		notes = append(notes, fmt.Sprintf("protocol 0x%02X/0x%02X: ip_proto takes no mask in OpenFlow, so one copy per protocol %s",
			r.Proto, r.ProtoMask, protoList(ps)))
	}
	if len(dropped) > 0 {
		one := len(dropped) == 1
		notes = append(notes, fmt.Sprintf("%s %s: no ports in OpenFlow, so none of %s packets meets %s: no flow %s",
			plural(one, "protocol", "protocols"), protoList(dropped), plural(one, "its", "their"), r.portText(), plural(one, "for it", "for them")))
	}
	if len(out) == 0 {
		notes = append(notes, "the rule matches no packet")
	}
	return out, strings.Join(notes, "; ")
}

// portText describes r's port constraints, e.g. "source port 21 : 21".
func (r *Rule) portText() string {
	var parts []string
	if r.SportLo != 0 || r.SportHi != 65535 {
		parts = append(parts, fmt.Sprintf("source port %d : %d", r.SportLo, r.SportHi))
	}
	if r.DportLo != 0 || r.DportHi != 65535 {
		parts = append(parts, fmt.Sprintf("destination port %d : %d", r.DportLo, r.DportHi))
	}
	return strings.Join(parts, " and ")
}

var protoNames = map[uint8]string{1: "icmp", 2: "igmp", 6: "tcp", 17: "udp", 47: "gre", 50: "esp", 51: "ah", 58: "icmpv6", 132: "sctp"}

// protoList names protocols: "1 (icmp)", "6 (tcp), 7"; beyond 8 of them,
// the first 8 and how many more.
func protoList(ps []uint8) string {
	var b strings.Builder
	for i, p := range ps {
		if i == 8 {
			fmt.Fprintf(&b, " and %d more", len(ps)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(p)))
		if n, ok := protoNames[p]; ok {
			b.WriteString(" (" + n + ")")
		}
	}
	return b.String()
}

func plural(one bool, a, b string) string {
	if one {
		return a
	}
	return b
}

// Note is what the flows of one rule (Rule.Flows) do with what OpenFlow
// cannot express.
type Note struct {
	Rule int    // the rule's index
	Line int    // the rule's line in the filter file
	Text string // Flows' note
}

// String formats n as "rule 3 (line 4): text".
func (n Note) String() string { return fmt.Sprintf("rule %d (line %d): %s", n.Rule, n.Line, n.Text) }

// Notes returns the notes of the rules whose flows (Flows, Updates)
// differ from them, in file order.
func Notes(rs []Rule) []Note {
	var out []Note
	for i := range rs {
		if _, n := rs[i].Flows(); n != "" {
			out = append(out, Note{Rule: rs[i].Index, Line: rs[i].Line, Text: n})
		}
	}
	return out
}

package rules

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrSyntax is the sentinel every text-format ParseError unwraps to.
var ErrSyntax = errors.New("rules: syntax error")

// ParseError says where a text file failed to parse and what was expected.
type ParseError struct {
	File string
	Line int // 1-based
	Col  int // 1-based byte column
	Msg  string
	Err  error // ErrSyntax, or a match *Error for semantic failures
}

// Error formats the error as file:line:column: message.
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap returns the sentinel or the underlying error.
func (e *ParseError) Unwrap() error {
	if e.Err == nil {
		return ErrSyntax
	}
	return e.Err
}

// ClassBenchRule is one line of a ClassBench filter file. The flags column
// is parsed for syntax and dropped.
type ClassBenchRule struct {
	Index            int // 0-based line index: lower wins
	Line             int // 1-based line number
	Src, Dst         uint32
	SrcLen, DstLen   int
	SportLo, SportHi uint16
	DportLo, DportHi uint16
	Proto, ProtoMask uint8
}

// ClassBenchHeader is one line of a ClassBench trace file.
type ClassBenchHeader struct {
	Src, Dst     uint32
	Sport, Dport uint16
	Proto        uint8
	Label        int // index of the rule that generated the header
	Line         int
}

// cursor scans one line with column tracking.
type cursor struct {
	file string
	line int
	s    string
	pos  int // byte offset in s
}

func (c *cursor) errf(format string, a ...any) *ParseError {
	return &ParseError{File: c.file, Line: c.line, Col: c.pos + 1, Msg: fmt.Sprintf(format, a...)}
}

func (c *cursor) skipSpace() {
	for c.pos < len(c.s) && (c.s[c.pos] == ' ' || c.s[c.pos] == '\t' || c.s[c.pos] == '\r') {
		c.pos++
	}
}

func (c *cursor) expect(ch byte, what string) error {
	c.skipSpace()
	if c.pos >= len(c.s) || c.s[c.pos] != ch {
		return c.errf("expected %s", what)
	}
	c.pos++
	return nil
}

// number reads a decimal or 0x-hex unsigned integer of at most max.
func (c *cursor) number(what string, max uint64) (uint64, error) {
	c.skipSpace()
	start := c.pos
	base := 10
	if strings.HasPrefix(c.s[c.pos:], "0x") || strings.HasPrefix(c.s[c.pos:], "0X") {
		base = 16
		c.pos += 2
	}
	d := c.pos
	for c.pos < len(c.s) && isDigit(c.s[c.pos], base) {
		c.pos++
	}
	if c.pos == d {
		c.pos = start
		return 0, c.errf("expected %s", what)
	}
	v, err := strconv.ParseUint(c.s[d:c.pos], base, 64)
	if err != nil || v > max {
		c.pos = start
		return 0, c.errf("%s out of range (max %d)", what, max)
	}
	return v, nil
}

func isDigit(b byte, base int) bool {
	if b >= '0' && b <= '9' {
		return true
	}
	if base == 16 {
		return b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
	}
	return false
}

func (c *cursor) ipv4(what string) (uint32, error) {
	var v uint32
	for i := range 4 {
		if i > 0 {
			if c.pos >= len(c.s) || c.s[c.pos] != '.' {
				return 0, c.errf("expected '.' in %s", what)
			}
			c.pos++
		}
		start := c.pos
		for c.pos < len(c.s) && c.s[c.pos] >= '0' && c.s[c.pos] <= '9' {
			c.pos++
		}
		if c.pos == start || c.pos-start > 3 {
			c.pos = start
			return 0, c.errf("expected %s (a.b.c.d)", what)
		}
		o, _ := strconv.Atoi(c.s[start:c.pos])
		if o > 255 {
			c.pos = start
			return 0, c.errf("octet %d of %s out of range", o, what)
		}
		v = v<<8 | uint32(o)
	}
	return v, nil
}

func splitLines(data []byte) []string {
	s := string(data)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ParseClassBench parses a ClassBench filter file (name is used in errors).
// Blank lines are skipped but still counted for line numbers; rule indices
// count rules only.
func ParseClassBench(name string, data []byte) ([]ClassBenchRule, error) {
	var out []ClassBenchRule
	for i, line := range splitLines(data) {
		c := &cursor{file: name, line: i + 1, s: line}
		c.skipSpace()
		if c.pos == len(c.s) {
			continue
		}
		r := ClassBenchRule{Index: len(out), Line: i + 1}
		if err := c.expect('@', "'@' opening a rule"); err != nil {
			return nil, err
		}
		var err error
		if r.Src, r.SrcLen, err = c.prefix("source prefix"); err != nil {
			return nil, err
		}
		c.skipSpace()
		if r.Dst, r.DstLen, err = c.prefix("destination prefix"); err != nil {
			return nil, err
		}
		if r.SportLo, r.SportHi, err = c.portRange("source port"); err != nil {
			return nil, err
		}
		if r.DportLo, r.DportHi, err = c.portRange("destination port"); err != nil {
			return nil, err
		}
		v, err := c.number("protocol value", 255)
		if err != nil {
			return nil, err
		}
		if err := c.expect('/', "'/' between protocol value and mask"); err != nil {
			return nil, err
		}
		m, err := c.number("protocol mask", 255)
		if err != nil {
			return nil, err
		}
		r.Proto, r.ProtoMask = uint8(v&m), uint8(m)
		// Flags column: parsed, then ignored.
		if _, err := c.number("flags value", 0xffff); err != nil {
			return nil, err
		}
		if err := c.expect('/', "'/' between flags value and mask"); err != nil {
			return nil, err
		}
		if _, err := c.number("flags mask", 0xffff); err != nil {
			return nil, err
		}
		c.skipSpace()
		if c.pos != len(c.s) {
			return nil, c.errf("expected end of line after the flags column")
		}
		out = append(out, r)
	}
	return out, nil
}

func (c *cursor) prefix(what string) (uint32, int, error) {
	c.skipSpace()
	a, err := c.ipv4(what)
	if err != nil {
		return 0, 0, err
	}
	if err := c.expect('/', "'/' and a prefix length after "+what); err != nil {
		return 0, 0, err
	}
	l, err := c.number(what+" length", 32)
	if err != nil {
		return 0, 0, err
	}
	mask := uint32(prefixMask(32, int(l)))
	return a & mask, int(l), nil
}

func (c *cursor) portRange(what string) (uint16, uint16, error) {
	lo, err := c.number(what+" range low end", 65535)
	if err != nil {
		return 0, 0, err
	}
	if err := c.expect(':', "':' in "+what+" range"); err != nil {
		return 0, 0, err
	}
	hiPos := c.pos
	hi, err := c.number(what+" range high end", 65535)
	if err != nil {
		return 0, 0, err
	}
	if hi < lo {
		c.pos = hiPos
		c.skipSpace()
		return 0, 0, c.errf("%s range %d : %d is empty", what, lo, hi)
	}
	return uint16(lo), uint16(hi), nil
}

// ParseClassBenchTrace parses a ClassBench trace file: seven TAB-separated
// unsigned columns (src, dst, sport, dport, proto, flags, label); the flags
// column is ignored.
func ParseClassBenchTrace(name string, data []byte) ([]ClassBenchHeader, error) {
	var out []ClassBenchHeader
	for i, line := range splitLines(data) {
		c := &cursor{file: name, line: i + 1, s: line}
		c.skipSpace()
		if c.pos == len(c.s) {
			continue
		}
		var v [7]uint64
		maxes := [7]uint64{1<<32 - 1, 1<<32 - 1, 65535, 65535, 255, 1<<32 - 1, 1 << 31}
		names := [7]string{"source address", "destination address", "source port", "destination port", "protocol", "flags", "label"}
		for j := range v {
			var err error
			if v[j], err = c.number(names[j], maxes[j]); err != nil {
				return nil, err
			}
		}
		c.skipSpace()
		if c.pos != len(c.s) {
			return nil, c.errf("expected end of line after 7 columns")
		}
		out = append(out, ClassBenchHeader{Src: uint32(v[0]), Dst: uint32(v[1]), Sport: uint16(v[2]), Dport: uint16(v[3]),
			Proto: uint8(v[4]), Label: int(v[6]), Line: i + 1})
	}
	return out, nil
}

// Key returns the flow key of an IPv4 packet with h's header fields. Ports
// are set only for TCP, UDP and SCTP, as the data plane extracts them.
func (h *ClassBenchHeader) Key() Key {
	var k Key
	k.Set(FieldEthType, EthTypeIPv4)
	k.Set(FieldIPProto, uint64(h.Proto))
	k.Set(FieldIPv4Src, uint64(h.Src))
	k.Set(FieldIPv4Dst, uint64(h.Dst))
	switch h.Proto {
	case IPProtoTCP, IPProtoUDP, IPProtoSCTP:
		k.Set(FieldL4Src, uint64(h.Sport))
		k.Set(FieldL4Dst, uint64(h.Dport))
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
func (r *ClassBenchRule) Matches() []Match {
	var base Match
	base.SetExact(FieldEthType, EthTypeIPv4)
	base.SetPrefix(FieldIPv4Src, uint64(r.Src), r.SrcLen)
	base.SetPrefix(FieldIPv4Dst, uint64(r.Dst), r.DstLen)
	if r.ProtoMask != 0 {
		base.Set(FieldIPProto, uint64(r.Proto), uint64(r.ProtoMask))
	}
	sp := ExpandPortRange(r.SportLo, r.SportHi)
	dp := ExpandPortRange(r.DportLo, r.DportHi)
	out := make([]Match, 0, len(sp)*len(dp))
	for _, s := range sp {
		for _, d := range dp {
			m := base
			m.Set(FieldL4Src, uint64(s.Value), uint64(s.Mask))
			m.Set(FieldL4Dst, uint64(d.Value), uint64(d.Mask))
			out = append(out, m)
		}
	}
	return out
}

// ClassBenchPriority is the priority base: rule i gets priority
// ClassBenchPriority - i, floored at 1; the insertion order (line order)
// breaks ties once priorities run out.
const ClassBenchPriority = 65535

// Expansion reports what ClassBenchUpdates produced.
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

// ClassBenchUpdates turns ClassBench rules into ADD updates for table
// (in file order, so that insertion order breaks priority ties as the file
// does) with the given instructions; each entry's ID is its rule's index.
func ClassBenchUpdates(rs []ClassBenchRule, table uint8, inst []Instruction) ([]Update, Expansion) {
	var ups []Update
	ex := Expansion{Rules: len(rs)}
	for i := range rs {
		r := &rs[i]
		ms := r.Matches()
		ex.MaxPer = max(ex.MaxPer, len(ms))
		pri := max(ClassBenchPriority-r.Index, 1)
		for _, m := range ms {
			ups = append(ups, Update{Command: CmdAdd, Table: table, Match: m, Priority: uint16(pri), Instructions: inst, ID: r.Index})
		}
	}
	ex.Entries = len(ups)
	return ups, ex
}

// PrioritizeByLine gives ClassBench-style priorities to flows parsed from a
// file without priorities (ClassBench-ng's OpenFlow sets): the flow from
// line L (Update.ID, 1-based) gets ClassBenchPriority - (L-1), floored at
// 1, so that the first line wins, and its ID becomes the 0-based line index.
func PrioritizeByLine(ups []Update) {
	for i := range ups {
		idx := ups[i].ID - 1
		ups[i].ID = idx
		ups[i].Priority = uint16(max(ClassBenchPriority-idx, 1))
	}
}

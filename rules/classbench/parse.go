package classbench

import "strings"

// Rule is one line of a ClassBench filter file. The flags column, which
// may be absent, is parsed for syntax and dropped.
type Rule struct {
	Index            int // 0-based line index: lower wins
	Line             int // 1-based line number
	Src, Dst         uint32
	SrcLen, DstLen   int
	SportLo, SportHi uint16
	DportLo, DportHi uint16
	Proto, ProtoMask uint8
}

// Header is one line of a ClassBench trace file.
type Header struct {
	Src, Dst     uint32
	Sport, Dport uint16
	Proto        uint8
	Label        int // index of the rule that generated the header
	Line         int
}

// Parse parses a ClassBench filter file (name is used in errors).
// Blank lines are skipped but still counted for line numbers; rule indices
// count rules only.
func Parse(name string, data []byte) ([]Rule, error) {
	var out []Rule
	for i, line := range splitLines(data) {
		c := &cursor{file: name, line: i + 1, s: line}
		c.skipSpace()
		if c.pos == len(c.s) {
			continue
		}
		r := Rule{Index: len(out), Line: i + 1}
		if c.s[c.pos] != '@' && strings.Contains(c.s, "=") {
			return nil, c.errf("expected '@' opening a rule (flows in ovs-ofctl syntax, as in ClassBench-ng's OpenFlow sets, are read by ofswitch rules lint --no-actions)")
		}
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
		// Flags column: generators write it 16 bits wide (0x0000/0x0200),
		// 8 or 32 bits wide, or not at all; parsed, then ignored.
		c.skipSpace()
		if c.pos < len(c.s) {
			if _, err := c.number("flags value", 1<<32-1); err != nil {
				return nil, err
			}
			if err := c.expect('/', "'/' between flags value and mask"); err != nil {
				return nil, err
			}
			if _, err := c.number("flags mask", 1<<32-1); err != nil {
				return nil, err
			}
			c.skipSpace()
			if c.pos != len(c.s) {
				return nil, c.errf("expected end of line after the flags column")
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// ParseTrace parses a ClassBench trace file: seven TAB-separated
// unsigned columns (src, dst, sport, dport, proto, flags, label); the flags
// column is ignored.
func ParseTrace(name string, data []byte) ([]Header, error) {
	var out []Header
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
		out = append(out, Header{Src: uint32(v[0]), Dst: uint32(v[1]), Sport: uint16(v[2]), Dport: uint16(v[3]),
			Proto: uint8(v[4]), Label: int(v[6]), Line: i + 1})
	}
	return out, nil
}

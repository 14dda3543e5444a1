package classbench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ofswitch/ofswitch/rules"
)

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
	mask := uint32(rules.FieldIPv4Src.PrefixMask(int(l)))
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

// splitLines splits a file's text into lines, without a last empty one.
func splitLines(data []byte) []string {
	s := string(data)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

package classbench_test

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/rules/classbench"
)

func TestExpandPortRange(t *testing.T) {
	for _, tt := range []struct {
		lo, hi uint16
		n      int
	}{{0, 65535, 1}, {80, 80, 1}, {1024, 65535, 6}, {1025, 65535, 15}, {1600, 1649, 3}, {20, 23, 1}, {1, 65534, 30}} {
		ps := classbench.ExpandPortRange(tt.lo, tt.hi)
		if len(ps) != tt.n {
			t.Errorf("%d:%d: %d prefixes, want %d (%v)", tt.lo, tt.hi, len(ps), tt.n, ps)
		}
		// Every port is covered exactly when in range.
		for port := 0; port < 65536; port += 1 + port%7 {
			n := 0
			for _, p := range ps {
				if uint16(port)&p.Mask == p.Value {
					n++
				}
			}
			in := uint16(port) >= tt.lo && uint16(port) <= tt.hi
			if in && n != 1 || !in && n != 0 {
				t.Fatalf("%d:%d: port %d covered %d times", tt.lo, tt.hi, port, n)
			}
		}
	}
	if ps := classbench.ExpandPortRange(1024, 65535); ps[0] != (classbench.PortPrefix{Value: 0x400, Mask: 0xfc00}) || ps[5] != (classbench.PortPrefix{Value: 0x8000, Mask: 0x8000}) {
		t.Errorf("1024:65535 = %v", ps)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		in        string
		line, col int
	}{
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\t\n", 0, 0},
		{"\n1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n", 2, 1},
		{"@1.2.3.400/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n", 1, 8},
		{"@1.2.3.4/33\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n", 1, 10},
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 70\t0x06/0xFF\t0x0000/0x0000\n", 1, 39},
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 80\t0x06/0xFF\t0x0000/0x0000\n", 1, 37},
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\n", 0, 0},                          // no flags column
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x00/0x00\n", 0, 0},               // 8-bit flags
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x00000200/0xFFFFFFFF\r\n", 0, 0}, // 32-bit flags
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000\n", 1, 58},
		{"@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x100000000/0x0\n", 1, 52},
		{"nw_dst=4.207.115.52/32, tp_src=67, tp_dst=8\n", 1, 1},
		{"@1.2.3.4/32 5.6.7.8/32 0:65535 80:80 6/255 0/0\n", 0, 0}, // spaces, decimal protocol and flags
	} {
		_, err := classbench.Parse("f", []byte(tt.in))
		if tt.line == 0 {
			if err != nil {
				t.Errorf("%q: %v", tt.in, err)
			}
			continue
		}
		var pe *classbench.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, classbench.ErrSyntax) {
			t.Fatalf("%q: err = %v, want a ParseError", tt.in, err)
		}
		if pe.Line != tt.line || pe.Col != tt.col || pe.File != "f" {
			t.Errorf("%q: error at %s:%d:%d (%v), want line %d col %d", tt.in, pe.File, pe.Line, pe.Col, err, tt.line, tt.col)
		}
	}
	_, err := classbench.ParseTrace("tr", []byte("1\t2\t3\t4\t6\t0\t5\n1\t2\t3\t70000\t6\t0\t5\n"))
	var pe *classbench.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 7 {
		t.Errorf("trace error = %v, want line 2 col 7", err)
	}
}

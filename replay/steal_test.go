package replay

import (
	"testing"
	"time"
)

func TestParseSteal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"cpu  290592 0 69380 408624 1057 0 3606 2749 0 0\ncpu0 145213 0 33520 205741 304 0 1702 1394 0 0\n", 27490 * time.Millisecond, true},
		{"intr 1 2\ncpu 1 2 3 4 5 6 7 8\n", 80 * time.Millisecond, true},
		{"cpu 1 2 3 4 5 6 7\n", 0, false}, // before Linux 2.6.11: no steal column
		{"cpu 1 2 3 4 5 6 7 x\n", 0, false},
		{"cpu0 1 2 3 4 5 6 7 8\n", 0, false},
		{"", 0, false},
	} {
		got, ok := parseSteal([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseSteal(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if _, ok := hostSteal(); !ok {
		t.Log("no /proc/stat steal column here")
	}
}

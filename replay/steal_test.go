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

func TestParseSchedstat(t *testing.T) {
	for _, c := range []struct {
		in        string
		run, wait time.Duration
		ok        bool
	}{
		{"5629375 21040 2\n", 5629375, 21040, true},
		{"1 2", 1, 2, true},
		{"5629375\n", 0, 0, false},
		{"1 x 2\n", 0, 0, false},
		{"x 1 2\n", 0, 0, false},
		{"", 0, 0, false},
	} {
		run, wait, ok := parseSchedstat([]byte(c.in))
		if run != c.run || wait != c.wait || ok != c.ok {
			t.Errorf("parseSchedstat(%q) = %v, %v, %v; want %v, %v, %v", c.in, run, wait, ok, c.run, c.wait, c.ok)
		}
	}
	if _, _, ok := threadSched(); !ok {
		t.Log("no /proc/thread-self/schedstat here")
	}
}

func TestParseLoadAvg(t *testing.T) {
	for in, want := range map[string]float64{"1.94 2.02 1.84 3/412 32255\n": 1.94, "0.00": 0, "x 1 2": 0, "": 0} {
		if got := parseLoadAvg([]byte(in)); got != want {
			t.Errorf("parseLoadAvg(%q) = %v, want %v", in, got, want)
		}
	}
}

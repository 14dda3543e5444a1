package ovstest

import (
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// Tool returns the path of an Open vSwitch tool (ovs-ofctl, ...), or skips
// the test without it (fails it under CI=true).
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		testutil.SkipOrFail(t, name+" not installed (apt-get install openvswitch-common): "+err.Error())
	}
	return p
}

// DumpFlows returns what ovs-ofctl (at path ofctl) dump-flows prints for
// target over OpenFlow 1.3.
func DumpFlows(t testing.TB, ofctl, target string) string {
	t.Helper()
	out, err := exec.Command(ofctl, "-O", "OpenFlow13", "dump-flows", target).CombinedOutput()
	if err != nil {
		t.Fatalf("ovs-ofctl dump-flows %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// counters matches what differs between two switches that hold the same
// flows: durations, ages and hit counters.
var counters = regexp.MustCompile(` duration=[0-9.]+s,| n_packets=\d+,| n_bytes=\d+,| idle_age=\d+,| hard_age=\d+,`)

// StripCounters returns ovs-ofctl's output s without the durations, ages
// and hit counters of its flows.
func StripCounters(s string) string { return counters.ReplaceAllString(s, "") }

// FlowLines returns the flows of a dump-flows output without their
// durations, ages and counters, sorted: what two switches holding the
// same flows print alike.
func FlowLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "OFPST_FLOW") {
			continue
		}
		lines = append(lines, StripCounters(l))
	}
	slices.Sort(lines)
	return lines
}

// TableLine is one table of ovs-ofctl dump-tables.
type TableLine struct {
	Active, Lookup, Matched uint64
}

var (
	tablesHead = regexp.MustCompile(`^\s*tables? (\d+)(?:\.\.\.(\d+))?:\s*(ditto)?\s*$`)
	tablesVals = regexp.MustCompile(`active=(\d+), lookup=(\d+), matched=(\d+)`)
)

// Tables parses what ovs-ofctl dump-tables prints over OpenFlow 1.3: each
// table's active, lookup and matched counts by table id, a "ditto" line
// (or range) copied from the table printed before it.
func Tables(out string) map[int]TableLine {
	got := map[int]TableLine{}
	var prev TableLine
	cur := -1
	for _, l := range strings.Split(out, "\n") {
		if m := tablesHead.FindStringSubmatch(l); m != nil {
			from, _ := strconv.Atoi(m[1])
			to := from
			if m[2] != "" {
				to, _ = strconv.Atoi(m[2])
			}
			cur = from
			if m[3] != "" {
				for i := from; i <= to; i++ {
					got[i] = prev
				}
				cur = -1
			}
			continue
		}
		if m := tablesVals.FindStringSubmatch(l); m != nil && cur >= 0 {
			prev.Active, _ = strconv.ParseUint(m[1], 10, 64)
			prev.Lookup, _ = strconv.ParseUint(m[2], 10, 64)
			prev.Matched, _ = strconv.ParseUint(m[3], 10, 64)
			got[cur] = prev
			cur = -1
		}
	}
	return got
}

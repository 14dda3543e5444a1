package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cbTestdata holds package classbench's small hand-written set and trace.
const cbTestdata = "../../rules/classbench/testdata"

// TestReplayTrace: replay --classbench RULES --trace TRACE replays the
// trace's headers as frames, with bursts drawn from the rule set, and
// reports as a replay of captures does.
func TestReplayTrace(t *testing.T) {
	rules := filepath.Join(cbTestdata, "ports_any_proto")
	trace := filepath.Join(cbTestdata, "ports_any_proto_trace")
	out, stderr, err := replayCLI(t, "--classbench", rules, "--trace", trace, "--filter", "bcf", "--t", "0",
		"--burst", "16", "--bursts", "2", "--burst-at", "6", "--workers", "2", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rep := decodeReplayJSON(t, out)
	if rep.FramesPerPass != 12 || len(rep.Captures) != 1 || rep.Captures[0] != trace || len(rep.Filters) != 1 {
		t.Fatalf("report: %d frames of %v, %d filters", rep.FramesPerPass, rep.Captures, len(rep.Filters))
	}
	f := rep.Filters[0]
	if f.Counters.Packets < 12 || f.Counters.MissesTable0 != 0 || len(f.Bursts) != 2 || f.Bursts[0].Errors != 0 {
		t.Errorf("%s: %d packets, %d misses, %d bursts", f.Filter, f.Counters.Packets, f.Counters.MissesTable0, len(f.Bursts))
	}
	for _, h := range f.TopRules {
		if h.ID < 0 {
			t.Errorf("a flow of a burst took packets: %+v", h)
		}
	}
}

func TestReplayTraceErrors(t *testing.T) {
	rules := filepath.Join(cbTestdata, "ports_any_proto")
	trace := filepath.Join(cbTestdata, "ports_any_proto_trace")
	bad := filepath.Join(t.TempDir(), "bad_trace")
	if err := os.WriteFile(bad, []byte("1\t2\t3\t4\t6\t0\t0\n1\t2\t3\t4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// A trace where a capture is expected: the error names --trace.
		{[]string{"--classbench", rules, trace}, "replay it with --trace " + trace},
		{[]string{"--classbench", rules, "--trace", bad}, bad + ":2:"},
		{[]string{"--trace", trace}, "give --classbench RULES"},
		{[]string{"--classbench", rules, "--trace", trace, trace}, "and no capture"},
	} {
		_, stderr, err := replayCLI(t, append(tc.args, "--burst", "0", "--workers", "1", "--filter", "none")...)
		if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
			t.Errorf("replay %q: %v\n%s\nwant %q", tc.args, err, stderr, tc.want)
		}
	}
}

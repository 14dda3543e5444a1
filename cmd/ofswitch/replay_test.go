package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/replay"
)

// replayCLI runs `ofswitch replay args...` and returns stdout and stderr.
func replayCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(append([]string{"replay"}, args...))
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

// decodeReplayJSON decodes the output of `replay --json` into its typed
// schema, refusing a key the schema does not have.
func decodeReplayJSON(t *testing.T, out string) *replay.JSONReport {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var rep replay.JSONReport
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("--json output does not decode into replay.JSONReport: %v\n%s", err, out)
	}
	if rep.SchemaVersion != replay.SchemaVersion {
		t.Errorf("schema_version %d, want %d", rep.SchemaVersion, replay.SchemaVersion)
	}
	return &rep
}

// TestReplayDemo runs the built-in demo, smaller: its summary comes
// first, fits 100 columns and has its findings; --verbose adds the detail.
func TestReplayDemo(t *testing.T) {
	small := []string{"--workers", "1", "--bursts", "2", "--burst", "64", "--burst-every", "4ms",
		"--table-flows", "2000", "--table-traffic", "1000", "--repeats", "2"}
	out, _, err := replayCLI(t, small...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo.pcap, table-flows (synthetic) (4000 frames", "bcf t=0", "bcf t=5", "bcf t=10", "cf", "none",
		"2 of 64 updates", "medians of 2 runs", "- Plain cuckoo's longest filter walk", "Bursts ranked by"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo summary lacks %q:\n%s", want, out)
		}
	}
	for i, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > replay.SummaryWidth {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	if strings.Contains(out, "top 10 rules") {
		t.Errorf("the summary has the detail of --verbose:\n%s", out)
	}
	out, _, err = replayCLI(t, append(small, "--verbose")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"medians of 2 runs", "detail of each configuration's first run", "top 10 rules",
		"priority=20,tcp", "table miss", "Bloom part"} {
		if !strings.Contains(out, want) {
			t.Errorf("--verbose lacks %q:\n%s", want, out)
		}
	}
}

func TestReplayJSONRulesAndPlots(t *testing.T) {
	dir := t.TempDir()
	flows := filepath.Join(dir, "x.flows")
	if err := os.WriteFile(flows, []byte("priority=10,tcp,actions=output:2\npriority=5,ip,actions=drop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mix := filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps", "mix.pcap")
	plots := filepath.Join(dir, "plots")
	pcapOut := filepath.Join(dir, "out.pcapng")
	out, stderr, err := replayCLI(t, "--rules", flows, "--filter", "bcf", "--filter", "none", "--t", "0",
		"--burst", "32", "--bursts", "2", "--burst-at", "500", "--workers", "1", "--json", "--plot", plots, "--out", pcapOut, mix)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rep := decodeReplayJSON(t, out)
	if len(rep.Filters) != 2 || rep.Filters[0].Filter != "bcf t=0" || rep.Filters[1].Filter != "none" || rep.Rules != 2 || rep.FramesPerPass != 1200 {
		t.Fatalf("report %+v", rep)
	}
	for _, k := range rep.Filters {
		if len(k.Bursts) != 2 || k.Bursts[0].Updates != 32 || k.Packets < 1200 {
			t.Errorf("%s: %d bursts, %d packets", k.Filter, len(k.Bursts), k.Packets)
		}
		if len(k.TopRules) < 2 || k.TopRules[0].ID != 1 || !strings.Contains(k.TopRules[0].Flow, "tcp") {
			t.Errorf("%s: top rules %+v", k.Filter, k.TopRules)
		}
	}
	written, err := dataplane.LoadFile(pcapOut)
	if err != nil || written.Len() == 0 || !strings.Contains(stderr, "wrote "+pcapOut) {
		t.Errorf("--out: %v, %d frames; stderr %s", err, written.Len(), stderr)
	}
	for _, f := range []string{"bursts.svg", "bursts.png", "lookup-latency.svg", "update-cost.svg", "throughput.svg"} {
		if _, err := os.Stat(filepath.Join(plots, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestReplayBadFileGoesOn(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps", "malformed.pcap")
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, raw[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pcap")
	out, stderr, err := replayCLI(t, "--burst", "0", "--filter", "cf", "--workers", "1", cut, missing, good)
	if err == nil {
		t.Fatal("no error for a truncated and a missing file")
	}
	if !strings.Contains(stderr, cut+": offset ") || !strings.Contains(stderr, "missing.pcap") {
		t.Errorf("stderr does not name the files and offset:\n%s", stderr)
	}
	if !strings.Contains(out, "malformed.pcap") || !strings.Contains(out, "cut.pcap") {
		t.Errorf("the readable captures were not replayed:\n%s", out)
	}
	if _, _, err := replayCLI(t, missing); err == nil {
		t.Error("no error when nothing could be read")
	}
	// A valid capture without a frame: an error that says so.
	empty := filepath.Join(dir, "empty.pcap")
	if err := os.WriteFile(empty, raw[:24], 0o644); err != nil { // the file header alone
		t.Fatal(err)
	}
	if _, _, err := replayCLI(t, empty); err == nil || err.Error() != "no frames to replay: "+empty+" holds none" {
		t.Errorf("replay of a capture without frames: %v", err)
	}
}

func TestReplayClassBench(t *testing.T) {
	dir := t.TempDir()
	cb := filepath.Join(dir, "acl")
	data := "@10.0.0.0/16\t0.0.0.0/0\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000\n" +
		"@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\n"
	if err := os.WriteFile(cb, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := replayCLI(t, "--classbench", cb, "--filter", "bcf", "--t", "5", "--burst", "0", "--workers", "2", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rep := decodeReplayJSON(t, out)
	if rep.Rules < 2 || len(rep.Filters) != 1 || rep.Filters[0].Counters.Hits == 0 || rep.Filters[0].Filter != "bcf t=5" {
		t.Errorf("report %+v", rep)
	}
	for _, bad := range [][]string{{"--filter", "bloom"}, {"--t", "x"}, {"--speed", "fast"}, {"--workers", "0"},
		{"--rules", "a", "--classbench", "b"}, {"--rules", filepath.Join(dir, "nope.flows")}} {
		if _, _, err := replayCLI(t, bad...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

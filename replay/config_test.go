package replay

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

func TestLoadRulesAndCaptures(t *testing.T) {
	dir := t.TempDir()
	flows := filepath.Join(dir, "x.flows")
	if err := os.WriteFile(flows, []byte("priority=10,tcp,actions=goto_table:2\ntable=2,actions=output:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		flows, classbench string
		rules, tables     int
	}{
		{"", "", 20, 2}, // the demo flows
		{flows, "", 2, 3},
	} {
		ups, tables, err := LoadRules(tt.flows, tt.classbench)
		if err != nil || len(ups) != tt.rules || tables != tt.tables {
			t.Errorf("LoadRules(%q, %q) = %d rules, %d tables, %v; want %d, %d", tt.flows, tt.classbench, len(ups), tables, err, tt.rules, tt.tables)
		}
	}
	if _, _, err := LoadRules(filepath.Join(dir, "nope.flows"), ""); err == nil {
		t.Error("LoadRules of a missing file: no error")
	}
	if caps, frames, err := LoadCaptures(nil); err != nil || len(caps) != 1 || frames != 3000 || caps[0].Name != "demo.pcap" {
		t.Errorf("LoadCaptures(nil) = %d captures, %d frames, %v; want the demo", len(caps), frames, err)
	}
	mix := filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps", "mix.pcap")
	caps, frames, err := LoadCaptures([]string{mix, filepath.Join(dir, "missing.pcap")})
	if err == nil || frames != 1200 || len(caps) != 2 {
		t.Errorf("LoadCaptures(mix, missing) = %d captures, %d frames, %v; want 2, 1200 and an error", len(caps), frames, err)
	}

	// WriteOutput: one pass of the demo through the demo rules.
	ups, tables, _ := LoadRules("", "")
	out := filepath.Join(dir, "out.pcapng")
	n, err := WriteOutput(t.Context(), out, &Config{Rules: ups, Tables: tables, Captures: []*dataplane.Capture{DemoCapture()}, Workers: 2})
	if err != nil || n == 0 {
		t.Fatalf("WriteOutput = %d frames, %v", n, err)
	}
	c, err := dataplane.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != n || len(c.Ifaces) != 2 {
		t.Errorf("%s: %d frames (want %d) on %d interfaces (want 2)", out, c.Len(), n, len(c.Ifaces))
	}
}

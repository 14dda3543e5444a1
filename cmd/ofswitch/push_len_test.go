package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// outputsText is the text of n output actions.
func outputsText(n int) string {
	return strings.TrimSuffix(strings.Repeat("output:1,", n), ",")
}

// TestPushTooLong: a flow of 200K actions, whose FLOW_MOD no OpenFlow
// message can hold, is refused by rules lint and by push with its
// file:line, and push then sends nothing; the longest flow a message
// holds (4091 outputs, 65520 bytes) passes lint and goes to ofswitch run,
// which decodes and takes it; with --bundle, whose bundle add message
// takes 24 bytes of the 65535, it is refused in its turn.
func TestPushTooLong(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.flows")
	os.WriteFile(big, []byte("priority=1,actions=drop\npriority=2,actions="+outputsText(200000)+"\n"), 0o644)
	want := big + ":2:1: its FLOW_MOD would be 3200064 bytes, more than one OpenFlow message holds (65535)"
	out, err := run(t, "rules", "lint", big)
	if err == nil || !strings.Contains(out, want) || !strings.Contains(err.Error(), "1 of 2 flows fail") {
		t.Fatalf("lint: %v\n%s", err, out)
	}
	addr, got := recordFlowMods(t)
	if out, err := run(t, "push", "--switch", "tcp:"+addr, big); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("push: %v\n%s", err, out)
	}
	if n := len(got()); n != 0 {
		t.Fatalf("the switch received %d FLOW_MODs of a file with a line too long, want none", n)
	}

	most := filepath.Join(dir, "most.flows")
	os.WriteFile(most, []byte("priority=1,actions=drop\npriority=2,actions="+outputsText(4091)+"\n"), 0o644)
	if out, err := run(t, "rules", "lint", most); err != nil || !strings.Contains(out, "2 flows ok") {
		t.Fatalf("lint of the longest flow: %v\n%s", err, out)
	}
	var log testutil.LockedBuffer
	sw := startRun(t, &log, "--log-level", "warn")
	defer sw.stop(t)
	if out, err := run(t, "push", "--switch", "tcp:"+sw.addr, most); err != nil || !strings.Contains(out, "pushed 2 flows") || !strings.Contains(out, "errors: 0") {
		t.Fatalf("push of the longest flow: %v\n%s", err, out)
	}
	_, err = run(t, "push", "--bundle", "--switch", "tcp:"+sw.addr, most)
	if err == nil || !strings.Contains(err.Error(), most+":2:1: its FLOW_MOD would be 65520 bytes, more than a bundle add message holds (65511)") {
		t.Fatalf("push --bundle of the longest flow: %v", err)
	}
}

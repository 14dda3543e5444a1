package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
)

// TestPushChunksKeepActions: push parses its file a chunk at a time into
// the same memory, and each FLOW_MOD goes out as the file says, also when
// a run of flows of one shape goes on in the next chunk with other
// actions (the encoder's template must not see the next chunk's actions
// where its own flow's were). Each flow's output port is checked on the
// wire, for runs that end inside a chunk and at a chunk's end.
func TestPushChunksKeepActions(t *testing.T) {
	const n = 3 * chunkLines
	var text strings.Builder
	port := func(k int) uint32 { return uint32(2 + k/chunkLines + k/100%2*10) }
	for k := range n {
		fmt.Fprintf(&text, "priority=100,tcp,nw_src=10.0.%d.%d,actions=output:%d\n", k>>8, k&0xff, port(k))
	}
	path := filepath.Join(t.TempDir(), "flows")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, got := recordOutputs(t)
	if out, err := run(t, "push", "--switch", "tcp:"+addr, "--batch", "100", path); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	ports := got()
	if len(ports) != n {
		t.Fatalf("the switch received %d FLOW_MODs, want %d", len(ports), n)
	}
	for k, p := range ports {
		if p != port(k) {
			t.Fatalf("flow of line %d went out with output:%d, want output:%d", k+1, p, port(k))
		}
	}
}

// recordOutputs serves a peer that answers barriers and records the
// output port of each FLOW_MOD's first action (0 if it has none), and
// returns its address and the ports recorded so far.
func recordOutputs(t *testing.T) (string, func() []uint32) {
	t.Helper()
	return recordPeer(t, func(msg []byte) uint32 {
		var fm openflow.FlowMod
		if err := fm.UnmarshalBinary(msg); err != nil {
			t.Errorf("FLOW_MOD: %v", err)
			return 0
		}
		if len(fm.Instructions) > 0 && len(fm.Instructions[0].Actions) > 0 {
			return fm.Instructions[0].Actions[0].Port
		}
		return 0
	})
}

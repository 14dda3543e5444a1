package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

func TestDecodeCapture(t *testing.T) {
	file := testutil.SharedData(t, "openflow-captures", "of13-flowmod-error.pcap")
	var out bytes.Buffer
	cmd := newDecodeCmd()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--port", "16653", file})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// In capture order: both HELLOs, then ovs-ofctl's FLOW_MOD and
	// BARRIER_REQUEST, then OVS's ERROR and BARRIER_REPLY.
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), out.String())
	}
	for i, want := range []string{"stream 0 (conn 0, 127.0.0.1:44758 > 127.0.0.1:16653) @0: OFPT_HELLO (OF1.3) (xid=0x1): versions 1.3",
		"stream 1 (conn 0, 127.0.0.1:16653 > 127.0.0.1:44758) @0: OFPT_HELLO (OF1.5) (xid=0x1a): versions 1.0,1.3,1.4,1.5",
		"@16: OFPT_FLOW_MOD (OF1.3) (xid=0x2): OFPFC_ADD table:0 priority=5,eth_type=0x0800 actions=group:7",
		"@96: OFPT_BARRIER_REQUEST (OF1.3) (xid=0x3)",
		"@16: OFPT_ERROR (OF1.3) (xid=0x2): OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP, 80 bytes of data",
		"@108: OFPT_BARRIER_REPLY (OF1.3) (xid=0x3)"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to contain %q", i, lines[i], want)
		}
	}
}

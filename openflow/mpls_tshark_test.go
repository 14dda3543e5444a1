package openflow

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// TestTsharkMPLSPBB has Wireshark's OpenFlow 1.3 dissector read a
// FLOW_MOD with every MPLS, PBB and TTL-copy action and the MPLS and PBB
// match fields, which ovs-ofctl cannot send (it has no PBB nor TTL
// copies): no malformed or error marks, and the action types, arguments
// and OXM fields it decodes are those encoded.
func TestTsharkMPLSPBB(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		testutil.SkipOrFail(t, "tshark is not installed")
	}
	isid := NewOXM(FieldPBBISID, []byte{0xab, 0xcd, 0xef}, []byte{0xff, 0xff, 0x00})
	fm := ovsFlowMod(9, 900, []OXM{EthType(0x88e7), isid},
		ApplyActions(Action{Type: ActionCopyTTLOut}, Action{Type: ActionCopyTTLIn},
			Action{Type: ActionSetMPLSTTL, TTL: 77}, Action{Type: ActionDecMPLSTTL},
			Action{Type: ActionPushMPLS, EtherType: 0x8848}, Action{Type: ActionPopMPLS, EtherType: 0x86dd},
			Action{Type: ActionPushPBB, EtherType: 0x88e7}, Action{Type: ActionPopPBB},
			SetField(NewOXM(FieldPBBISID, []byte{0, 0, 203}, nil)), SetField(NewOXM(FieldMPLSBOS, []byte{1}, nil)),
			Output(2, 0)),
		Instruction{Type: InstructionWriteActions, Actions: []Action{{Type: ActionPopPBB}, {Type: ActionPushMPLS, EtherType: 0x8847}}})
	b, err := fm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	pcap, err := testutil.TCPStreamPcap(netip.MustParseAddrPort("127.0.0.1:40002"),
		netip.MustParseAddrPort("127.0.0.1:6653"), [][]byte{b})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "mpls.pcap")
	if err := os.WriteFile(file, pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, tshark, append([]string{"-r", file, "-d", "tcp.port==6653,openflow", "-Y", "openflow_v4"}, args...)...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	if v := run("-V"); strings.Contains(v, "Malformed") || strings.Contains(v, "Expert Info (Error") {
		t.Fatalf("tshark marks the FLOW_MOD:\n%s", v)
	}
	for _, c := range []struct{ field, want string }{
		{"openflow_v4.action.type", "11,12,15,16,19,20,26,27,25,25,0,27,19"},
		{"openflow_v4.action.set_mpls_ttl.ttl", "77"},
		{"openflow_v4.action.push_mpls.ethertype", "0x8848,0x8847"},
		{"openflow_v4.action.pop_mpls.ethertype", "0x86dd"},
		{"openflow_v4.action.push_pbb.ethertype", "0x88e7"},
		{"openflow_v4.oxm.field", "5,37,37,36"},
		{"openflow_v4.oxm.hm", "0,1,0,0"},
		{"openflow_v4.oxm.value", "abcdef,0000cb,01"}, // eth_type decodes as value_ethertype,
		{"openflow_v4.oxm.mask", "ffff00"},
	} {
		if got := run("-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,", "-e", c.field); got != c.want {
			t.Errorf("%s: tshark decodes %q, want %q", c.field, got, c.want)
		}
	}
}

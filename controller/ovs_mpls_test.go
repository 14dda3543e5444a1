package controller

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
)

// TestOvsOfctlMPLSFlows adds flows with every MPLS field and action
// ovs-ofctl knows to ofswitch and to Open vSwitch with ovs-ofctl
// add-flows, and compares what dump-flows prints for each. (Open vSwitch
// has no PBB, copy_ttl_out nor copy_ttl_in, and refuses set_field to
// mpls_bos: ovs-ofctl cannot send those.)
func TestOvsOfctlMPLSFlows(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	flows := strings.Join([]string{
		"priority=800,mpls,mpls_label=100,mpls_tc=3,mpls_bos=1,actions=pop_mpls:0x0800,output:2",
		"priority=801,ip,actions=push_mpls:0x8847,set_field:203->mpls_label,set_field:5->mpls_tc,set_mpls_ttl(9),dec_mpls_ttl,output:2",
		"priority=802,mplsm,mpls_label=0xfffff,actions=set_mpls_label(7),set_mpls_tc(1),push_mpls:0x8848,output:3",
		"priority=803,mpls,mpls_bos=0,actions=pop_mpls:0x8847,goto_table:1",
		"priority=804,in_port=1,dl_vlan=5,dl_type=0x8847,mpls_tc=7,actions=write_actions(pop_mpls:0x86dd,dec_mpls_ttl,set_mpls_ttl:3,push_mpls:0x8847,output:1)",
		"priority=805,arp,actions=push_mpls:0x8848,set_mpls_ttl(255),CONTROLLER:128",
		"table=1,priority=1,mpls,mpls_label=16,actions=write_actions(set_field:0x20->mpls_label,output:1)",
	}, "\n") + "\n"
	file := filepath.Join(t.TempDir(), "mpls.flows")
	if err := os.WriteFile(file, []byte(flows), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ofctl, "-O", "OpenFlow13", "add-flows", ours, file).CombinedOutput(); err != nil {
		t.Fatalf("ovs-ofctl add-flows on ofswitch: %v\n%s", err, out)
	}
	if out, err := ovs.Ofctl("", "add-flows", file); err != nil {
		t.Fatalf("ovs-ofctl add-flows on Open vSwitch: %v\n%s", err, out)
	}
	// ovs-ofctl logs that OFPAT_SET_MPLS_TTL is deprecated in OpenFlow
	// 1.3 as it decodes one: keep the flows only.
	flowsOf := func(out string) []string {
		var fl []string
		for _, l := range ovstest.FlowLines(out) {
			if strings.HasPrefix(l, "cookie=") {
				fl = append(fl, l)
			}
		}
		return fl
	}
	got := flowsOf(ovstest.DumpFlows(t, ofctl, ours))
	theirs, err := ovs.Ofctl("", "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	want := flowsOf(theirs)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("dump-flows (-Open vSwitch +ofswitch):\n%s", diff)
	}
	if len(got) != 7 {
		t.Fatalf("%d flows, want 7:\n%s", len(got), strings.Join(got, "\n"))
	}
	t.Logf("%d flows agree:\n%s", len(got), strings.Join(got, "\n"))
}

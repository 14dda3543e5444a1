package ofctl_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestModActionsText parses Open vSwitch's mod_* actions (and set_field
// of nw_tos, the TOS byte's DSCP bits) and prints them
// back, against what ovs-ofctl parse-flow prints for the same lines over
// OpenFlow 1.3 (set_field of the field each sets; mod_vlan_pcp pushes a
// VLAN header when the match does not say there is one), and refuses
// what ovs-ofctl refuses: a TOS with ECN bits, an ECN over 3, a field the
// match's protocol does not have.
func TestModActionsText(t *testing.T) {
	ovsOfctl := actionsLikeOfctl(t, []string{
		"ip,actions=mod_dl_dst:00:00:00:00:00:01,mod_dl_src:00:00:00:00:00:02,output:1",
		"ip,actions=mod_nw_tos:32,mod_nw_src:1.2.3.4,mod_nw_dst:5.6.7.8,mod_nw_ecn:2",
		"tcp,actions=mod_tp_src:1,mod_tp_dst:2,mod_nw_tos:252",
		"udp,actions=mod_tp_src:1,mod_tp_dst:0xffff",
		"sctp,actions=mod_tp_src:1",
		"dl_vlan=5,actions=mod_vlan_pcp:3,mod_vlan_vid:7",
		"ipv6,actions=mod_nw_tos:0x20,mod_nw_ecn:0",
		"actions=mod_vlan_pcp:7",
		"arp,actions=mod_dl_src:aa:bb:cc:dd:ee:ff,write_actions(mod_dl_dst:00:00:00:00:00:09,output:2)",
		"ip,actions=set_field:32->nw_tos,output:1",
		"ipv6,actions=set_field:252->nw_tos,set_field:0->nw_tos,mod_nw_tos:4",
	})
	for _, c := range []struct{ line, want string }{
		{"ip,actions=mod_nw_tos:33", "not a valid TOS"},
		{"ip,actions=mod_nw_tos:256", "tos"},
		{"ip,actions=mod_nw_ecn:4", "not a valid ECN"},
		{"ip,actions=mod_tp_src:5", "MATCH_INCONSISTENT"},
		{"actions=mod_nw_src:1.2.3.4", "MATCH_INCONSISTENT"},
		{"ip,actions=mod_dl_dst:1", "Ethernet address"},
		{"actions=mod_vlan_pcp:8", "vlan_pcp"},
		{"ip,actions=set_field:33->nw_tos", "not a valid TOS"},
		{"actions=set_field:32->nw_tos", "MATCH_INCONSISTENT"},
	} {
		if out, err := exec.Command(ovsOfctl, "-O", "OpenFlow13", "parse-flow", c.line).CombinedOutput(); err == nil {
			t.Errorf("ovs-ofctl takes %q: %v\n%s", c.line, err, out)
		}
		rep, err := ofctl.Lint("flow", []byte(c.line), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Errors) == 0 {
			t.Errorf("%q taken", c.line)
			continue
		}
		if !strings.Contains(rep.Errors[0].Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.line, rep.Errors[0], c.want)
		}
	}
}

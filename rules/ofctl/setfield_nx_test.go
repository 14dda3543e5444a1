package ofctl_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestSetFieldNXText parses set_field of the Nicira fields nw_ttl,
// pkt_mark, tun_flags and the tunnel fields and prints the actions back, against what ovs-ofctl
// parse-flow prints for the same lines over OpenFlow 1.3; and refuses
// what ovs-ofctl refuses: set_field of ip_frag (read-only), a tun_flags
// other than oam, values too wide; and the +oam and masked forms, loads
// in Open vSwitch, which ofswitch does not take (a load of part of a
// 128-bit field, of tun_flags, of an IPv4 tunnel address).
func TestSetFieldNXText(t *testing.T) {
	ovsOfctl := actionsLikeOfctl(t, []string{
		"ip,actions=set_field:64->nw_ttl,output:1",
		"ipv6,actions=set_field:0->nw_ttl,set_field:255->nw_ttl",
		"actions=set_field:5->pkt_mark,set_field:0xffffffff->pkt_mark,set_field:0->pkt_mark,goto_table:1",
		"actions=set_field:1->tun_flags,set_field:oam->tun_flags,set_field:0->tun_flags",
		"ip,actions=write_actions(set_field:9->nw_ttl,set_field:0x3->pkt_mark,output:1)",
		"actions=set_field:10.0.0.1->tun_src,set_field:0.0.0.0->tun_dst,set_field:2001:db8::1->tun_ipv6_src,set_field:::->tun_ipv6_dst",
		"actions=set_field:300->tun_gbp_id,set_field:0->tun_gbp_id,set_field:0x81->tun_gbp_flags,set_field:0->tun_gbp_flags,set_field:1->tun_gbp_flags",
		"actions=write_actions(set_field:fe80::9->tun_ipv6_dst,set_field:65535->tun_gbp_id,output:1)",
		"actions=set_field:2001:db8::/64->tun_ipv6_src,set_field:::1/::ffff->tun_ipv6_dst",
	})
	for _, c := range []struct {
		line, want string
		load       bool // ovs-ofctl takes it as a load of tun_flags; ofswitch refuses this spelling
	}{
		{"ip,actions=set_field:1->ip_frag", "ip_frag is read-only", false},
		{"ip,actions=set_field:1->nw_frag", "nw_frag is read-only", false},
		{"actions=set_field:2->tun_flags", "unknown tunnel flag", false},
		{"actions=set_field:256->nw_ttl", "nw_ttl", false},
		{"actions=set_field:+oam->tun_flags", "set_field takes tun_flags oam or a number", true},
		{"actions=set_field:1/1->tun_flags", "set_field takes tun_flags oam or a number", true},
		{"actions=set_field:65536->tun_gbp_id", "tun_gbp_id", false},
		{"actions=set_field:256->tun_gbp_flags", "tun_gbp_flags", false},
	} {
		out, err := exec.Command(ovsOfctl, "-O", "OpenFlow13", "parse-flow", c.line).CombinedOutput()
		if took := err == nil; took != c.load || c.load && !strings.Contains(string(out), "load:") {
			t.Errorf("ovs-ofctl parse-flow %q: %v\n%s", c.line, err, out)
		}
		_, errs := ofctl.ParseFlows("flow", []byte(c.line), nil)
		if len(errs) == 0 {
			t.Errorf("%q parsed", c.line)
			continue
		}
		if !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.line, errs[0], c.want)
		}
	}
}

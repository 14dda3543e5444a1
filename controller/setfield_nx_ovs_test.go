package controller

import (
	"os/exec"
	"strings"
	"testing"
)

// setFieldNXFlows write the Nicira fields that set_field takes besides the
// basic OXMs: nw_ttl (under ip and ipv6), pkt_mark and tun_flags, which
// ovs-ofctl sends as set_field of NXM_NX_IP_TTL, NXM_NX_PKT_MARK and
// NXM_NX_TUN_FLAGS, and the tunnel fields (tun_src, tun_dst, tun_ipv6_src,
// tun_ipv6_dst, tun_gbp_id, tun_gbp_flags), in apply-actions and in
// write-actions.
var setFieldNXFlows = []string{
	"priority=920,ip,actions=set_field:64->nw_ttl,output:1",
	"priority=921,ipv6,actions=set_field:7->nw_ttl,set_field:0->nw_ttl,output:2",
	"priority=922,actions=set_field:5->pkt_mark,goto_table:1",
	"priority=923,in_port=2,actions=set_field:0xffffffff->pkt_mark,set_field:0->pkt_mark",
	"priority=924,in_port=3,actions=set_field:oam->tun_flags,output:1",
	"priority=925,in_port=4,actions=set_field:1->tun_flags,set_field:0->tun_flags",
	"priority=926,tcp,actions=write_actions(set_field:9->nw_ttl,set_field:0x3->pkt_mark,output:1)",
	"table=1,priority=5,pkt_mark=5,ip,actions=set_field:1->nw_ttl,output:3",
	"priority=927,ip,nw_dst=10.0.0.9,actions=set_field:32->nw_tos,output:1",
	"priority=928,ipv6,actions=set_field:252->nw_tos,set_field:0->nw_tos",
	"priority=929,udp,actions=write_actions(set_field:4->nw_tos,output:2)",
	// The tunnel fields (NXM_NX_TUN_IPV4_*, _IPV6_*, _GBP_*), metadata.
	"priority=930,in_port=5,actions=set_field:10.0.0.1->tun_src,set_field:192.168.0.2->tun_dst,output:1",
	"priority=931,in_port=6,actions=set_field:2001:db8::1->tun_ipv6_src,set_field:fe80::9->tun_ipv6_dst,goto_table:1",
	"priority=932,in_port=7,actions=set_field:300->tun_gbp_id,set_field:0x81->tun_gbp_flags,set_field:0->tun_gbp_flags,output:1",
	"priority=933,in_port=8,actions=write_actions(set_field:::->tun_ipv6_src,set_field:65535->tun_gbp_id,output:2)",
	"table=1,priority=6,tun_ipv6_src=2001:db8::1,tun_gbp_flags=0,actions=set_field:1->tun_gbp_flags,output:3",
}

// TestOvsOfctlSetFieldNX adds setFieldNXFlows to ofswitch and to Open
// vSwitch with ovs-ofctl add-flows, over OpenFlow 1.3 and 1.4, and
// compares what dump-flows prints for each; both refuse set_field of
// nw_ttl without IPv4 or IPv6 in the match. (ovs-ofctl refuses set_field
// of ip_frag itself, "ip_frag is read-only": TestRefusalsAsOVS sends it.)
func TestOvsOfctlSetFieldNX(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		t.Run(ver, func(t *testing.T) {
			addFlowsBoth(t, ofctl, ovs, ours, ver, setFieldNXFlows)
			// The prerequisites: nw_ttl needs IPv4 or IPv6.
			for _, f := range []string{"priority=1,actions=set_field:64->nw_ttl", "priority=1,arp,actions=set_field:64->nw_ttl"} {
				ourOut, ourErr := exec.Command(ofctl, "-O", ver, "add-flow", ours, f).CombinedOutput()
				theirOut, theirErr := ovs.Exec("ovs-ofctl", "-O", ver, "add-flow", ovs.Target(), f).CombinedOutput()
				if ourErr == nil || theirErr == nil || !strings.Contains(string(ourOut), "OFPBAC_MATCH_INCONSISTENT") ||
					!strings.Contains(string(theirOut), "OFPBAC_MATCH_INCONSISTENT") {
					t.Errorf("add-flow %s: ofswitch %v %s, Open vSwitch %v %s, want OFPBAC_MATCH_INCONSISTENT from both",
						f, ourErr, ourOut, theirErr, theirOut)
				}
			}
		})
	}
}

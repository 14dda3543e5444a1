package controller

import "testing"

// tunLoadFlows load, move, output and set the tunnel fields that
// load and move take (tun_src, tun_dst, tun_gbp_id, tun_gbp_flags) as flow
// files write them: ovs-ofctl sends load as NXAST_REG_LOAD with their
// NXM_NX_TUN_* header, move as NXAST_REG_MOVE, output:field as
// NXAST_OUTPUT_REG, set_field:V/M->F as loads.
var tunLoadFlows = []string{
	"priority=3000,actions=load:0x5->NXM_NX_TUN_GBP_ID[],load:1->tun_gbp_id[15],load:0x81->NXM_NX_TUN_GBP_FLAGS[]",
	"priority=3001,actions=load:0xa000001->NXM_NX_TUN_IPV4_SRC[],load:0xff->tun_dst[0..7]",
	"priority=3002,actions=move:NXM_NX_TUN_GBP_ID[]->NXM_NX_REG0[0..15],move:NXM_NX_TUN_GBP_FLAGS[]->tun_gbp_id[8..15]",
	"priority=3003,actions=move:reg1[0..15]->NXM_NX_TUN_GBP_ID[],move:tun_src[]->tun_dst[],output:tun_gbp_id[]",
	"priority=3004,actions=set_field:0x5/0xf->tun_gbp_id,set_field:0x1/0x3->tun_gbp_flags,set_field:10.0.0.0/255.0.0.0->tun_src",
	"priority=3005,tcp,actions=move:tcp_dst[]->tun_gbp_id[],move:tun_gbp_flags[]->pkt_mark[0..7],goto_table:1",
	"priority=3006,actions=write_actions(load:0x3->tun_gbp_flags[0..1],set_field:7->tun_gbp_id,output:1)",
	"priority=3007,ipv6,actions=load:0x11->NXM_NX_TUN_IPV6_DST[60..67],move:NXM_NX_TUN_IPV6_DST[60..67]->NXM_NX_TUN_IPV6_SRC[0..7],set_field:2001:db8::/32->tun_ipv6_src,move:tun_ipv6_src[]->ipv6_dst[]",
	"priority=3008,actions=load:0x20010db8000000000000000000000001->NXM_NX_TUN_IPV6_SRC[],output:tun_ipv6_src[0..15]",
	"table=1,priority=1,tun_gbp_id=80,actions=load:1->tun_gbp_flags[7],output:NXM_NX_TUN_GBP_ID[0..7]",
}

// TestOvsOfctlTunLoad adds tunLoadFlows to ofswitch and to Open vSwitch
// with ovs-ofctl add-flows, over OpenFlow 1.3 and 1.4, and compares what
// dump-flows prints for each.
func TestOvsOfctlTunLoad(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		t.Run(ver, func(t *testing.T) {
			addFlowsBoth(t, ofctl, ovs, ours, ver, tunLoadFlows)
		})
	}
}

package controller

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/openflow"
)

// niciraLoadFlows use load, move, output:field and set_field of part of a
// field as flow files write them: ovs-ofctl sends load and a partial
// set_field as NXAST_REG_LOAD (one a run of ones in the mask), move as
// NXAST_REG_MOVE, output:field as NXAST_OUTPUT_REG; Open vSwitch prints
// them back with the NXM names.
var niciraLoadFlows = []string{
	"priority=1000,actions=load:0x5->NXM_OF_ETH_DST[0..15],output:1",
	"priority=1001,actions=load:1->pkt_mark,load:0x1->pkt_mark[3],load:2->pkt_mark[],load:0->NXM_NX_PKT_MARK[31]",
	"priority=1002,ip,actions=load:0x1->ip_dst[0..7],load:2->NXM_OF_IP_SRC[],load:63->nw_ttl[],load:3->ip_dscp[]",
	"priority=1003,actions=set_field:0x5/0xf0f->pkt_mark,set_field:0xff/0xff->pkt_mark,set_field:0x5/0xffffffff->pkt_mark",
	"priority=1004,actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],move:eth_src[0..15]->pkt_mark[16..31]",
	"priority=1005,actions=output:NXM_NX_PKT_MARK[0..15],output:pkt_mark[16..31]",
	"priority=1006,actions=load:1->metadata[0..3],load:5->tun_id[8..15],set_field:0x5/0x5->tun_id,set_field:0x5/0x5->metadata",
	"priority=1007,actions=move:in_port[]->pkt_mark[0..15],output:NXM_OF_IN_PORT[]",
	"priority=1008,tcp,actions=load:80->tcp_dst[],move:tcp_src[]->NXM_OF_TCP_DST[],move:NXM_OF_TCP_DST[0..7]->NXM_OF_ETH_SRC[40..47]",
	"priority=1009,udp,actions=load:0x35->udp_src[],move:udp_dst[]->udp_src[]",
	"priority=1010,arp,actions=load:2->arp_op[],move:arp_sha[]->arp_tha[],move:arp_spa[]->arp_tpa[]",
	"priority=1011,ipv6,actions=load:0x12345->ipv6_label[],move:NXM_NX_IPV6_LABEL[0..15]->tun_id[48..63]",
	"priority=1012,ip,actions=write_actions(load:0x1->pkt_mark[0..3],move:eth_src[]->eth_dst[],load:2->pkt_mark[4..5],output:1)",
	"priority=1013,icmp,actions=load:8->icmp_type[],move:icmp_code[]->pkt_mark[0..7]",
	"priority=1014,ip,actions=move:ip_src[]->ip_dst[],move:NXM_OF_IP_PROTO[]->pkt_mark[0..7],move:eth_type[]->tun_id[0..15]",
	"priority=1015,actions=load:0xffffffffffffffff->tun_id[],load:0xffffffffffff->eth_src[]",
	"priority=1016,ip,actions=set_field:10.0.0.5/255.255.255.0->ip_dst,set_field:10.0.0.5/0.0.0.255->ip_src,set_field:00:00:00:00:00:05/00:00:00:00:00:ff->eth_dst",
	"priority=1017,tcp,actions=set_field:0x50/0xff->tcp_dst,set_field:5/0xf->metadata",
	"priority=1018,ipv6,actions=set_field:0x123/0xfff->ipv6_label",
	"priority=1019,dl_vlan=5,actions=load:3->vlan_vid[0..3],load:1->OXM_OF_VLAN_VID[],load:2->vlan_pcp[],move:vlan_vid[0..2]->vlan_pcp[]",
	"priority=1020,dl_vlan=5,actions=move:vlan_vid[]->pkt_mark[0..11],output:vlan_vid[]",
	"table=1,priority=1,actions=load:0x3->pkt_mark[0..1],goto_table:2",
	// 128-bit fields: a load is cut into runs of at most 64 bits, a
	// move carries up to 128, across the fields' 64-bit words.
	"priority=1021,ipv6,actions=load:0x1->NXM_NX_IPV6_SRC[0..63],load:0x20010db8000000000000000000000001->NXM_NX_IPV6_DST[],move:NXM_NX_IPV6_SRC[]->NXM_NX_IPV6_DST[]",
	"priority=1022,ipv6,actions=move:NXM_NX_IPV6_SRC[32..95]->NXM_NX_IPV6_DST[16..79],move:ipv6_src[0..31]->reg0[],move:reg1[]->ipv6_dst[96..127],load:0x1->NXM_NX_IPV6_SRC[60..67]",
	"priority=1023,ipv6,actions=set_field:::1/::ffff->ipv6_src,set_field:2001:db8::/32->ipv6_dst,set_field:::5/::ff00:0:0:ff->ipv6_dst,output:NXM_NX_IPV6_SRC[0..15]",
	"priority=1024,icmp6,icmp_type=135,actions=load:0x5->nd_target[60..67],move:nd_target[]->ipv6_src[],move:NXM_NX_ND_TARGET[64..127]->xreg1[]",
	"priority=1025,ipv6,actions=write_actions(load:0xffff->ipv6_dst[56..71],move:ipv6_dst[]->ipv6_src[],output:1)",
	// The NXM fields that pack several of the flow tables' fields, and
	// tun_flags (1 bit in 2 bytes).
	"priority=1026,actions=load:0x1005->NXM_OF_VLAN_TCI[],move:NXM_OF_VLAN_TCI[0..11]->reg0[0..11],load:0->NXM_OF_VLAN_TCI[13..15],move:reg1[0..15]->vlan_tci[]",
	"priority=1027,ip,actions=load:0x4->NXM_OF_IP_TOS[],move:NXM_OF_IP_TOS[2..7]->pkt_mark[0..5],load:0x3f->nw_tos[2..7],move:nw_tos[]->reg2[8..15]",
	"priority=1028,actions=load:1->NXM_NX_TUN_FLAGS[],move:tun_flags[]->reg1[0],load:0->tun_flags[],move:reg3[31]->NXM_NX_TUN_FLAGS[]",
	"priority=1029,actions=load:0x1->vlan_tci[12],set_field:4101->vlan_vid",
}

// TestOvsOfctlNiciraLoadMove adds niciraLoadFlows to ofswitch and to Open
// vSwitch with ovs-ofctl add-flows, over OpenFlow 1.3 and 1.4, and compares
// what dump-flows prints for each.
func TestOvsOfctlNiciraLoadMove(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		t.Run(ver, func(t *testing.T) {
			addFlowsBoth(t, ofctl, ovs, ours, ver, niciraLoadFlows)
		})
	}
}

// TestNXLoad2OutputReg2AsOVS sends NXAST_REG_LOAD2 and NXAST_OUTPUT_REG2,
// which ovs-ofctl does not send for these fields, as a controller may,
// to ofswitch and to Open vSwitch: both take them, and dump-flows prints
// the same (set_field:V/M->F for a load2, the field's own value format).
func TestNXLoad2OutputReg2AsOVS(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	addFlowsBoth(t, ofctl, ovs, ours, "OpenFlow13", []string{"priority=1,actions=drop"})
	oc, or := dialOF13(t, func() (net.Conn, error) { return net.Dial("tcp", strings.TrimPrefix(ours, "tcp:")) })
	tc, tr := dialOF13(t, func() (net.Conn, error) { return ovs.Dial(fmt.Sprintf("127.0.0.1:%d", ovstest.Port)) })
	load2 := func(hdr uint32, payload ...byte) openflow.Action {
		x := openflow.NXAction{Subtype: openflow.NXRegLoad2, Dst: openflow.OXMHeader(hdr), Payload: payload}
		return x.Action()
	}
	rf := refusal{name: "load2 and output_reg2", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{
		load2(0x0000030c, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0xff),
		load2(0x00001108, 10, 0, 0, 0, 255, 255, 255, 0),
		load2(0x00001108, 0, 0, 0, 5, 0, 0, 0, 255),
		load2(0x00014308, 0, 0, 0, 5, 0, 0, 0, 0xff),
		load2(0x00014204, 0, 0, 0, 5),
		nx(0, 32, 0x01, 0xcf, 0, 0, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0),
	}}
	// 128-bit fields: ipv6_dst under a mask, ipv6_src whole.
	v6 := []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5}
	m6 := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}
	rf6 := refusal{name: "load2 of ipv6", match: []openflow.OXM{mIPv6}, acts: []openflow.Action{
		load2(0x00012920, append(append([]byte{}, v6...), m6...)...),
		load2(0x00012610, v6...),
	}}
	for i, c := range []struct {
		c net.Conn
		r *openflow.Reader
	}{{oc, or}, {tc, tr}} {
		if got := flowModAnswer(t, c.c, c.r, uint32(10+i), &rf); got != "" {
			t.Fatalf("switch %d answers %s", i, got)
		}
		if got := flowModAnswer(t, c.c, c.r, uint32(20+i), &rf6); got != "" {
			t.Fatalf("switch %d answers %s to the ipv6 loads", i, got)
		}
	}
	got, want := dumpBoth(t, ofctl, ovs, ours, "OpenFlow13")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("dump-flows (-Open vSwitch +ofswitch):\n%s", diff)
	}
	if all := strings.Join(got, "\n"); len(got) != 3 || !strings.Contains(all, "set_field:10.0.0.0/24->ip_dst") || !strings.Contains(all, "output:NXM_NX_PKT_MARK[7..22]") ||
		!strings.Contains(all, "set_field:2001:db8::5/ffff:ffff::ffff->ipv6_dst") {
		t.Fatalf("dump-flows:\n%s", strings.Join(got, "\n"))
	}
}

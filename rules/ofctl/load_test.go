package ofctl_test

import (
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestLoadMoveText: load, move and output:field parse and print back as
// Open vSwitch prints them, and the forms ovs-ofctl refuses are refused
// with its reasons.
func TestLoadMoveText(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"actions=load:0x5->NXM_OF_ETH_DST[0..15]", "load:0x5->NXM_OF_ETH_DST[0..15]"},
		{"actions=load:1->pkt_mark", "load:0x1->NXM_NX_PKT_MARK[]"},
		{"actions=load:1->pkt_mark[3]", "load:0x1->NXM_NX_PKT_MARK[3]"},
		{"actions=set_field:0x5/0xf0f->pkt_mark", "load:0x5->NXM_NX_PKT_MARK[0..3],load:0->NXM_NX_PKT_MARK[8..11]"},
		{"actions=set_field:0x5/0xffffffff->pkt_mark", "set_field:0x5->pkt_mark"},
		{"ip,actions=set_field:10.0.0.5/255.255.255.0->ip_dst", "load:0xa0000->NXM_OF_IP_DST[8..31]"},
		{"actions=set_field:00:00:00:00:00:05/00:00:00:00:00:ff->eth_dst", "load:0x5->NXM_OF_ETH_DST[0..7]"},
		{"udp,actions=load:53->udp_dst[],move:udp_src[]->pkt_mark[0..15]", "load:0x35->NXM_OF_UDP_DST[],move:NXM_OF_UDP_SRC[]->NXM_NX_PKT_MARK[0..15]"},
		{"actions=move:in_port[]->pkt_mark[0..15],output:NXM_NX_PKT_MARK[0..15]", "move:NXM_OF_IN_PORT[]->NXM_NX_PKT_MARK[0..15],output:NXM_NX_PKT_MARK[0..15]"},
		// Registers: reg(2N) the high half of xregN, reg(2N+1) the low.
		{"actions=load:0x5->NXM_NX_REG0[]", "load:0x5->NXM_NX_REG0[]"},
		{"actions=load:1->reg3[4..7],load:1->reg14[31]", "load:0x1->NXM_NX_REG3[4..7],load:0x1->NXM_NX_REG14[31]"},
		{"actions=set_field:7->reg4,set_field:0x5/0xffffffff->reg6", "set_field:0x7->reg4,set_field:0x5->reg6"},
		{"actions=set_field:0x5/0xf0f->reg6", "load:0x5->NXM_NX_REG6[0..3],load:0->NXM_NX_REG6[8..11]"},
		{"actions=move:reg0[]->reg1[],output:reg2[16..31]", "move:NXM_NX_REG0[]->NXM_NX_REG1[],output:NXM_NX_REG2[16..31]"},
		{"actions=load:0x1ffffffff->xreg0[],load:1->OXM_OF_PKT_REG1[0..3]", "load:0x1ffffffff->OXM_OF_PKT_REG0[],load:0x1->OXM_OF_PKT_REG1[0..3]"},
		{"actions=set_field:0x100000002->xreg5,set_field:0x100000002/0x1ffffffff->xreg6", "set_field:0x100000002->xreg5,load:0x100000002->OXM_OF_PKT_REG6[0..32]"},
		{"actions=move:xreg2[]->xreg3[],output:xreg4[0..15]", "move:OXM_OF_PKT_REG2[]->OXM_OF_PKT_REG3[],output:OXM_OF_PKT_REG4[0..15]"},
		{"reg0=5,actions=write_actions(set_field:3->reg1,load:2->reg0[0..7],output:1)", "write_actions(set_field:0x3->reg1,load:0x2->NXM_NX_REG0[0..7],output:1)"},
		// The tunnel fields load and move take.
		{"actions=load:5->tun_gbp_id[],move:NXM_NX_TUN_GBP_FLAGS[]->tun_gbp_id[8..15]", "load:0x5->NXM_NX_TUN_GBP_ID[],move:NXM_NX_TUN_GBP_FLAGS[]->NXM_NX_TUN_GBP_ID[8..15]"},
		{"actions=set_field:0x5/0xf->tun_gbp_id,set_field:0x5/0xffff->tun_gbp_id,set_field:0x1/0x3->tun_gbp_flags", "load:0x5->NXM_NX_TUN_GBP_ID[0..3],set_field:5->tun_gbp_id,load:0x1->NXM_NX_TUN_GBP_FLAGS[0..1]"},
		{"actions=set_field:10.0.0.0/255.0.0.0->tun_src,move:tun_src[]->tun_dst[],output:tun_gbp_id[]", "load:0xa->NXM_NX_TUN_IPV4_SRC[24..31],move:NXM_NX_TUN_IPV4_SRC[]->NXM_NX_TUN_IPV4_DST[],output:NXM_NX_TUN_GBP_ID[]"},
	} {
		fs, errs := ofctl.ParseFlows("flow", []byte(c.in), nil)
		if len(errs) != 0 {
			t.Errorf("%q: %v", c.in, errs[0])
			continue
		}
		if got := ofctl.FormatUpdate(&fs[0]); !strings.HasSuffix(got, "actions="+c.out) {
			t.Errorf("%q prints %q, want %q", c.in, got, c.out)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"actions=load:0x1ff->pkt_mark[0..7]", "does not fit into 8 bits"},
		{"actions=load:1->pkt_mark[30..33]", "ending bit 33 is not valid because field is only 32 bits wide"},
		{"actions=move:eth_src[]->pkt_mark[]", "source field is 48 bits wide but destination is 32 bits wide"},
		{"actions=load:1->eth_type[]", "not writable"},
		{"ip,actions=load:1->ip_frag[]", "not writable"},
		{"udp,actions=load:80->tcp_dst[]", "ip_proto=6"},
		{"actions=load:1->no_such_field[]", "unknown field"},
		{"ip,actions=set_field:5/0x7->nw_ttl", "invalid mask for field nw_ttl"},
		{"actions=load:0x1234->vlan_vid[]", "does not fit into 12 bits"},
		{"actions=write_actions(output:pkt_mark[0..15])", "write_actions cannot hold"},
		{"actions=load:1->reg0[30..33]", "ending bit 33 is not valid because field is only 32 bits wide"},
		{"actions=load:0x1ffffffff->reg0[]", "does not fit into 32 bits"},
		{"actions=set_field:0x1ffffffff->reg0", "reg0 value"},
		{"actions=move:reg0[]->pkt_mark[0..15]", "source field is 32 bits wide but destination is 16 bits wide"},
		{"actions=load:1->xreg0[60..64]", "ending bit 64 is not valid because field is only 64 bits wide"},
		{"actions=load:1->tun_gbp_id[16]", "bit 16 is not valid because field is only 16 bits wide"},
		{"actions=move:tun_gbp_id[]->tun_gbp_flags[]", "source field is 16 bits wide but destination is 8 bits wide"},
	} {
		_, errs := ofctl.ParseFlows("flow", []byte(c.in), nil)
		if len(errs) == 0 {
			t.Errorf("%q parsed", c.in)
			continue
		}
		if !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, errs[0], c.want)
		}
	}
}

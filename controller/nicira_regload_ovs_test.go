package controller

import "testing"

// regLoadFlows load, move, output and set the registers reg0-15 (halves of
// ofswitch's xreg fields) as flow files write them: ovs-ofctl sends load
// as NXAST_REG_LOAD with an NXM_NX_REG header, move as NXAST_REG_MOVE,
// output:field as NXAST_OUTPUT_REG, set_field:V->regN as OFPAT_SET_FIELD
// with the NXM_NX_REG header and set_field:V/M->regN as loads.
var regLoadFlows = []string{
	"priority=2000,actions=load:0x5->NXM_NX_REG0[]",
	"priority=2001,actions=load:1->NXM_NX_REG3[4..7],load:0xffffffff->reg15[],load:1->reg14[31]",
	"priority=2002,ip,actions=move:NXM_OF_IP_SRC[]->NXM_NX_REG1[]",
	"priority=2003,tcp,actions=move:NXM_NX_REG2[0..15]->NXM_OF_TCP_DST[]",
	"priority=2004,actions=output:NXM_NX_REG0[0..15]",
	"priority=2005,actions=set_field:7->reg4,set_field:0xffffffff->reg5,set_field:0x5/0xf0f->reg6,set_field:0x1/0x1->reg7,set_field:0x5/0xffffffff->reg8",
	"priority=2006,actions=move:reg0[]->reg1[],move:NXM_NX_REG8[16..31]->NXM_NX_REG9[0..15],move:reg10[0..7]->pkt_mark[8..15]",
	"priority=2007,actions=write_actions(load:2->NXM_NX_REG0[],set_field:3->reg1,output:1)",
	"priority=2008,reg0=5,actions=load:0x1->reg0[0..3],goto_table:1",
	"table=1,reg0=5,reg3=0x10/0xf0,actions=output:reg0[0..15]",
	"table=1,xreg1=0x100000002,actions=move:reg2[]->reg3[]",
	// The 64-bit registers (OXM_OF_PKT_REG0-7): printed by that name
	// whatever bits a load writes; set_field of a whole one is a set_field.
	"table=2,priority=1,actions=load:0x1ffffffff->OXM_OF_PKT_REG0[],load:0x1->OXM_OF_PKT_REG1[0..3],load:0x1->xreg2[40..47],load:0x3->xreg3[31..32]",
	"table=2,priority=2,actions=move:xreg2[]->xreg3[],output:OXM_OF_PKT_REG4[0..15],move:OXM_OF_PKT_REG0[0..31]->NXM_NX_REG3[]",
	"table=2,priority=3,actions=set_field:0x100000002->xreg5,set_field:0x100000002/0x1ffffffff->xreg6,set_field:0x5/0xff00000000->xreg7",
	"table=2,priority=4,actions=write_actions(set_field:0x100000002->xreg5,load:0x1->xreg6[0..1],output:1)",
}

// TestOvsOfctlRegLoad adds regLoadFlows to ofswitch and to Open vSwitch
// with ovs-ofctl add-flows, over OpenFlow 1.3 and 1.4, and compares what
// dump-flows prints for each.
func TestOvsOfctlRegLoad(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		t.Run(ver, func(t *testing.T) {
			addFlowsBoth(t, ofctl, ovs, ours, ver, regLoadFlows)
		})
	}
}

package controller

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// niciraActionFlows use each of the simple Nicira extension actions the way
// flow files write them: ovs-ofctl sends note, exit, controller(...) and
// dec_ttl(ids) as NXAST actions, set_tunnel and set_tunnel64 as set_field
// of tun_id, every resubmit as NXAST_RESUBMIT_TABLE.
var niciraActionFlows = []string{
	"priority=900,actions=note:01.02,output:2",
	"priority=901,ip,actions=note:0102030405060708,dec_ttl(1,2),output:1",
	"priority=902,actions=note:,exit",
	"priority=903,in_port=1,actions=output:2,exit,output:3",
	"priority=904,actions=controller(reason=no_match,max_len=64,id=3)",
	"priority=905,actions=controller(reason=invalid_ttl)",
	"priority=906,actions=controller(max_len=100),controller(reason=action,id=0),controller(id=7)",
	"priority=907,actions=controller(reason=action_set),controller(reason=group,max_len=0),controller(reason=packet_out)",
	"priority=908,ip,actions=dec_ttl(0),dec_ttl(),dec_ttl(4 5 6),output:1",
	"priority=909,ipv6,actions=write_actions(dec_ttl(1),output:3)",
	"priority=910,actions=set_tunnel:5,set_tunnel64:0x123456789,goto_table:1",
	"priority=911,tcp,actions=exit,write_actions(output:2),goto_table:2",
	"table=1,priority=1,actions=note:ff.ee.dd.cc.bb.aa.99,controller(reason=no_match)",
	"priority=912,in_port=2,actions=resubmit:3,resubmit(,1),resubmit(4,2),output:1",
	"priority=913,actions=resubmit(,0),resubmit(LOCAL,255),resubmit(IN_PORT,200),resubmit(CONTROLLER,),write_actions(resubmit(,3))",
	"table=1,priority=2,ip,actions=resubmit(,1),dec_ttl,resubmit:1,exit",
}

// TestOvsOfctlNiciraActions adds niciraActionFlows to ofswitch and to Open
// vSwitch with ovs-ofctl add-flows, over OpenFlow 1.3 and 1.4, and
// compares what dump-flows prints for each.
func TestOvsOfctlNiciraActions(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		t.Run(ver, func(t *testing.T) {
			addFlowsBoth(t, ofctl, ovs, ours, ver, niciraActionFlows)
			// controller(...) outputs to CONTROLLER for out_port.
			if out, err := exec.Command(ofctl, "-O", ver, "del-flows", ours, "out_port=CONTROLLER").CombinedOutput(); err != nil {
				t.Fatalf("del-flows out_port=CONTROLLER on ofswitch: %v\n%s", err, out)
			}
			if out, err := ovs.Exec("ovs-ofctl", "-O", ver, "del-flows", ovs.Target(), "out_port=CONTROLLER").CombinedOutput(); err != nil {
				t.Fatalf("del-flows out_port=CONTROLLER on Open vSwitch: %v\n%s", err, out)
			}
			got, want := dumpBoth(t, ofctl, ovs, ours, ver)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("dump-flows after del-flows out_port=CONTROLLER (-Open vSwitch +ofswitch):\n%s", diff)
			}
			if len(got) != len(niciraActionFlows)-5 {
				t.Fatalf("%d flows left after del-flows out_port=CONTROLLER, want %d:\n%s", len(got), len(niciraActionFlows)-5, strings.Join(got, "\n"))
			}
		})
	}
}

package ofctl_test

import (
	"fmt"
	"time"

	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// Parse a flow in ovs-ofctl syntax and print it the way dump-flows does.
func ExampleParseFlow() {
	u, err := ofctl.ParseFlow("priority=300,ip,nw_src=127.1.0.0/16,actions=mod_vlan_vid:100,output:1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ofctl.FormatFlow(u.Table, &u.Match, u.Priority, u.Cookie, u.IdleTimeout, u.HardTimeout, u.Flags, u.Instructions,
		ofctl.FlowStats{Duration: 1500 * time.Millisecond}))
	_, err = ofctl.ParseFlow("priority=300,tp_dst=80,actions=drop")
	fmt.Println(err)
	// Output:
	//  cookie=0x0, duration=1.500s, table=0, n_packets=0, n_bytes=0, priority=300,ip,nw_src=127.1.0.0/16 actions=push_vlan:0x8100,set_field:4196->vlan_vid,output:1
	// flow:1:14: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ (l4_dst): needs ip_proto=6, 17 or 132
}

// Read a flow file of adds, modifies and deletes, as ovs-ofctl --bundle
// add-flows does.
func ExampleParseFlowMods() {
	ups, where, err := ofctl.ParseFlowMods("acl.flows", []byte("priority=5,tcp,actions=drop\nmodify tcp,actions=output:2\ndelete table=0,udp\ndelete\n"), &ofctl.ParseOptions{Strict: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, u := range ups {
		fmt.Println(where[i], u.Command, "table", u.Table)
	}
	// Output:
	// acl.flows:1 add table 0
	// acl.flows:2 modify_strict table 0
	// acl.flows:3 delete_strict table 0
	// acl.flows:4 delete_strict table 255
}

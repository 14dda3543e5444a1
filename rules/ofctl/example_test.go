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

// Read a file of groups, meters and flows, in ovs-ofctl's add-groups,
// add-meter and bundle syntaxes, and walk it in file order.
func ExampleParseMods() {
	m, errs := ofctl.ParseMods("pipeline.txt", []byte(`group_id=1,type=all,bucket=output:1,bucket=output:2
meter=1,pktps,bands=type=drop,rate=100
flow priority=5,ip,actions=meter:1,group:1
group modify group_id=1,type=all,bucket=output:2
group insert_bucket group_id=1,command_bucket_id=last,bucket=output:3
`), nil)
	for _, op := range m.Ops() {
		switch op.Kind {
		case ofctl.OpFlow:
			fmt.Println(op.Line, "flow", m.Flows[op.Index].Command)
		case ofctl.OpGroup:
			g := &m.Groups[op.Index]
			fmt.Println(op.Line, "group", g.Command, ofctl.FormatGroup(g.ID, g.Type, g.Buckets))
		case ofctl.OpMeter:
			fmt.Println(op.Line, "meter", m.Meters[op.Index].Command, ofctl.FormatMeterMod(&m.Meters[op.Index].Config))
		}
	}
	for _, err := range errs {
		fmt.Println(err)
	}
	// Output:
	// 1 group 0 group_id=1,type=all,bucket=actions=output:1,bucket=actions=output:2
	// 2 meter 0 meter=1,pktps,bands=type=drop,rate=100
	// 3 flow add
	// 4 group 1 group_id=1,type=all,bucket=actions=output:2
	// pipeline.txt:5:7: group command insert_bucket is not supported: it is OpenFlow 1.5's; OpenFlow 1.3 has add, modify and delete
}

// Check a group file and a flow file as one pipeline: the flow sends to
// a group the files do not define.
func ExampleLintFiles() {
	rep, err := ofctl.LintFiles([]ofctl.LintFile{
		{Name: "groups.txt", Data: []byte("group_id=1,type=all,bucket=output:1\ngroup_id=2,type=indirect,bucket=group:2\n")},
		{Name: "flows.txt", Data: []byte("priority=5,ip,actions=group:1\npriority=6,udp,actions=group:3\n")},
	}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, err := range rep.Errors {
		fmt.Println(err)
	}
	fmt.Printf("flows %d/%d ok, groups %d/%d ok\n", rep.OK, rep.Flows, rep.GroupsOK, rep.Groups)
	// Output:
	// groups.txt:2:1: rules: OFPET_GROUP_MOD_FAILED/OFPGMFC_LOOP: a bucket forwards to its own group
	// flows.txt:2:1: rules: OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP: no such group
	// flows 1/2 ok, groups 1/2 ok
}

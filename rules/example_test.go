package rules_test

import (
	"fmt"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// Insert rules in one atomic burst and look packets up.
func ExamplePipeline() {
	p, _ := rules.New(&rules.Config{Tables: 2})
	var web, any rules.Match
	web.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	web.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	web.SetExact(rules.FieldL4Dst, 80)
	res := p.ApplyBatch([]rules.Update{
		{Match: web, Priority: 100, Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}},
		{Match: any, Priority: 0}, // table-miss: drop
	}, true)
	fmt.Println("errors:", res.Errs)

	var k rules.Key
	k.Set(rules.FieldEthType, rules.EthTypeIPv4)
	k.Set(rules.FieldIPProto, rules.IPProtoTCP)
	k.Set(rules.FieldL4Dst, 80)
	fmt.Println(rules.FormatMatch(&p.Table(0).Lookup(&k).Match, 100))
	k.Set(rules.FieldL4Dst, 443)
	fmt.Println(p.Table(0).Lookup(&k).Priority)
	// Output:
	// errors: [<nil> <nil>]
	// priority=100,tcp,tp_dst=80
	// 0
}

// Parse a flow in ovs-ofctl syntax and print it the way dump-flows does.
func ExampleParseFlow() {
	u, err := rules.ParseFlow("priority=300,ip,nw_src=127.1.0.0/16,actions=mod_vlan_vid:100,output:1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rules.FormatFlow(u.Table, &u.Match, u.Priority, u.Cookie, u.IdleTimeout, u.HardTimeout, u.Flags, u.Instructions,
		rules.FlowStats{Duration: 1500 * time.Millisecond}))
	_, err = rules.ParseFlow("priority=300,tp_dst=80,actions=drop")
	fmt.Println(err)
	// Output:
	//  cookie=0x0, duration=1.500s, table=0, n_packets=0, n_bytes=0, priority=300,ip,nw_src=127.1.0.0/16 actions=push_vlan:0x8100,set_field:4196->vlan_vid,output:1
	// flow:1:14: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ (l4_dst): needs ip_proto=6, 17 or 132
}

// A ClassBench port range becomes masked ports.
func ExampleExpandPortRange() {
	for _, p := range rules.ExpandPortRange(1024, 65535) {
		fmt.Printf("%#x/%#x ", p.Value, p.Mask)
	}
	fmt.Println()
	// Output:
	// 0x400/0xfc00 0x800/0xf800 0x1000/0xf000 0x2000/0xe000 0x4000/0xc000 0x8000/0x8000
}

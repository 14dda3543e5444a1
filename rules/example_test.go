package rules_test

import (
	"fmt"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// Insert rules in one atomic burst and look packets up.
func ExamplePipeline() {
	p, _ := rules.New(&rules.Config{Tables: 2})
	var web, any rules.Match
	web.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	web.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	web.SetExact(rules.FieldL4Dst, 80)
	res := p.ApplyBurst([]rules.Update{
		{Match: web, Priority: 100, Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}},
		{Match: any, Priority: 0}, // table-miss: drop
	}, true)
	fmt.Println("errors:", res.Errs)

	var k rules.Key
	k.Set(rules.FieldEthType, rules.EthTypeIPv4)
	k.Set(rules.FieldIPProto, rules.IPProtoTCP)
	k.Set(rules.FieldL4Dst, 80)
	fmt.Println(ofctl.FormatMatch(&p.Table(0).Lookup(&k).Match, 100))
	k.Set(rules.FieldL4Dst, 443)
	fmt.Println(p.Table(0).Lookup(&k).Priority)
	// Output:
	// errors: [<nil> <nil>]
	// priority=100,tcp,tp_dst=80
	// 0
}

package ofrules_test

import (
	"fmt"
	"slices"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// A push client encodes flows with an Encoder; the switch's connection
// translates them back with a Decoder.
func ExampleEncoder() {
	var u rules.Update
	u.Priority = 100
	u.Match.SetExact(rules.FieldEthType, 0x0800)
	u.Match.SetExact(rules.FieldIPProto, 6)
	u.Match.SetExact(rules.FieldL4Dst, 80)
	u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions,
		Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}

	var enc ofrules.Encoder
	msg, err := enc.Encode(nil, &u, openflow.Version13, 1)
	if err != nil {
		panic(err)
	}
	dec := ofrules.NewDecoder(&ofrules.Options{Tables: 1})
	var back rules.Update
	if err := dec.Decode(&back, msg); err != nil {
		panic(err)
	}
	m := ofrules.WireMatch(&back.Match)
	fmt.Println(len(msg), "bytes:", back.Priority, m.String(), back.Instructions[0].Actions[0].Port)
	// Output: 96 bytes: 100 eth_type=0x0800,ip_proto=6,tcp_dst=80 2
}

// A FLOW_MOD that the flow tables cannot take comes back as the OFPT_ERROR
// to answer it with.
func ExampleFlowMod() {
	fm := openflow.FlowMod{
		TableID: 3, Priority: 1, BufferID: openflow.NoBuffer,
		OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
	}
	var u rules.Update
	err := ofrules.FlowMod(&u, &fm, &ofrules.Options{Tables: 2})
	fmt.Println(err)
	// Output: openflow: OFPET_FLOW_MOD_FAILED/OFPFMFC_BAD_TABLE_ID
}

// What a switch lists in TABLE_FEATURES comes from the translation.
func ExampleSupportedFeatures() {
	f := ofrules.SupportedFeatures(&ofrules.Options{Tables: 2})
	fmt.Println("goto_table:", slices.Contains(f.Instructions, openflow.InstructionGotoTable))
	fmt.Println("tcp_dst maskable:", slices.Contains(f.Maskable, openflow.FieldTCPDst))
	f = ofrules.SupportedFeatures(&ofrules.Options{Tables: 2, StrictPorts: true})
	fmt.Println("tcp_dst maskable with StrictPorts:", slices.Contains(f.Maskable, openflow.FieldTCPDst))
	// Output:
	// goto_table: true
	// tcp_dst maskable: true
	// tcp_dst maskable with StrictPorts: false
}

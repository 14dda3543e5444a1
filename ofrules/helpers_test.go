package ofrules

import "github.com/ofswitch/ofswitch/rules"

// exactFlows returns n distinct exact 5-tuple flows (tcp, both addresses
// and ports) starting at offset, as the controller's benchmarks push them.
func exactFlows(n, offset int) []rules.Update {
	ups := make([]rules.Update, n)
	for i := range ups {
		k := uint64(i + offset)
		var m rules.Match
		m.SetExact(rules.FieldEthType, 0x0800)
		m.SetExact(rules.FieldIPProto, 6)
		m.SetExact(rules.FieldIPv4Src, 0x7f100000|k&0xfffff)
		m.SetExact(rules.FieldIPv4Dst, 0x7f200000|k&0xfffff)
		m.SetExact(rules.FieldL4Src, 1024+k%50000)
		m.SetExact(rules.FieldL4Dst, 80)
		ups[i] = rules.Update{Match: m, Priority: 100, Instructions: []rules.Instruction{
			{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}},
		}}
	}
	return ups
}

package rules_test

import (
	"fmt"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestValidator: a Validator answers as Validate does, match after match,
// whether the mask is the one it remembers or not.
func TestValidator(t *testing.T) {
	var ms []rules.Match
	for _, eth := range []uint64{rules.EthTypeIPv4, rules.EthTypeIPv6, rules.EthTypeARP} {
		for _, proto := range []uint64{rules.IPProtoTCP, rules.IPProtoUDP, 99} {
			var m rules.Match
			m.SetExact(rules.FieldEthType, eth)
			m.SetExact(rules.FieldIPProto, proto)
			m.SetExact(rules.FieldL4Dst, 80)
			ms = append(ms, m)
			m.Set(rules.FieldIPv4Src, 0x0a000000, 0xff000000)
			ms = append(ms, m)
			m.Set(rules.FieldIPProto, proto, 0x0f) // ip_proto takes no mask
			ms = append(ms, m)
		}
	}
	var v rules.Validator
	for round := range 2 {
		for i := range ms {
			want, got := ms[i].Validate(), v.Validate(&ms[i])
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("round %d, match %d: Validator says %v, Validate %v", round, i, got, want)
			}
		}
	}
}

package replay

import (
	"math/rand/v2"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// tableCaptureName names the capture of Config.TableTraffic in reports.
const tableCaptureName = "table-flows (synthetic)"

// tableCapture returns n frames (TraceCapture's) of flows drawn at random
// from pre, the synthetic controller's pre-installed flows: each frame
// carries the values of its flow's IPv4 addresses, protocol and ports, so
// that it matches that flow while the flow is in the table.
func tableCapture(rng *rand.Rand, pre []rules.Update, n int) *dataplane.Capture {
	hs := make([]classbench.Header, 0, n)
	for range n {
		if len(pre) == 0 {
			break
		}
		m := &pre[rng.IntN(len(pre))].Match
		get := func(f rules.Field) uint64 { v, _ := m.Get(f); return v }
		hs = append(hs, classbench.Header{Src: uint32(get(rules.FieldIPv4Src)), Dst: uint32(get(rules.FieldIPv4Dst)),
			Sport: uint16(get(rules.FieldL4Src)), Dport: uint16(get(rules.FieldL4Dst)), Proto: uint8(get(rules.FieldIPProto))})
	}
	return TraceCapture(tableCaptureName, hs)
}

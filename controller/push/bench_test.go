package push

import (
	"io"
	"testing"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/openflow"
)

// BenchmarkPushSend measures the push client's side of a push: send
// encoding the benchmark's exact flows in batches of 256, each with its
// barrier request, into a Writer that discards them; ns/op is per flow.
func BenchmarkPushSend(b *testing.B) {
	ups := flowgen.Exact(1024, 0)
	p := &pusher{w: openflow.NewWriter(io.Discard), version: openflow.Version13}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		lo := n % len(ups)
		if err := p.sendBatch(ups, lo, lo+256); err != nil {
			b.Fatal(err)
		}
		p.inflight = p.inflight[:0]
		n += 256
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/flow")
}

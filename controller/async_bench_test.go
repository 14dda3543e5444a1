package controller

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// BenchmarkPacketIn measures Agent.PacketIn, the data plane's call, with
// 1 and 4 controllers that read everything; the frame is cut to 128 bytes
// as ovs-testcontroller's table-miss entry asks.
func BenchmarkPacketIn(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("conns=%d", n), func(b *testing.B) {
			a, addr := startBenchAgent(b)
			for range n {
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { nc.Close() })
				h := openflow.NewHello(1, openflow.Version13)
				hb, _ := h.AppendBinary(nil)
				nc.Write(hb)
				go io.Copy(io.Discard, nc)
			}
			deadline := time.Now().Add(5 * time.Second)
			for a.Conns() != n && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if a.Conns() != n {
				b.Fatalf("%d connections, want %d", a.Conns(), n)
			}
			p := &PacketIn{InPort: 1, Reason: openflow.PacketInNoMatch, MaxLen: 128, Frame: testFrame(1500)}
			b.ReportAllocs()
			for b.Loop() {
				a.PacketIn(p)
			}
		})
	}
}

package dataplane

import (
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// BenchmarkParseFrames parses bursts of fixed frame shapes, one shape per
// sub-benchmark.
func BenchmarkParseFrames(b *testing.B) {
	for _, c := range []struct {
		name  string
		frame []byte
	}{
		{"ipv4-tcp", build(b, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), gopacket.Payload(make([]byte, 64)))},
		{"vlan-ipv4-udp", build(b, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: 5, Type: layers.EthernetTypeIPv4},
			ipv4(layers.IPProtocolUDP), udp(), gopacket.Payload(make([]byte, 64)))},
		{"ipv6-ext-tcp", build(b, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolIPv6HopByHop),
			gopacket.Payload(ext(layers.IPProtocolTCP, 1)), tcp())},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := NewParser()
			var bu Burst
			for i := range bu.Frames {
				bu.Frames[i], bu.Link[i] = c.frame, layers.LinkTypeEthernet
			}
			bu.N = BurstSize
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n += p.ParseBurst(&bu)
			}
			if n == 0 {
				b.Fatal("nothing parsed")
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mpps")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/pkt")
		})
	}
}

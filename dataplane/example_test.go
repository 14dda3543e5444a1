package dataplane_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/dataplane"
)

// Replay a capture from memory through one parser and read its counters.
func ExampleCapture_Replay() {
	c, err := dataplane.LoadFile("../testdata/pcaps/mix.pcap")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := dataplane.NewParser()
	err = c.Replay(context.Background(), nil, func(vec *dataplane.Vector) error {
		p.ParseVector(vec)
		return nil
	})
	fmt.Println("read", p.Stats.Read, "parsed", p.Stats.Parsed, "malformed", p.Stats.MalformedTotal(), err)
	fmt.Println("tcp", p.Stats.Kinds[dataplane.KindTCP], "later fragments", p.Stats.Kinds[dataplane.KindFragLater],
		"cut IPv6 headers", p.Stats.Malformed[dataplane.ReasonIPv6Header])
	// Output:
	// read 1200 parsed 1183 malformed 17 <nil>
	// tcp 746 later fragments 55 cut IPv6 headers 5
}

// Parse one 802.1Q-tagged IPv4/UDP frame.
func ExampleParser_Parse() {
	frame := []byte{
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x81, 0x00, // Ethernet, type 802.1Q
		0x20, 0x64, 0x08, 0x00, // PCP 1, VID 100, type IPv4
		0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, // IPv4, UDP
		0x30, 0x39, 0x00, 0x35, 0, 8, 0, 0, // UDP 12345 -> 53
	}
	p := dataplane.NewParser()
	h, ok := p.Parse(frame, layers.LinkTypeEthernet, 1)
	fmt.Println(ok, h.VLANVID[0], h.VLANPCP[0], netip.AddrFrom4(h.IPv4Src), netip.AddrFrom4(h.IPv4Dst), h.IPProto, h.L4Src, h.L4Dst, h.L3Off, h.L4Off)
	// Output: true 100 1 10.0.0.1 10.0.0.2 17 12345 53 18 38
}

package dataplane_test

import (
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// namedPort prints what is transmitted on it.
type namedPort uint32

func (p namedPort) Transmit(frame []byte) {
	fmt.Printf("port %d: %d bytes to %x\n", uint32(p), len(frame), frame[:6])
}

func ethFrame(dst, src []byte) []byte {
	buf := gopacket.NewSerializeBuffer()
	_ = gopacket.SerializeLayers(buf, gopacket.SerializeOptions{},
		&layers.Ethernet{DstMAC: dst, SrcMAC: src, EthernetType: 0x88b5}, // local experimental
		gopacket.Payload(make([]byte, 46)))
	return buf.Bytes()
}

// A switch whose only flow is NORMAL learns where stations are: the first
// frame to an unknown address is flooded, the answer goes straight back.
// PacketOut sends a controller's frame through the same pipeline.
func ExampleSwitch_PacketOut() {
	pipe, _ := rules.New(nil)
	ups, _ := ofctl.ParseFlows("normal.flows", []byte("actions=NORMAL\n"), nil)
	pipe.ApplyBurst(ups, true)
	sw := dataplane.NewSwitch(pipe, &dataplane.Config{
		Ports:   []uint32{1, 2, 3},
		Devices: map[uint32]dataplane.Port{1: namedPort(1), 2: namedPort(2), 3: namedPort(3)},
	})
	a, b := []byte{2, 0, 0, 0, 0, 0xa}, []byte{2, 0, 0, 0, 0, 0xb}
	table := []rules.Action{{Kind: rules.ActionOutput, Port: rules.PortTable}}
	fmt.Println("a→b from port 1:")
	_ = sw.PacketOut(1, table, ethFrame(b, a))
	fmt.Println("b→a from port 3:")
	_ = sw.PacketOut(3, table, ethFrame(a, b))
	err := sw.PacketOut(1, []rules.Action{{Kind: rules.ActionOutput, Port: 9}}, ethFrame(a, b))
	fmt.Println(err)
	// Output:
	// a→b from port 1:
	// port 2: 60 bytes to 02000000000b
	// port 3: 60 bytes to 02000000000b
	// b→a from port 3:
	// port 1: 60 bytes to 02000000000a
	// packet_out: action[0]: output to 0x9: dataplane: no such output port
}

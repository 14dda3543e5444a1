package dataplane

import (
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// loadPackedFlows load and move NXM_OF_VLAN_TCI (push, pop, rewrite of
// the tag), NXM_OF_IP_TOS (the DSCP bits of the TOS byte) and
// NXM_NX_TUN_FLAGS, told apart by the TCP destination port.
const loadPackedFlows = `table=0,priority=60,tcp,tp_dst=2001,actions=load:0x1005->NXM_OF_VLAN_TCI[],output:2
table=0,priority=60,tcp,tp_dst=2002,actions=load:0->NXM_OF_VLAN_TCI[],output:2
table=0,priority=60,tcp,tp_dst=2003,actions=load:0x3->vlan_tci[13..15],load:0x9->vlan_tci[0..3],output:2
table=0,priority=60,tcp,tp_dst=2004,actions=move:NXM_OF_VLAN_TCI[0..11]->reg0[0..11],output:reg0[0..15]
table=0,priority=60,tcp,tp_dst=2005,actions=load:0x4->NXM_OF_IP_TOS[],output:2
table=0,priority=60,tcp,tp_dst=2006,actions=load:1->NXM_NX_TUN_FLAGS[],move:tun_flags[]->reg0[1],output:reg0[0..15]
table=0,priority=60,tcp,tp_dst=2007,actions=load:0x8->nw_tos[],load:0x3->nw_tos[0..1],move:nw_tos[2..7]->reg0[0..5],output:reg0[0..15]
table=0,priority=60,tcp,tp_dst=2008,actions=move:NXM_OF_TCP_DST[0..2]->vlan_tci[13..15],output:2
`

// loadPackedCases are frames for loadPackedFlows.
func loadPackedCases(t *testing.T) []frameCase {
	frame := func(dst uint16, tag *layers.Dot1Q, tos uint8) []byte {
		ip, l4 := ipv4(layers.IPProtocolTCP), tcp()
		ip.TOS = tos
		l4.DstPort = layers.TCPPort(dst)
		ls := []gopacket.SerializableLayer{eth(layers.EthernetTypeIPv4)}
		if tag != nil {
			ls[0] = eth(layers.EthernetTypeDot1Q)
			tag.Type = layers.EthernetTypeIPv4
			ls = append(ls, tag)
		}
		return build(t, append(ls, ip, l4, payload)...)
	}
	q := func(vid uint16, pcp uint8) *layers.Dot1Q { return &layers.Dot1Q{VLANIdentifier: vid, Priority: pcp} }
	return []frameCase{
		{"a TCI with CFI pushes a tag", frame(2001, nil, 0xb9), []uint32{2}, frame(2001, q(5, 0), 0xb9)},
		{"a TCI of 0 pops the tag", frame(2002, q(7, 5), 0xb9), []uint32{2}, frame(2002, nil, 0xb9)},
		{"the TCI's priority and id bits", frame(2003, q(7, 5), 0xb9), []uint32{2}, frame(2003, q(9, 3), 0xb9)},
		{"the id moved out of the TCI", frame(2004, q(3, 5), 0xb9), []uint32{3}, nil},
		{"nw_tos: the DSCP bits, ECN kept", frame(2005, nil, 0xb9), []uint32{2}, frame(2005, nil, 0x05)},
		{"tun_flags loaded and moved", frame(2006, nil, 0xb9), []uint32{2}, nil},
		{"nw_tos's ECN bits not written", frame(2007, nil, 0xb9), []uint32{2}, frame(2007, nil, 0x09)},
		{"a move into the TCI of an untagged frame does nothing", frame(2008, nil, 0xb9), []uint32{2}, nil},
	}
}

// TestLoadMovePacked runs loadPackedCases through loadPackedFlows: the
// frames leave on the ports expected and as gopacket builds them.
func TestLoadMovePacked(t *testing.T) { runFrameCases(t, loadPackedFlows, loadPackedCases(t)) }

// TestLoadMovePackedAgainstOVS traces loadPackedCases through
// loadPackedFlows in Open vSwitch 3.1: the same ports, and the VLAN tag,
// addresses and TOS of its final flow.
func TestLoadMovePackedAgainstOVS(t *testing.T) {
	traceFrameCases(t, loadPackedFlows, loadPackedCases(t), checkFinalFlow)
}

// TestLoadMovePackedNoAllocs: vectors of loadPackedCases' frames
// allocate nothing.
func TestLoadMovePackedNoAllocs(t *testing.T) {
	pipe := testPipeline(t, 1, rules.FilterBloomCuckoo, loadPackedFlows)
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}})
	var frames [][]byte
	for _, c := range loadPackedCases(t) {
		frames = append(frames, c.frame)
	}
	if n := vectorAllocs(sw.Worker(0), frames); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
}

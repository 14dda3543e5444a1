package dataplane

import (
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// tunFlows write the tunnel fields, metadata here (no frame comes from a
// tunnel), with set_field in table 0 and match them in table 1, after a
// goto_table or a resubmit: tun_ipv6_src and tun_gbp_id for tcp port 80,
// tun_ipv6_dst, tun_gbp_flags and tun_src for tcp port 22 (in an action
// set those are written after the output, and table 1 is not reached);
// loads, moves and a masked set_field (a load) of tun_gbp_id,
// tun_gbp_flags, tun_src and tun_dst for port 8080, output to the port
// tun_gbp_id holds; every other frame reaches table 1 with them all 0.
const tunFlows = `table=0,priority=10,tcp,tp_dst=80,actions=set_field:2001:db8::1->tun_ipv6_src,set_field:300->tun_gbp_id,goto_table:1
table=0,priority=10,tcp,tp_dst=22,actions=set_field:fe80::9->tun_ipv6_dst,set_field:0x81->tun_gbp_flags,set_field:10.0.0.1->tun_src,resubmit(,1)
table=0,priority=10,tcp,tp_dst=23,actions=write_actions(set_field:5->tun_gbp_id,output:2),goto_table:1
table=0,priority=10,tcp,tp_dst=8080,actions=load:0x3->NXM_NX_TUN_GBP_ID[],move:NXM_NX_TUN_GBP_ID[0..7]->NXM_NX_TUN_GBP_FLAGS[],set_field:0x10/0xf0->tun_gbp_flags,load:0xa000001->tun_src[],move:tun_src[0..15]->tun_dst[16..31],goto_table:1
table=0,priority=10,tcp,tp_dst=9000,actions=set_field:2001:db8::/32->tun_ipv6_src,load:0x11->NXM_NX_TUN_IPV6_DST[60..67],move:NXM_NX_TUN_IPV6_DST[60..67]->NXM_NX_TUN_IPV6_SRC[0..7],goto_table:1
table=0,priority=1,actions=goto_table:1
table=1,priority=30,tun_ipv6_src=2001:db8::11,tun_ipv6_dst=0:0:0:1:1000::,actions=output:2,output:3
table=1,priority=20,tun_gbp_id=3,tun_gbp_flags=0x13,tun_src=10.0.0.1,tun_dst=0.1.0.0,actions=output:NXM_NX_TUN_GBP_ID[]
table=1,priority=20,tun_ipv6_src=2001:db8::/32,tun_gbp_id=300,actions=output:2
table=1,priority=20,tun_ipv6_dst=fe80::9,tun_gbp_flags=0x81,tun_src=10.0.0.1,tun_dst=0.0.0.0,actions=output:2,output:3
table=1,priority=15,tun_gbp_id=5,actions=output:2
table=1,priority=10,tun_ipv6_src=::,tun_ipv6_dst=::,tun_gbp_id=0,tun_gbp_flags=0,actions=output:3
table=1,priority=1,actions=drop
`

// tunCases are frames for tunFlows and the ports they leave on (their
// bytes are those that came in: the fields are in no header).
func tunCases(t *testing.T) []frameCase {
	tcpFrame := func(dst uint16) []byte {
		l4 := tcp()
		l4.DstPort = layers.TCPPort(dst)
		return build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), l4, payload)
	}
	return []frameCase{
		{"tun_ipv6_src and tun_gbp_id set, matched after goto_table", tcpFrame(80), []uint32{2}, nil},
		{"tun_ipv6_dst, tun_gbp_flags and tun_src set, matched after resubmit", tcpFrame(22), []uint32{2, 3}, nil},
		{"set in the action set: table 1 sees 0", tcpFrame(23), []uint32{2, 3}, nil},
		{"all 0", tcpFrame(443), []uint32{3}, nil},
		{"loads, moves and a masked set_field of tun_gbp_id, tun_gbp_flags and tun_src, output to tun_gbp_id", tcpFrame(8080), []uint32{3}, nil},
		{"a masked set_field of tun_ipv6_src, a load across tun_ipv6_dst's two words, a move between them", tcpFrame(9000), []uint32{2, 3}, nil},
	}
}

// TestTunFields runs tunCases through tunFlows, each alone, then all in
// one vector twice, in reverse order the second time: a frame's tunnel
// fields start at 0 whatever the frame before it in its slot was set to.
func TestTunFields(t *testing.T) {
	cases := tunCases(t)
	runFrameCases(t, tunFlows, cases)
	vectorFrameCases(t, 2, tunFlows, cases)
}

// TestTunFieldsAgainstOVS traces tunCases through tunFlows in Open
// vSwitch 3.1 (ovs-appctl ofproto/trace): each frame must leave on the
// ports TestTunFields expects of ofswitch.
func TestTunFieldsAgainstOVS(t *testing.T) { traceFrameCases(t, tunFlows, tunCases(t), nil) }

// TestTunFieldsNoAllocs: a vector through tunFlows' set_fields and
// matches of the tunnel fields allocates nothing.
func TestTunFieldsNoAllocs(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, tunFlows)
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}})
	var frames [][]byte
	for _, c := range tunCases(t) {
		frames = append(frames, c.frame)
	}
	if n := vectorAllocs(sw.Worker(0), frames); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
}

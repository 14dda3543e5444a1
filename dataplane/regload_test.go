package dataplane

import (
	"slices"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// regFlows carry a frame through three tables on registers: table 0 loads
// reg0 (a tcp frame) or sets reg5 and moves it into reg0 before a
// resubmit (udp port 33333); table 1 matches reg0 and outputs to the port
// it holds, or moves tcp_dst into reg1, or marks reg7 where reg0 is still
// 0, or outputs to the port in the high half of xreg6 (reg12); table 2
// matches reg0 and reg1 and outputs to the port in reg0, or
// sets reg4 and outputs to it.
const regFlows = `table=0,priority=10,tcp,actions=load:2->NXM_NX_REG0[],goto_table:1
table=0,priority=10,udp,tp_dst=33333,actions=set_field:3->reg5,move:NXM_NX_REG5[0..15]->NXM_NX_REG0[0..15],resubmit(,1)
table=0,priority=10,udp,tp_dst=4000,actions=load:0x300000000->OXM_OF_PKT_REG6[],move:xreg6[0..15]->reg9[16..31],goto_table:1
table=0,priority=1,actions=goto_table:1
table=1,priority=10,tcp,reg0=2,actions=move:NXM_OF_TCP_DST[]->NXM_NX_REG1[0..15],goto_table:2
table=1,priority=10,reg0=3,reg5=3,actions=output:NXM_NX_REG0[0..15]
table=1,priority=10,reg12=3,reg13=0,reg9=0,actions=output:OXM_OF_PKT_REG6[32..47]
table=1,priority=5,reg0=0,actions=set_field:0x80000000/0x80000000->reg7,goto_table:2
table=2,priority=10,reg0=2,reg1=80,actions=output:NXM_NX_REG0[0..15]
table=2,priority=10,reg7=0x80000000,reg0=0,reg1=0,actions=set_field:3->reg4,output:reg4[0..15]
table=2,priority=1,actions=drop
`

// regCases are frames for regFlows and the ports they leave on (their
// bytes are not checked).
func regCases(t *testing.T) []frameCase {
	tcpFrame := func(dst uint16) []byte {
		l4 := tcp()
		l4.DstPort = layers.TCPPort(dst)
		return build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), l4, payload)
	}
	udpFrame := func(dst uint16) []byte {
		l4 := udp()
		l4.DstPort = layers.UDPPort(dst)
		return build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), l4, payload)
	}
	return []frameCase{
		{"reg0 loaded, matched after goto_table, tcp_dst moved into reg1, output to reg0", tcpFrame(80), []uint32{2}, nil},
		{"reg1 not 80: dropped", tcpFrame(22), nil, nil},
		{"reg5 set, moved into reg0, both matched after resubmit, output to reg0", udpFrame(33333), []uint32{3}, nil},
		{"registers start at 0: reg7 marked, reg4 set, output to reg4", udpFrame(53), []uint32{3}, nil},
		{"xreg6 loaded whole, matched as reg12 and reg13, output to xreg6's high half", udpFrame(4000), []uint32{3}, nil},
	}
}

// TestRegLoad runs regCases through regFlows, each alone, then all in
// one vector, then in a second vector in the reverse order (each frame
// in a slot where another loaded registers): a frame's registers start
// at 0 whatever the frames before it loaded.
func TestRegLoad(t *testing.T) {
	cases := regCases(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := tagRun(t, 3, regFlows, c.frame)
			if got := sentPorts(out); !slices.Equal(got, c.ports) {
				t.Fatalf("sent on ports %v, want %v", got, c.ports)
			}
			for _, p := range c.ports {
				if len(out[p]) != 1 || string(out[p][0]) != string(c.frame) {
					t.Errorf("port %d sent %d frames, want the input once", p, len(out[p]))
				}
			}
		})
	}
	vectorFrameCases(t, 3, regFlows, cases)
}

// TestRegLoadAgainstOVS traces regCases through regFlows in Open vSwitch
// 3.1 (ovs-appctl ofproto/trace): each frame must leave on the ports
// TestRegLoad expects of ofswitch.
func TestRegLoadAgainstOVS(t *testing.T) { traceFrameCases(t, regFlows, regCases(t), nil) }

// TestRegLoadNoAllocs: a vector through regFlows' loads, moves,
// set_fields and output:field of registers allocates nothing.
func TestRegLoadNoAllocs(t *testing.T) {
	pipe := testPipeline(t, 3, rules.FilterBloomCuckoo, regFlows)
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}})
	cases := regCases(t)
	var frames [][]byte
	for _, c := range cases {
		frames = append(frames, c.frame)
	}
	if n := vectorAllocs(sw.Worker(0), frames); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
	if st := sw.Stats(); st.Rewrites == 0 {
		t.Errorf("no rewrites: %+v", st)
	}
}

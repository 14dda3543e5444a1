package dataplane

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// tunLayout places tun_metadata0 at bytes 0-3 of the option space and
// tun_metadata1 at 4-11 (across two words), as ofswitch's TLV table
// allocates tunMetadataMaps.
type tunLayout struct{}

func (tunLayout) TunMetadataPlace(dst []uint8, idx int) ([]uint8, bool) {
	switch idx {
	case 0:
		return append(dst, 0, 1, 2, 3), true
	case 1:
		return append(dst, 4, 5, 6, 7, 8, 9, 10, 11), true
	}
	return dst, false
}

// tunMetadataMaps is the TLV map Open vSwitch gets for tunMetadataFlows.
const tunMetadataMaps = "{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=8}->tun_metadata1"

// tunMetadataFlows set tunnel metadata fields in table 0 and match them
// in table 1: a tcp frame gets tun_metadata0=0x1234 and goes to port 2;
// a udp frame gets tun_metadata1's low 40 bits (across the two words it
// is in) and goes to port 3, or, when a masked set_field clears the
// highest of those bytes again, to port 2 through a flow that tests
// only the low 32 bits; move and output:field read tun_metadata1 into a
// register, output to tun_metadata0's bits, and write a register's bits
// into tun_metadata1; any other frame reaches table 1's miss flow.
const tunMetadataFlows = `table=0,priority=10,tcp,actions=set_field:0x1234->tun_metadata0,goto_table:1
table=0,priority=10,udp,tp_dst=53,actions=set_field:0x1122334455->tun_metadata1,resubmit(,1)
table=0,priority=10,udp,tp_dst=54,actions=set_field:0x1122334455->tun_metadata1,set_field:0/0xff00000000->tun_metadata1,resubmit(,1)
table=0,priority=10,udp,tp_dst=55,actions=set_field:0x3->tun_metadata1,move:NXM_NX_TUN_METADATA1[0..15]->NXM_NX_REG0[0..15],output:NXM_NX_REG0[0..15]
table=0,priority=10,udp,tp_dst=56,actions=set_field:0x2->tun_metadata0,output:NXM_NX_TUN_METADATA0[0..15]
table=0,priority=10,udp,tp_dst=57,actions=load:0x3->NXM_NX_REG2[],move:NXM_NX_REG2[0..7]->NXM_NX_TUN_METADATA1[32..39],resubmit(,1)
table=0,priority=10,udp,tp_dst=58,actions=group:1
table=0,priority=10,udp,tp_dst=59,actions=group:2
table=0,priority=1,actions=goto_table:1
table=1,priority=10,tun_metadata1=0x300000000,actions=output:3
table=1,priority=10,tun_metadata0=0x1234,actions=output:2
table=1,priority=10,tun_metadata1=0x1122334455,actions=output:3
table=1,priority=9,tun_metadata1=0x22334455/0xffffffff,actions=output:2
table=1,priority=1,actions=drop
`

// tunMetadataGroups are the groups of tunMetadataFlows: group 1's first
// bucket sets tun_metadata0 and resubmits to table 1 (port 2), its second
// outputs to port 3 without it; group 2's bucket loads tun_metadata1's
// bits 32-39 and resubmits to table 1 (port 3).
var tunMetadataGroups = []string{
	"group_id=1,type=all,bucket=set_field:0x1234->tun_metadata0,resubmit(,1),bucket=output:3",
	"group_id=2,type=indirect,bucket=load:0x3->tun_metadata1[32..39],resubmit(,1)",
}

// tunMetadataPacketOuts are PACKET_OUTs of tunMetadataCases' first frame
// whose actions set or load tun_metadata fields and resubmit to table 1
// of tunMetadataFlows, which matches them: the port the frame leaves on.
var tunMetadataPacketOuts = []struct {
	actions string
	port    uint32
}{
	{"set_field:0x1234->tun_metadata0,resubmit(,1)", 2},
	{"load:0x3->tun_metadata1[32..39],resubmit(,1)", 3},
}

// tunMetadataCases are frames for tunMetadataFlows and the ports they
// leave on.
func tunMetadataCases(t *testing.T) []frameCase {
	udpFrame := func(dst uint16) []byte {
		l4 := udp()
		l4.DstPort = layers.UDPPort(dst)
		return build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), l4, payload)
	}
	return []frameCase{
		{"tun_metadata0 set, matched after goto_table", build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload), []uint32{2}, nil},
		{"tun_metadata1 set across two words, matched after resubmit", udpFrame(53), []uint32{3}, nil},
		{"tun_metadata1 partly cleared by a masked set_field", udpFrame(54), []uint32{2}, nil},
		{"nothing set: no flow of table 1 but the miss", udpFrame(99), nil, nil},
		{"tun_metadata1 moved into reg0, output to reg0", udpFrame(55), []uint32{3}, nil},
		{"output to tun_metadata0's bits", udpFrame(56), []uint32{2}, nil},
		{"reg2 moved into tun_metadata1's bits 32-39, matched after resubmit", udpFrame(57), []uint32{3}, nil},
		{"group bucket sets tun_metadata0 and resubmits, another outputs", udpFrame(58), []uint32{2, 3}, nil},
		{"group bucket loads tun_metadata1's bits 32-39 and resubmits", udpFrame(59), []uint32{3}, nil},
	}
}

// TestTunMetadataSet runs tunMetadataCases through tunMetadataFlows,
// parsed with tunLayout, each alone and then all in one vector (a frame's
// fields start at zero whatever the frames before it set); a vector of
// them allocates nothing.
func TestTunMetadataSet(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 2, Filter: rules.FilterBloomCuckoo})
	if err != nil {
		t.Fatal(err)
	}
	ups, errs := ofctl.ParseFlows("tun.flows", []byte(tunMetadataFlows), &ofctl.ParseOptions{TunMetadata: tunLayout{}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatalf("flow %d: %v", i, err)
		}
	}
	tbl := groups.New(nil)
	for _, g := range tunMetadataGroups {
		m, err := ofctl.ParseGroupTLV(g, groups.Add, tunLayout{})
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		if _, err := tbl.Apply(&m); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
	}
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}}
	devs := map[uint32]Port{}
	for n, q := range ports {
		devs[n] = q
	}
	sw := NewSwitch(p, &Config{Ports: []uint32{1, 2, 3}, Devices: devs, Groups: tbl})
	for _, c := range tunMetadataPacketOuts {
		up, errs := ofctl.ParseFlows("po", []byte("actions="+c.actions), &ofctl.ParseOptions{TunMetadata: tunLayout{}})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		before := len(ports[c.port].frames)
		if err := sw.PacketOut(openflow.PortController, up[0].Instructions[0].Actions, tunMetadataCases(t)[0].frame); err != nil {
			t.Fatalf("packet-out %s: %v", c.actions, err)
		}
		if n := len(ports[c.port].frames) - before; n != 1 {
			t.Errorf("packet-out %s: %d frames on port %d, want 1", c.actions, n, c.port)
		}
		ports[c.port].frames = ports[c.port].frames[:before]
	}
	cases := tunMetadataCases(t)
	want := map[uint32]int{}
	run := func(cs []frameCase) {
		vec := &Vector{N: len(cs)}
		for i, c := range cs {
			vec.Frames[i], vec.Link[i], vec.InPort[i] = append([]byte(nil), c.frame...), layers.LinkTypeEthernet, 1
			for _, q := range c.ports {
				want[q]++
			}
		}
		sw.Worker(0).Process(vec)
	}
	for _, c := range cases {
		before := map[uint32]int{}
		for n, q := range ports {
			before[n] = len(q.frames)
		}
		run([]frameCase{c})
		var got []uint32
		for n := uint32(1); n <= 3; n++ {
			for range len(ports[n].frames) - before[n] {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, c.ports) {
			t.Errorf("%s: sent on %v, want %v", c.name, got, c.ports)
		}
	}
	slices.Reverse(cases)
	run(cases)
	for n, q := range ports {
		if len(q.frames) != want[n] {
			t.Errorf("port %d sent %d frames, want %d", n, len(q.frames), want[n])
		}
	}
	frames := make([][]byte, len(cases))
	for i, c := range cases {
		frames[i] = c.frame
	}
	// Without devices, which keep what they send.
	bare := NewSwitch(p, &Config{Ports: []uint32{1, 2, 3}, Groups: tbl})
	if n := vectorAllocs(bare.Worker(0), frames); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
}

// TestTunMetadataSetAgainstOVS traces tunMetadataCases through
// tunMetadataFlows in Open vSwitch 3.1 after the same mapping (add-tlv-map,
// ovs-appctl ofproto/trace), with tunMetadataGroups, and
// tunMetadataPacketOuts (ofproto/trace-packet-out): each frame leaves on
// the ports TestTunMetadataSet expects of ofswitch.
func TestTunMetadataSetAgainstOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 3)
	if out, err := ovs.Ofctl("", "add-tlv-map", tunMetadataMaps); err != nil {
		t.Fatalf("add-tlv-map: %v\n%s", err, out)
	}
	for _, g := range tunMetadataGroups {
		if out, err := ovs.Ofctl("", "add-group", g); err != nil {
			t.Fatalf("add-group %s: %v\n%s", g, err, out)
		}
	}
	ovsReplaceFlows(t, ovs, tunMetadataFlows)
	ofPort := ovs.DatapathPorts(t, 3)
	frame := hex.EncodeToString(tunMetadataCases(t)[0].frame)
	for _, c := range tunMetadataPacketOuts {
		out, err := ovs.Exec("ovs-appctl", "ofproto/trace-packet-out", "br0", "in_port=controller", frame, c.actions).CombinedOutput()
		if err != nil {
			t.Fatalf("ofproto/trace-packet-out %s: %v\n%s", c.actions, err, out)
		}
		_, acts, _ := strings.Cut(string(out), "Datapath actions: ")
		acts, _, _ = strings.Cut(acts, "\n")
		var ports []uint32
		for _, a := range splitTopLevel(acts) {
			if p, ok := ofPort[a]; ok {
				ports = append(ports, p)
			}
		}
		if !slices.Equal(ports, []uint32{c.port}) {
			t.Errorf("packet-out %s: Open vSwitch sends on %v, ofswitch's test expects [%d]:\n%s", c.actions, ports, c.port, out)
		}
	}
	for _, c := range tunMetadataCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ports, out := ovsTraceDatapath(t, ovs, ofPort, c.frame)
			if !slices.Equal(ports, c.ports) {
				t.Fatalf("Open vSwitch sends on %v, ofswitch's test expects %v:\n%s", ports, c.ports, out)
			}
		})
	}
}

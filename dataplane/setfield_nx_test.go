package dataplane

import (
	"bytes"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

// setFieldNXFlows write nw_ttl, pkt_mark and tun_flags with set_field and
// match them in table 1: a later table sees what set_field wrote.
const setFieldNXFlows = `table=0,priority=30,ip,nw_ttl=1,actions=set_field:64->nw_ttl,output:2
table=0,priority=25,ip,nw_ttl=2,actions=write_actions(set_field:33->nw_ttl,output:3)
table=0,priority=20,ip,actions=set_field:5->pkt_mark,set_field:9->nw_ttl,goto_table:1
table=0,priority=20,ipv6,actions=set_field:200->nw_ttl,set_field:7->pkt_mark,goto_table:1
table=0,priority=10,actions=set_field:oam->tun_flags,goto_table:1
table=1,priority=30,pkt_mark=5,ip,nw_ttl=9,actions=output:3
table=1,priority=29,pkt_mark=6,ip,actions=output:2
table=1,priority=20,pkt_mark=7,ipv6,nw_ttl=200,actions=output:2,output:3
table=1,priority=20,tun_flags=+oam,actions=output:2
table=1,priority=1,actions=drop
`

// setFieldNXCase is a frame for setFieldNXFlows, the ports it leaves on
// (Open vSwitch's choices: TestSetFieldNXAgainstOVS) and the frame that
// leaves (nil: the input's).
// frameCase is a frame for a flow table test: the ports it must leave on
// (sorted) and the bytes it leaves with (nil: as it came).
type frameCase struct {
	name  string
	frame []byte
	ports []uint32
	out   []byte
}

// vectorAllocs fills a vector with frames, repeated to VectorSize, all
// from port 1, runs it through w once, and returns the allocations of
// running it again (testing.AllocsPerRun, 20 runs): the packet path's
// allocation check.
func vectorAllocs(w *Worker, frames [][]byte) float64 {
	vec := &Vector{}
	run := func() {
		vec.N = VectorSize
		for i := range VectorSize {
			vec.Frames[i], vec.Link[i], vec.InPort[i] = frames[i%len(frames)], layers.LinkTypeEthernet, 1
		}
		w.Process(vec)
	}
	run()
	return testing.AllocsPerRun(20, run)
}

// vectorFrameCases sends cases through a switch of tables tables holding
// flows all in one vector, twice, in reverse order the second time, and
// checks how many frames each port sent: what a frame's metadata starts
// at does not depend on the frame that held its slot before.
func vectorFrameCases(t *testing.T, tables int, flows string, cases []frameCase) {
	t.Helper()
	pipe := testPipeline(t, tables, rules.FilterBloomCuckoo, flows)
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}}
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Devices: map[uint32]Port{1: ports[1], 2: ports[2], 3: ports[3]}})
	want := map[uint32]int{}
	for round := range 2 {
		vec := &Vector{N: len(cases)}
		for i := range cases {
			c := &cases[i]
			if round == 1 {
				c = &cases[len(cases)-1-i]
			}
			vec.Frames[i], vec.Link[i], vec.InPort[i] = append([]byte(nil), c.frame...), layers.LinkTypeEthernet, 1
			for _, p := range c.ports {
				want[p]++
			}
		}
		sw.Worker(0).Process(vec)
	}
	for n, p := range ports {
		if len(p.frames) != want[n] {
			t.Errorf("port %d sent %d frames in two vectors, want %d", n, len(p.frames), want[n])
		}
	}
}

// runFrameCases sends each of cases through a two-table switch with flows
// (tagRun) and checks the ports each leaves on and its bytes on each.
func runFrameCases(t *testing.T, flows string, cases []frameCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := tagRun(t, 2, flows, c.frame)
			if got := sentPorts(out); !slices.Equal(got, c.ports) {
				t.Fatalf("sent on ports %v, want %v", got, c.ports)
			}
			want := c.out
			if want == nil {
				want = c.frame
			}
			for _, p := range c.ports {
				if got := out[p][0]; !bytes.Equal(got, want) {
					t.Errorf("port %d:\n got %x\nwant %x", p, got, want)
				}
			}
		})
	}
}

func setFieldNXCases(t *testing.T) []frameCase {
	v4 := func(ttl uint8) []byte {
		ip := ipv4(layers.IPProtocolTCP)
		ip.TTL = ttl
		return build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), payload)
	}
	v6 := func(hl uint8) []byte {
		ip := ipv6(layers.IPProtocolUDP)
		ip.HopLimit = hl
		return build(t, eth(layers.EthernetTypeIPv6), ip, udp(), payload)
	}
	arp := build(t, eth(layers.EthernetTypeARP), &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
		HwAddressSize: 6, ProtAddressSize: 4, Operation: 1, SourceHwAddress: net.HardwareAddr{2, 0, 0, 0, 0, 1},
		SourceProtAddress: []byte{10, 0, 0, 1}, DstHwAddress: make([]byte, 6), DstProtAddress: []byte{10, 0, 0, 2}})
	return []frameCase{
		{"ttl 1 set to 64", v4(1), []uint32{2}, v4(64)},
		{"ttl 2 set to 33 in the action set", v4(2), []uint32{3}, v4(33)},
		{"pkt_mark 5 and ttl 9 seen in table 1", v4(100), []uint32{3}, v4(9)},
		{"ipv6 hop limit 200 and pkt_mark 7 seen in table 1", v6(3), []uint32{2, 3}, v6(200)},
		{"tun_flags oam seen in table 1", arp, []uint32{2}, nil},
	}
}

// TestSetFieldNX: set_field of nw_ttl rewrites the TTL or hop limit (the
// IPv4 header checksum fixed: the frame that leaves is the one gopacket
// builds with that TTL), and pkt_mark, tun_flags and nw_ttl written in
// table 0 are what table 1 matches.
func TestSetFieldNX(t *testing.T) { runFrameCases(t, setFieldNXFlows, setFieldNXCases(t)) }

// TestSetFieldNXAgainstOVS traces setFieldNXCases through setFieldNXFlows
// in Open vSwitch 3.1 (ovs-appctl ofproto/trace): it must send each frame
// on the ports TestSetFieldNX expects of ofswitch, with the TTL or hop
// limit set as there.
func TestSetFieldNXAgainstOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 3)
	ovsReplaceFlows(t, ovs, setFieldNXFlows)
	ttlSet := regexp.MustCompile(`(?:ttl|hlimit)=(\d+)`)
	for _, c := range setFieldNXCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ports, out := ovsTracePorts(t, ovs, c.frame)
			if !slices.Equal(ports, c.ports) {
				t.Fatalf("Open vSwitch sends on %v, ofswitch's test expects %v:\n%s", ports, c.ports, out)
			}
			if c.out == nil {
				return
			}
			_, acts, _ := strings.Cut(string(out), "Datapath actions: ")
			acts, _, _ = strings.Cut(acts, "\n")
			pkt := gopacket.NewPacket(c.out, layers.LayerTypeEthernet, gopacket.Default)
			want := 0
			if ip, ok := pkt.NetworkLayer().(*layers.IPv4); ok {
				want = int(ip.TTL)
			} else if ip, ok := pkt.NetworkLayer().(*layers.IPv6); ok {
				want = int(ip.HopLimit)
			}
			m := ttlSet.FindStringSubmatch(acts)
			if m == nil || m[1] != strconv.Itoa(want) {
				t.Fatalf("Open vSwitch's datapath actions %q do not set the TTL to %d", acts, want)
			}
		})
	}
}

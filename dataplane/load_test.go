package dataplane

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// loadFlows use load, move and output:field on frames told apart by their
// transport ports: a load into part of eth_dst, a move of eth_src to
// eth_dst, loads into ip_dst and tcp_src (checksums), output to the port
// in pkt_mark's low bits, a move that reads what a load before it wrote,
// and pkt_mark written in table 0 and read in table 1.
const loadFlows = `table=0,priority=60,tcp,tp_dst=443,actions=load:0x0102->NXM_OF_ETH_DST[0..15],output:2
table=0,priority=60,tcp,tp_dst=80,actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],output:2
table=0,priority=60,tcp,tp_dst=22,actions=load:0xc0a80763->NXM_OF_IP_DST[],load:0x1f90->tcp_src[],output:3
table=0,priority=60,udp,tp_dst=33333,actions=load:0x2->pkt_mark[0..15],load:0xab->pkt_mark[16..23],output:NXM_NX_PKT_MARK[0..15]
table=0,priority=60,udp,tp_dst=33334,actions=set_field:0x3/0x3->pkt_mark,move:NXM_NX_PKT_MARK[0..1]->NXM_OF_IP_SRC[8..9],goto_table:1
table=0,priority=60,tcp,tp_dst=24,actions=load:0x99->eth_src[0..7],move:eth_src[0..7]->ip_dst[0..7],move:ip_dst[24..31]->tcp_dst[0..7],output:2
table=0,priority=60,tcp,tp_dst=25,actions=load:0xffff->pkt_mark[0..15],output:pkt_mark[0..15],load:0x1234->pkt_mark[0..15],output:pkt_mark[0..15],load:0x3->pkt_mark[8..15],output:pkt_mark[8..15]
table=0,priority=60,tcp,tp_dst=26,actions=write_actions(load:0x0102->eth_dst[0..15],move:eth_dst[0..7]->ip_dst[0..7],move:tcp_src[]->tcp_dst[],set_field:7->tcp_src,output:2)
table=0,priority=70,dl_vlan=7,actions=load:3->vlan_vid[0..3],load:2->vlan_pcp[],move:vlan_vid[0..2]->pkt_mark[0..2],output:pkt_mark[0..2]
table=0,priority=60,udp,tp_dst=33335,actions=load:0x1234->metadata[16..31],load:0x5->tun_id[60..63],goto_table:1
table=1,priority=10,pkt_mark=3,actions=output:NXM_NX_PKT_MARK[0..7]
table=1,priority=10,metadata=0x12340000/0xffff0000,tun_id=0x5000000000000000,actions=output:3
table=1,priority=1,actions=drop
`

// loadCases are frames for loadFlows.
func loadCases(t *testing.T) []frameCase {
	tcpFrame := func(dst uint16, edit func(*layers.Ethernet, *layers.IPv4, *layers.TCP)) []byte {
		e, ip, l4 := eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp()
		l4.DstPort = layers.TCPPort(dst)
		if edit != nil {
			edit(e, ip, l4)
		}
		return build(t, e, ip, l4, payload)
	}
	udpFrame := func(dst uint16, edit func(*layers.IPv4)) []byte {
		ip, l4 := ipv4(layers.IPProtocolUDP), udp()
		l4.DstPort = layers.UDPPort(dst)
		if edit != nil {
			edit(ip)
		}
		return build(t, eth(layers.EthernetTypeIPv4), ip, l4, payload)
	}
	return []frameCase{
		{"load into eth_dst's low 16 bits", tcpFrame(443, nil), []uint32{2}, tcpFrame(443, func(e *layers.Ethernet, _ *layers.IPv4, _ *layers.TCP) {
			e.DstMAC = net.HardwareAddr{2, 0, 0, 0, 1, 2}
		})},
		{"move eth_src to eth_dst", tcpFrame(80, nil), []uint32{2}, tcpFrame(80, func(e *layers.Ethernet, _ *layers.IPv4, _ *layers.TCP) {
			e.DstMAC = macA
		})},
		{"load into ip_dst and tcp_src", tcpFrame(22, nil), []uint32{3}, tcpFrame(22, func(_ *layers.Ethernet, ip *layers.IPv4, l4 *layers.TCP) {
			ip.DstIP = net.IP{192, 168, 7, 99}
			l4.SrcPort = 8080
		})},
		{"output:NXM_NX_PKT_MARK[0..15] after a load", udpFrame(33333, nil), []uint32{2}, nil},
		{"pkt_mark set in part, moved into ip_src, matched in table 1", udpFrame(33334, nil), []uint32{3}, udpFrame(33334, func(ip *layers.IPv4) {
			ip.SrcIP = net.IP{10, 0, 3, 1}
		})},
		{"a move reads what the load before wrote", tcpFrame(24, nil), []uint32{2}, tcpFrame(24, func(e *layers.Ethernet, ip *layers.IPv4, l4 *layers.TCP) {
			e.SrcMAC = net.HardwareAddr{2, 0, 0, 0, 0, 0x99}
			ip.DstIP = net.IP{192, 168, 7, 0x99}
			l4.DstPort = 24&0xff00 | 192
		})},
		{"loads, moves and set_field in the action set run in order", tcpFrame(26, nil), []uint32{2}, tcpFrame(26, func(e *layers.Ethernet, ip *layers.IPv4, l4 *layers.TCP) {
			e.DstMAC = net.HardwareAddr{2, 0, 0, 0, 1, 2}
			ip.DstIP = net.IP{192, 168, 7, 2}
			l4.SrcPort, l4.DstPort = 7, 4321
		})},
		{"load into vlan_vid's low bits and vlan_pcp, output to the port in the new id", vlanFrame(t, 7, 5), []uint32{3}, vlanFrame(t, 3, 2)},
		// 0xffff is OFPP_NONE (nothing), 0x1234 a port the switch
		// lacks, 3 port 3.
		{"output:field to none, to a missing port, to port 3", tcpFrame(25, nil), []uint32{3}, nil},
		{"metadata and tun_id loaded in part, matched in table 1", udpFrame(33335, nil), []uint32{3}, nil},
	}
}

// TestLoadMove runs loadCases through loadFlows: the frames leave on the
// ports expected and as gopacket builds them with the fields rewritten,
// the IPv4 and transport checksums included.
func TestLoadMove(t *testing.T) { runFrameCases(t, loadFlows, loadCases(t)) }

// TestLoadMoveAgainstOVS traces loadCases through loadFlows in Open
// vSwitch 3.1 (ovs-appctl ofproto/trace): each frame must leave on the
// ports TestLoadMove expects of ofswitch, and Open vSwitch's final flow
// must have the addresses and ports of the frame TestLoadMove expects.
func TestLoadMoveAgainstOVS(t *testing.T) {
	traceFrameCases(t, loadFlows, loadCases(t), checkFinalFlow)
}

// checkFinalFlow checks that Open vSwitch's final flow in trace out has
// the addresses and ports (frameFields) of the frame case c expects.
func checkFinalFlow(t *testing.T, c *frameCase, out []byte) {
	want := c.out
	if want == nil {
		want = c.frame
	}
	_, final, ok := strings.Cut(string(out), "Final flow: ")
	if !ok {
		t.Fatalf("no final flow:\n%s", out)
	}
	final, _, _ = strings.Cut(final, "\n")
	if final == "unchanged" {
		_, final, _ = strings.Cut(string(out), "Flow: ")
		final, _, _ = strings.Cut(final, "\n")
	}
	got := map[string]string{}
	for _, kv := range strings.Split(final, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			got[k] = v
		}
	}
	for k, v := range frameFields(t, want) {
		if got[k] != v {
			t.Errorf("Open vSwitch's final flow has %s=%s, ofswitch's test expects %s:\n%s", k, got[k], v, final)
		}
	}
}

// vlanFrame is a TCP frame with an 802.1Q tag of id vid and priority pcp.
func vlanFrame(t *testing.T, vid uint16, pcp uint8) []byte {
	return build(t, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: vid, Priority: pcp, Type: layers.EthernetTypeIPv4},
		ipv4(layers.IPProtocolTCP), tcp(), payload)
}

// frameFields returns the addresses and transport ports of frame as
// ofproto/trace prints them in a flow.
func frameFields(t *testing.T, frame []byte) map[string]string {
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	e := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	f := map[string]string{"dl_src": e.SrcMAC.String(), "dl_dst": e.DstMAC.String()}
	if q, ok := pkt.Layer(layers.LayerTypeDot1Q).(*layers.Dot1Q); ok {
		f["dl_vlan"], f["dl_vlan_pcp"] = strconv.Itoa(int(q.VLANIdentifier)), strconv.Itoa(int(q.Priority))
	}
	switch ip := pkt.NetworkLayer().(type) {
	case *layers.IPv4:
		f["nw_src"], f["nw_dst"] = ip.SrcIP.String(), ip.DstIP.String()
		f["nw_tos"], f["nw_ecn"] = strconv.Itoa(int(ip.TOS&0xfc)), strconv.Itoa(int(ip.TOS&3))
	case *layers.IPv6:
		f["ipv6_src"], f["ipv6_dst"] = ip.SrcIP.String(), ip.DstIP.String()
	}
	if ns, ok := pkt.Layer(layers.LayerTypeICMPv6NeighborSolicitation).(*layers.ICMPv6NeighborSolicitation); ok {
		f["nd_target"] = ns.TargetAddress.String()
	}
	switch l4 := pkt.TransportLayer().(type) {
	case *layers.TCP:
		f["tp_src"], f["tp_dst"] = strconv.Itoa(int(l4.SrcPort)), strconv.Itoa(int(l4.DstPort))
	case *layers.UDP:
		f["tp_src"], f["tp_dst"] = strconv.Itoa(int(l4.SrcPort)), strconv.Itoa(int(l4.DstPort))
	}
	return f
}

// TestLoadMoveNoAllocs: vectors of loadCases' frames through loadFlows
// (loads into the key and into the frame, moves, output:field, goto)
// allocate nothing.
func TestLoadMoveNoAllocs(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, loadFlows)
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}})
	var frames [][]byte
	for _, c := range loadCases(t) {
		frames = append(frames, c.frame)
	}
	if n := vectorAllocs(sw.Worker(0), frames); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
	if st := sw.Stats(); st.Rewrites == 0 {
		t.Errorf("no rewrites: %+v", st)
	}
}

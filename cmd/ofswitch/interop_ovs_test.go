//go:build linux

package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/ofswitch/ofswitch/internal/ovstest"
)

// interopFlows is a flow file written for Open vSwitch: ordinary
// OpenFlow matches and actions and the Nicira extensions ofswitch takes,
// in a four-table pipeline.
const interopFlows = "../../testdata/flows/openvswitch.flows"

// TestInteropFlowFile puts one flow file written for Open vSwitch into
// ofswitch run and into Open vSwitch, both with ovs-ofctl add-flows and
// with ofswitch push, over OpenFlow 1.3 and 1.4: ovs-ofctl dump-flows
// prints the same flows for all of them. Then the same frames go through
// the file's flows in both data planes (Open vSwitch's ofproto/trace,
// ofswitch replay --out): each frame leaves on the same ports, and as many
// go to the controller.
func TestInteropFlowFile(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	ovs.AddInternalPorts(t, 4)
	sw := startRun(t, io.Discard)
	defer sw.stop(t)
	bin := ofswitchBinary(t)
	nflows := 0
	for _, line := range strings.Split(readFile(t, interopFlows), "\n") {
		if line = strings.TrimSpace(line); line != "" && line[0] != '#' {
			nflows++
		}
	}

	var first []string
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		for _, loader := range []string{"ovs-ofctl add-flows", "ofswitch push"} {
			var dumps [2][]string
			for i, target := range []string{ovs.Target(), "tcp:" + sw.addr} {
				// Open vSwitch's tools run in its namespace; ofswitch run
				// listens in the test's.
				run := ovs.Exec
				if i == 1 {
					run = plainCommand
				}
				if out, err := run(ofctl, "-O", ver, "del-flows", target).CombinedOutput(); err != nil {
					t.Fatalf("del-flows %s: %v\n%s", target, err, out)
				}
				load := run(ofctl, "-O", ver, "add-flows", target, interopFlows)
				if loader == "ofswitch push" {
					load = run(bin, "push", "--switch", target, interopFlows)
				}
				if out, err := load.CombinedOutput(); err != nil {
					t.Fatalf("%s %s into %s: %v\n%s", loader, ver, target, err, out)
				}
				out, err := run(ofctl, "-O", ver, "dump-flows", target, "--no-stats").CombinedOutput()
				if err != nil {
					t.Fatalf("dump-flows %s: %v\n%s", target, err, out)
				}
				dumps[i] = ovstest.FlowLines(string(out))
			}
			if diff := cmp.Diff(dumps[0], dumps[1]); diff != "" {
				t.Errorf("%s, %s: dump-flows (-Open vSwitch +ofswitch):\n%s", loader, ver, diff)
			}
			if len(dumps[1]) != nflows {
				t.Errorf("%s, %s: ofswitch holds %d flows, the file has %d", loader, ver, len(dumps[1]), nflows)
			}
			if first == nil {
				first = dumps[0]
			} else if diff := cmp.Diff(first, dumps[0]); diff != "" {
				t.Errorf("%s, %s: Open vSwitch's flows differ from ovs-ofctl add-flows over OpenFlow13 (-first +this):\n%s", loader, ver, diff)
			}
		}
	}

	// The frames, through both data planes. Open vSwitch holds the file's
	// flows from the last load.
	frames := interopFrames(t)
	var want []portOut
	var wantHeaders []map[string]string
	wantPacketIns := 0
	dpToOF := ovs.DatapathPorts(t, 4)
	for _, f := range frames {
		out, err := ovs.Exec("ovs-appctl", "ofproto/trace", "br0", "in_port="+strconv.Itoa(int(f.in)), hex.EncodeToString(f.data)).CombinedOutput()
		if err != nil {
			t.Fatalf("ofproto/trace %s: %v\n%s", f.name, err, out)
		}
		ports, pins := traceDatapath(t, string(out), dpToOF)
		final := traceFinalFlow(t, string(out))
		for _, p := range ports {
			want = append(want, portOut{f.name, p})
			wantHeaders = append(wantHeaders, final)
		}
		wantPacketIns += pins
	}
	got, gotFrames, packetIns := replayOutputs(t, frames)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames out (-Open vSwitch +ofswitch):\n%s", diff)
	} else {
		// The headers each frame leaves with are those of Open
		// vSwitch's final flow.
		for i, data := range gotFrames {
			h := frameHeaders(data)
			for k, v := range h {
				if w, ok := wantHeaders[i][k]; ok && w != v {
					t.Errorf("%s, out on %d: %s=%s, Open vSwitch's final flow has %s=%s", got[i].Frame, got[i].Port, k, v, k, w)
				}
			}
			if len(h) < 3 {
				t.Errorf("%s, out on %d: headers %v: the test reads too little of the frame", got[i].Frame, got[i].Port, h)
			}
		}
	}
	if packetIns != wantPacketIns {
		t.Errorf("ofswitch sent %d frames to the controller, Open vSwitch %d", packetIns, wantPacketIns)
	}
	// What both do is what the file means: a check on the test itself.
	if len(want) < 10 || wantPacketIns < 3 {
		t.Errorf("Open vSwitch output %d frames and sent %d to the controller: the frames miss the file's flows", len(want), wantPacketIns)
	}
}

func plainCommand(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// portOut is one frame leaving a port: the name of the frame that came in
// and the port.
type portOut struct {
	Frame string
	Port  uint32
}

// frameTag is the trailer that names frame k.
func frameTag(k int) []byte { return []byte(fmt.Sprintf("#frame%02d#", k)) }

type interopFrame struct {
	name string
	in   uint32
	data []byte
}

// interopFrames are frames that exercise the flow file's flows, each with
// the port it comes in on.
func interopFrames(t *testing.T) []interopFrame {
	t.Helper()
	host := net.HardwareAddr{0, 0, 0, 0, 0, 5}
	gw := net.HardwareAddr{0, 0, 0, 0, 0, 0x10}
	ip4 := func(src, dst string, ttl uint8, proto layers.IPProtocol) *layers.IPv4 {
		return &layers.IPv4{Version: 4, IHL: 5, TTL: ttl, Protocol: proto, SrcIP: net.ParseIP(src).To4(), DstIP: net.ParseIP(dst).To4()}
	}
	eth := func(t layers.EthernetType) *layers.Ethernet {
		return &layers.Ethernet{SrcMAC: host, DstMAC: gw, EthernetType: t}
	}
	tcp := func(ip *layers.IPv4, dport uint16, syn bool) []gopacket.SerializableLayer {
		l4 := &layers.TCP{SrcPort: 40000, DstPort: layers.TCPPort(dport), SYN: syn, ACK: !syn, Window: 1024}
		l4.SetNetworkLayerForChecksum(ip)
		return []gopacket.SerializableLayer{eth(layers.EthernetTypeIPv4), ip, l4, gopacket.Payload("ofswitch")}
	}
	udp := func(ip *layers.IPv4, dport uint16) []gopacket.SerializableLayer {
		l4 := &layers.UDP{SrcPort: 40000, DstPort: layers.UDPPort(dport)}
		l4.SetNetworkLayerForChecksum(ip)
		return []gopacket.SerializableLayer{eth(layers.EthernetTypeIPv4), ip, l4, gopacket.Payload("ofswitch")}
	}
	vlan := func(vid uint16, ls []gopacket.SerializableLayer) []gopacket.SerializableLayer {
		e := *ls[0].(*layers.Ethernet)
		e.EthernetType = layers.EthernetTypeDot1Q
		return append([]gopacket.SerializableLayer{&e, &layers.Dot1Q{VLANIdentifier: vid, Type: layers.EthernetTypeIPv4}}, ls[1:]...)
	}
	arp := func(op uint16, sha net.HardwareAddr, tpa string) []gopacket.SerializableLayer {
		return []gopacket.SerializableLayer{eth(layers.EthernetTypeARP), &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
			HwAddressSize: 6, ProtAddressSize: 4, Operation: op, SourceHwAddress: sha, SourceProtAddress: net.IP{10, 0, 0, 9},
			DstHwAddress: make(net.HardwareAddr, 6), DstProtAddress: net.ParseIP(tpa).To4()}}
	}
	ip6 := func(dst string, hop uint8, next layers.IPProtocol) *layers.IPv6 {
		return &layers.IPv6{Version: 6, HopLimit: hop, NextHeader: next, SrcIP: net.ParseIP("2001:db8::9"), DstIP: net.ParseIP(dst)}
	}
	udp6 := func(ip *layers.IPv6) []gopacket.SerializableLayer {
		l4 := &layers.UDP{SrcPort: 40000, DstPort: 4000}
		l4.SetNetworkLayerForChecksum(ip)
		return []gopacket.SerializableLayer{eth(layers.EthernetTypeIPv6), ip, l4, gopacket.Payload("ofswitch")}
	}
	frag := func(offset uint16, more bool) []gopacket.SerializableLayer {
		ip := ip4("10.0.0.9", "10.0.0.1", 64, layers.IPProtocolUDP)
		ip.FragOffset = offset
		if more {
			ip.Flags = layers.IPv4MoreFragments
		}
		if offset > 0 {
			return []gopacket.SerializableLayer{eth(layers.EthernetTypeIPv4), ip, gopacket.Payload("fragment")}
		}
		return udp(ip, 9)
	}
	ecn := ip4("10.0.0.9", "10.0.0.7", 64, layers.IPProtocolUDP)
	ecn.TOS = 3
	ns := ip6("ff02::1:ff00:1", 255, layers.IPProtocolICMPv6)
	icmp6 := &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(layers.ICMPv6TypeNeighborSolicitation, 0)}
	icmp6.SetNetworkLayerForChecksum(ns)
	multicast := eth(layers.EthernetTypeIPv4)
	multicast.SrcMAC = net.HardwareAddr{1, 0, 0x5e, 0, 0, 1}
	mip := ip4("10.0.0.9", "10.0.0.2", 64, layers.IPProtocolUDP)
	mudp := &layers.UDP{SrcPort: 1, DstPort: 2}
	mudp.SetNetworkLayerForChecksum(mip)

	cases := []struct {
		name   string
		in     uint32
		layers []gopacket.SerializableLayer
	}{
		{"ssh from 10/8 to 10.0.0.2", 1, tcp(ip4("10.0.0.9", "10.0.0.2", 64, layers.IPProtocolTCP), 22, false)},
		{"ssh to 10.0.0.2 from its own port", 2, tcp(ip4("10.0.0.9", "10.0.0.2", 64, layers.IPProtocolTCP), 22, false)},
		{"ssh to 10.0.0.2 whose TTL dec_ttl(1,2) ends", 1, tcp(ip4("10.0.0.9", "10.0.0.2", 2, layers.IPProtocolTCP), 22, false)},
		{"ssh from elsewhere", 1, tcp(ip4("192.168.1.1", "10.0.0.1", 64, layers.IPProtocolTCP), 22, false)},
		{"web, marked, resubmitted", 1, tcp(ip4("192.168.1.1", "8.8.8.8", 64, layers.IPProtocolTCP), 80, false)},
		{"dns to 10.0.0.7", 1, udp(ip4("10.0.0.9", "10.0.0.7", 64, layers.IPProtocolUDP), 53)},
		{"syn to 10.0.0.50", 1, tcp(ip4("10.0.0.9", "10.0.0.50", 64, layers.IPProtocolTCP), 443, true)},
		{"syn to the internet", 1, tcp(ip4("10.0.0.9", "9.9.9.9", 64, layers.IPProtocolTCP), 443, true)},
		{"ack to the internet: exit", 1, tcp(ip4("10.0.0.9", "9.9.9.9", 64, layers.IPProtocolTCP), 443, false)},
		{"ecn 3", 1, udp(ecn, 99)},
		{"ping to 10.0.0.2, TOS set", 1, []gopacket.SerializableLayer{eth(layers.EthernetTypeIPv4), ip4("10.0.0.9", "10.0.0.2", 64, layers.IPProtocolICMPv4),
			&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(layers.ICMPv4TypeEchoRequest, 0), Id: 1, Seq: 1}, gopacket.Payload("ofswitch")}},
		{"ttl 1", 1, udp(ip4("10.0.0.9", "10.0.0.2", 1, layers.IPProtocolUDP), 9)},
		{"first fragment", 1, frag(0, true)},
		{"later fragment", 1, frag(100, false)},
		{"multicast source", 1, []gopacket.SerializableLayer{multicast, mip, mudp}},
		{"from port 4", 4, udp(ip4("10.0.0.9", "10.0.0.2", 64, layers.IPProtocolUDP), 9)},
		{"vlan 10, ssh", 1, vlan(10, tcp(ip4("10.0.0.9", "10.0.0.2", 64, layers.IPProtocolTCP), 22, false))},
		{"vlan 20", 1, vlan(20, udp(ip4("10.0.0.9", "10.0.0.2", 64, layers.IPProtocolUDP), 9))},
		{"arp who-has 10.0.0.1", 2, arp(1, host, "10.0.0.1")},
		{"arp reply", 1, arp(2, host, "10.0.0.9")},
		{"arp from 00:..:0a", 1, arp(1, net.HardwareAddr{0, 0, 0, 0, 0, 0x0a}, "10.0.0.3")},
		{"arp flooded", 2, arp(1, host, "10.0.0.3")},
		{"ipv6 to 2001:db8::5", 1, udp6(ip6("2001:db8::5", 64, layers.IPProtocolUDP))},
		{"ipv6 hop limit 1", 1, udp6(ip6("2001:db8::5", 1, layers.IPProtocolUDP))},
		{"ipv6 elsewhere", 1, udp6(ip6("2002::5", 64, layers.IPProtocolUDP))},
		{"neighbor solicitation", 3, []gopacket.SerializableLayer{eth(layers.EthernetTypeIPv6), ns, icmp6,
			&layers.ICMPv6NeighborSolicitation{TargetAddress: net.ParseIP("2001:db8::1")}}},
	}
	out := make([]interopFrame, 0, len(cases))
	for _, c := range cases {
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, c.layers...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// A trailer past the headers' lengths names the frame, so that
		// what goes out can be told apart however its headers changed.
		data := append(append([]byte(nil), buf.Bytes()...), frameTag(len(out))...)
		for len(data) < 60 {
			data = append(data, 0)
		}
		out = append(out, interopFrame{c.name, c.in, data})
	}
	return out
}

// traceDatapath reads the datapath actions of an ofproto/trace: the
// OpenFlow ports the frame goes out on, in order, and how many packet-ins
// it makes for controller id 0 (the only id ofswitch's connections have).
func traceDatapath(t *testing.T, trace string, dpToOF map[string]uint32) (ports []uint32, packetIns int) {
	t.Helper()
	i := strings.LastIndex(trace, "Datapath actions: ")
	if i < 0 {
		t.Fatalf("no datapath actions in the trace:\n%s", trace)
	}
	acts := strings.TrimSpace(strings.SplitN(trace[i+len("Datapath actions: "):], "\n", 2)[0])
	depth, start := 0, 0
	for k := 0; k <= len(acts); k++ {
		if k < len(acts) && acts[k] == '(' {
			depth++
		} else if k < len(acts) && acts[k] == ')' {
			depth--
		}
		if k < len(acts) && (acts[k] != ',' || depth > 0) {
			continue
		}
		a := acts[start:k]
		start = k + 1
		switch {
		case dpToOF[a] != 0:
			ports = append(ports, dpToOF[a])
		case strings.HasPrefix(a, "userspace(") && strings.Contains(a, "controller(") && strings.Contains(a, "controller_id=0"):
			packetIns++
		case a == "drop" || strings.HasPrefix(a, "set(") || strings.HasPrefix(a, "push_vlan(") || a == "pop_vlan" ||
			strings.HasPrefix(a, "userspace("):
		default:
			t.Fatalf("datapath action %q: the test does not know it\n%s", a, trace)
		}
	}
	return ports, packetIns
}

// traceFinalFlow reads the headers of an ofproto/trace's final flow (its
// first flow if it says "unchanged") that frameHeaders reads of a frame.
func traceFinalFlow(t *testing.T, trace string) map[string]string {
	t.Helper()
	line := ""
	for _, l := range strings.Split(trace, "\n") {
		if f, ok := strings.CutPrefix(l, "Flow: "); ok && line == "" {
			line = f
		}
		if f, ok := strings.CutPrefix(l, "Final flow: "); ok && f != "unchanged" {
			line = f
		}
	}
	if line == "" {
		t.Fatalf("no flow in the trace:\n%s", trace)
	}
	h := map[string]string{"vlan": "none"}
	for _, kv := range strings.Split(line, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch k {
		case "dl_src", "dl_dst", "nw_src", "nw_dst", "ipv6_src", "ipv6_dst", "nw_tos", "nw_ecn", "nw_ttl", "tp_src", "tp_dst":
			h[k] = v
		case "dl_vlan":
			h["vlan"] = v
		}
	}
	return h
}

// frameHeaders reads what traceFinalFlow reads, from a frame.
func frameHeaders(data []byte) map[string]string {
	h := map[string]string{"vlan": "none"}
	p := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
	if e, ok := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); ok {
		h["dl_src"], h["dl_dst"] = e.SrcMAC.String(), e.DstMAC.String()
	}
	if v, ok := p.Layer(layers.LayerTypeDot1Q).(*layers.Dot1Q); ok {
		h["vlan"] = strconv.Itoa(int(v.VLANIdentifier))
	}
	if ip, ok := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
		h["nw_src"], h["nw_dst"] = ip.SrcIP.String(), ip.DstIP.String()
		h["nw_tos"], h["nw_ecn"], h["nw_ttl"] = strconv.Itoa(int(ip.TOS&0xfc)), strconv.Itoa(int(ip.TOS&3)), strconv.Itoa(int(ip.TTL))
	}
	if ip, ok := p.Layer(layers.LayerTypeIPv6).(*layers.IPv6); ok {
		h["ipv6_src"], h["ipv6_dst"] = ip.SrcIP.String(), ip.DstIP.String()
		h["nw_tos"], h["nw_ecn"], h["nw_ttl"] = strconv.Itoa(int(ip.TrafficClass&0xfc)), strconv.Itoa(int(ip.TrafficClass&3)), strconv.Itoa(int(ip.HopLimit))
	}
	if l4, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
		h["tp_src"], h["tp_dst"] = strconv.Itoa(int(l4.SrcPort)), strconv.Itoa(int(l4.DstPort))
	}
	if l4, ok := p.Layer(layers.LayerTypeUDP).(*layers.UDP); ok {
		h["tp_src"], h["tp_dst"] = strconv.Itoa(int(l4.SrcPort)), strconv.Itoa(int(l4.DstPort))
	}
	return h
}

// replayOutputs replays frames, each on its port, through the flow file's
// flows with ofswitch replay --out on one worker, and returns where each
// went out, in order, with the frames as they left, and how many frames
// went to the controller.
func replayOutputs(t *testing.T, frames []interopFrame) ([]portOut, [][]byte, int) {
	t.Helper()
	dir := t.TempDir()
	in, outPath := filepath.Join(dir, "in.pcapng"), filepath.Join(dir, "out.pcapng")
	var b bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&b, pcapgo.NgInterface{Name: "p1", LinkType: layers.LinkTypeEthernet}, pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for p := 2; p <= 4; p++ {
		if _, err := w.AddInterface(pcapgo.NgInterface{Name: "p" + strconv.Itoa(p), LinkType: layers.LinkTypeEthernet}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range frames {
		ci := gopacket.CaptureInfo{CaptureLength: len(f.data), Length: len(f.data), InterfaceIndex: int(f.in) - 1}
		if err := w.WritePacket(ci, f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := replayCLI(t, "--rules", interopFlows, "--out", outPath, "--burst", "0", "--filter", "none",
		"--repeats", "1", "--workers", "1", "--json", in)
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr)
	}
	rep := decodeReplayJSON(t, out)
	if len(rep.Filters) != 1 {
		t.Fatalf("replay: %d filter configurations", len(rep.Filters))
	}
	f, err := os.Open(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	var got []portOut
	var left [][]byte
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := "?"
		for k := range frames {
			if bytes.Contains(data, frameTag(k)) {
				name = frames[k].name
			}
		}
		got = append(got, portOut{name, uint32(ci.InterfaceIndex) + 1})
		left = append(left, append([]byte(nil), data...))
	}
	return got, left, int(rep.Filters[0].Counters.PacketIns)
}

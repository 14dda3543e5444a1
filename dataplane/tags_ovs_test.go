package dataplane

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// TestMPLSAgainstOVS sends the same frames through the same MPLS flows in
// ofswitch and in Open vSwitch 3.1 (ovs-appctl ofproto/trace, the
// userspace datapath's own translation) and compares the headers the
// frame leaves with: EtherType, VLAN, and each label's fields (the
// outermost and, where Open vSwitch shows it, the next: mpls_lse1).
// After a pop to IP Open vSwitch does not parse the IP header until it
// recirculates, so only L2 is compared there.
// ovsReplaceFlows replaces br0's flows with flows, one a line, by
// ovs-ofctl del-flows and add-flow.
func ovsReplaceFlows(t *testing.T, ovs *ovstest.Switch, flows string) {
	t.Helper()
	if _, err := ovs.Ofctl("", "del-flows"); err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Split(strings.TrimSpace(flows), "\n") {
		if out, err := ovs.Ofctl("", "add-flow", f); err != nil {
			t.Fatalf("add-flow %s: %v\n%s", f, err, out)
		}
	}
}

// traceOutput finds the ports of a trace's final output actions.
var traceOutput = regexp.MustCompile(`(?m)^\s+output:(\d+)\s*$`)

// ovsTrace traces frame from port 1 through br0 (ovs-appctl
// ofproto/trace) and returns what the trace prints.
func ovsTrace(t *testing.T, ovs *ovstest.Switch, frame []byte) []byte {
	t.Helper()
	out, err := ovs.Exec("ovs-appctl", "ofproto/trace", "br0", "in_port=1", hex.EncodeToString(frame)).CombinedOutput()
	if err != nil {
		t.Fatalf("ofproto/trace: %v\n%s", err, out)
	}
	return out
}

// ovsTracePorts traces frame from port 1 through br0 (ovs-appctl
// ofproto/trace) and returns the ports it is output on, sorted, and the
// trace.
func ovsTracePorts(t *testing.T, ovs *ovstest.Switch, frame []byte) ([]uint32, []byte) {
	t.Helper()
	out := ovsTrace(t, ovs, frame)
	var ports []uint32
	for _, m := range traceOutput.FindAllStringSubmatch(string(out), -1) {
		p, _ := strconv.Atoi(m[1])
		ports = append(ports, uint32(p))
	}
	slices.Sort(ports)
	return ports, out
}

// ovsTraceDatapath traces frame from port 1 through br0 and returns the
// OpenFlow ports of the trace's datapath actions (ofPort maps datapath
// ports to them: ovstest.Switch.DatapathPorts), sorted, and the trace.
func ovsTraceDatapath(t *testing.T, ovs *ovstest.Switch, ofPort map[string]uint32, frame []byte) ([]uint32, []byte) {
	t.Helper()
	out := ovsTrace(t, ovs, frame)
	_, acts, _ := strings.Cut(string(out), "Datapath actions: ")
	acts, _, _ = strings.Cut(acts, "\n")
	var ports []uint32
	for _, a := range splitTopLevel(acts) {
		if p, ok := ofPort[a]; ok {
			ports = append(ports, p)
		}
	}
	slices.Sort(ports)
	return ports, out
}

// traceFrameCases traces each of cases, from port 1, through flows in
// Open vSwitch with ports 1-3 (ovs-appctl ofproto/trace): each frame must
// leave on the ports the case expects of ofswitch; check, if not nil,
// then reads the trace.
func traceFrameCases(t *testing.T, flows string, cases []frameCase, check func(t *testing.T, c *frameCase, trace []byte)) {
	t.Helper()
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 3)
	ovsReplaceFlows(t, ovs, flows)
	ofPort := ovs.DatapathPorts(t, 3)
	for i := range cases {
		c := &cases[i]
		t.Run(c.name, func(t *testing.T) {
			ports, out := ovsTraceDatapath(t, ovs, ofPort, c.frame)
			if !slices.Equal(ports, c.ports) {
				t.Fatalf("Open vSwitch sends on %v, ofswitch's test expects %v:\n%s", ports, c.ports, out)
			}
			if check != nil {
				check(t, c, out)
			}
		})
	}
}

// startOVSPorts starts Open vSwitch (ovstest.Start) with n internal ports
// p1..pn on br0 as OpenFlow ports 1..n.
func startOVSPorts(t *testing.T, n int) *ovstest.Switch {
	t.Helper()
	ovs := ovstest.Start(t)
	ovs.AddInternalPorts(t, n)
	return ovs
}

func TestMPLSAgainstOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 2)
	v4 := func(ttl uint8) []gopacket.SerializableLayer {
		ip := ipv4(layers.IPProtocolTCP)
		ip.TTL = ttl
		return []gopacket.SerializableLayer{ip, tcp(), payload}
	}
	frame := func(et layers.EthernetType, rest ...gopacket.SerializableLayer) []byte {
		return build(t, append([]gopacket.SerializableLayer{eth(et)}, rest...)...)
	}
	vlan := func(inner layers.EthernetType, rest ...gopacket.SerializableLayer) []byte {
		return build(t, append([]gopacket.SerializableLayer{eth(layers.EthernetTypeDot1Q),
			&layers.Dot1Q{VLANIdentifier: 7, Priority: 5, Type: inner}}, rest...)...)
	}
	mpls := layers.EthernetTypeMPLSUnicast
	oneLabel := frame(mpls, append([]gopacket.SerializableLayer{mplsLSE(100, 3, true, 64)}, v4(32)...)...)
	twoLabels := frame(mpls, append([]gopacket.SerializableLayer{mplsLSE(100, 3, false, 64), mplsLSE(200, 5, true, 9)}, v4(32)...)...)
	ip6 := ipv6(layers.IPProtocolUDP)
	ip6.HopLimit = 17
	for _, c := range []struct {
		flow string
		in   []byte
		// ours lists where ofswitch knowingly differs, with its value.
		// Pushing a label onto an IP packet, Open vSwitch writes label 2
		// (IPv6 explicit null) for IPv6 and TC from the low 3 bits of the
		// DSCP; ofswitch writes label 0 and TC 0, the defaults of
		// OpenFlow 1.3.5 §7.2.5 (only an outer label's TC and label are
		// copied), which Ryu's test suite expects (19_PUSH_MPLS: an IPv6
		// packet leaves with label 0).
		ours map[string]string
	}{
		{"mpls,actions=dec_mpls_ttl,push_mpls:0x8847,set_field:9->mpls_label,output:2", oneLabel, nil},
		{"ip,actions=push_mpls:0x8847,output:2", frame(layers.EthernetTypeIPv4, v4(33)...), map[string]string{"mpls_tc": "0"}},
		{"ipv6,actions=push_mpls:0x8848,output:2", frame(layers.EthernetTypeIPv6, ip6, udp(), payload), map[string]string{"mpls_label": "0", "mpls_tc": "0"}},
		{"ip,actions=push_mpls:0x8847,set_mpls_label(77),set_mpls_tc(6),output:2", vlan(layers.EthernetTypeIPv4, v4(12)...), nil},
		{"mpls,actions=pop_mpls:0x0800,output:2", oneLabel, nil},
		{"mpls,actions=pop_mpls:0x0800,output:2", vlan(mpls, append([]gopacket.SerializableLayer{mplsLSE(1, 0, true, 2)}, v4(32)...)...), nil},
		{"mpls,actions=pop_mpls:0x8847,output:2", twoLabels, nil},
		{"mpls,actions=set_mpls_ttl(5),set_mpls_tc(7),set_mpls_label(1048575),output:2", twoLabels, nil},
		{"mpls,actions=push_mpls:0x8847,dec_mpls_ttl,push_mpls:0x8848,output:2", oneLabel, nil},
		{"mpls,dl_vlan=7,actions=pop_vlan,push_vlan:0x88a8,set_field:4106->vlan_vid,dec_mpls_ttl,output:2", vlan(mpls, mplsLSE(5, 1, true, 200), payload), nil},
	} {
		t.Run(c.flow, func(t *testing.T) {
			if _, err := ovs.Ofctl("", "del-flows"); err != nil {
				t.Fatal(err)
			}
			if out, err := ovs.Ofctl("", "add-flow", "in_port=1,"+c.flow); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			out := ovsTrace(t, ovs, c.in)
			_, final, ok := strings.Cut(string(out), "Final flow: ")
			if !ok {
				t.Fatalf("no final flow:\n%s", out)
			}
			final, _, _ = strings.Cut(final, "\n")
			if final == "unchanged" {
				t.Fatalf("Open vSwitch left the frame unchanged:\n%s", out)
			}
			want := map[string]string{}
			for _, kv := range strings.Split(final, ",") {
				k, v, has := strings.Cut(kv, "=")
				if !has {
					want["dl_type"] = map[string]string{"mpls": "0x8847", "mplsm": "0x8848", "ip": "0x0800", "ipv6": "0x86dd", "tcp": "0x0800", "udp": "0x0800", "udp6": "0x86dd"}[k]
					continue
				}
				want[k] = v
			}
			for k, v := range c.ours {
				want[k] = v
			}
			sent, _ := tagRun(t, 1, "in_port=1,"+c.flow, c.in)
			if len(sent[2]) != 1 {
				t.Fatalf("ofswitch sent %d frames on port 2", len(sent[2]))
			}
			f := sent[2][0]
			h, okp := NewParser().Parse(f, layers.LinkTypeEthernet, 1)
			if !okp {
				t.Fatalf("ofswitch sent a frame it cannot parse: %x", f)
			}
			got := map[string]string{"dl_type": fmt.Sprintf("%#04x", h.EthType)}
			if h.VLANs > 0 {
				got["dl_vlan"], got["dl_vlan_pcp"] = strconv.Itoa(int(h.VLANVID[0])), strconv.Itoa(int(h.VLANPCP[0]))
			}
			if h.EthType == EtherTypeMPLS || h.EthType == EtherTypeMPLSMC {
				got["mpls_label"], got["mpls_tc"] = strconv.Itoa(int(h.MPLSLabel)), strconv.Itoa(int(h.MPLSTC))
				got["mpls_ttl"], got["mpls_bos"] = strconv.Itoa(int(h.MPLSTTL)), strconv.Itoa(int(h.MPLSBoS))
				if h.MPLSBoS == 0 {
					off := 14 + 4*int(h.VLANs) + 4
					got["mpls_lse1"] = strconv.FormatUint(uint64(f[off])<<24|uint64(f[off+1])<<16|uint64(f[off+2])<<8|uint64(f[off+3]), 10)
				}
			}
			for k, g := range got {
				if w, ok := want[k]; !ok || w != g {
					t.Errorf("%s: ofswitch %s, Open vSwitch %q (final flow %s)", k, g, w, final)
				}
			}
			for _, k := range []string{"mpls_label", "mpls_tc", "mpls_ttl", "mpls_bos", "dl_vlan", "mpls_lse1"} {
				if _, ok := got[k]; !ok && want[k] != "" {
					t.Errorf("%s: Open vSwitch has %s, ofswitch none (final flow %s)", k, want[k], final)
				}
			}
		})
	}
}

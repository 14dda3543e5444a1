package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// sharedCaptures returns the paths of every capture in ../shared/data/pcaps.
func sharedCaptures(t testing.TB) []string {
	t.Helper()
	dir := testutil.SharedData(t, "pcaps")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".pcap") || strings.HasSuffix(n, ".pcapng") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no captures in %s", dir)
	}
	return out
}

// parseAll replays c through one parser and returns the headers of every
// frame (nil where malformed) and the parser's counters.
func parseAll(t testing.TB, c *Capture) ([]*Headers, Stats) {
	t.Helper()
	p := NewParser()
	out := make([]*Headers, 0, c.Len())
	err := c.Replay(context.Background(), nil, func(vec *Vector) error {
		p.ParseVector(vec)
		for i := 0; i < vec.N; i++ {
			var h *Headers
			if vec.OK[i] {
				h = new(Headers)
				*h = vec.Hdr[i]
			}
			out = append(out, h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, p.Stats
}

// TestSharedCaptures loads and parses every shared capture: nothing panics,
// and read == parsed + malformed for each file.
func TestSharedCaptures(t *testing.T) {
	for _, path := range sharedCaptures(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			c, err := LoadFile(path)
			if err != nil {
				var fe *FileError
				if !errors.As(err, &fe) || c == nil {
					t.Fatalf("LoadFile: %v (not a *FileError with a partial capture)", err)
				}
				t.Logf("LoadFile: %v (kept %d frames)", err, c.Len())
			}
			if c.Len() == 0 {
				t.Fatal("no frames")
			}
			hs, s := parseAll(t, c)
			t.Log(s.String())
			if s.Read != uint64(c.Len()) || len(hs) != c.Len() {
				t.Errorf("read %d of %d frames", s.Read, c.Len())
			}
			if s.Parsed+s.MalformedTotal() != s.Read {
				t.Errorf("parsed %d + malformed %d != read %d", s.Parsed, s.MalformedTotal(), s.Read)
			}
			if s.Malformed[ReasonPanic] != 0 {
				t.Errorf("%d frames panicked", s.Malformed[ReasonPanic])
			}
			ok := 0
			for _, h := range hs {
				if h != nil {
					ok++
				}
			}
			if uint64(ok) != s.Parsed {
				t.Errorf("%d frames OK, Stats.Parsed %d", ok, s.Parsed)
			}
		})
	}
}

// tsharkFrame is what tshark says about one frame.
type tsharkFrame struct {
	protos           []string
	ipSrc, ipDst     string
	ip6Src, ip6Dst   string
	tcpSrc, tcpDst   string
	udpSrc, udpDst   string
	vlans            []string // vlan.id then ieee8021ad.id values
	adTags           int      // how many of those are 802.1ad
	arpSpa, arpTpa   string
	icmpType, icmp6T string
}

var tsharkFields = []string{"frame.protocols", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "tcp.srcport",
	"tcp.dstport", "udp.srcport", "udp.dstport", "vlan.id", "ieee8021ad.id", "arp.src.proto_ipv4",
	"arp.dst.proto_ipv4", "icmp.type", "icmpv6.type"}

func runTshark(t *testing.T, path string) []tsharkFrame {
	t.Helper()
	bin, err := exec.LookPath("tshark")
	if err != nil {
		testutil.SkipOrFail(t, "tshark not installed")
	}
	args := []string{"-n", "-r", path, "-o", "ip.defragment:FALSE", "-o", "ipv6.defragment:FALSE",
		"-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"}
	for _, f := range tsharkFields {
		args = append(args, "-e", f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).Output()
	if err != nil {
		t.Fatalf("tshark %s: %v", path, err)
	}
	first := func(s string) string { v, _, _ := strings.Cut(s, ","); return v }
	var fr []tsharkFrame
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Split(line, "|")
		if len(f) != len(tsharkFields) {
			t.Fatalf("tshark line %q: %d fields", line, len(f))
		}
		var vl []string
		ad := 0
		for i, s := range []string{f[9], f[10]} {
			if s != "" {
				vs := strings.Split(s, ",")
				vl = append(vl, vs...)
				if i == 1 {
					ad = len(vs)
				}
			}
		}
		fr = append(fr, tsharkFrame{
			protos: strings.Split(f[0], ":"),
			ipSrc:  first(f[1]), ipDst: first(f[2]), ip6Src: first(f[3]), ip6Dst: first(f[4]),
			tcpSrc: first(f[5]), tcpDst: first(f[6]), udpSrc: first(f[7]), udpDst: first(f[8]),
			vlans: vl, adTags: ad, arpSpa: first(f[11]), arpTpa: first(f[12]), icmpType: first(f[13]), icmp6T: first(f[14]),
		})
	}
	return fr
}

// l3Proto returns the first protocol after the Ethernet and VLAN headers
// in a tshark protocol chain, and the number of VLAN tags before it.
func l3Proto(protos []string) (string, int) {
	tags := 0
	for _, p := range protos {
		switch p {
		case "eth", "ethertype", "null":
		case "vlan", "ieee8021ad":
			tags++
		default:
			return p, tags
		}
	}
	return "", tags
}

// TestAgainstTshark compares, frame by frame, the fields the parser
// extracts with what tshark dissects (reassembly off), for captures that
// cover VLAN, QinQ, triple tags, ARP, IPv4 fragments, IPv6 extension
// headers and fragments, ICMP and loopback.
func TestAgainstTshark(t *testing.T) {
	files := []string{"tcpreplay__test.pcap", "zeek__icmp_dot1q.pcap", "tcpdump__afs.pcap", "zeek__vlan-qinqinq.pcap",
		"suricata__defrag-eth-vlan-ipv6-tcp.pcap", "zeek__ipv6-hbh-routing0.pcap", "tcpdump__802.1ad_QinQ.pcap",
		"zeek__mixed-vlan-mpls.pcap", "suricata__base64-decode-5885.pcap", "gopacket__test_loopback.pcap",
		"zeek__ipv6-http-atomic-frag.pcap", "suricata__ipv6-malformed-fragments-22.pcap", "tcpdump__vxlan.pcap",
		"zeek__ipv6-fragmented-dns.pcap", "tcpdump__of13_ericsson.pcapng"}
	dir := testutil.SharedData(t, "pcaps")
	for _, name := range files {
		t.Run(name, func(t *testing.T) { compareWithTshark(t, filepath.Join(dir, name)) })
	}
}

// TestGeneratedAgainstTshark does the same for the captures in testdata/pcaps.
func TestGeneratedAgainstTshark(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps")
	for _, name := range []string{"mix.pcap", "vlan-2if.pcapng", "malformed.pcap"} {
		t.Run(name, func(t *testing.T) { compareWithTshark(t, filepath.Join(dir, name)) })
	}
}

func compareWithTshark(t *testing.T, path string) {
	c, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := parseAll(t, c)
	ts := runTshark(t, path)
	if len(ts) != len(hs) {
		t.Fatalf("tshark sees %d frames, we read %d", len(ts), len(hs))
	}
	checked, fields := 0, 0
	for i, h := range hs {
		if h == nil {
			continue // malformed for us; tshark may still show a partial dissection
		}
		for _, e := range compareFrame(h, &ts[i], &fields) {
			t.Errorf("frame %d (%s): %s", i+1, strings.Join(ts[i].protos, ":"), e)
		}
		checked++
	}
	if checked == 0 || fields == 0 {
		t.Fatalf("nothing compared (%d frames, %d fields)", checked, fields)
	}
	t.Logf("%d frames, %d fields agree with tshark", checked, fields)
}

func compareFrame(h *Headers, f *tsharkFrame, n *int) []string {
	var errs []string
	eq := func(what, want, got string) {
		*n++
		if want != got {
			errs = append(errs, fmt.Sprintf("%s: tshark %q, parser %q", what, want, got))
		}
	}
	port := func(v uint16) string { return strconv.Itoa(int(v)) }
	l3, tags := l3Proto(f.protos)
	if int(h.VLANs) != tags {
		errs = append(errs, fmt.Sprintf("vlan tags: tshark %d, parser %d", tags, h.VLANs))
	}
	var vids []string
	for i := 0; i < min(int(h.VLANs), 2); i++ {
		vids = append(vids, strconv.Itoa(int(h.VLANVID[i])))
	}
	for i, v := range vids {
		*n++
		switch {
		case f.adTags == 0 && (i >= len(f.vlans) || f.vlans[i] != v): // all 802.1Q: same order, outer first
			errs = append(errs, fmt.Sprintf("vlan id %d: tshark %v, parser %s", i, f.vlans, v))
		case !slices.Contains(f.vlans, v):
			errs = append(errs, fmt.Sprintf("vlan id %s not among tshark's %v", v, f.vlans))
		}
	}
	if f.adTags > 0 && h.VLANTPID[0] != EtherTypeQinQ {
		errs = append(errs, fmt.Sprintf("tshark sees an 802.1ad tag, parser's outer TPID is %#x", h.VLANTPID[0]))
	}
	switch l3 {
	case "ip":
		eq("eth_type", "0x800", fmt.Sprintf("%#x", h.EthType))
		eq("ip.src", f.ipSrc, netip.AddrFrom4(h.IPv4Src).String())
		eq("ip.dst", f.ipDst, netip.AddrFrom4(h.IPv4Dst).String())
	case "ipv6":
		eq("eth_type", "0x86dd", fmt.Sprintf("%#x", h.EthType))
		eq("ipv6.src", f.ip6Src, netip.AddrFrom16(h.IPv6Src).String())
		eq("ipv6.dst", f.ip6Dst, netip.AddrFrom16(h.IPv6Dst).String())
	case "arp":
		eq("eth_type", "0x806", fmt.Sprintf("%#x", h.EthType))
		if h.ARPOp != 0 {
			eq("arp.spa", f.arpSpa, netip.AddrFrom4(h.ARPSpa).String())
			eq("arp.tpa", f.arpTpa, netip.AddrFrom4(h.ARPTpa).String())
		}
	default:
		if h.EthType == EtherTypeIPv4 || h.EthType == EtherTypeIPv6 || h.EthType == EtherTypeARP {
			errs = append(errs, fmt.Sprintf("parser found eth_type %#x, tshark's L3 is %q", h.EthType, l3))
		}
		return errs
	}
	if !h.HasL4() {
		return errs
	}
	switch h.IPProto {
	case ProtoTCP:
		eq("tcp.srcport", f.tcpSrc, port(h.L4Src))
		eq("tcp.dstport", f.tcpDst, port(h.L4Dst))
	case ProtoUDP:
		eq("udp.srcport", f.udpSrc, port(h.L4Src))
		eq("udp.dstport", f.udpDst, port(h.L4Dst))
	case ProtoICMPv4:
		eq("icmp.type", f.icmpType, port(uint16(h.ICMPType)))
	case ProtoICMPv6:
		eq("icmpv6.type", f.icmp6T, port(uint16(h.ICMPType)))
	}
	return errs
}

// Package pcapgen generates reproducible synthetic packet captures: mixes
// of IPv4 and IPv6 flows with Zipf popularity, VLAN and QinQ tags, ARP,
// ICMP, LLDP, IP fragments and deliberately malformed frames. The same
// Config always gives the same bytes.
//
// Frames are built with gopacket's serializers, so tests that parse them
// with the project's own parser compare two independent codecs. Generate
// also returns what it put in the capture (Counts), which is what a parser
// must report for it.
package pcapgen

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/capture"
)

// Config describes a capture. Fractions are of all packets (Malformed,
// ARP, ICMP, LLDP, Frag) or of flows (IPv6, VLAN, QinQ of VLAN flows).
type Config struct {
	Seed       uint64  // random seed
	Packets    int     // frames to write
	Flows      int     // distinct flows (directional pairs of endpoints)
	ZipfS      float64 // Zipf exponent of flow popularity (> 0)
	IPv6       float64 // share of flows that are IPv6
	VLAN       float64 // share of flows that are VLAN tagged
	QinQ       float64 // share of tagged flows that carry an 802.1ad S-tag too
	ARP        float64 // share of ARP frames
	ICMP       float64 // share of ICMP/ICMPv6 echo frames
	LLDP       float64 // share of LLDP frames (other L2)
	Frag       float64 // share of packets that are fragmented datagrams (each gives 2-3 frames)
	Malformed  float64 // share of deliberately malformed frames
	MaxPayload int     // largest L4 payload of a flow packet, bytes
	Rate       float64 // mean packets per second (exponential gaps)
	Format     string  // "pcap" or "pcapng"
	Interfaces int     // pcapng interfaces (flows spread over them); pcap has one
}

// DefaultConfig returns the configuration the flags default to.
func DefaultConfig() Config {
	return Config{Seed: 1, Packets: 1000, Flows: 200, ZipfS: 1.1, IPv6: 0.3, VLAN: 0.2, QinQ: 0.3,
		ARP: 0.03, ICMP: 0.04, LLDP: 0.01, Frag: 0.03, Malformed: 0.02, MaxPayload: 48,
		Rate: 10000, Format: "pcap", Interfaces: 1}
}

// ParseFlags parses command-line flags into a Config starting from
// DefaultConfig, and returns the output path given with -o.
func ParseFlags(args []string) (Config, string, error) {
	c := DefaultConfig()
	fs := flag.NewFlagSet("pcapgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "random seed")
	fs.IntVar(&c.Packets, "n", c.Packets, "frames to write")
	fs.IntVar(&c.Flows, "flows", c.Flows, "distinct flows")
	fs.Float64Var(&c.ZipfS, "zipf", c.ZipfS, "Zipf exponent of flow popularity")
	fs.Float64Var(&c.IPv6, "ipv6", c.IPv6, "share of IPv6 flows")
	fs.Float64Var(&c.VLAN, "vlan", c.VLAN, "share of VLAN-tagged flows")
	fs.Float64Var(&c.QinQ, "qinq", c.QinQ, "share of tagged flows with an 802.1ad outer tag")
	fs.Float64Var(&c.ARP, "arp", c.ARP, "share of ARP frames")
	fs.Float64Var(&c.ICMP, "icmp", c.ICMP, "share of ICMP echo frames")
	fs.Float64Var(&c.LLDP, "lldp", c.LLDP, "share of LLDP frames")
	fs.Float64Var(&c.Frag, "frag", c.Frag, "share of fragmented datagrams")
	fs.Float64Var(&c.Malformed, "malformed", c.Malformed, "share of malformed frames")
	fs.IntVar(&c.MaxPayload, "payload", c.MaxPayload, "largest flow payload in bytes")
	fs.Float64Var(&c.Rate, "rate", c.Rate, "mean packets per second")
	fs.StringVar(&c.Format, "format", c.Format, "pcap or pcapng")
	fs.IntVar(&c.Interfaces, "ifaces", c.Interfaces, "pcapng interfaces")
	out := fs.String("o", "", "output file")
	if err := fs.Parse(args); err != nil {
		return c, "", err
	}
	if fs.NArg() != 0 {
		return c, "", fmt.Errorf("pcapgen: unexpected arguments %q", fs.Args())
	}
	return c, *out, c.validate()
}

// ErrConfig is returned for a Config that cannot be generated.
var ErrConfig = errors.New("pcapgen: bad config")

func (c *Config) validate() error {
	switch {
	case c.Packets <= 0 || c.Flows <= 0:
		return fmt.Errorf("%w: packets %d and flows %d must be positive", ErrConfig, c.Packets, c.Flows)
	case c.ZipfS <= 0 || c.Rate <= 0 || c.MaxPayload < 0 || c.MaxPayload > 1400:
		return fmt.Errorf("%w: zipf %v and rate %v must be positive, payload %d in 0..1400", ErrConfig, c.ZipfS, c.Rate, c.MaxPayload)
	case c.ARP+c.ICMP+c.LLDP+c.Frag+c.Malformed > 1:
		return fmt.Errorf("%w: arp+icmp+lldp+frag+malformed shares exceed 1", ErrConfig)
	case c.Format != "pcap" && c.Format != "pcapng":
		return fmt.Errorf("%w: format %q, want pcap or pcapng", ErrConfig, c.Format)
	case c.Interfaces < 1 || (c.Format == "pcap" && c.Interfaces != 1) || c.Interfaces > 8:
		return fmt.Errorf("%w: %d interfaces (pcap has 1, pcapng up to 8)", ErrConfig, c.Interfaces)
	}
	return nil
}

// Kinds are the names Counts uses, the same as dataplane.Kind's.
var Kinds = []string{"arp", "ipv4", "ipv6", "other-l2", "tcp", "udp", "sctp", "icmpv4", "icmpv6",
	"vlan", "frag-first", "frag-later", "truncated"}

// Reasons are the malformations Generate produces, named as dataplane.Reason's.
var Reasons = []string{"eth", "vlan", "arp", "ipv4-header", "ipv4-version", "ipv4-length",
	"ipv6-header", "ipv6-ext", "tcp", "udp"}

// Counts is what a capture holds: frames in total, well-formed frames by
// kind (see Kinds) and malformed frames by reason (see Reasons).
type Counts struct {
	Packets   int
	Kinds     map[string]int
	Malformed map[string]int
}

// String formats c as "packets=N kind=n ... malformed:reason=n ..." with
// zero counts left out, kinds in Kinds order and reasons in Reasons order.
func (c Counts) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "packets=%d", c.Packets)
	for _, k := range Kinds {
		if v := c.Kinds[k]; v != 0 {
			fmt.Fprintf(&b, " %s=%d", k, v)
		}
	}
	for _, r := range Reasons {
		if v := c.Malformed[r]; v != 0 {
			fmt.Fprintf(&b, " malformed:%s=%d", r, v)
		}
	}
	return b.String()
}

// Packet is one generated frame.
type Packet struct {
	Time  time.Time
	Iface int
	Data  []byte
}

type flow struct {
	v6         bool
	tcp        bool
	src, dst   net.IP
	smac, dmac net.HardwareAddr
	sport      uint16
	dport      uint16
	vlan       uint16 // 0: untagged
	svlan      uint16 // 0: no S-tag
	iface      int
	started    bool
}

type gen struct {
	cfg    Config
	rng    *rand.Rand
	cum    []float64 // Zipf cumulative weights
	flows  []flow
	counts Counts
	out    []Packet
	now    time.Time
}

// Start is the timestamp of the first frame of every generated capture.
var Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Generate returns the frames of cfg's capture and what they hold.
func Generate(cfg Config) ([]Packet, Counts, error) {
	if err := cfg.validate(); err != nil {
		return nil, Counts{}, err
	}
	g := &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)), now: Start,
		counts: Counts{Kinds: map[string]int{}, Malformed: map[string]int{}}}
	g.makeFlows()
	m, arp, icmp, lldp, frag := cfg.Malformed, cfg.ARP, cfg.ICMP, cfg.LLDP, cfg.Frag
	for len(g.out) < cfg.Packets {
		u := g.rng.Float64()
		switch {
		case u < m:
			g.malformed()
		case u < m+arp:
			g.arp()
		case u < m+arp+icmp:
			g.icmp()
		case u < m+arp+icmp+lldp:
			g.lldp()
		case u < m+arp+icmp+lldp+frag && len(g.out)+3 <= cfg.Packets:
			g.fragmented()
		default: // also a fragmented datagram that would not fit at the end
			g.flowPacket(g.pickFlow())
		}
	}
	g.counts.Packets = len(g.out)
	return g.out, g.counts, nil
}

func (g *gen) makeFlows() {
	n := g.cfg.Flows
	g.cum = make([]float64, n)
	sum := 0.0
	for k := range n {
		sum += 1 / math.Pow(float64(k+1), g.cfg.ZipfS)
		g.cum[k] = sum
	}
	wellKnown := []uint16{80, 443, 8080, 5201, 9000, 8443, 7001} // dissectors that accept random payloads
	g.flows = make([]flow, n)
	for i := range g.flows {
		f := &g.flows[i]
		f.v6 = g.rng.Float64() < g.cfg.IPv6
		f.tcp = g.rng.Float64() < 0.7
		f.src, f.dst = g.host(f.v6), g.host(f.v6)
		f.smac, f.dmac = mac(f.src), mac(f.dst)
		f.sport = uint16(32768 + g.rng.IntN(28000))
		f.dport = wellKnown[g.rng.IntN(len(wellKnown))]
		if g.rng.Float64() < g.cfg.VLAN {
			f.vlan = uint16(1 + g.rng.IntN(4094))
			if g.rng.Float64() < g.cfg.QinQ {
				f.svlan = uint16(1 + g.rng.IntN(4094))
			}
		}
		f.iface = g.rng.IntN(g.cfg.Interfaces)
	}
}

func (g *gen) pickFlow() *flow {
	u := g.rng.Float64() * g.cum[len(g.cum)-1]
	return &g.flows[sort.SearchFloat64s(g.cum, u)%len(g.flows)]
}

func (g *gen) host(v6 bool) net.IP {
	if v6 {
		ip := net.ParseIP("2001:db8::")
		ip[13], ip[14], ip[15] = byte(g.rng.IntN(4)), byte(g.rng.IntN(256)), byte(1+g.rng.IntN(254))
		return ip
	}
	return net.IP{10, byte(g.rng.IntN(4)), byte(g.rng.IntN(256)), byte(1 + g.rng.IntN(254))}
}

func mac(ip net.IP) net.HardwareAddr {
	ip = ip.To16()
	return net.HardwareAddr{0x02, 0x42, ip[12], ip[13], ip[14], ip[15]}
}

func (g *gen) emit(iface int, data []byte) {
	gap := g.rng.ExpFloat64() / g.cfg.Rate
	g.now = g.now.Add(time.Duration(gap * 1e9))
	g.out = append(g.out, Packet{Time: g.now, Iface: iface, Data: data})
}

func (g *gen) count(kinds ...string) {
	for _, k := range kinds {
		g.counts.Kinds[k]++
	}
}

// l2 returns the Ethernet header and tags of f ending in EtherType t.
func l2(f *flow, t layers.EthernetType, swap bool) []gopacket.SerializableLayer {
	src, dst := f.smac, f.dmac
	if swap {
		src, dst = dst, src
	}
	e := &layers.Ethernet{SrcMAC: src, DstMAC: dst, EthernetType: t}
	var ls []gopacket.SerializableLayer
	ls = append(ls, e)
	if f.vlan == 0 {
		return ls
	}
	inner := &layers.Dot1Q{VLANIdentifier: f.vlan, Priority: uint8(f.vlan % 8), Type: t}
	if f.svlan == 0 {
		e.EthernetType = layers.EthernetTypeDot1Q
		return append(ls, inner)
	}
	e.EthernetType = layers.EthernetTypeQinQ
	return append(ls, &layers.Dot1Q{VLANIdentifier: f.svlan, Type: layers.EthernetTypeDot1Q}, inner)
}

func (g *gen) tagKinds(f *flow) {
	if f.vlan != 0 {
		g.count("vlan")
	}
}

func serialize(ls ...gopacket.SerializableLayer) []byte {
	var net gopacket.NetworkLayer
	for _, l := range ls {
		if n, ok := l.(gopacket.NetworkLayer); ok {
			net = n
		}
	}
	for _, l := range ls {
		switch t := l.(type) {
		case *layers.TCP:
			_ = t.SetNetworkLayerForChecksum(net)
		case *layers.UDP:
			_ = t.SetNetworkLayerForChecksum(net)
		case *layers.ICMPv6:
			_ = t.SetNetworkLayerForChecksum(net)
		}
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		panic(fmt.Sprintf("pcapgen: serialize: %v", err)) // the layers are built here: a bug
	}
	return append([]byte(nil), buf.Bytes()...)
}

func ipLayer(f *flow, proto layers.IPProtocol, swap bool, ttl uint8) gopacket.SerializableLayer {
	src, dst := f.src, f.dst
	if swap {
		src, dst = dst, src
	}
	if f.v6 {
		return &layers.IPv6{Version: 6, NextHeader: proto, HopLimit: ttl, SrcIP: src, DstIP: dst, FlowLabel: uint32(f.sport) << 4}
	}
	return &layers.IPv4{Version: 4, IHL: 5, TTL: ttl, Protocol: proto, SrcIP: src, DstIP: dst, Flags: layers.IPv4DontFragment}
}

// flowFrame builds one packet of f; payload n bytes.
func (g *gen) flowFrame(f *flow, swap bool, n int) []byte {
	et := layers.EthernetTypeIPv4
	if f.v6 {
		et = layers.EthernetTypeIPv6
	}
	ls := l2(f, et, swap)
	sp, dp := f.sport, f.dport
	if swap {
		sp, dp = dp, sp
	}
	payload := gopacket.Payload(g.bytes(n))
	if f.tcp {
		t := &layers.TCP{SrcPort: layers.TCPPort(sp), DstPort: layers.TCPPort(dp), Seq: g.rng.Uint32(), Window: 65535, ACK: true, PSH: n > 0}
		if !f.started {
			t.SYN, t.ACK, t.PSH = true, false, false
			t.Options = []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{5, 0xb4}}}
			payload = nil
		} else {
			t.Ack = g.rng.Uint32()
		}
		ls = append(ls, ipLayer(f, layers.IPProtocolTCP, swap, 64), t)
	} else {
		ls = append(ls, ipLayer(f, layers.IPProtocolUDP, swap, 64), &layers.UDP{SrcPort: layers.UDPPort(sp), DstPort: layers.UDPPort(dp)})
	}
	if len(payload) > 0 {
		ls = append(ls, payload)
	}
	f.started = true
	return serialize(ls...)
}

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	return b
}

func (g *gen) l3kinds(f *flow) {
	if f.v6 {
		g.count("ipv6")
	} else {
		g.count("ipv4")
	}
	g.tagKinds(f)
}

func (g *gen) flowPacket(f *flow) {
	swap := g.rng.IntN(3) == 0
	if !f.started {
		swap = false
	}
	g.emit(f.iface, g.flowFrame(f, swap, g.rng.IntN(g.cfg.MaxPayload+1)))
	g.l3kinds(f)
	if f.tcp {
		g.count("tcp")
	} else {
		g.count("udp")
	}
}

func (g *gen) arp() {
	f := g.pickFlow()
	v4 := *f
	if f.v6 { // ARP needs IPv4 hosts: borrow the flow's L2 identity
		v4.v6 = false
		v4.src, v4.dst = net.IP{10, 9, f.src[14], f.src[15]}, net.IP{10, 9, f.dst[14], f.dst[15]}
	}
	reply := g.rng.IntN(2) == 0
	a := &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
		Operation: layers.ARPRequest, SourceHwAddress: v4.smac, SourceProtAddress: v4.src.To4(),
		DstHwAddress: net.HardwareAddr{0, 0, 0, 0, 0, 0}, DstProtAddress: v4.dst.To4()}
	ls := l2(&v4, layers.EthernetTypeARP, false)
	ls[0].(*layers.Ethernet).DstMAC = net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if reply {
		a.Operation = layers.ARPReply
		a.SourceHwAddress, a.SourceProtAddress, a.DstHwAddress, a.DstProtAddress = v4.dmac, v4.dst.To4(), v4.smac, v4.src.To4()
		ls = l2(&v4, layers.EthernetTypeARP, true)
	}
	g.emit(f.iface, serialize(append(ls, a, gopacket.Payload(make([]byte, 18)))...))
	g.count("arp")
	g.tagKinds(f)
}

func (g *gen) icmp() {
	f := g.pickFlow()
	swap := g.rng.IntN(2) == 0
	body := gopacket.Payload(g.bytes(8 + g.rng.IntN(24)))
	var ls []gopacket.SerializableLayer
	if f.v6 {
		typ := uint8(layers.ICMPv6TypeEchoRequest)
		if swap {
			typ = layers.ICMPv6TypeEchoReply
		}
		ls = append(l2(f, layers.EthernetTypeIPv6, swap), ipLayer(f, layers.IPProtocolICMPv6, swap, 255),
			&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(typ, 0)},
			&layers.ICMPv6Echo{Identifier: f.sport, SeqNumber: uint16(len(g.out))}, body)
		g.count("icmpv6")
	} else {
		typ := uint8(layers.ICMPv4TypeEchoRequest)
		if swap {
			typ = layers.ICMPv4TypeEchoReply
		}
		ls = append(l2(f, layers.EthernetTypeIPv4, swap), ipLayer(f, layers.IPProtocolICMPv4, swap, 64),
			&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(typ, 0), Id: f.sport, Seq: uint16(len(g.out))}, body)
		g.count("icmpv4")
	}
	g.emit(f.iface, serialize(ls...))
	g.l3kinds(f)
}

func (g *gen) lldp() {
	// Chassis ID (MAC), Port ID, TTL, End: enough for a dissector.
	tlv := func(t, sub byte, v []byte) []byte {
		n := len(v)
		if sub != 0 {
			n++
		}
		b := []byte{t<<1 | byte(n>>8), byte(n)}
		if sub != 0 {
			b = append(b, sub)
		}
		return append(b, v...)
	}
	iface := g.rng.IntN(g.cfg.Interfaces)
	src := net.HardwareAddr{0x02, 0x11, 0, 0, 0, byte(iface + 1)}
	var body []byte
	body = append(body, tlv(1, 4, src)...)
	body = append(body, tlv(2, 7, []byte(fmt.Sprintf("port%d", iface+1)))...)
	body = append(body, tlv(3, 0, []byte{0, 120})...)
	body = append(body, 0, 0)
	e := &layers.Ethernet{SrcMAC: src, DstMAC: net.HardwareAddr{0x01, 0x80, 0xc2, 0, 0, 0x0e}, EthernetType: layers.EthernetTypeLinkLayerDiscovery}
	g.emit(iface, serialize(e, gopacket.Payload(body)))
	g.count("other-l2")
}

// fragmented emits one UDP datagram of f (made UDP for the purpose) split
// into 2 or 3 fragments: the first carries the UDP header.
func (g *gen) fragmented() {
	f := g.pickFlow()
	n := 2 + g.rng.IntN(2)
	chunk := 8 * (4 + g.rng.IntN(8)) // fragment payload, multiple of 8
	udp := make([]byte, n*chunk-g.rng.IntN(8))
	binary.BigEndian.PutUint16(udp[0:], f.sport)
	binary.BigEndian.PutUint16(udp[2:], 9999)
	binary.BigEndian.PutUint16(udp[4:], uint16(len(udp)))
	copy(udp[8:], g.bytes(len(udp)-8))
	id := g.rng.Uint32()
	et := layers.EthernetTypeIPv4
	if f.v6 {
		et = layers.EthernetTypeIPv6
	}
	for i := 0; i < n; i++ {
		part := udp[i*chunk : min((i+1)*chunk, len(udp))]
		more := i < n-1
		ls := l2(f, et, false)
		if f.v6 {
			fo := uint16(i*chunk/8) << 3
			if more {
				fo |= 1
			}
			fh := []byte{byte(layers.IPProtocolUDP), 0, byte(fo >> 8), byte(fo), 0, 0, 0, 0}
			binary.BigEndian.PutUint32(fh[4:], id)
			ls = append(ls, ipLayer(f, layers.IPProtocolIPv6Fragment, false, 64), gopacket.Payload(append(fh, part...)))
		} else {
			ip := ipLayer(f, layers.IPProtocolUDP, false, 64).(*layers.IPv4)
			ip.Id, ip.Flags, ip.FragOffset = uint16(id), 0, uint16(i*chunk/8)
			if more {
				ip.Flags = layers.IPv4MoreFragments
			}
			ls = append(ls, ip, gopacket.Payload(part))
		}
		g.emit(f.iface, serialize(ls...))
		g.l3kinds(f)
		if i == 0 {
			g.count("frag-first", "udp")
		} else {
			g.count("frag-later")
		}
	}
}

// malformed emits a frame broken in one of the ways listed in Reasons.
func (g *gen) malformed() {
	f4 := flow{src: net.IP{10, 99, 0, 1}, dst: net.IP{10, 99, 0, 2}, sport: 40000, dport: 80, tcp: true, started: true}
	f4.smac, f4.dmac = mac(f4.src), mac(f4.dst)
	f6 := f4
	f6.v6, f6.src, f6.dst = true, net.ParseIP("2001:db8:99::1"), net.ParseIP("2001:db8:99::2")
	fu := f4
	fu.tcp = false
	reason := Reasons[g.rng.IntN(len(Reasons))]
	var b []byte
	switch reason {
	case "eth":
		b = g.flowFrame(&f4, false, 0)[:g.rng.IntN(14)]
	case "vlan":
		fv := f4
		fv.vlan = 7
		b = g.flowFrame(&fv, false, 0)[:14+g.rng.IntN(4)]
	case "arp":
		a := &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
			Operation: layers.ARPRequest, SourceHwAddress: f4.smac, SourceProtAddress: f4.src, DstHwAddress: f4.dmac, DstProtAddress: f4.dst}
		b = serialize(append(l2(&f4, layers.EthernetTypeARP, false), a)...)[:14+8+g.rng.IntN(20)]
	case "ipv4-header":
		b = g.flowFrame(&f4, false, 8)
		b[14] = 0x40 | byte(g.rng.IntN(5)) // IHL < 5
	case "ipv4-version":
		b = g.flowFrame(&f4, false, 8)
		b[14] = 0x55
	case "ipv4-length":
		b = g.flowFrame(&f4, false, 8)
		b[16], b[17] = 0, byte(g.rng.IntN(20))
	case "ipv6-header":
		b = g.flowFrame(&f6, false, 8)[:14+g.rng.IntN(40)]
	case "ipv6-ext":
		hbh := []byte{byte(layers.IPProtocolTCP), 200, 1, 4, 0, 0, 0, 0} // claims 1608 bytes
		b = serialize(append(l2(&f6, layers.EthernetTypeIPv6, false), ipLayer(&f6, layers.IPProtocolIPv6HopByHop, false, 64),
			gopacket.Payload(append(hbh, make([]byte, 20)...)))...)
	case "tcp":
		b = g.flowFrame(&f4, false, 8)
		b[14+20+12] = byte(g.rng.IntN(5)) << 4 // data offset < 5
	case "udp":
		b = g.flowFrame(&fu, false, 8)[:14+20+g.rng.IntN(8)]
	}
	g.emit(0, b)
	g.counts.Malformed[reason]++
}

// Write generates cfg's capture and writes it to w in cfg.Format with
// nanosecond timestamps.
func Write(w io.Writer, cfg Config) (Counts, error) {
	pkts, counts, err := Generate(cfg)
	if err != nil {
		return counts, err
	}
	iface := func(i int) capture.Interface {
		return capture.Interface{Name: fmt.Sprintf("gen%d", i), LinkType: layers.LinkTypeEthernet, SnapLen: 65535, Nanos: true}
	}
	var cw *capture.Writer
	if cfg.Format == "pcap" {
		cw, err = capture.NewPcapWriter(w, iface(0))
	} else {
		ifaces := make([]capture.Interface, cfg.Interfaces)
		for i := range ifaces {
			ifaces[i] = iface(i)
		}
		cw, err = capture.NewPcapngWriter(w, "ofswitch pcapgen", ifaces...)
	}
	if err != nil {
		return counts, err
	}
	for _, p := range pkts {
		if err := cw.WritePacket(capture.Packet{Data: p.Data, Timestamp: p.Time, Length: len(p.Data), Iface: p.Iface}); err != nil {
			return counts, err
		}
	}
	return counts, cw.Flush()
}

package dataplane

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// VectorSize is the number of frames a worker parses and classifies at once.
const VectorSize = 32

// Vector is a group of up to VectorSize frames that a worker parses,
// classifies and acts on at once, and what the parser made of them.
// Workers keep one Vector each and refill it; nothing in it is allocated
// per packet.
type Vector struct {
	N      int                         // frames in use, from index 0
	Frames [VectorSize][]byte          // frame bytes (aliasing the capture or ring)
	Link   [VectorSize]layers.LinkType // link type of each frame
	InPort [VectorSize]uint32          // ingress port of each frame
	Hdr    [VectorSize]Headers         // parsed headers, valid where OK
	OK     [VectorSize]bool            // the frame was parsed (not malformed)
}

// Parser parses frames into Headers. It is owned by one goroutine; its
// Stats are plain counters that the owner (or, once the owner is done,
// anyone) reads and merges with Stats.Add.
//
// Supported link types are Ethernet (LINKTYPE_ETHERNET), BSD loopback
// (LINKTYPE_NULL) and OpenBSD loopback (LINKTYPE_LOOP); a frame of any
// other link type is counted as ReasonEthernet.
//
// A Parser must not be copied after NewParser.
type Parser struct {
	Stats Stats // counters since NewParser

	st      state
	scratch Headers // target of Parse
	eth     ethLayer
	loop    loopLayer
	vlan    vlanLayer
	arp     arpLayer
	ip4     ipv4Layer
	ip6     ipv6Layer
	tcp     tcpLayer
	udp     udpLayer
	sctp    sctpLayer
	icmp4   icmpLayer
	icmp6   icmpLayer
	ethDLP  *gopacket.DecodingLayerParser
	loopDLP *gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
	_       [64]byte // keep the next worker's parser off this cache line
}

// NewParser returns a parser with zero counters.
func NewParser() *Parser {
	return newParser(gopacket.DecodingLayerSparse(nil))
}

// newParser builds a parser on the given (empty) layer container;
// BenchmarkParseContainers compares the containers gopacket offers.
func newParser(dlc gopacket.DecodingLayerContainer) *Parser {
	p := &Parser{decoded: make([]gopacket.LayerType, 0, 2+MaxVLANs+4)}
	for _, b := range []*base{&p.eth.base, &p.loop.base, &p.vlan.base, &p.arp.base, &p.ip4.base,
		&p.ip6.base, &p.tcp.base, &p.udp.base, &p.sctp.base, &p.icmp4.base, &p.icmp6.base} {
		b.s = &p.st
	}
	p.icmp4.typ, p.icmp4.reason = layers.LayerTypeICMPv4, ReasonICMPv4
	p.icmp6.typ, p.icmp6.reason = layers.LayerTypeICMPv6, ReasonICMPv6
	p.loop.network = true
	for _, d := range []gopacket.DecodingLayer{&p.eth, &p.loop, &p.vlan, &p.arp, &p.ip4, &p.ip6,
		&p.tcp, &p.udp, &p.sctp, &p.icmp4, &p.icmp6} {
		dlc = dlc.Put(d)
	}
	p.ethDLP = newDLP(layers.LayerTypeEthernet, dlc)
	p.loopDLP = newDLP(layers.LayerTypeLoopback, dlc)
	return p
}

func newDLP(first gopacket.LayerType, dlc gopacket.DecodingLayerContainer) *gopacket.DecodingLayerParser {
	d := gopacket.NewDecodingLayerParser(first)
	d.SetDecodingLayerContainer(dlc)
	d.IgnoreUnsupported = true
	d.IgnorePanic = true // ParseVector recovers once per vector
	return d
}

// Parse parses one frame received on inPort and returns its headers, valid
// until the next call, and whether it was parsed (false: it was counted as
// malformed). A panic in a decoder propagates; use ParseVector on untrusted
// input.
func (p *Parser) Parse(frame []byte, link layers.LinkType, inPort uint32) (*Headers, bool) {
	ok := p.parse(frame, link, inPort, &p.scratch)
	return &p.scratch, ok
}

// ParseVector parses v.Frames[:v.N] into v.Hdr, sets v.OK and returns the
// number of frames parsed. One deferred recover covers the whole vector: if
// a decoder panics, that frame is counted as ReasonPanic and parsing
// resumes with the next one.
func (p *Parser) ParseVector(v *Vector) int {
	ok := 0
	for i := 0; i < v.N; {
		i = p.parseRun(v, i, &ok)
	}
	return ok
}

// parseRun parses v from frame i on; after a panic it returns the index of
// the frame after the one that panicked.
func (p *Parser) parseRun(v *Vector, i int, ok *int) (next int) {
	defer func() {
		if r := recover(); r != nil {
			p.Stats.Malformed[ReasonPanic]++
			v.OK[i] = false
			next = i + 1
		}
	}()
	for ; i < v.N; i++ {
		good := p.parse(v.Frames[i], v.Link[i], v.InPort[i], &v.Hdr[i])
		v.OK[i] = good
		if good {
			*ok++
		}
	}
	return i
}

func (p *Parser) parse(frame []byte, link layers.LinkType, inPort uint32, h *Headers) bool {
	*h = Headers{InPort: inPort}
	s := &p.st
	s.h, s.off, s.truncated = h, 0, false
	p.Stats.Read++
	var err error
	switch link {
	case layers.LinkTypeEthernet:
		err = p.ethDLP.DecodeLayers(frame, &p.decoded)
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		p.loop.network = link == layers.LinkTypeLoop
		err = p.loopDLP.DecodeLayers(frame, &p.decoded)
	default:
		s.reason, err = ReasonEthernet, errMalformed
	}
	if err != nil {
		p.Stats.Malformed[s.reason]++
		return false
	}
	p.count(h)
	return true
}

// reparse parses an Ethernet frame that an action rebuilt (pushed or
// popped an MPLS label or a PBB I-TAG) into h, without counting it: the
// frame was counted when it came in. It reports whether the frame parsed
// completely; h holds what was parsed either way.
func (p *Parser) reparse(frame []byte, inPort uint32, h *Headers) bool {
	*h = Headers{InPort: inPort}
	s := &p.st
	s.h, s.off, s.truncated = h, 0, false
	return p.ethDLP.DecodeLayers(frame, &p.decoded) == nil
}

// count adds a parsed frame to the kind counters.
func (p *Parser) count(h *Headers) {
	k := &p.Stats.Kinds
	p.Stats.Parsed++
	if h.VLANs > 0 {
		k[KindVLAN]++
	}
	if p.st.truncated {
		k[KindTruncated]++
	}
	switch h.EthType {
	case EtherTypeARP:
		k[KindARP]++
		return
	case EtherTypeIPv4:
		k[KindIPv4]++
	case EtherTypeIPv6:
		k[KindIPv6]++
	default:
		k[KindOtherL2]++
		return
	}
	if h.Frag&FragLater != 0 {
		k[KindFragLater]++
	} else if h.Frag != 0 {
		k[KindFragFirst]++
	}
	if h.L4Off == 0 {
		return
	}
	switch h.IPProto {
	case ProtoTCP:
		k[KindTCP]++
	case ProtoUDP:
		k[KindUDP]++
	case ProtoSCTP:
		k[KindSCTP]++
	case ProtoICMPv4:
		k[KindICMPv4]++
	case ProtoICMPv6:
		k[KindICMPv6]++
	}
}

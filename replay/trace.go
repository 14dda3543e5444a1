package replay

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// traceFrameLen is the length of every frame TraceCapture synthesizes:
// Ethernet (14) + IPv4 (20) + 20 bytes of L4 header (a TCP header without
// options), without FCS as in a capture.
const traceFrameLen = 14 + 20 + 20

// traceGapNs is the capture time between two synthesized frames (a
// 54-byte frame every 1 µs is about 0.4 Gb/s), which --speed paces.
const traceGapNs = 1000

// LoadTrace reads the ClassBench trace at path (classbench.ParseTrace) and
// returns its headers as a capture (TraceCapture). A malformed line fails
// the whole file with the *classbench.ParseError that names its
// file:line:column.
func LoadTrace(path string) (*dataplane.Capture, []classbench.Header, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	hs, err := classbench.ParseTrace(path, data)
	if err != nil {
		return nil, nil, err
	}
	return TraceCapture(path, hs), hs, nil
}

// TraceCapture synthesizes one Ethernet frame per ClassBench header, in
// trace order, on one interface (in_port 1): an IPv4 packet with the
// header's addresses and protocol, unfragmented, TTL 64. Under TCP, UDP
// and SCTP the L4 header carries the header's ports, so that the packet
// path (parse, key, classify) sees exactly the five fields. Under ICMP it
// is an echo request, and under any other protocol 20 bytes of payload
// that open with the ports; there the parser takes no ports, as
// OpenFlow's prerequisites say, so a replay against the flows of
// classbench.Updates (or UpdatesWith) classifies every frame as
// classbench.FirstPacket
// classifies its header.
func TraceCapture(name string, hs []classbench.Header) *dataplane.Capture {
	c := &dataplane.Capture{
		Name:    name,
		Data:    make([]byte, 0, len(hs)*traceFrameLen),
		Off:     make([]int, 1, len(hs)+1),
		TS:      make([]int64, 0, len(hs)),
		WireLen: make([]uint32, 0, len(hs)),
		Iface:   make([]uint16, 0, len(hs)),
		Ifaces:  []dataplane.Interface{{Link: layers.LinkTypeEthernet}},
	}
	for i := range hs {
		c.Data = appendTraceFrame(c.Data, &hs[i])
		c.Off = append(c.Off, len(c.Data))
		c.TS = append(c.TS, int64(i)*traceGapNs)
		c.WireLen = append(c.WireLen, traceFrameLen)
		c.Iface = append(c.Iface, 0)
	}
	return c
}

// appendTraceFrame appends h's frame (see TraceCapture) to b.
func appendTraceFrame(b []byte, h *classbench.Header) []byte {
	start := len(b)
	b = append(b, make([]byte, traceFrameLen)...)
	f := b[start:]
	copy(f[0:6], []byte{0x02, 0, 0, 0, 0, 0x02})  // destination MAC
	copy(f[6:12], []byte{0x02, 0, 0, 0, 0, 0x01}) // source MAC
	binary.BigEndian.PutUint16(f[12:14], rules.EthTypeIPv4)
	ip := f[14:34]
	ip[0] = 0x45 // version 4, IHL 5
	binary.BigEndian.PutUint16(ip[2:4], 20+20)
	ip[8] = 64 // TTL
	ip[9] = h.Proto
	binary.BigEndian.PutUint32(ip[12:16], h.Src)
	binary.BigEndian.PutUint32(ip[16:20], h.Dst)
	binary.BigEndian.PutUint16(ip[10:12], ipv4Checksum(ip))
	l4 := f[34:]
	switch h.Proto {
	case dataplane.ProtoICMPv4:
		l4[0] = 8 // echo request, code 0
	default:
		binary.BigEndian.PutUint16(l4[0:2], h.Sport)
		binary.BigEndian.PutUint16(l4[2:4], h.Dport)
		switch h.Proto {
		case dataplane.ProtoTCP:
			l4[12] = 5 << 4 // data offset: 20 bytes
		case dataplane.ProtoUDP:
			binary.BigEndian.PutUint16(l4[4:6], 20) // length
		}
	}
	return b
}

// ipv4Checksum returns the header checksum of hdr, whose checksum field is
// zero.
func ipv4Checksum(hdr []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(hdr); i += 2 {
		s += uint32(binary.BigEndian.Uint16(hdr[i:]))
	}
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// classBenchKind says what kind of ClassBench file raw looks like, judged
// by its first non-blank line: "trace" (seven unsigned columns, as
// classbench.ParseTrace reads), "filter" (a rule opening with '@') or ""
// (neither). Replay uses it to explain why a file given as a capture is
// not one.
func classBenchKind(raw []byte) string {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		if strings.HasPrefix(s, "@") {
			if _, err := classbench.Parse("", []byte(s)); err == nil {
				return "filter"
			}
			return ""
		}
		if hs, err := classbench.ParseTrace("", []byte(s)); err == nil && len(hs) == 1 {
			return "trace"
		}
		return ""
	}
	return ""
}

// notCaptureError explains a file given as a capture that is a ClassBench
// file, naming the flag that reads it; nil if path is not one.
func notCaptureError(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	switch classBenchKind(head[:n]) {
	case "trace":
		return fmt.Errorf("%s: a ClassBench trace, not a pcap or pcapng capture: replay it with --trace %s (and its rule set with --classbench)", path, path)
	case "filter":
		return fmt.Errorf("%s: a ClassBench filter set, not a pcap or pcapng capture: load it with --classbench %s", path, path)
	}
	return nil
}

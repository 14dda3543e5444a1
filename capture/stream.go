package capture

import (
	"fmt"
	"net/netip"
	"os"
	"sort"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Stream is the payload one side of a TCP connection sent, reassembled in
// sequence order.
type Stream struct {
	Conn     int            // connection number in order of first packet, from 0 (like tcp.stream)
	Src, Dst netip.AddrPort // sender and receiver
	Data     []byte         // payload bytes in sequence order
	Gaps     int            // holes in the sequence space that were skipped
	Marks    []Mark         // where each packet's new bytes start in Data, in order
}

// Mark records that the bytes of Data from Offset on arrived in packet
// number Packet (0-based index into the capture) until the next Mark.
type Mark struct {
	Offset int
	Packet int
}

// PacketAt returns the index of the packet that carried byte off of Data,
// or -1 if off is out of range.
func (s *Stream) PacketAt(off int) int {
	if off < 0 || off >= len(s.Data) {
		return -1
	}
	i := sort.Search(len(s.Marks), func(i int) bool { return s.Marks[i].Offset > off })
	if i == 0 {
		return -1
	}
	return s.Marks[i-1].Packet
}

type segment struct {
	seq    uint32
	data   []byte
	packet int
}

type dirState struct {
	idx  int // index into streams
	isn  uint32
	have bool
	segs []segment
}

type connKey struct{ a, b netip.AddrPort }

// ReadTCPStreamsFile reads a pcap or pcapng file and returns its TCP
// streams (see ReadTCPStreams).
func ReadTCPStreamsFile(path string) ([]Stream, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pkts, _, err := Read(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ReadTCPStreams(pkts), nil
}

// firstLayer returns the layer a frame of link type link starts with.
func firstLayer(link layers.LinkType) (gopacket.LayerType, bool) {
	switch link {
	case 1:
		return layers.LayerTypeEthernet, true
	case 113:
		return layers.LayerTypeLinuxSLL, true
	case 101, 228:
		return layers.LayerTypeIPv4, true
	case 0, 108:
		return layers.LayerTypeLoopback, true
	}
	return 0, false
}

// ReadTCPStreams returns every TCP stream with payload in pkts, in order of
// each stream's first packet. Segments are ordered by sequence number
// relative to the SYN (or the first segment seen); retransmitted and
// overlapping bytes are taken once, holes are counted in Gaps and skipped.
func ReadTCPStreams(pkts []Packet) []Stream {
	var streams []Stream
	dirs := map[connKey]*dirState{}
	var all []*dirState
	conns := map[connKey]int{}
	nconn := 0
	for pi, p := range pkts {
		first, ok := firstLayer(p.LinkType)
		if !ok {
			continue
		}
		pkt := gopacket.NewPacket(p.Data, first, gopacket.DecodeOptions{Lazy: true, NoCopy: true})
		tl, ok := pkt.TransportLayer().(*layers.TCP)
		if !ok || pkt.NetworkLayer() == nil {
			continue
		}
		var sa, da netip.Addr
		switch nl := pkt.NetworkLayer().(type) {
		case *layers.IPv4:
			sa, _ = netip.AddrFromSlice(nl.SrcIP.To4())
			da, _ = netip.AddrFromSlice(nl.DstIP.To4())
		case *layers.IPv6:
			sa, _ = netip.AddrFromSlice(nl.SrcIP)
			da, _ = netip.AddrFromSlice(nl.DstIP)
		default:
			continue
		}
		s := netip.AddrPortFrom(sa, uint16(tl.SrcPort))
		d := netip.AddrPortFrom(da, uint16(tl.DstPort))
		key, rev := connKey{s, d}, connKey{d, s}
		if tl.SYN && !tl.ACK {
			// A new connection on this 4-tuple replaces an old one.
			delete(dirs, key)
			delete(dirs, rev)
			delete(conns, key)
			delete(conns, rev)
		}
		ds := dirs[key]
		if ds == nil {
			c, ok := conns[rev]
			if !ok {
				c = nconn
				nconn++
				conns[key] = c
			}
			streams = append(streams, Stream{Conn: c, Src: s, Dst: d})
			ds = &dirState{idx: len(streams) - 1}
			dirs[key] = ds
			all = append(all, ds)
		}
		if tl.SYN {
			ds.isn, ds.have = tl.Seq+1, true
			continue
		}
		if len(tl.Payload) == 0 {
			continue
		}
		if !ds.have {
			ds.isn, ds.have = tl.Seq, true
		}
		ds.segs = append(ds.segs, segment{seq: tl.Seq - ds.isn, data: tl.Payload, packet: pi})
	}
	for _, ds := range all {
		st := &streams[ds.idx]
		sort.SliceStable(ds.segs, func(i, j int) bool { return ds.segs[i].seq < ds.segs[j].seq })
		var next uint32
		for _, sg := range ds.segs {
			end := sg.seq + uint32(len(sg.data))
			if end <= next {
				continue // retransmission
			}
			st.Marks = append(st.Marks, Mark{Offset: len(st.Data), Packet: sg.packet})
			if sg.seq > next {
				st.Gaps++
				st.Data = append(st.Data, sg.data...)
			} else {
				st.Data = append(st.Data, sg.data[next-sg.seq:]...)
			}
			next = end
		}
	}
	out := streams[:0]
	for _, st := range streams {
		if len(st.Data) > 0 {
			out = append(out, st)
		}
	}
	return out
}

package testutil

import (
	"bytes"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/capture"
)

// ReadTCPStreamsFile reads a capture file and reassembles its TCP streams
// (see capture.ReadTCPStreamsFile).
func ReadTCPStreamsFile(path string) ([]capture.Stream, error) {
	return capture.ReadTCPStreamsFile(path)
}

// WritePcap returns a little-endian microsecond pcap file holding frames,
// one per record, all of link type link, timestamps one second apart.
func WritePcap(link uint16, frames [][]byte) []byte {
	var buf bytes.Buffer
	w, err := capture.NewPcapWriter(&buf, capture.Interface{LinkType: layers.LinkType(link), SnapLen: 262144})
	if err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	for i, f := range frames {
		if err := w.WritePacket(capture.Packet{Data: f, Timestamp: time.Unix(int64(1_700_000_000+i), 0)}); err != nil {
			panic(err)
		}
	}
	return buf.Bytes()
}

// TCPFrame builds an Ethernet/IPv4/TCP frame from src to dst carrying
// payload, with the SYN flag or else ACK set, and valid checksums.
func TCPFrame(src, dst netip.AddrPort, seq uint32, syn bool, payload []byte) ([]byte, error) {
	eth := &layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, 1}, DstMAC: []byte{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Flags: layers.IPv4DontFragment, Protocol: layers.IPProtocolTCP,
		SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()), Seq: seq,
		SYN: syn, ACK: !syn, PSH: len(payload) > 0, Window: 65535}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		return nil, err
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TCPStreamPcap returns a pcap file in which client sends each chunk to
// server as one TCP segment, after a SYN. Chunks over 60000 bytes are
// split.
func TCPStreamPcap(client, server netip.AddrPort, chunks [][]byte) ([]byte, error) {
	const isn = 1000
	f, err := TCPFrame(client, server, isn, true, nil)
	if err != nil {
		return nil, err
	}
	frames := [][]byte{f}
	seq := uint32(isn + 1)
	for _, c := range chunks {
		for len(c) > 0 {
			n := min(len(c), 60000)
			f, err := TCPFrame(client, server, seq, false, c[:n])
			if err != nil {
				return nil, err
			}
			frames = append(frames, f)
			seq += uint32(n)
			c = c[n:]
		}
	}
	return WritePcap(1, frames), nil
}

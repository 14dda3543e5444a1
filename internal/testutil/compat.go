package testutil

import (
	"net/netip"

	"github.com/ofswitch/ofswitch/internal/testutil/capture"
)

// Stream is capture.Stream: one reassembled direction of a TCP connection.
type Stream = capture.Stream

// Packet is capture.Packet: one captured frame and its link type.
type Packet = capture.Packet

// ReadCapture parses a pcap or pcapng file held in b (see capture.ReadCapture).
func ReadCapture(b []byte) ([]Packet, error) { return capture.ReadCapture(b) }

// ReadTCPStreams reassembles the TCP streams of pkts (see capture.ReadTCPStreams).
func ReadTCPStreams(pkts []Packet) []Stream { return capture.ReadTCPStreams(pkts) }

// ReadTCPStreamsFile reads a capture file and reassembles its TCP streams.
func ReadTCPStreamsFile(path string) ([]Stream, error) { return capture.ReadTCPStreamsFile(path) }

// WritePcap returns a pcap file holding frames (see capture.WritePcap).
func WritePcap(link uint16, frames [][]byte) []byte { return capture.WritePcap(link, frames) }

// TCPFrame builds one Ethernet/IPv4/TCP frame (see capture.TCPFrame).
func TCPFrame(src, dst netip.AddrPort, seq uint32, syn bool, payload []byte) ([]byte, error) {
	return capture.TCPFrame(src, dst, seq, syn, payload)
}

// TCPStreamPcap returns a pcap of one TCP stream carrying chunks (see
// capture.TCPStreamPcap).
func TCPStreamPcap(client, server netip.AddrPort, chunks [][]byte) ([]byte, error) {
	return capture.TCPStreamPcap(client, server, chunks)
}

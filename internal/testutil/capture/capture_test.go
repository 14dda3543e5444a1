package capture

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
)

func tcpFrame(t *testing.T, src, dst netip.AddrPort, seq uint32, syn bool, payload []byte) []byte {
	t.Helper()
	f, err := TCPFrame(src, dst, seq, syn, payload)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReadTCPStreamsReordersAndDeduplicates(t *testing.T) {
	a := netip.MustParseAddrPort("127.0.0.1:40000")
	b := netip.MustParseAddrPort("127.0.0.1:6653")
	frames := [][]byte{
		tcpFrame(t, a, b, 99, true, nil),
		tcpFrame(t, a, b, 105, false, []byte("world")), // out of order
		tcpFrame(t, a, b, 100, false, []byte("hello")),
		tcpFrame(t, a, b, 100, false, []byte("hello")), // retransmission
		tcpFrame(t, b, a, 7, false, []byte("reply")),
	}
	pkts, err := ReadCapture(WritePcap(1, frames))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != len(frames) {
		t.Fatalf("ReadCapture: %d packets, want %d", len(pkts), len(frames))
	}
	st := ReadTCPStreams(pkts)
	if len(st) != 2 {
		t.Fatalf("got %d streams, want 2", len(st))
	}
	if string(st[0].Data) != "helloworld" || st[0].Src != a || st[0].Gaps != 0 {
		t.Errorf("stream 0 = %+v", st[0])
	}
	if string(st[1].Data) != "reply" || st[1].Conn != 0 || st[1].Src != b {
		t.Errorf("stream 1 = %+v", st[1])
	}
	// "hello" came in packet 2 (the retransmission in 3 adds nothing),
	// "world" in packet 1.
	for off, want := range map[int]int{0: 2, 4: 2, 5: 1, 9: 1, 10: -1} {
		if got := st[0].PacketAt(off); got != want {
			t.Errorf("PacketAt(%d) = %d, want %d", off, got, want)
		}
	}
	if got := st[1].PacketAt(0); got != 4 {
		t.Errorf("stream 1 PacketAt(0) = %d, want 4", got)
	}
}

func TestReadCapturePcapng(t *testing.T) {
	frame := []byte{1, 2, 3, 4, 5}
	le := binary.LittleEndian
	block := func(typ uint32, body []byte) []byte {
		n := uint32(12 + len(body))
		out := le.AppendUint32(nil, typ)
		out = le.AppendUint32(out, n)
		out = append(out, body...)
		return le.AppendUint32(out, n)
	}
	shb := le.AppendUint32(nil, 0x1a2b3c4d)
	shb = append(shb, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	idb := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	epb := le.AppendUint32(nil, 0)
	epb = append(epb, make([]byte, 8)...)
	epb = le.AppendUint32(epb, 5)
	epb = le.AppendUint32(epb, 5)
	epb = append(epb, frame...)
	epb = append(epb, 0, 0, 0)
	file := append(append(block(0x0a0d0d0a, shb), block(1, idb)...), block(6, epb)...)
	pkts, err := ReadCapture(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != 1 || pkts[0].LinkType != 1 || !bytes.Equal(pkts[0].Data, frame) {
		t.Fatalf("ReadCapture(pcapng) = %+v", pkts)
	}
	if _, err := ReadCapture([]byte("nope, not a capture")); err == nil {
		t.Error("ReadCapture accepted garbage")
	}
}

package capture_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/capture"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

func tcpFrame(t *testing.T, src, dst netip.AddrPort, seq uint32, syn bool, payload []byte) []byte {
	t.Helper()
	f, err := testutil.TCPFrame(src, dst, seq, syn, payload)
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
	pkts, _, err := capture.Read(testutil.WritePcap(1, frames))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != len(frames) {
		t.Fatalf("Read: %d packets, want %d", len(pkts), len(frames))
	}
	st := capture.ReadTCPStreams(pkts)
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

func TestReadPcapng(t *testing.T) {
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
	pkts, _, err := capture.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != 1 || pkts[0].LinkType != 1 || !bytes.Equal(pkts[0].Data, frame) {
		t.Fatalf("Read(pcapng) = %+v", pkts)
	}
	if _, _, err := capture.Read([]byte("nope, not a capture")); err == nil {
		t.Error("Read accepted garbage")
	}
}

// TestWriteRead writes pcap (microseconds and nanoseconds) and pcapng
// files and reads them back: data, times, lengths, interfaces.
func TestWriteRead(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	frames := [][]byte{{1, 2, 3}, bytes.Repeat([]byte{4}, 1500), {}}
	eth := capture.Interface{Name: "eth0", LinkType: layers.LinkTypeEthernet, SnapLen: 65535, Nanos: true}
	lo := capture.Interface{Name: "lo0", LinkType: layers.LinkTypeNull, Nanos: true} // pcapng: always ns
	for _, tt := range []struct {
		name   string
		ng     bool
		ifaces []capture.Interface
		res    time.Duration
	}{
		{"pcap-us", false, []capture.Interface{{LinkType: layers.LinkTypeLinuxSLL, SnapLen: 262144}}, time.Microsecond},
		{"pcap-ns", false, []capture.Interface{{LinkType: layers.LinkTypeEthernet, SnapLen: 65535, Nanos: true}}, time.Nanosecond},
		{"pcapng", true, []capture.Interface{eth, lo}, time.Nanosecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			var w *capture.Writer
			var err error
			if tt.ng {
				w, err = capture.NewPcapngWriter(&buf, "test", tt.ifaces...)
			} else {
				w, err = capture.NewPcapWriter(&buf, tt.ifaces[0])
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []capture.Packet
			for i, f := range frames {
				p := capture.Packet{Data: f, Timestamp: t0.Add(time.Duration(i) * time.Second), Length: len(f) + i,
					Iface: i % len(tt.ifaces)}
				if err := w.WritePacket(p); err != nil {
					t.Fatal(err)
				}
				p.Timestamp = p.Timestamp.Truncate(tt.res)
				p.LinkType = tt.ifaces[p.Iface].LinkType
				want = append(want, p)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			got, ifaces, err := capture.Read(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("packets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.ifaces, ifaces); diff != "" {
				t.Errorf("interfaces (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := capture.NewPcapngWriter(io.Discard, "test"); err == nil {
		t.Error("NewPcapngWriter accepted no interface")
	}
}

// TestReaderErrors: a file cut short is an *Error at the offset of the
// record or block that could not be read, after the packets before it;
// Offset names the record or block of the last packet returned.
func TestReaderErrors(t *testing.T) {
	frames := [][]byte{{1, 2, 3, 4}, {5, 6, 7, 8, 9}}
	pcap := testutil.WritePcap(1, frames)
	var ng bytes.Buffer
	w, err := capture.NewPcapngWriter(&ng, "test", capture.Interface{LinkType: layers.LinkTypeEthernet})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.WritePacket(capture.Packet{Data: f, Timestamp: time.Unix(1, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// The pcapng file: section header, interface description, then an
	// enhanced packet block per frame of 32 bytes and the frame padded to
	// 4: 36 and 40 bytes.
	ngb := ng.Bytes()
	epb1 := len(ngb) - 40
	for _, tt := range []struct {
		name    string
		raw     []byte
		offsets []int64 // Offset after each packet
		errAt   int64
	}{
		{"pcap", pcap[:len(pcap)-2], []int64{24}, 24 + 16 + 4},
		{"pcapng", ngb[:len(ngb)-2], []int64{int64(epb1 - 36)}, int64(epb1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := capture.NewReader(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			for i, off := range tt.offsets {
				p, err := r.Next()
				if err != nil || !bytes.Equal(p.Data, frames[i]) {
					t.Fatalf("packet %d = %v, %v", i, p.Data, err)
				}
				if r.Offset() != off {
					t.Errorf("packet %d: Offset = %d, want %d", i, r.Offset(), off)
				}
			}
			_, err = r.Next()
			var ce *capture.Error
			if !errors.As(err, &ce) || ce.Offset != tt.errAt || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("err = %v, want a *capture.Error at offset %d wrapping io.ErrUnexpectedEOF", err, tt.errAt)
			}
		})
	}
	if _, err := capture.NewReader([]byte("nope")); err == nil {
		t.Error("NewReader accepted garbage")
	}
}

func ExampleRead() {
	var buf bytes.Buffer
	w, err := capture.NewPcapWriter(&buf, capture.Interface{LinkType: layers.LinkTypeEthernet, SnapLen: 65535})
	if err != nil {
		panic(err)
	}
	for i, frame := range [][]byte{make([]byte, 60), make([]byte, 1514)} {
		if err := w.WritePacket(capture.Packet{Data: frame, Timestamp: time.Unix(1_700_000_000+int64(i), 0)}); err != nil {
			panic(err)
		}
	}
	pkts, ifaces, err := capture.Read(buf.Bytes())
	if err != nil {
		panic(err)
	}
	fmt.Println(len(ifaces), ifaces[0].LinkType)
	for _, p := range pkts {
		fmt.Println(len(p.Data), p.Timestamp.Unix())
	}
	// Output:
	// 1 Ethernet
	// 60 1700000000
	// 1514 1700000001
}

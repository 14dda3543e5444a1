package dataplane

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)

// testFrames returns n distinct Ethernet/IPv4/UDP frames (source port i).
func testFrames(t testing.TB, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		u := udp()
		u.SrcPort = layers.UDPPort(1000 + i)
		out[i] = build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), u, gopacket.Payload(make([]byte, i)))
	}
	return out
}

func writePcap(t testing.TB, frames [][]byte, step time.Duration) []byte {
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * step), CaptureLength: len(f), Length: len(f) + i%2}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestLoadPcap(t *testing.T) {
	frames := testFrames(t, 5)
	c, err := Load("x.pcap", writePcap(t, frames, 1500*time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 5 || len(c.Ifaces) != 1 || c.Ifaces[0].Link != layers.LinkTypeEthernet {
		t.Fatalf("Len %d, Ifaces %v", c.Len(), c.Ifaces)
	}
	for i, f := range frames {
		if !bytes.Equal(c.Frame(i), f) {
			t.Errorf("frame %d differs", i)
		}
		if want := t0.Add(time.Duration(i) * 1500).UnixNano(); c.TS[i] != want {
			t.Errorf("TS[%d] = %d, want %d (nanosecond resolution)", i, c.TS[i], want)
		}
		if c.WireLen[i] != uint32(len(f)+i%2) {
			t.Errorf("WireLen[%d] = %d", i, c.WireLen[i])
		}
	}
}

func TestLoadPcapngInterfaces(t *testing.T) {
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{Name: "eth0", LinkType: layers.LinkTypeEthernet,
		TimestampResolution: 9}, pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lo, err := w.AddInterface(pcapgo.NgInterface{Name: "lo0", LinkType: layers.LinkTypeNull, TimestampResolution: 9})
	if err != nil {
		t.Fatal(err)
	}
	ethFrame := build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolTCP), tcp())
	loFrame := append([]byte{2, 0, 0, 0}, build(t, ipv4(layers.IPProtocolUDP), udp())...)
	ifs := []int{0, lo, lo, 0}
	for i, ifc := range ifs {
		f := ethFrame
		if ifc == lo {
			f = loFrame
		}
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * 7), CaptureLength: len(f), Length: len(f), InterfaceIndex: ifc}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	c, err := Load("x.pcapng", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := []Interface{{"eth0", layers.LinkTypeEthernet}, {"lo0", layers.LinkTypeNull}}
	if diff := cmp.Diff(want, c.Ifaces); diff != "" {
		t.Fatalf("Ifaces (-want +got):\n%s", diff)
	}
	p := NewParser()
	var got []string
	err = c.Replay(context.Background(), nil, func(vec *Vector) error {
		p.ParseVector(vec)
		for i := 0; i < vec.N; i++ {
			h := &vec.Hdr[i]
			got = append(got, fmt.Sprintf("port%d %v %#x L4 %d", h.InPort, vec.Link[i], h.EthType, h.L4Dst))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantPk := []string{"port1 Ethernet 0x86dd L4 443", "port2 Null 0x800 L4 33333", "port2 Null 0x800 L4 33333", "port1 Ethernet 0x86dd L4 443"}
	if diff := cmp.Diff(wantPk, got); diff != "" {
		t.Errorf("replayed (-want +got):\n%s", diff)
	}
	for i := range ifs {
		if c.TS[i] != t0.UnixNano()+int64(7*i) {
			t.Errorf("TS[%d] = %d, want ns resolution", i, c.TS[i])
		}
	}
}

func TestLoadErrors(t *testing.T) {
	frames := testFrames(t, 4)
	pcap := writePcap(t, frames, time.Microsecond)
	rec3 := 24 + 3*16 + len(frames[0]) + len(frames[1]) + len(frames[2]) // offset of record 3
	var ng bytes.Buffer
	w, err := pcapgo.NewNgWriter(&ng, layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: t0, CaptureLength: len(f), Length: len(f)}, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	ngb := ng.Bytes()
	ngLast := packetBlockOffset(t, ngb, 3)
	sll := bytes.Clone(pcap)
	sll[20] = byte(layers.LinkTypeLinuxSLL)
	var ngSLL bytes.Buffer
	w2, err := pcapgo.NewNgWriter(&ngSLL, layers.LinkTypeLinuxSLL)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.WritePacket(gopacket.CaptureInfo{Timestamp: t0, CaptureLength: 20, Length: 20}, make([]byte, 20)); err != nil {
		t.Fatal(err)
	}
	_ = w2.Flush()
	badLen := bytes.Clone(pcap)
	badLen[rec3+8], badLen[rec3+9], badLen[rec3+10] = 0xff, 0xff, 0x7f // caplen way beyond snaplen

	for _, tt := range []struct {
		name   string
		raw    []byte
		frames int
		offset int64
		err    error
	}{
		{"pcap cut inside record 3", pcap[:rec3+20], 3, int64(rec3), ErrTruncated},
		{"pcap cut inside record header 3", pcap[:rec3+5], 3, int64(rec3), ErrTruncated},
		{"pcap cut in file header", pcap[:10], 0, 0, ErrTruncated},
		{"pcap corrupt record length", badLen, 3, int64(rec3), ErrCorrupt},
		{"pcapng cut inside packet 3", ngb[:len(ngb)-10], 3, int64(ngLast), ErrTruncated},
		{"not a capture", []byte("hello, world, this is text"), 0, 0, ErrCorrupt},
		{"pcap linux cooked", sll, 0, 20, ErrLinkType},
		{"pcapng linux cooked", ngSLL.Bytes(), 0, int64(packetBlockOffset(t, ngSLL.Bytes(), 0)), ErrLinkType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load("dir/f.cap", tt.raw)
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want a *FileError wrapping %v", err, tt.err)
			}
			if fe.File != "dir/f.cap" || fe.Offset != tt.offset {
				t.Errorf("FileError at %s offset %d, want dir/f.cap offset %d", fe.File, fe.Offset, tt.offset)
			}
			if msg := err.Error(); !strings.Contains(msg, "dir/f.cap") || !strings.Contains(msg, fmt.Sprint("offset ", tt.offset)) {
				t.Errorf("message %q does not name the file and offset", msg)
			}
			if c == nil || c.Len() != tt.frames {
				t.Fatalf("capture kept %v frames, want %d", c, tt.frames)
			}
			for i := 0; i < c.Len(); i++ {
				if !bytes.Equal(c.Frame(i), frames[i]) {
					t.Errorf("kept frame %d differs", i)
				}
			}
		})
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.pcap")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadFile(missing) = %v, want ErrNotExist", err)
	}
}

// packetBlockOffset returns the offset of packet block n (0-based) of the
// little-endian pcapng file raw.
func packetBlockOffset(t *testing.T, raw []byte, n int) int {
	t.Helper()
	for off := 0; off+8 <= len(raw); off += int(binary.LittleEndian.Uint32(raw[off+4:])) {
		switch binary.LittleEndian.Uint32(raw[off:]) {
		case 2, 3, 6: // packet, simple packet, enhanced packet
			if n == 0 {
				return off
			}
			n--
		}
	}
	t.Fatalf("no packet block %d", n)
	return 0
}

func TestParseSpeed(t *testing.T) {
	for in, want := range map[string]float64{"max": 0, "MAX": 0, "1x": 1, "10x": 10, "2.5": 2.5, "0": 0} {
		if got, err := ParseSpeed(in); err != nil || got != want {
			t.Errorf("ParseSpeed(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fast", "-1x", "x", "NaN"} {
		if _, err := ParseSpeed(in); err == nil {
			t.Errorf("ParseSpeed(%q): no error", in)
		}
	}
}

// fakeClock advances only when slept on.
type fakeClock struct {
	now    time.Time
	sleeps []time.Duration
}

func (f *fakeClock) Now() time.Time { return f.now }
func (f *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	f.sleeps = append(f.sleeps, d)
	f.now = f.now.Add(d)
	return nil
}

func TestReplayPacing(t *testing.T) {
	frames := testFrames(t, 100)
	c, err := Load("p.pcap", writePcap(t, frames, 10*time.Millisecond)) // 100 pps over 990 ms
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		speed      float64
		vectors    int
		sleeps     int
		totalSleep time.Duration
	}{
		{0, 4, 0, 0},                         // max: full vectors of 32, no sleeping
		{1, 100, 99, 990 * time.Millisecond}, // one frame due at a time
		{4, 100, 99, 990 * time.Millisecond / 4},
	} {
		t.Run(fmt.Sprint("speed=", tt.speed), func(t *testing.T) {
			clk := &fakeClock{now: time.Unix(100, 0)}
			var sizes []int
			var ports []uint32
			seen := 0
			err := c.Replay(context.Background(), &ReplayConfig{Speed: tt.speed, Now: clk.Now, Sleep: clk.Sleep}, func(vec *Vector) error {
				sizes = append(sizes, vec.N)
				for i := 0; i < vec.N; i++ {
					if !bytes.Equal(vec.Frames[i], frames[seen]) {
						t.Fatalf("frame %d out of order", seen)
					}
					ports = append(ports, vec.InPort[i])
					seen++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var total time.Duration
			for _, d := range clk.sleeps {
				total += d
			}
			if seen != 100 || len(sizes) != tt.vectors || len(clk.sleeps) != tt.sleeps || total != tt.totalSleep {
				t.Errorf("frames %d vectors %d sleeps %d total %v; want 100, %d, %d, %v",
					seen, len(sizes), len(clk.sleeps), total, tt.vectors, tt.sleeps, tt.totalSleep)
			}
			if ports[0] != 1 || ports[99] != 1 {
				t.Errorf("InPort = %d, want 1 (interface 0)", ports[0])
			}
		})
	}
	// A late consumer gets what is due in one vector: each vector
	// takes 55 ms, so several frames are due at once.
	clk := &fakeClock{now: time.Unix(100, 0)}
	var sizes []int
	err = c.Replay(context.Background(), &ReplayConfig{Speed: 1, Now: clk.Now, Sleep: clk.Sleep}, func(vec *Vector) error {
		sizes = append(sizes, vec.N)
		clk.now = clk.now.Add(55 * time.Millisecond)
		return nil
	})
	sum := 0
	for _, s := range sizes {
		sum += s
	}
	if err != nil || sum != 100 || len(sizes) != 19 || sizes[1] != 5 || sizes[2] != 6 {
		t.Errorf("late consumer: err %v, vectors %v; want 19 vectors of 1, 5, 6, 5, ... = 100", err, sizes)
	}
	// Cancellation and errors from fn stop the replay.
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = c.Replay(ctx, nil, func(vec *Vector) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancelled replay: err %v after %d vectors", err, n)
	}
	stop := errors.New("stop")
	if err := c.Replay(context.Background(), nil, func(*Vector) error { return stop }); err != stop {
		t.Errorf("fn error: got %v", err)
	}
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	frames := testFrames(t, 3)
	good := writePcap(t, frames, time.Millisecond)
	paths := []string{filepath.Join(dir, "a.pcap"), filepath.Join(dir, "missing.pcap"), filepath.Join(dir, "cut.pcap"), filepath.Join(dir, "b.pcap")}
	for _, w := range []struct {
		path string
		data []byte
	}{{paths[0], good}, {paths[2], good[:len(good)-3]}, {paths[3], good}} {
		if err := os.WriteFile(w.path, w.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	caps, err := LoadFiles(paths)
	if !errors.Is(err, os.ErrNotExist) || !errors.Is(err, ErrTruncated) {
		t.Errorf("err = %v, want both a missing file and a truncated one", err)
	}
	if msg := fmt.Sprint(err); !strings.Contains(msg, "missing.pcap") || !strings.Contains(msg, "cut.pcap: offset") {
		t.Errorf("error %q does not name both files", msg)
	}
	if len(caps) != 4 || caps[0].Len() != 3 || caps[1] != nil || caps[2].Len() != 2 || caps[3].Len() != 3 {
		t.Errorf("captures %v, want 3, nil, 2 (partial), 3 frames", caps)
	}
	if _, err := LoadFiles(paths[:1]); err != nil {
		t.Errorf("one good file: %v", err)
	}
}

func TestStatsString(t *testing.T) {
	p := NewParser()
	p.Parse(build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), udp()), layers.LinkTypeEthernet, 1)
	p.Parse([]byte{1, 2, 3}, layers.LinkTypeEthernet, 1)
	if got, want := p.Stats.String(), "packets=2 ipv4=1 udp=1 malformed:eth=1"; got != want {
		t.Errorf("Stats.String() = %q, want %q", got, want)
	}
	var sum Stats
	sum.Add(&p.Stats)
	sum.Add(&p.Stats)
	if got, want := sum.String(), "packets=4 ipv4=2 udp=2 malformed:eth=2"; got != want {
		t.Errorf("after Add twice: %q, want %q", got, want)
	}
}

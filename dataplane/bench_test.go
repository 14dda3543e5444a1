package dataplane

import (
	"bytes"
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/internal/pcapgen"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// BenchmarkParseFrames parses vectors of fixed frame shapes, one shape per
// sub-benchmark.
func BenchmarkParseFrames(b *testing.B) {
	for _, c := range []struct {
		name  string
		frame []byte
	}{
		{"ipv4-tcp", build(b, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), gopacket.Payload(make([]byte, 64)))},
		{"vlan-ipv4-udp", build(b, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: 5, Type: layers.EthernetTypeIPv4},
			ipv4(layers.IPProtocolUDP), udp(), gopacket.Payload(make([]byte, 64)))},
		{"ipv6-ext-tcp", build(b, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolIPv6HopByHop),
			gopacket.Payload(ext(layers.IPProtocolTCP, 1)), tcp())},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := NewParser()
			var vec Vector
			for i := range vec.Frames {
				vec.Frames[i], vec.Link[i] = c.frame, layers.LinkTypeEthernet
			}
			vec.N = VectorSize
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n += p.ParseVector(&vec)
			}
			if n == 0 {
				b.Fatal("nothing parsed")
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mpps")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/pkt")
		})
	}
}

// benchMix returns an in-memory capture of a generated mix of n frames
// (the default pcapgen mix: Zipf flows, 30% IPv6, VLAN, ARP, ICMP,
// fragments, 2% malformed).
func benchMix(b *testing.B, n int) *Capture {
	b.Helper()
	cfg := pcapgen.DefaultConfig()
	cfg.Packets, cfg.Flows = n, 1000
	var buf bytes.Buffer
	if _, err := pcapgen.Write(&buf, cfg); err != nil {
		b.Fatal(err)
	}
	c, err := Load("mix", buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// replayParse parses all of c in vectors, as a worker replaying from memory
// does, and returns the number of frames parsed.
func replayParse(p *Parser, c *Capture, vec *Vector) int {
	n, ok := c.Len(), 0
	for i := 0; i < n; i += VectorSize {
		c.fill(vec, i, min(i+VectorSize, n))
		ok += p.ParseVector(vec)
	}
	return ok
}

// BenchmarkParseMix replays a generated 64K-frame mix from memory through
// one parser and reports Mpps per worker and allocs per replay (0).
func BenchmarkParseMix(b *testing.B) {
	p := benchParse(b, benchMix(b, 1<<16))
	if p.Stats.Parsed == 0 || p.Stats.Parsed+p.Stats.MalformedTotal() != p.Stats.Read {
		b.Fatalf("stats do not add up: %+v", p.Stats)
	}
}

// BenchmarkParseMixStockLayers decodes the same mix with gopacket's own
// layer types in a DecodingLayerParser, for comparison with the parser's
// fixed-header layers (it extracts nothing into Headers).
func BenchmarkParseMixStockLayers(b *testing.B) {
	c := benchMix(b, 1<<16)
	var (
		eth   layers.Ethernet
		dot1q layers.Dot1Q
		arp   layers.ARP
		ip4   layers.IPv4
		ip6   layers.IPv6
		tcp   layers.TCP
		udp   layers.UDP
		icmp4 layers.ICMPv4
		icmp6 layers.ICMPv6
		frag6 layers.IPv6Fragment
		pl    gopacket.Payload
	)
	dlp := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet)
	dlp.SetDecodingLayerContainer(gopacket.DecodingLayerSparse(nil))
	for _, d := range []gopacket.DecodingLayer{&eth, &dot1q, &arp, &ip4, &ip6, &tcp, &udp, &icmp4, &icmp6, &frag6, &pl} {
		dlp.AddDecodingLayer(d)
	}
	dlp.IgnoreUnsupported = true
	decoded := make([]gopacket.LayerType, 0, 16)
	b.ReportAllocs()
	frames, bad := 0, 0
	for b.Loop() {
		for i := 0; i < c.Len(); i++ {
			if dlp.DecodeLayers(c.Frame(i), &decoded) != nil {
				bad++
			}
		}
		frames += c.Len()
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds()/1e6, "Mpps")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/pkt")
	if bad == frames {
		b.Fatal("nothing decoded")
	}
}

// BenchmarkParseEchoConnections replays the shared 82,582-frame TCP
// capture (zeek__echo-connections) from memory.
func BenchmarkParseEchoConnections(b *testing.B) {
	c, err := LoadFile(filepath.Join(testutil.SharedData(b, "pcaps"), "zeek__echo-connections.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, c)
}

// benchParse replays c through one parser for the benchmark's iterations,
// reports Mpps, wall and CPU ns per packet and allocations, and returns
// the parser for its counters.
func benchParse(b *testing.B, c *Capture) *Parser {
	p := NewParser()
	vec := new(Vector)
	b.ReportAllocs()
	frames := 0
	cpu0 := cpuTime()
	for b.Loop() {
		replayParse(p, c, vec)
		frames += c.Len()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(frames), "cpu-ns/pkt")
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds()/1e6, "Mpps")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/pkt")
	return p
}

// TestReplayParseAllocatesNothing proves the replay loop of the benchmark
// allocates nothing.
func TestReplayParseAllocatesNothing(t *testing.T) {
	c, err := LoadFile(filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps", "mix.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	vec := new(Vector)
	if n := testing.AllocsPerRun(5, func() { replayParse(p, c, vec) }); n != 0 {
		t.Errorf("replaying %d frames: %v allocs, want 0", c.Len(), n)
	}
	if n := testing.AllocsPerRun(5, func() {
		_ = c.Replay(context.Background(), nil, func(vec *Vector) error { p.ParseVector(vec); return nil })
	}); n > 1 {
		t.Errorf("Capture.Replay of %d frames: %v allocs, want at most 1 (its Vector)", c.Len(), n)
	}
}

// cpuTime returns the CPU time (user + system) this process has used; on a
// shared machine it tells more than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParseContainers replays the generated mix with the parser's
// layers in each of gopacket's DecodingLayerContainers.
func BenchmarkParseContainers(b *testing.B) {
	c := benchMix(b, 1<<15)
	for _, k := range []struct {
		name string
		dlc  gopacket.DecodingLayerContainer
	}{
		{"sparse", gopacket.DecodingLayerSparse(nil)},
		{"array", gopacket.DecodingLayerArray(nil)},
		{"map", gopacket.DecodingLayerMap(map[gopacket.LayerType]gopacket.DecodingLayer{})},
	} {
		b.Run(k.name, func(b *testing.B) {
			p := newParser(k.dlc)
			vec := new(Vector)
			b.ReportAllocs()
			frames := 0
			cpu0 := cpuTime()
			for b.Loop() {
				replayParse(p, c, vec)
				frames += c.Len()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(frames), "cpu-ns/pkt")
			b.ReportMetric(float64(frames)/b.Elapsed().Seconds()/1e6, "Mpps")
		})
	}
}

package pcapgen

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/capture"
)

func TestDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Packets = 300
	var a, b, c bytes.Buffer
	ca, err := Write(&a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&b, cfg); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same config, different bytes")
	}
	cfg.Seed++
	cc, err := Write(&c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) || ca.String() == cc.String() {
		t.Error("different seeds, same capture")
	}
}

func TestCountsAddUp(t *testing.T) {
	for _, format := range []string{"pcap", "pcapng"} {
		cfg := DefaultConfig()
		cfg.Packets, cfg.Malformed, cfg.Frag, cfg.Format = 2000, 0.1, 0.1, format
		if format == "pcapng" {
			cfg.Interfaces = 3
		}
		var buf bytes.Buffer
		counts, err := Write(&buf, cfg)
		if err != nil {
			t.Fatal(err)
		}
		k := counts.Kinds
		bad := 0
		for _, v := range counts.Malformed {
			bad += v
		}
		if l3 := k["arp"] + k["ipv4"] + k["ipv6"] + k["other-l2"]; l3+bad != cfg.Packets || counts.Packets != cfg.Packets {
			t.Errorf("%s: l3 kinds %d + malformed %d != packets %d (%d)", format, l3, bad, cfg.Packets, counts.Packets)
		}
		if len(counts.Malformed) != len(Reasons) {
			t.Errorf("%s: malformed reasons %v, want all of %v", format, counts.Malformed, Reasons)
		}
		if k["frag-later"] < k["frag-first"] || k["frag-later"] > 2*k["frag-first"] {
			t.Errorf("%s: %d later fragments for %d first ones, want 1 or 2 each", format, k["frag-later"], k["frag-first"])
		}
		// Read back: frame count, interfaces and increasing timestamps.
		var n int
		var last int64
		ifs := map[int]bool{}
		pkts, _, err := capture.Read(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: read back: %v", format, err)
		}
		for _, p := range pkts {
			n++
			ifs[p.Iface] = true
			if ts := p.Timestamp.UnixNano(); ts < last {
				t.Errorf("%s: timestamps go back at frame %d", format, n)
			} else {
				last = ts
			}
		}
		if n != cfg.Packets || len(ifs) != cfg.Interfaces {
			t.Errorf("%s: read %d frames on %d interfaces, want %d on %d", format, n, len(ifs), cfg.Packets, cfg.Interfaces)
		}
	}
}

// TestZipfPopularity checks that flow packets follow the configured skew:
// the most popular flow carries about 1/H(n,s) of them.
func TestZipfPopularity(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Packets, cfg.Flows, cfg.ZipfS = 20000, 100, 1.0
	cfg.ARP, cfg.ICMP, cfg.LLDP, cfg.Frag, cfg.Malformed, cfg.VLAN = 0, 0, 0, 0, 0, 0
	pkts, _, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		h  uint64
		l4 gopacket.LayerType
	}
	perFlow := map[key]int{}
	for _, p := range pkts {
		pk := gopacket.NewPacket(p.Data, layers.LayerTypeEthernet, gopacket.NoCopy)
		nl, tl := pk.NetworkLayer(), pk.TransportLayer()
		if nl == nil || tl == nil {
			t.Fatalf("frame without L3/L4: %v", pk)
		}
		// FastHash is symmetric: both directions are one flow.
		perFlow[key{nl.NetworkFlow().FastHash()*31 + tl.TransportFlow().FastHash(), tl.LayerType()}]++
	}
	top := 0
	for _, n := range perFlow {
		top = max(top, n)
	}
	h := 0.0
	for k := 1; k <= cfg.Flows; k++ {
		h += 1 / float64(k)
	}
	want := float64(cfg.Packets) / h // ≈ 3,850
	if float64(top) < 0.85*want || float64(top) > 1.15*want {
		t.Errorf("top flow has %d packets, want about %.0f", top, want)
	}
	if len(perFlow) < cfg.Flows/2 {
		t.Errorf("only %d distinct flows seen of %d", len(perFlow), cfg.Flows)
	}
}

func TestParseFlags(t *testing.T) {
	cfg, out, err := ParseFlags([]string{"-seed", "9", "-n", "10", "-format", "pcapng", "-ifaces", "2", "-o", "x.pcapng"})
	if err != nil || cfg.Seed != 9 || cfg.Packets != 10 || cfg.Interfaces != 2 || out != "x.pcapng" {
		t.Errorf("ParseFlags = %+v, %q, %v", cfg, out, err)
	}
	for _, args := range [][]string{
		{"-n", "0"}, {"-format", "pcapx"}, {"-ifaces", "2"}, {"-arp", "0.6", "-icmp", "0.6"}, {"-zipf", "0"},
	} {
		if _, _, err := ParseFlags(args); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseFlags(%q) = %v, want ErrConfig", args, err)
		}
	}
	if _, _, err := ParseFlags([]string{"-nosuch"}); err == nil {
		t.Error("unknown flag accepted")
	}
}

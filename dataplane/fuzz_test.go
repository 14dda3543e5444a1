package dataplane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// maxSeedsPerFile bounds how many frames of one capture become fuzz seeds,
// so that the seeds run quickly in plain go test.
const maxSeedsPerFile = 150

// addCaptureSeeds adds frames of every capture in dir as seeds (link type
// as a byte: 0 Ethernet, 1 Null, 2 Loop) and returns how many files it read.
func addCaptureSeeds(f *testing.F, dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	files := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".pcap") && !strings.HasSuffix(e.Name(), ".pcapng") {
			continue
		}
		c, _ := LoadFile(filepath.Join(dir, e.Name())) // a partial capture still gives seeds
		if c == nil {
			continue
		}
		files++
		step := max(1, c.Len()/maxSeedsPerFile)
		for i := 0; i < c.Len(); i += step {
			f.Add(linkByte(c.Link(i)), c.Frame(i))
		}
	}
	return files
}

func linkByte(l layers.LinkType) byte {
	switch l {
	case layers.LinkTypeNull:
		return 1
	case layers.LinkTypeLoop:
		return 2
	}
	return 0
}

var fuzzLinks = [3]layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeNull, layers.LinkTypeLoop}

// FuzzParse checks that no input panics the parser and that what it
// reports is consistent: counters add up, offsets lie inside the frame and
// in order, L4 fields only without a later fragment, and a second parse,
// alone or in a vector, gives the same headers.
func FuzzParse(f *testing.F) {
	shared := filepath.Join(testutil.RepoRoot(f), "..", "shared", "data", "pcaps")
	if addCaptureSeeds(f, shared) == 0 {
		if testutil.InCI() {
			f.Fatalf("CI=true and no captures in %s", shared)
		}
		f.Logf("no shared captures in %s: fuzzing from generated seeds only", shared)
	}
	addCaptureSeeds(f, filepath.Join(testutil.RepoRoot(f), "testdata", "pcaps"))
	f.Add(byte(0), []byte{})
	f.Add(byte(1), []byte{30, 0, 0, 0, 0x60})
	p := NewParser()
	var vec Vector
	f.Fuzz(func(t *testing.T, link byte, frame []byte) {
		lt := fuzzLinks[int(link)%len(fuzzLinks)]
		before := p.Stats
		h1, ok := p.Parse(frame, lt, 7)
		got := *h1
		if p.Stats.Read != before.Read+1 || p.Stats.Parsed+p.Stats.MalformedTotal() != p.Stats.Read {
			t.Fatalf("counters: read %d parsed %d malformed %d", p.Stats.Read, p.Stats.Parsed, p.Stats.MalformedTotal())
		}
		if ok != (p.Stats.Parsed == before.Parsed+1) {
			t.Fatalf("ok=%v but Parsed went %d -> %d", ok, before.Parsed, p.Stats.Parsed)
		}
		if ok {
			checkHeaders(t, &got, len(frame))
		}
		vec.N, vec.Frames[0], vec.Link[0], vec.InPort[0] = 1, frame, lt, 7
		if n := p.ParseVector(&vec); (n == 1) != ok || vec.OK[0] != ok {
			t.Fatalf("ParseVector: n=%d OK=%v, Parse said %v", n, vec.OK[0], ok)
		}
		if ok {
			if diff := cmp.Diff(got, vec.Hdr[0]); diff != "" {
				t.Fatalf("second parse differs (-Parse +ParseVector):\n%s", diff)
			}
		}
	})
}

func checkHeaders(t *testing.T, h *Headers, n int) {
	t.Helper()
	if h.InPort != 7 {
		t.Errorf("InPort %d", h.InPort)
	}
	if h.VLANs > MaxVLANs {
		t.Errorf("VLANs %d > %d", h.VLANs, MaxVLANs)
	}
	if int(h.L3Off) > n || int(h.L4Off) > n {
		t.Errorf("offsets L3 %d L4 %d beyond frame of %d bytes", h.L3Off, h.L4Off, n)
	}
	if h.HasL4() {
		if h.EthType != EtherTypeIPv4 && h.EthType != EtherTypeIPv6 {
			t.Errorf("L4 decoded with eth_type %#x", h.EthType)
		}
		if h.Frag&FragLater != 0 {
			t.Error("L4 decoded in a later fragment")
		}
		if h.L4Off < h.L3Off+20 {
			t.Errorf("L4Off %d too close to L3Off %d", h.L4Off, h.L3Off)
		}
	}
	if (h.EthType == EtherTypeIPv4 || h.EthType == EtherTypeIPv6 || h.EthType == EtherTypeARP) && h.L3Off == 0 {
		t.Errorf("eth_type %#x without L3 offset", h.EthType)
	}
	if h.Frag == FragLater {
		t.Error("FragLater without FragAny")
	}
}

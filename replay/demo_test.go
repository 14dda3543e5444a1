package replay

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/pcapgen"
)

// TestDemoCaptureReproducible regenerates the embedded demo capture from
// the flags of its go:generate directive and requires the same bytes.
func TestDemoCaptureReproducible(t *testing.T) {
	src, err := os.ReadFile("demo.go")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "//go:generate go run ../internal/pcapgen/cmd/pcapgen "
	var args []string
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			args = strings.Fields(rest)
		}
	}
	if len(args) < 2 || args[len(args)-2] != "-o" || args[len(args)-1] != "testdata/demo.pcap" {
		t.Fatalf("go:generate directive for testdata/demo.pcap not found: %q", args)
	}
	cfg, _, err := pcapgen.ParseFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := pcapgen.Write(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), demoPcap) {
		t.Errorf("regenerated demo capture (%d bytes) differs from testdata/demo.pcap (%d bytes)", buf.Len(), len(demoPcap))
	}
	if c := DemoCapture(); c.Len() != 3000 {
		t.Errorf("demo capture has %d frames", c.Len())
	}
}

package openflow

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// tsharkPcap writes chunks as one TCP stream from port from to 6653 and
// returns a function that runs tshark's OpenFlow dissector on it with the
// given arguments and returns what it prints. The stream's first frame is
// the SYN; each chunk is a frame of its own after it.
func tsharkPcap(t *testing.T, from uint16, chunks [][]byte) func(args ...string) string {
	t.Helper()
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		testutil.SkipOrFail(t, "tshark is not installed")
	}
	pcap, err := testutil.TCPStreamPcap(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), from),
		netip.MustParseAddrPort("127.0.0.1:6653"), chunks)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "stream.pcap")
	if err := os.WriteFile(file, pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	return func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, tshark, append([]string{"-r", file, "-d", "tcp.port==6653,openflow"}, args...)...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark %v: %v", args, err)
		}
		return string(out)
	}
}

// tsharkStream encodes msgs into a stream as tsharkPcap does and returns
// a function that runs tshark on their OpenFlow 1.3 frames alone, its
// output trimmed.
func tsharkStream(t *testing.T, from uint16, msgs ...Message) func(args ...string) string {
	t.Helper()
	run := tsharkPcap(t, from, encodeAll(t, msgs))
	return func(args ...string) string {
		t.Helper()
		return strings.TrimSpace(run(append([]string{"-Y", "openflow_v4"}, args...)...))
	}
}

// tsharkFields checks that tshark marks no message malformed or in
// error and, for each field, the values it decodes from every frame in
// order, joined by commas.
func tsharkFields(t *testing.T, run func(args ...string) string, want [][2]string) {
	t.Helper()
	if v := run("-V"); strings.Contains(v, "Malformed") || strings.Contains(v, "Expert Info (Error") {
		t.Fatalf("tshark marks a message:\n%s", v)
	}
	args := []string{"-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"}
	for _, c := range want {
		args = append(args, "-e", c[0])
	}
	got := make([][]string, len(want))
	for _, line := range strings.Split(run(args...), "\n") {
		for i, v := range strings.Split(line, "\t") {
			if i < len(got) && v != "" {
				got[i] = append(got[i], v)
			}
		}
	}
	for i, c := range want {
		if g := strings.Join(got[i], ","); g != c[1] {
			t.Errorf("%s: tshark decodes %q, want %q", c[0], g, c[1])
		}
	}
}

// encodeAll returns the wire form of each of msgs.
func encodeAll(t *testing.T, msgs []Message) [][]byte {
	t.Helper()
	var chunks [][]byte
	for _, m := range msgs {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		chunks = append(chunks, b)
	}
	return chunks
}

package dataplane

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// FuzzLoad feeds capture files, whole and cut short, to Load: it must not
// panic, must fail only with a *FileError, and what it keeps must be
// consistent (offsets in order and inside Data, one interface per frame).
func FuzzLoad(f *testing.F) {
	root := testutil.RepoRoot(f)
	for _, dir := range []string{filepath.Join(root, "testdata", "pcaps"), filepath.Join(root, "..", "shared", "data", "pcaps")} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".pcap") && !strings.HasSuffix(e.Name(), ".pcapng") {
				continue
			}
			raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			raw = raw[:min(len(raw), 2048)] // a few records each keeps the seeds quick
			f.Add(raw)
			f.Add(raw[:len(raw)*2/3])
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := Load("fuzz.pcap", raw)
		if c == nil {
			t.Fatalf("nil capture (err %v)", err)
		}
		if err != nil {
			var fe *FileError
			gz := len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b // offsets are in the decompressed stream
			if !errors.As(err, &fe) || fe.File != "fuzz.pcap" || fe.Offset < 0 || (!gz && fe.Offset > int64(len(raw))) {
				t.Fatalf("error %v (%T) is not a FileError inside the input", err, err)
			}
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrLinkType) {
				t.Fatalf("error %v unwraps to no sentinel", err)
			}
		}
		n := c.Len()
		if n > 0 && (len(c.Off) != n+1 || c.Off[n] != len(c.Data) || len(c.Iface) != n || len(c.WireLen) != n) {
			t.Fatalf("inconsistent capture: %d frames, %d offsets, %d bytes", n, len(c.Off), len(c.Data))
		}
		for i := 0; i < n; i++ {
			if c.Off[i] > c.Off[i+1] || int(c.Iface[i]) >= len(c.Ifaces) || !supportedLink(c.Link(i)) {
				t.Fatalf("frame %d: offsets %d..%d, interface %d of %d", i, c.Off[i], c.Off[i+1], c.Iface[i], len(c.Ifaces))
			}
		}
	})
}

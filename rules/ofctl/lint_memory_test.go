package ofctl

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

// TestLintStreams: LintFiles applies a file a chunk at a time as it parses
// it, so a file that replaces one flow 300,000 times costs a chunk's mods,
// not the file's. The live heap must grow by less than half the size of
// the file's 300,000 Updates alone (it grows about 30 MB); holding the
// parsed file whole, as LintFiles once did, grows it about 210 MB.
func TestLintStreams(t *testing.T) {
	const n = 300_000
	data := bytes.Repeat([]byte("priority=9,ip,nw_dst=10.10.10.10,actions=output:3\n"), n)
	var rep *LintReport
	var err error
	base, peak := testutil.LiveHeapPeak(func() { rep, err = Lint("dup.flows", data, nil, nil) })
	if err != nil || rep.Flows != n || rep.OK != n || len(rep.Errors) != 0 {
		t.Fatalf("lint: %v, %+v", err, rep)
	}
	grew := int64(peak) - int64(base)
	bound := int64(n * unsafe.Sizeof(rules.Update{}) / 2)
	t.Logf("live heap: %d MB before, peak %d MB linting %d duplicate lines (+%d MB; bound +%d MB)",
		base>>20, peak>>20, n, grew>>20, bound>>20)
	if grew > bound {
		t.Errorf("lint of %d lines grew the live heap by %d MB, want under %d MB: it holds the file's flows", n, grew>>20, bound>>20)
	}
}

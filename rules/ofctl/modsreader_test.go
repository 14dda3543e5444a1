package ofctl_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// readAll reads a file through a ModsReader of chunks of lines lines and
// joins its chunks.
func readAll(t *testing.T, name, data string, lines int, opt *ofctl.ParseOptions) (*ofctl.Mods, []string) {
	t.Helper()
	mr := ofctl.NewModsReader(name, strings.NewReader(data), lines, opt)
	all := &ofctl.Mods{}
	var errs []string
	for {
		m, es, err := mr.Next()
		if err == io.EOF {
			return all, errs
		}
		if err != nil {
			t.Fatal(err)
		}
		all.Flows = append(all.Flows, m.Flows...)
		all.Where = append(all.Where, m.Where...)
		all.Groups = append(all.Groups, m.Groups...)
		all.Meters = append(all.Meters, m.Meters...)
		for _, e := range es {
			errs = append(errs, e.Error())
		}
	}
}

// TestModsReader: read in chunks of any size, a file gives the mods and
// errors ParseMods gives for it whole, line numbers included: flows
// alone, flows with verbs, groups, meters and bundle lines, bad lines,
// lines FixPrereqs splits, a last line without its end, and lines longer
// than the reader's buffer.
func TestModsReader(t *testing.T) {
	long := "priority=9,actions=" + strings.Repeat("output:1,", 20000) + "drop"
	files := map[string]string{
		"mods":     modsFile,
		"flows":    "priority=1,ip,actions=drop\n\n# c\npriority=2,tcp,tp_dst=80,actions=output:1\npriority=3,ip,nw_src=1.2.3.4,actions=drop",
		"verbs":    "add priority=1,ip,actions=drop\nmodify priority=1,ip,actions=output:2\ndelete\ndelete_strict priority=1,ip\nbad line\n",
		"bad":      "priority=1,ip,nw_src=10.0.0.300,actions=drop\ngroup_id=1,type=all,bucket=output:1\ntp_dst=80,actions=drop\nmeter=1,kbps,bands=type=drop,rate=10\npacket-out in_port=1\n" + long + "\n",
		"fix":      "tp_dst=80,actions=drop\npriority=2,tp_src=1,actions=drop\n",
		"longline": long + "\n" + long + "\npriority=1,actions=drop\n",
	}
	for name, data := range files {
		for _, opt := range []*ofctl.ParseOptions{nil, {FixPrereqs: true, Check: fits}} {
			want, werrs := ofctl.ParseMods(name, []byte(data), opt)
			var wantErrs []string
			for _, e := range werrs {
				wantErrs = append(wantErrs, e.Error())
			}
			for _, lines := range []int{1, 2, 3, 7, 0} {
				got, gotErrs := readAll(t, name, data, lines, opt)
				if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s, %d lines a chunk: mods (-ParseMods +ModsReader):\n%s", name, lines, d)
				}
				if d := cmp.Diff(wantErrs, gotErrs); d != "" {
					t.Errorf("%s, %d lines a chunk: errors (-ParseMods +ModsReader):\n%s", name, lines, d)
				}
			}
		}
	}
}

// failingReader returns its data, then err.
type failingReader struct {
	data string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestModsReaderError: a read error ends the file with that error.
func TestModsReaderError(t *testing.T) {
	boom := errors.New("boom")
	mr := ofctl.NewModsReader("f", &failingReader{"priority=1,actions=drop\npriority=2,act", boom}, 1, nil)
	m, _, err := mr.Next()
	if err != nil || len(m.Flows) != 1 {
		t.Fatalf("first chunk: %v, %d flows", err, len(m.Flows))
	}
	if _, _, err := mr.Next(); !errors.Is(err, boom) {
		t.Fatalf("second chunk: %v, want boom", err)
	}
	if _, _, err := mr.Next(); err != io.EOF {
		t.Fatalf("after the error: %v, want EOF", err)
	}
}

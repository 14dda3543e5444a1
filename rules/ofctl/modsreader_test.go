package ofctl_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// readAllWith reads a file through a ModsReader of chunks of lines lines
// and joins its chunks: by Next, or by NextInto into one reused Mods if
// into, the flows then copied out (instructions and actions too) and
// Where named from their lines as Next names them.
func readAllWith(t *testing.T, name, data string, lines int, opt *ofctl.ParseOptions, into bool) (*ofctl.Mods, []string) {
	t.Helper()
	mr := ofctl.NewModsReader(name, strings.NewReader(data), lines, opt)
	all := &ofctl.Mods{}
	var errs []string
	var reused ofctl.Mods
	for {
		var m *ofctl.Mods
		var es []error
		var err error
		if !into {
			m, es, err = mr.Next()
		} else {
			m = &reused
			es, err = mr.NextInto(m)
			if err == nil {
				if len(m.Where) != 0 {
					t.Fatalf("NextInto filled Where: %q", m.Where)
				}
				for i := range m.Flows {
					m.Where = append(m.Where, name+":"+strconv.Itoa(m.Flows[i].ID))
					m.Flows[i].Instructions = slices.Clone(m.Flows[i].Instructions)
					for j := range m.Flows[i].Instructions {
						in := &m.Flows[i].Instructions[j]
						in.Actions = slices.Clone(in.Actions)
					}
				}
			}
		}
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
				for _, into := range []bool{false, true} {
					got, gotErrs := readAllWith(t, name, data, lines, opt, into)
					if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
						t.Errorf("%s, %d lines a chunk, NextInto %v: mods (-ParseMods +ModsReader):\n%s", name, lines, into, d)
					}
					if d := cmp.Diff(wantErrs, gotErrs); d != "" {
						t.Errorf("%s, %d lines a chunk, NextInto %v: errors (-ParseMods +ModsReader):\n%s", name, lines, into, d)
					}
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

// TestModsReaderNextIntoAllocs: reading ordinary flows chunk by chunk
// into one Mods allocates nothing per line: a new reader's buffers (some
// 30 allocations as its chunk buffer grows), then nothing, so that 50
// chunks cost less than one allocation each.
func TestModsReaderNextIntoAllocs(t *testing.T) {
	const n, chunk = 50_000, 1000
	data := ordinaryFlows(n)
	var m ofctl.Mods
	read := func() {
		mr := ofctl.NewModsReader("f", bytes.NewReader(data), chunk, nil)
		got := 0
		for {
			errs, err := mr.NextInto(&m)
			if err == io.EOF {
				break
			}
			if err != nil || len(errs) != 0 {
				t.Fatalf("NextInto: %v, %v", err, errs)
			}
			got += len(m.Flows)
		}
		if got != n {
			t.Fatalf("%d flows, want %d", got, n)
		}
	}
	read()
	allocs := testing.AllocsPerRun(5, read)
	if perChunk := allocs / (n / chunk); perChunk >= 1 {
		t.Errorf("%.0f allocations for %d lines: %.1f a chunk of %d, want less than 1", allocs, n, perChunk, chunk)
	}
}

// TestModsReaderReset: a reader Reset onto a file, after reading part of
// another (or all of it, to its end), reads it as a new reader does: the
// same flows, lines and errors.
func TestModsReaderReset(t *testing.T) {
	first := "priority=1,ip,actions=drop\npriority=2,tcp,tp_dst=80,actions=output:1\nbad line\n"
	second := "# a comment\npriority=3,udp,tp_src=53,actions=output:2\n\npriority=4,ip,nw_dst=10.0.0.0/8,actions=drop\nnw_src=1.2.3.300,actions=drop\n"
	read := func(mr *ofctl.ModsReader) (flows []string, lines []int, errs []string) {
		var m ofctl.Mods
		for {
			es, err := mr.NextInto(&m)
			if err == io.EOF {
				return flows, lines, errs
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range m.Flows {
				flows = append(flows, ofctl.FormatUpdate(&m.Flows[i]))
				lines = append(lines, m.Flows[i].ID)
			}
			for _, e := range es {
				errs = append(errs, e.Error())
			}
		}
	}
	wantFlows, wantLines, wantErrs := read(ofctl.NewModsReader("second", strings.NewReader(second), 2, nil))
	if len(wantFlows) != 2 || len(wantErrs) != 1 {
		t.Fatalf("fresh reader: flows %q, errors %q; want 2 and 1", wantFlows, wantErrs)
	}
	for _, chunks := range []int{1, 100} { // part of the first file, all of it
		mr := ofctl.NewModsReader("first", strings.NewReader(first), 2, nil)
		var m ofctl.Mods
		for range chunks {
			if _, err := mr.NextInto(&m); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		mr.Reset("second", strings.NewReader(second))
		if mr.Name() != "second" || mr.Lines() != 0 {
			t.Fatalf("after Reset: name %q, lines %d", mr.Name(), mr.Lines())
		}
		flows, lines, errs := read(mr)
		if !slices.Equal(flows, wantFlows) || !slices.Equal(lines, wantLines) || !slices.Equal(errs, wantErrs) || mr.Lines() != 5 {
			t.Errorf("after %d chunks of another file: flows %q lines %v errors %q (%d lines); want %q %v %q (5)",
				chunks, flows, lines, errs, mr.Lines(), wantFlows, wantLines, wantErrs)
		}
	}
}

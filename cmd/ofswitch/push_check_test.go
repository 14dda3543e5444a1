package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestCheckInputParts: checking a file in parts, a part per reader,
// finds what checking it whole finds: the same count of mods, the same
// importance, the same errors in the same order with the file's line
// numbers, whatever the number of parts and wherever the cuts fall (in
// comments, blank lines, bad lines, a group or a long line; a file with
// and without a last line end).
func TestCheckInputParts(t *testing.T) {
	var text strings.Builder
	for i := range 3000 {
		switch {
		case i%997 == 5:
			fmt.Fprintf(&text, "priority=1,ip,nw_src=10.0.0.%d,actions=drop\n", 256+i) // bad address
		case i%611 == 7:
			text.WriteString("# a comment\n\n")
		case i%701 == 9:
			fmt.Fprintf(&text, "group_id=%d,type=all,bucket=output:1\n", i)
		case i%1201 == 11:
			fmt.Fprintf(&text, "importance=3,priority=5,ip,nw_dst=10.1.%d.%d,actions=output:1\n", i>>8, i&0xff)
		case i == 1500:
			text.WriteString("priority=5,tcp,tp_dst=80" + strings.Repeat(",tp_dst=80", 2000) + ",actions=output:1\n")
		case i%1499 == 13:
			text.WriteString("tp_dst=80,actions=drop\n") // no prerequisite
		default:
			fmt.Fprintf(&text, "priority=100,tcp,nw_src=10.2.%d.%d,tp_dst=%d,actions=output:2\n", i>>8, i&0xff, i)
		}
	}
	dir := t.TempDir()
	for _, tail := range []string{"", "priority=1,ip,nw_src=10.0.0.300,actions=drop"} {
		data := text.String() + tail
		path := filepath.Join(dir, "flows")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := openInput(nil, path)
		if err != nil {
			t.Fatal(err)
		}
		opt := &ofctl.ParseOptions{Check: fitsOneMessage(false)}
		whole, wholeErr := checkInput(in, opt, 1)
		if wholeErr == nil || whole.mods < 2900 || !whole.importance {
			t.Fatalf("whole file: %+v, %v; want errors, 2900 mods or more and an importance", whole, wholeErr)
		}
		for _, parts := range []int{2, 3, 7, 64, 500} {
			cuts, err := lineCuts(in, in.size, parts)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cuts[1 : len(cuts)-1] {
				if c <= cuts[i] || data[c-1] != '\n' {
					t.Fatalf("%d parts: cut %d at %d after %d, not a line's start", parts, i+1, c, cuts[i])
				}
			}
			if parts <= 64 && len(cuts) != parts+1 {
				t.Fatalf("%d parts: cuts %v", parts, cuts)
			}
			sum, err := checkInput(in, opt, parts)
			if sum != whole || err == nil || err.Error() != wholeErr.Error() {
				t.Fatalf("%d parts: %+v\n%v\nwant %+v\n%v", parts, sum, err, whole, wholeErr)
			}
		}
		in.Close()
	}
}

// TestCheckParts: a file gets a part per CPU, none smaller than
// checkPartMin; a small file is checked whole.
func TestCheckParts(t *testing.T) {
	for _, c := range []struct {
		size int64
		cpus int
		want int
	}{{0, 2, 1}, {100, 8, 1}, {checkPartMin, 2, 1}, {2*checkPartMin - 1, 2, 1}, {2 * checkPartMin, 2, 2}, {9 << 20, 2, 2}, {9 << 20, 16, 9}, {9 << 20, 0, 1}} {
		if got := checkParts(c.size, c.cpus); got != c.want {
			t.Errorf("checkParts(%d, %d) = %d, want %d", c.size, c.cpus, got, c.want)
		}
	}
}

// TestLineCutsShort: an input of one line, or of lines longer than a
// part, is cut where lines start or not at all.
func TestLineCutsShort(t *testing.T) {
	for _, c := range []struct {
		data  string
		parts int
		want  []int64
	}{
		{"", 3, []int64{0, 0}},
		{"abc", 3, []int64{0, 3}},
		{"abc\n", 3, []int64{0, 4}},
		{"a\nb\nc\n", 3, []int64{0, 2, 4, 6}},
		{strings.Repeat("x", 10000) + "\nshort\n", 2, []int64{0, 10001, 10007}},
		{"a\n" + strings.Repeat("x", 10000) + "\n", 4, []int64{0, 10003}}, // no line starts after a quarter
	} {
		got, err := lineCuts(bytes.NewReader([]byte(c.data)), int64(len(c.data)), c.parts)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("lineCuts(%.20q, %d) = %v, %v; want %v", c.data, c.parts, got, err, c.want)
		}
	}
}

// BenchmarkCheckInput checks a file of 100K ordinary flows, as push does
// before it sends anything, whole and in a part per CPU, keeping nothing
// or keeping the mods encoded (encode=true): "s/check".
func BenchmarkCheckInput(b *testing.B) {
	const n = 100_000
	var text bytes.Buffer
	for k := range n {
		fmt.Fprintf(&text, "priority=100,tcp,nw_src=10.%d.%d.%d,nw_dst=10.%d.%d.%d,tp_src=%d,tp_dst=80,actions=output:2\n",
			16+k>>16&0xf, k>>8&0xff, k&0xff, 32+k>>16&0xf, k>>8&0xff, k&0xff, 1024+k%50000)
	}
	path := filepath.Join(b.TempDir(), "flows")
	if err := os.WriteFile(path, text.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	in, err := openInput(nil, path)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	opt := &ofctl.ParseOptions{Check: fitsOneMessage(false)}
	for _, parts := range []int{1, checkParts(in.size, runtime.GOMAXPROCS(0))} {
		for _, encode := range []bool{false, true} {
			b.Run(fmt.Sprintf("parts=%d/encode=%v", parts, encode), func(b *testing.B) {
				for b.Loop() {
					var eps []*push.Encoded
					var enc *[]*push.Encoded
					if encode {
						enc = &eps
					}
					if sum, err := checkInputInto(in, opt, parts, nil, enc); err != nil || sum.mods != n || encode && eps == nil {
						b.Fatalf("check: %+v, %v", sum, err)
					}
					releaseAll(eps)
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
			})
		}
	}
}

// TestPushEarlyDial: push connects while it checks its file, and sends
// nothing before the check is done: of a file with a bad line the switch
// sees a connection closed without a byte, and push reports the line; of
// a good file to a switch that is not there, push reports the dial's
// error, as it did when it connected after the check.
func TestPushEarlyDial(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("priority=1,ip,actions=drop\npriority=2,ip,nw_src=10.0.0.300,actions=drop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- nil // closed: no connection came
			return
		}
		defer c.Close()
		// Past the wait below, so that a connection push leaves open
		// fails the test rather than ending in an empty read.
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		b, _ := io.ReadAll(c) // until push closes it
		got <- b
	}()
	addr := l.Addr().String()
	_, _, err = runStderr(t, "push", "--switch", "tcp:"+addr, bad)
	if err == nil || !strings.Contains(err.Error(), "bad:2:") {
		t.Fatalf("push of a bad file: %v; want its line 2's error", err)
	}
	// The check may end before the connection is made, which push then
	// gives up: no connection, or one closed with nothing on it.
	l.Close()
	select {
	case b := <-got:
		if len(b) != 0 {
			t.Errorf("the switch read %q; want nothing", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("push left its connection open")
	}

	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("priority=1,ip,actions=drop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Nothing listens at addr now.
	_, _, err = runStderr(t, "push", "--switch", "tcp:"+addr, good)
	if err == nil || !strings.HasPrefix(err.Error(), "push: dial tcp") {
		t.Fatalf("push to no switch: %v; want the dial's error", err)
	}
}

// TestEncodedSource: the mods the check encodes (encodedSource) are those
// push sends when it parses the file again (modsSource, each encoded by
// the pusher's means): the same messages, byte for byte, in the same
// order, with the same lines, whatever the number of parts; flows, groups
// and meters mixed, a line FixPrereqs splits in two, comments and blank
// lines among them. A file with a bad line keeps nothing encoded.
func TestEncodedSource(t *testing.T) {
	var text strings.Builder
	for i := range 3000 {
		switch {
		case i%611 == 7:
			text.WriteString("# a comment\n\n")
		case i%701 == 9:
			fmt.Fprintf(&text, "group_id=%d,type=all,bucket=output:1\n", i)
		case i%503 == 3:
			fmt.Fprintf(&text, "meter=%d,kbps,bands=type=drop,rate=%d\n", i, 1000+i)
		case i%307 == 2:
			fmt.Fprintf(&text, "priority=7,tp_dst=%d,actions=output:3\n", i) // split by FixPrereqs: tcp and udp
		case i%101 == 1:
			fmt.Fprintf(&text, "delete_strict priority=100,tcp,nw_src=10.2.%d.%d,tp_dst=%d\n", i>>8, i&0xff, i)
		default:
			fmt.Fprintf(&text, "priority=100,tcp,nw_src=10.2.%d.%d,tp_dst=%d,actions=output:2\n", i>>8, i&0xff, i)
		}
	}
	path := filepath.Join(t.TempDir(), "flows")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := openInput(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	opt := &ofctl.ParseOptions{Check: fitsOneMessage(false), FixPrereqs: true}

	// want: the file parsed again and encoded as the pusher does.
	var want [][]byte
	var wantLines []int
	ms := &modsSource{mr: ofctl.NewModsReader(path, io.NewSectionReader(in, 0, in.size), chunkLines, opt)}
	var enc ofrules.Encoder
	for {
		msgs, err := ms.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			var b []byte
			switch {
			case m.Flow != nil:
				b, err = enc.Encode(nil, m.Flow, openflow.Version13, 0)
				wantLines = append(wantLines, m.Line)
			case m.Group != nil:
				gm := ofrules.WireGroupMod(m.Group)
				gm.Version = openflow.Version13
				b, err = gm.AppendBinary(nil)
				wantLines = append(wantLines, lineOf(t, m.Where))
			default:
				mm := ofrules.WireMeterMod(m.Meter)
				mm.Version = openflow.Version13
				b, err = mm.AppendBinary(nil)
				wantLines = append(wantLines, lineOf(t, m.Where))
			}
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b)
		}
	}
	if len(want) < 3000 {
		t.Fatalf("%d mods parsed, want 3000 or more", len(want))
	}
	for _, n := range []int{1, 2, 3, 7} {
		var parts []*push.Encoded
		sum, err := checkInputInto(in, opt, n, nil, &parts)
		if err != nil || sum.mods != len(want) {
			t.Fatalf("%d parts: check: %+v, %v; want %d mods", n, sum, err, len(want))
		}
		es := push.NewEncodedSource(path, parts, chunkLines)
		if es == nil {
			t.Fatalf("%d parts: nothing encoded", n)
		}
		k := 0
		for {
			msgs, err := es.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				if k >= len(want) {
					t.Fatalf("%d parts: more than %d messages", n, len(want))
				}
				if m.Flow != nil || m.Group != nil || m.Meter != nil || m.File != path {
					t.Fatalf("%d parts: message %d: %+v", n, k, m)
				}
				if !bytes.Equal(m.Wire, want[k]) || m.Line != wantLines[k] {
					t.Fatalf("%d parts: message %d of line %d:\n%x\nwant line %d:\n%x", n, k, m.Line, m.Wire, wantLines[k], want[k])
				}
				k++
			}
		}
		if k != len(want) {
			t.Fatalf("%d parts: %d messages, want %d", n, k, len(want))
		}
		releaseAll(parts)
	}

	// A bad line: an error, and nothing kept.
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte(text.String()+"priority=1,ip,nw_src=10.0.0.300,actions=drop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in2, err := openInput(nil, bad)
	if err != nil {
		t.Fatal(err)
	}
	defer in2.Close()
	parts := []*push.Encoded{}
	if _, err := checkInputInto(in2, opt, 2, nil, &parts); err == nil {
		t.Fatal("check of a bad line: no error")
	}
	if parts != nil {
		t.Errorf("check of a bad line kept %d parts encoded", len(parts))
	}
}

// lineOf returns the line number of a "file:line".
func lineOf(t *testing.T, where string) int {
	t.Helper()
	i := strings.LastIndexByte(where, ':')
	n, err := strconv.Atoi(where[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("%q names no line", where)
	}
	return n
}

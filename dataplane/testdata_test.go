package dataplane

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/pcapgen"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

type committedCapture struct {
	name, flags string
	want        map[string]int // "packets", kind names, "malformed:reason"
}

var tableRow = regexp.MustCompile("^\\| `([^`]+)` \\| `([^`]+)` \\|")

// readCapturesReadme returns the files listed in testdata/pcaps/README.md
// with their generator flags and the counts replay must report.
func readCapturesReadme(t *testing.T) (string, []committedCapture) {
	t.Helper()
	dir := filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps")
	raw, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	flags := map[string]string{}
	var order []string
	for _, line := range strings.Split(text, "\n") {
		if m := tableRow.FindStringSubmatch(line); m != nil {
			flags[m[1]] = m[2]
			order = append(order, m[1])
		}
	}
	_, report, ok := strings.Cut(text, "## What replay must report")
	if !ok {
		t.Fatal("README: no \"What replay must report\" section")
	}
	_, block, _ := strings.Cut(report, "```\n")
	block, _, _ = strings.Cut(block, "```")
	want := map[string]map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		name, counts, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("README report line %q", line)
		}
		m := map[string]int{}
		for _, kv := range strings.Fields(counts) {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("README report %q: %v", kv, err)
			}
			m[k] = n
		}
		want[name] = m
	}
	var out []committedCapture
	for _, name := range order {
		if want[name] == nil {
			t.Fatalf("README lists %s without a report line", name)
		}
		out = append(out, committedCapture{name, flags[name], want[name]})
	}
	if len(out) == 0 || len(out) != len(want) {
		t.Fatalf("README: %d files in the table, %d report lines", len(out), len(want))
	}
	return dir, out
}

func statsCounts(s *Stats) map[string]int {
	m := map[string]int{"packets": int(s.Read)}
	for k := Kind(0); k < NumKinds; k++ {
		if s.Kinds[k] != 0 {
			m[k.String()] = int(s.Kinds[k])
		}
	}
	for r := Reason(0); r < NumReasons; r++ {
		if s.Malformed[r] != 0 {
			m["malformed:"+r.String()] = int(s.Malformed[r])
		}
	}
	return m
}

func countsMap(c pcapgen.Counts) map[string]int {
	m := map[string]int{"packets": c.Packets}
	for k, v := range c.Kinds {
		m[k] = v
	}
	for r, v := range c.Malformed {
		m["malformed:"+r] = v
	}
	return m
}

// TestCommittedCaptures checks every capture in testdata/pcaps against its
// README: replay reports the documented counts, the generator reproduces
// the file byte for byte from the documented flags, and the go:generate
// directive uses those flags.
func TestCommittedCaptures(t *testing.T) {
	dir, files := readCapturesReadme(t)
	gen, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			path := filepath.Join(dir, f.name)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(path, raw)
			if err != nil {
				t.Fatal(err)
			}
			_, s := parseAll(t, c)
			if diff := cmp.Diff(f.want, statsCounts(&s)); diff != "" {
				t.Errorf("replay counts (-README +parser):\n%s", diff)
			}

			cfg, _, err := pcapgen.ParseFlags(strings.Fields(f.flags))
			if err != nil {
				t.Fatalf("README flags %q: %v", f.flags, err)
			}
			var buf bytes.Buffer
			counts, err := pcapgen.Write(&buf, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), raw) {
				t.Errorf("pcapgen %s does not reproduce the committed file (%d vs %d bytes)", f.flags, buf.Len(), len(raw))
			}
			if diff := cmp.Diff(f.want, countsMap(counts)); diff != "" {
				t.Errorf("generator counts (-README +pcapgen):\n%s", diff)
			}
			directive := "//go:generate go run ../internal/pcapgen/cmd/pcapgen " + f.flags + " -o ../testdata/pcaps/" + f.name + "\n"
			if !bytes.Contains(gen, []byte(directive)) {
				t.Errorf("generate.go lacks %q", directive)
			}
			if cfg.Format == "pcapng" {
				ports := map[uint32]int{}
				_ = c.Replay(context.Background(), nil, func(vec *Vector) error {
					for i := 0; i < vec.N; i++ {
						ports[vec.InPort[i]]++
					}
					return nil
				})
				if len(c.Ifaces) != cfg.Interfaces || len(ports) != cfg.Interfaces {
					t.Errorf("%d interfaces, in_ports %v; want %d", len(c.Ifaces), ports, cfg.Interfaces)
				}
			}
		})
	}
}

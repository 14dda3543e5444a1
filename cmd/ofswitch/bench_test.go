package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/filter/paper"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// run executes the CLI with args and returns stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestBenchPaperJSON(t *testing.T) {
	out, err := run(t, "bench", "paper", "--trials", "1", "--buckets", "4096", "--queries", "1000", "--replacements", "100", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res paper.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	if res.Config.Buckets != 4096 || res.Config.Queries != 1000 || res.Config.Trials != 1 || len(res.Rows) != len(paper.Cases()) {
		t.Fatalf("config %+v with %d rows", res.Config, len(res.Rows))
	}
}

func TestBenchPaperBadBuckets(t *testing.T) {
	if _, err := run(t, "bench", "paper", "--buckets", "1000", "--trials", "1"); err == nil {
		t.Fatal("--buckets 1000 (not a power of two) accepted")
	}
}

// TestBenchTrace: bench trace writes classbench.GenerateTrace's headers
// for the file, -n and --seed given (10 a rule by default) in the trace
// format, which rules check reads and passes: every label is a rule that
// matches its header and comes no earlier than the answer.
func TestBenchTrace(t *testing.T) {
	rsPath := filepath.Join(testutil.RepoRoot(t), "rules", "classbench", "testdata", "ports_any_proto")
	rd, err := os.ReadFile(rsPath)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := classbench.Parse(rsPath, rd)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		n    int
		seed uint64
	}{
		{nil, classbench.TraceScale * len(rs), 1},
		{[]string{"-n", "5000", "--seed", "9"}, 5000, 9},
	} {
		out, err := run(t, append([]string{"bench", "trace", "--classbench", rsPath}, tt.args...)...)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		got, err := classbench.ParseTrace("out", []byte(out))
		if err != nil {
			t.Fatalf("%v: output does not parse: %v", tt.args, err)
		}
		if diff := cmp.Diff(classbench.GenerateTrace(rs, tt.n, tt.seed), got); diff != "" {
			t.Fatalf("%v: (-GenerateTrace +written):\n%s", tt.args, diff)
		}
		tr := filepath.Join(t.TempDir(), "trace")
		if err := os.WriteFile(tr, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run(t, "rules", "check", "--classbench", rsPath, "--trace", tr); err != nil ||
			!strings.Contains(out, fmt.Sprintf("checked %d, failed 0", tt.n)) {
			t.Fatalf("%v: rules check of the written trace: %v\n%s", tt.args, err, out)
		}
	}
	for _, args := range [][]string{{"bench", "trace"}, {"bench", "trace", "--classbench", rsPath, "-n", "-1"}} {
		if _, err := run(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

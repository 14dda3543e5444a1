package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ofswitch/ofswitch/filter/paper"
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

package ryusuite

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// dirs are the suite's directories, in the order the test runs them.
var dirs = []string{"match", "action", "group", "meter"}

// A testCase is one test of the suite: the index-th entry of a JSON file.
type testCase struct {
	Dir        string // "match", "action", "group" or "meter"
	Path       string // the file, relative to the suite's folder
	File       string // the file's description, e.g. "match: 00_IN_PORT"
	Index      int    // position among the file's tests, from 0
	Desc       string // the test's description
	Throughput bool   // it sends packets for seconds and measures rates
}

// key identifies a test in the tester's output and in the results.
func (c testCase) key() string { return fmt.Sprintf("%s\x00%d", c.File, c.Index) }

// loadCases reads the tests of directory dir (recursively, as tester.py
// does) under root, ordered as the tester runs them: by file description,
// then in file order.
func loadCases(root, dir string) ([]testCase, error) {
	var cases []testCase
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		var file string
		var tests []testCase
		for _, it := range items {
			var s string
			if json.Unmarshal(it, &s) == nil {
				file = s
				continue
			}
			var tc struct {
				Description string
				Tests       []struct {
					Ingress json.RawMessage
					Egress  json.RawMessage
				}
			}
			if err := json.Unmarshal(it, &tc); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			c := testCase{Dir: dir, Path: filepath.ToSlash(rel), Index: len(tests), Desc: oneLine(tc.Description)}
			for _, pkt := range tc.Tests {
				// A throughput test's ingress is {"packets": ...}, not a
				// list of protocol headers.
				if strings.HasPrefix(strings.TrimSpace(string(pkt.Ingress)), "{") {
					c.Throughput = true
				}
			}
			tests = append(tests, c)
		}
		if file == "" {
			return fmt.Errorf("%s: no file description", path)
		}
		for i := range tests {
			tests[i].File = file
		}
		cases = append(cases, tests...)
		return nil
	})
	slices.SortStableFunc(cases, func(a, b testCase) int { return strings.Compare(a.File, b.File) })
	return cases, err
}

// oneLine folds whitespace runs to one space, so that a description or
// reason fits a line of the results and a cell of the table.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// A result is what the tester said of one test.
type result struct {
	OK     bool
	Reason string // the tester's reason for an ERROR; why it did not run, if it did not
}

// notRun is the reason of a test the tester never reported.
const notRun = "not run: the tester did not report this test"

// The lines of tester.py's log that the parser reads: a file's description
// alone on a line before its first test, each test as "    DESC OK" or
// "    DESC ERROR" (DESC padded to 100 characters), an ERROR's reason on
// the next line indented by eight, and the end of the run.
var (
	resultLine = regexp.MustCompile(`^    (\S.*?)\s+(OK|ERROR)$`)
	reasonLine = regexp.MustCompile(`^        (\S.*)$`)
)

const testEnd = "---  Test end  ---"

// tester reads tester.py's log as it is written.
type tester struct {
	files   map[string]bool   // file descriptions of the cases
	descs   map[string]string // description of each case, by key
	results map[string]result
	order   []string // keys of results, as reported
	file    string   // the file whose tests are being reported
	index   int      // the next test of file
	last    string   // key of the last result, awaiting its reason
	ended   bool     // the tester printed the end of the run
	stray   []string // result lines that fit no case, or another case than expected
}

func newTester(cases []testCase) *tester {
	p := &tester{files: map[string]bool{}, descs: map[string]string{}, results: map[string]result{}}
	for _, c := range cases {
		p.files[c.File] = true
		p.descs[c.key()] = oneLine(c.Desc)
	}
	return p
}

// line takes one line of the log and reports whether it was a test's
// result.
func (p *tester) line(s string) bool {
	s = strings.TrimRight(s, "\r\n")
	if p.ended {
		return false
	}
	if s == testEnd {
		p.ended = true
		return false
	}
	if p.files[s] {
		p.file, p.index, p.last = s, 0, ""
		return false
	}
	if m := resultLine.FindStringSubmatch(s); m != nil && p.file != "" {
		k := testCase{File: p.file, Index: p.index}.key()
		p.index++
		if want, ok := p.descs[k]; !ok || want != oneLine(m[1]) {
			// The tester and the JSON files disagree on the tests: the
			// results would be pinned on the wrong cases.
			p.stray = append(p.stray, p.file+": "+s)
			p.last = ""
			return false
		}
		p.results[k] = result{OK: m[2] == "OK"}
		p.order = append(p.order, k)
		p.last = ""
		if m[2] == "ERROR" {
			p.last = k
		}
		return true
	}
	if m := reasonLine.FindStringSubmatch(s); m != nil && p.last != "" {
		r := p.results[p.last]
		r.Reason = oneLine(m[1])
		p.results[p.last] = r
		p.last = ""
		return false
	}
	if resultLine.MatchString(s) {
		p.stray = append(p.stray, s)
	}
	return false
}

// read feeds every line of r to line.
func (p *tester) read(r io.Reader) error {
	return scan(r, func(s string) { p.line(s) })
}

// scan calls fn with every line of r.
func scan(r io.Reader, fn func(string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20) // a reason quotes whole flow stats
	for sc.Scan() {
		fn(sc.Text())
	}
	return sc.Err()
}

// resultsOf returns the result of every case, in the cases' order; a case
// the tester did not report gets notRun.
func (p *tester) resultsOf(cases []testCase) []result {
	out := make([]result, len(cases))
	for i, c := range cases {
		r, ok := p.results[c.key()]
		if !ok {
			r = result{Reason: notRun}
		}
		out[i] = r
	}
	return out
}

// writeSubset writes, under dst, the suite's files (read from root) that
// hold the cases pick, each with only those of its tests: the folder a
// second tester run reads. It returns, by file description, the index in
// the full file of each test kept, in order.
func writeSubset(root, dst string, pick []testCase) (map[string][]int, error) {
	byPath := map[string][]int{}
	files := map[string]string{}
	for _, c := range pick {
		byPath[c.Path] = append(byPath[c.Path], c.Index)
		files[c.Path] = c.File
	}
	kept := map[string][]int{}
	for path, idx := range byPath {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			return nil, err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		slices.Sort(idx)
		var out []json.RawMessage
		n := 0 // index of the next test among the file's tests
		for _, it := range items {
			var s string
			if json.Unmarshal(it, &s) == nil {
				out = append(out, it)
				continue
			}
			if slices.Contains(idx, n) {
				out = append(out, it)
			}
			n++
		}
		b, err = json.Marshal(out)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dst, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		kept[files[path]] = idx
	}
	return kept, nil
}

// retryable reports whether a test that failed for reason may pass when
// run again on a less busy machine: it waited for a packet, a reply or a
// rate that did not come in time.
func retryable(reason string) bool {
	return strings.Contains(reason, "timeout") || strings.HasPrefix(reason, "Received unexpected throughput")
}

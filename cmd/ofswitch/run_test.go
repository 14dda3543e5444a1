package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runningSwitch is `ofswitch run` started by startRun in the test process.
type runningSwitch struct {
	addr   string // OpenFlow listener, host:port
	mport  int    // metrics port
	cancel context.CancelFunc
	done   chan error
}

// startRun starts `ofswitch run` listening on a free port, with --metrics
// on another and the extra arguments, its log to log, and waits until it
// accepts connections.
func startRun(t *testing.T, log io.Writer, extra ...string) *runningSwitch {
	t.Helper()
	port, mport := freePort(t), freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := &runningSwitch{addr: "127.0.0.1:" + strconv.Itoa(port), mport: mport, cancel: cancel, done: make(chan error, 1)}
	go func() {
		cmd := newRootCmd()
		cmd.SetOut(io.Discard)
		cmd.SetErr(log)
		cmd.SetArgs(append([]string{"run", "--listen", "ptcp:" + strconv.Itoa(port), "--metrics", "127.0.0.1:" + strconv.Itoa(mport)}, extra...))
		s.done <- cmd.ExecuteContext(ctx)
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", s.addr)
		if err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("switch not listening on %s: %v", s.addr, err)
		}
	}
}

// metrics returns what the switch serves on /metrics.
func (s *runningSwitch) metrics(t *testing.T) []byte {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(s.mport) + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// stop stops the switch and fails the test if run returns an error or
// does not return within 10 s.
func (s *runningSwitch) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
}

func TestRunPushMetrics(t *testing.T) {
	var log testutil.LockedBuffer
	profile := filepath.Join(t.TempDir(), "cpu.pprof")
	tracePath := filepath.Join(t.TempDir(), "run.trace")
	// --stats for an hour: one report, at exit.
	sw := startRun(t, &log, "--tables", "2", "--log-level", "warn", "--stats=1h", "--cpuprofile", profile, "--trace", tracePath)
	addr := sw.addr

	dir := t.TempDir()
	good := filepath.Join(dir, "good.flows")
	os.WriteFile(good, []byte("# three flows\npriority=10,ip,nw_dst=10.0.0.1,actions=output:1\npriority=20,tcp,tp_dst=22,actions=drop\n\ntable=1,priority=0,actions=CONTROLLER:128\n"), 0o644)
	out, err := run(t, "push", "--switch", "tcp:"+addr, "--batch", "2", good)
	if err != nil || !strings.Contains(out, "pushed 3 flows in 2 batches") || !strings.Contains(out, "errors: 0") {
		t.Fatalf("push: %v\n%s", err, out)
	}
	// A delete line and a flow the switch refuses: the error names its line.
	edits := filepath.Join(dir, "edits.flows")
	os.WriteFile(edits, []byte("delete tcp,tp_dst=22\nadd priority=5,actions=goto_table:9\n"), 0o644)
	out, err = run(t, "push", "--switch", "tcp:"+addr, edits)
	if err == nil || !strings.Contains(err.Error(), "refused 1 of 2") {
		t.Fatalf("push of a bad flow: err = %v\n%s", err, out)
	}

	// One bundle for the whole file: a refused flow keeps the good one out.
	bundled := filepath.Join(dir, "bundled.flows")
	os.WriteFile(bundled, []byte("priority=6,udp,actions=drop\npriority=7,actions=goto_table:9\n"), 0o644)
	out, err = run(t, "push", "--switch", "tcp:"+addr, "--bundle", "--batch", "0", bundled)
	if err == nil || !strings.Contains(err.Error(), "refused 2 of 2") {
		t.Fatalf("push --bundle of a bad flow: err = %v\n%s", err, out)
	}

	body := sw.metrics(t)
	// Four FLOW_MODs in three bursts (the refused one never reached the
	// tables), three of them insertions into the filters.
	for _, want := range []string{`ofswitch_flows{table="0"} 1`, `ofswitch_flows{table="1"} 1`, `ofswitch_flow_mods_applied_total 4`,
		"ofswitch_burst_latency_seconds_count 3", "ofswitch_burst_apply_seconds_count 3", "ofswitch_update_seconds_count 4",
		"ofswitch_filter_insert_iterations_count 3"} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}

	// The Go runtime's and the process's collectors, as any Go server's.
	for _, want := range []string{"\ngo_goroutines ", "\ngo_memstats_heap_alloc_bytes ", "\nprocess_resident_memory_bytes ", "\nprocess_open_fds "} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("metrics lack %q", want[1:])
		}
	}

	// The memory of the next bursts' rules is made ahead of them, after
	// each burst, on a goroutine of its own (--prefault, 1024 rules).
	prefaulted := regexp.MustCompile(`(?m)^ofswitch_prefaulted_chunks [1-9]`)
	for deadline := time.Now().Add(5 * time.Second); !prefaulted.Match(body); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no prefaulted chunks after the pushes:\n%s", body)
		}
		body = sw.metrics(t)
	}

	// "delete" alone deletes every flow, from every table.
	all := filepath.Join(dir, "all.flows")
	os.WriteFile(all, []byte("delete\n"), 0o644)
	if out, err := run(t, "push", "--switch", "tcp:"+addr, all); err != nil || !strings.Contains(out, "pushed 1 flows in 1 batches") {
		t.Fatalf("push of delete: %v\n%s", err, out)
	}
	body = sw.metrics(t)
	for _, want := range []string{`ofswitch_flows{table="0"} 0`, `ofswitch_flows{table="1"} 0`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("after delete, metrics lack %q:\n%s", want, body)
		}
	}
	// The deleted flows' memory is reclaimed for reuse once the idle
	// maintenance has unlinked them (2 ms after the burst): two rules
	// and their nodes.
	recycled := regexp.MustCompile(`(?m)^ofswitch_recycled_total [4-9]`)
	for deadline := time.Now().Add(5 * time.Second); !recycled.Match(body); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the deleted flows were not recycled:\n%s", body)
		}
		body = sw.metrics(t)
	}

	sw.stop(t)
	checkRecordings(t, profile, tracePath)
	// The report at exit, though --log-level is warn.
	stats := regexp.MustCompile(`msg=bursts .*bursts=4 updates=5 errors=0 .*update_ns\.p50=[1-9].* iterations\.p50=[1-9].* filter\.elements=[0-9]+ `)
	if !stats.MatchString(log.String()) {
		t.Errorf("no --stats report of 4 bursts and 5 updates in the log:\n%s", log.String())
	}
}

func TestPushFileErrors(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.flows")
	os.WriteFile(f, []byte("priority=10,ip,nw_dst=10.0.0.1,actions=output:1\npriority=20,tcp,tp_dstx=22,actions=drop\n"), 0o644)
	_, err := run(t, "push", "--switch", "tcp:127.0.0.1:1", f)
	if err == nil || !strings.Contains(err.Error(), "bad.flows:2:") {
		t.Fatalf("push of a file with a syntax error: %v, want an error naming bad.flows:2:COL", err)
	}
}

// TestRunOverlapBursts pushes batches four at a time into run with and
// without --overlap-bursts: every flow lands either way, and only with the
// flag do bursts go to the connection's applier.
func TestRunOverlapBursts(t *testing.T) {
	var b strings.Builder
	for i := range 4096 {
		fmt.Fprintf(&b, "priority=10,tcp,nw_src=10.%d.%d.1,tp_dst=80,actions=output:1\n", i>>8, i&0xff)
	}
	flows := filepath.Join(t.TempDir(), "f.flows")
	os.WriteFile(flows, []byte(b.String()), 0o644)
	overlapped := regexp.MustCompile(`(?m)^ofswitch_bursts_overlapped_total ([0-9]+)$`)
	for _, overlap := range []bool{false, true} {
		args := []string{"--log-level", "warn"}
		if overlap {
			args = append(args, "--overlap-bursts")
		}
		sw := startRun(t, io.Discard, args...)
		if out, err := run(t, "push", "--switch", "tcp:"+sw.addr, "--batch", "64", "--window", "4", flows); err != nil || !strings.Contains(out, "errors: 0") {
			t.Fatalf("push: %v\n%s", err, out)
		}
		body := sw.metrics(t)
		m := overlapped.FindSubmatch(body)
		if m == nil || !bytes.Contains(body, []byte(`ofswitch_flows{table="0"} 4096`)) {
			t.Fatalf("overlap=%v: want 4096 flows and ofswitch_bursts_overlapped_total:\n%s", overlap, body)
		}
		if n := string(m[1]); (n == "0") == overlap {
			t.Errorf("overlap=%v: %s bursts overlapped", overlap, n)
		}
		sw.stop(t)
	}
}

// TestRunPrefaultOff: --prefault 0 makes no memory ahead of the bursts,
// and a negative count is refused.
func TestRunPrefaultOff(t *testing.T) {
	if _, err := run(t, "run", "--prefault", "-1"); err == nil || !strings.Contains(err.Error(), "--prefault -1") {
		t.Fatalf("run --prefault -1: %v", err)
	}
	sw := startRun(t, io.Discard, "--prefault", "0", "--log-level", "warn")
	defer sw.stop(t)
	addr := sw.addr
	flows := filepath.Join(t.TempDir(), "f.flows")
	os.WriteFile(flows, []byte("priority=10,ip,nw_dst=10.0.0.1,actions=output:1\n"), 0o644)
	if out, err := run(t, "push", "--switch", "tcp:"+addr, flows); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	// With the default, TestRunPushMetrics sees chunks well within this.
	time.Sleep(200 * time.Millisecond)
	if body := sw.metrics(t); !bytes.Contains(body, []byte("\nofswitch_prefaulted_chunks 0\n")) || !bytes.Contains(body, []byte(`ofswitch_flows{table="0"} 1`)) {
		t.Errorf("with --prefault 0, want no prefaulted chunk and one flow:\n%s", body)
	}
}

// TestRunGC checks the collector's target run sets: runGCPercent without
// GOGC in the environment, the runtime's own with it.
func TestRunGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	setRunGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != runGCPercent {
		t.Errorf("without GOGC: target %d, want %d", got, runGCPercent)
	}
	setRunGC(func(k string) string {
		if k == "GOGC" {
			return "150"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC=150 in the environment: run set the target to %d", got)
	}
}

func TestRunFlagErrors(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("live ports need Linux")
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--port", "ofsw-nosuchif", "--listen", "ptcp:0"}, "port ofsw-nosuchif"},
		{[]string{"--port", "ofsw-x", "--port", "ofsw-x"}, "port ofsw-x: given twice"},
		{[]string{"--port", "lo", "--workers", "0"}, "--workers 0"},
		{[]string{"--fail-mode", "open"}, "--fail-mode"},
		{[]string{"--dpid", "xyz"}, "--dpid"},
	} {
		_, err := run(t, append([]string{"run"}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run %v: err = %v, want one naming %q", tt.args, err, tt.want)
		}
	}
	_, err := run(t, "run", "--port", "ofsw-nosuchif")
	if !errors.Is(err, dataplane.ErrNoInterface) {
		t.Errorf("run --port of a missing interface: err = %v, want dataplane.ErrNoInterface", err)
	}
}

// checkRecordings checks what --cpuprofile and --trace wrote at exit: a
// CPU profile of gzipped protocol buffers, and an execution trace of its
// header and events (a push's worth at least: more than the header).
func checkRecordings(t *testing.T, profile, tracePath string) {
	t.Helper()
	if f, err := os.Open(profile); err != nil {
		t.Errorf("--cpuprofile: %v", err)
	} else {
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Errorf("--cpuprofile %s: %v", profile, err)
		} else if n, err := io.Copy(io.Discard, zr); err != nil || n == 0 {
			t.Errorf("--cpuprofile %s: %d bytes, %v", profile, n, err)
		}
	}
	if b, err := os.ReadFile(tracePath); err != nil {
		t.Errorf("--trace: %v", err)
	} else if !regexp.MustCompile(`^go 1\.[0-9]+ trace\x00`).Match(b) || len(b) < 1024 {
		t.Errorf("--trace %s: %d bytes, starting %q", tracePath, len(b), b[:min(len(b), 16)])
	}
}

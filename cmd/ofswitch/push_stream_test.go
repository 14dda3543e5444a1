package main

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/internal/ofpeer"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// writeExactFlows writes n exact flows (flowgen.Exact) to a file of dir,
// and returns its name.
func writeExactFlows(t *testing.T, dir string, n int) string {
	t.Helper()
	name := filepath.Join(dir, "exact.flows")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for off := 0; off < n; off += 10000 {
		if err := ofctl.WriteFlows(w, flowgen.Exact(min(10000, n-off), off)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return name
}

// serveBarriers serves ofpeer.ServeBarriers on a loopback port and
// returns its address.
func serveBarriers(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go ofpeer.ServeBarriers(nc, openflow.Version13)
		}
	}()
	return ln.Addr().String()
}

// TestPushStreamsMemory: push parses and sends a file batch by batch, so
// that the heap it holds does not grow with the file. 300K flows held at
// once, as push held them before it streamed, are 300K rules.Updates
// (over 100 MB) besides the file's text (30 MB) and their lines' names;
// the live heap, sampled while push runs (against a peer that only
// answers barriers, in this process too), must stay below a third of the
// Updates alone; streaming, it grows by a few batches' worth whatever the
// file's size.
func TestPushStreamsMemory(t *testing.T) {
	const n = 300000
	file := writeExactFlows(t, t.TempDir(), n)
	addr := serveBarriers(t)
	var out string
	var err error
	base, peak := testutil.LiveHeapPeak(func() { out, err = run(t, "push", "--switch", "tcp:"+addr, file) })
	if err != nil || !strings.Contains(out, "pushed 300000 flows in 293 batches") {
		t.Fatalf("push: %v\n%s", err, out)
	}
	grew := int64(peak) - int64(base)
	bound := int64(n * unsafe.Sizeof(rules.Update{}) / 3)
	t.Logf("live heap: %d MB before, peak %d MB while pushing %d flows (+%d MB; bound +%d MB)",
		base>>20, peak>>20, n, grew>>20, bound>>20)
	if grew > bound {
		t.Errorf("push of %d flows grew the live heap by %d MB, want under %d MB: it holds the file", n, grew>>20, bound>>20)
	}
}

// TestPushAllOrNothing: a bad line at the end of a file of many chunks
// stops push before it sends anything, as ovs-ofctl add-flows does: the
// whole file is checked first.
func TestPushAllOrNothing(t *testing.T) {
	file := writeExactFlows(t, t.TempDir(), 5000)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("priority=1,ip,nw_src=10.0.0.300,actions=drop\n")
	f.Close()
	addr, got := recordFlowMods(t)
	_, err = run(t, "push", "--batch", "100", "--switch", "tcp:"+addr, file)
	if err == nil || !strings.Contains(err.Error(), file+":5001:22: expected an IPv4 address") {
		t.Fatalf("push: %v", err)
	}
	if n := len(got()); n != 0 {
		t.Fatalf("the switch received %d FLOW_MODs of a file with a bad last line, want none", n)
	}
}

// TestPushStdin: push reads standard input ("-") once, into memory, and
// checks and sends it as it does a file: every flow of a file of three
// chunks arrives, and a bad line stops it before it sends anything.
func TestPushStdin(t *testing.T) {
	var text strings.Builder
	if err := ofctl.WriteFlows(&text, flowgen.Exact(3000, 0)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tail string
		want int
		err  string
	}{{"", 3000, ""}, {"tp_dst=80,actions=drop\n", 0, "<stdin>:3001:1: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ"}} {
		addr, got := recordFlowMods(t)
		cmd := newRootCmd()
		var out strings.Builder
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetIn(strings.NewReader(text.String() + c.tail))
		cmd.SetArgs([]string{"push", "--switch", "tcp:" + addr, "-"})
		err := cmd.Execute()
		if c.err == "" && (err != nil || !strings.Contains(out.String(), "pushed 3000 flows in 3 batches")) ||
			c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Fatalf("push with %q after: %v\n%s", c.tail, err, out.String())
		}
		if n := len(got()); n != c.want {
			t.Fatalf("push with %q after: the switch received %d FLOW_MODs, want %d", c.tail, n, c.want)
		}
	}
}

package main

import (
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// TestRunPunix: `ofswitch run --listen punix:PATH` is a management socket
// that ovs-ofctl and ofswitch push use as unix:PATH, owner-only (0600),
// removed at exit; --max-conns closes the connections over it at once.
func TestRunPunix(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	var log testutil.LockedBuffer
	dir := t.TempDir()
	path := filepath.Join(dir, "br0.mgmt")
	sw := startRun(t, &log, "--listen", "punix:"+path, "--max-conns", "3", "--log-level", "warn")
	stopped := false
	defer func() {
		if !stopped {
			sw.stop(t)
		}
	}()
	// startRun waited for the TCP listener, which run opens first; the
	// file appears when its listener is ready.
	var fi fs.FileInfo
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if fi, err = os.Lstat(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no socket at %s: %v\n%s", path, err, log.String())
		}
	}
	if want := fs.ModeSocket | 0o600; fi.Mode() != want {
		t.Errorf("mode of %s = %v, want %v", path, fi.Mode(), want)
	}
	target := "unix:" + path
	ofctlRun := func(args ...string) (string, error) {
		out, err := exec.Command(ofctl, append([]string{"-O", "OpenFlow13"}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := ofctlRun("add-flow", target, "priority=10,ip,nw_dst=10.0.0.1,actions=output:2"); err != nil {
		t.Fatalf("ovs-ofctl add-flow %s: %v\n%s", target, err, out)
	}
	flows := filepath.Join(dir, "my.flows")
	os.WriteFile(flows, []byte("priority=20,tcp,tp_dst=80,actions=drop\npriority=30,arp,actions=output:1\n"), 0o644)
	if out, errOut, err := runStderr(t, "push", "--switch", target, flows); err != nil || !strings.Contains(out, "pushed 2 flows") {
		t.Fatalf("push --switch %s: %v\n%s%s", target, err, out, errOut)
	}
	got := ovstest.FlowLines(ovstest.DumpFlows(t, ofctl, target))
	want := []string{
		"cookie=0x0, table=0, priority=10,ip,nw_dst=10.0.0.1 actions=output:2",
		"cookie=0x0, table=0, priority=20,tcp,tp_dst=80 actions=drop",
		"cookie=0x0, table=0, priority=30,arp actions=output:1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("dump-flows %s:\n%s\nwant:\n%s", target, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// --max-conns 3: three TCP connections held open leave no room for
	// ovs-ofctl over TCP, whose connection is closed at once, but the
	// management socket is not counted: ovs-ofctl gets in through it.
	var held []net.Conn
	for deadline := time.Now().Add(10 * time.Second); len(held) < 3; {
		nc, err := net.Dial("tcp", sw.addr)
		if err != nil {
			t.Fatal(err)
		}
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		var b [8]byte
		if _, err := io.ReadFull(nc, b[:]); err == nil {
			held = append(held, nc) // the switch's HELLO: served
			continue
		}
		nc.Close() // a slot not yet freed by startRun's probe
		if time.Now().After(deadline) {
			t.Fatalf("%d connections served, want 3", len(held))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if out, err := ofctlRun("dump-flows", "tcp:"+sw.addr); err == nil {
		t.Errorf("dump-flows over TCP with --max-conns 3 connections held succeeded:\n%s", out)
	}
	if out, err := ofctlRun("dump-flows", target); err != nil || len(ovstest.FlowLines(out)) != 3 {
		t.Errorf("dump-flows %s with the TCP slots held: %v, want 3 flows:\n%s", target, err, out)
	}
	held[0].Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, err := ofctlRun("dump-flows", "tcp:"+sw.addr)
		if err == nil {
			if n := len(ovstest.FlowLines(out)); n != 3 {
				t.Errorf("dump-flows after a connection closed: %d flows, want 3:\n%s", n, out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dump-flows after a connection closed: %v\n%s", err, out)
		}
	}
	for _, nc := range held[1:] {
		nc.Close()
	}
	if !strings.Contains(log.String(), "too many connections") {
		t.Errorf("no log line for the refused connection:\n%s", log.String())
	}

	stopped = true
	sw.stop(t)
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("%s after run stopped: %v, want it removed", path, err)
	}
}

// Package ovstest runs Open vSwitch as a reference peer for tests: a
// userspace ovs-vswitchd (netdev datapath, no kernel module) with bridge br0
// in a network namespace of the test's own, started and stopped with
// ../shared/tools/ovs-sandbox.
//
// A test that calls Start is skipped on a machine without root, iproute2 or
// the Open vSwitch packages, except under CI=true, where it fails instead.
package ovstest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vishvananda/netns"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// Port is the OpenFlow port br0 listens on inside the namespace.
const Port = 16653

// Switch is a running Open vSwitch bridge.
type Switch struct {
	NS  string // network namespace name
	Dir string // the sandbox's private folder (logs in Dir/log)
}

var tools = []string{"ip", "ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovsdb-tool", "ovs-ofctl", "ovs-appctl"}

// Available reports why Open vSwitch cannot run here, or nil if it can:
// root for a network namespace, iproute2, the Open vSwitch programs and
// ../shared/tools/ovs-sandbox.
func Available(repoRoot string) error {
	if os.Geteuid() != 0 {
		return errors.New("running Open vSwitch in a network namespace needs root")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not installed (apt-get install openvswitch-switch openvswitch-common iproute2)", tool)
		}
	}
	if _, err := os.Stat(sandboxPath(repoRoot)); err != nil {
		return err
	}
	return nil
}

func sandboxPath(repoRoot string) string {
	return filepath.Join(repoRoot, "..", "shared", "tools", "ovs-sandbox")
}

// Start starts Open vSwitch for the test and stops it at cleanup. It skips
// the test where Available says no, and fails it under CI=true.
func Start(t testing.TB) *Switch {
	t.Helper()
	root := testutil.RepoRoot(t)
	if err := Available(root); err != nil {
		testutil.SkipOrFail(t, err.Error())
	}
	sandbox := sandboxPath(root)
	var b [4]byte
	rand.Read(b[:])
	s := &Switch{NS: "ofsw-" + hex.EncodeToString(b[:]), Dir: t.TempDir()}
	if out, err := exec.Command("ip", "netns", "add", s.NS).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v\n%s", s.NS, err, out)
	}
	t.Cleanup(func() {
		s.Exec(sandbox, "down", s.Dir).Run()
		if out, err := exec.Command("ip", "netns", "del", s.NS).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v\n%s", s.NS, err, out)
		}
	})
	if out, err := s.Exec(sandbox, "up", s.Dir, strconv.Itoa(Port)).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.Dir, "log", "ovs-vswitchd.log"))
		t.Fatalf("ovs-sandbox up: %v\n%s\n%s", err, out, log)
	}
	return s
}

// Target is the bridge's OpenFlow target, valid inside the namespace.
func (s *Switch) Target() string { return "tcp:127.0.0.1:" + strconv.Itoa(Port) }

// Exec returns a command that runs inside the namespace, with the
// sandbox's OVS_* variables so that ovs-vsctl and ovs-appctl find it.
func (s *Switch) Exec(name string, args ...string) *exec.Cmd {
	cmd := exec.Command("ip", append([]string{"netns", "exec", s.NS, name}, args...)...)
	cmd.Env = append(os.Environ(),
		"OVS_RUNDIR="+filepath.Join(s.Dir, "run"), "OVS_LOGDIR="+filepath.Join(s.Dir, "log"),
		"OVS_DBDIR="+filepath.Join(s.Dir, "db"), "OVS_SYSCONFDIR="+filepath.Join(s.Dir, "etc"))
	return cmd
}

// Ofctl runs "ovs-ofctl -O OpenFlow13 CMD TARGET ARGS..." against target
// (the bridge if empty) inside the namespace and returns its output.
func (s *Switch) Ofctl(target, cmd string, args ...string) (string, error) {
	if target == "" {
		target = s.Target()
	}
	out, err := s.Exec("ovs-ofctl", append([]string{"-O", "OpenFlow13", cmd, target}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ovs-ofctl %s %s: %w\n%s", cmd, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Dial connects to addr from inside the namespace: the socket is made on a
// thread that has entered it, and stays there.
func (s *Switch) Dial(addr string) (net.Conn, error) {
	var conn net.Conn
	err := s.Do(func() error {
		var err error
		conn, err = net.Dial("tcp", addr)
		return err
	})
	return conn, err
}

// Listen listens on addr inside the namespace.
func (s *Switch) Listen(addr string) (net.Listener, error) {
	var l net.Listener
	err := s.Do(func() error {
		var err error
		l, err = net.Listen("tcp", addr)
		return err
	})
	return l, err
}

// Do runs fn on an OS thread inside the namespace. Sockets fn creates
// belong to the namespace; goroutines it starts do not run there.
func (s *Switch) Do(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return err
	}
	defer orig.Close()
	ns, err := netns.GetFromName(s.NS)
	if err != nil {
		return err
	}
	defer ns.Close()
	if err := netns.Set(ns); err != nil {
		return err
	}
	fnErr := fn()
	if err := netns.Set(orig); err != nil {
		// The thread is in the wrong namespace: keep it locked so that
		// it dies with this goroutine instead of serving others.
		runtime.LockOSThread()
		return fmt.Errorf("return from namespace %s: %w", s.NS, err)
	}
	return fnErr
}

// AddPort adds interface name, which must already be in the bridge's
// namespace, to br0 as OpenFlow port ofport (ofport_request), and waits
// until the bridge describes it: the port is usable once AddPort returns.
// It fails t if Open vSwitch does not take the port within 10 s.
func (s *Switch) AddPort(t testing.TB, name string, ofport int) {
	t.Helper()
	if out, err := s.Exec("ovs-vsctl", "add-port", "br0", name, "--", "set", "interface", name,
		"ofport_request="+strconv.Itoa(ofport)).CombinedOutput(); err != nil {
		t.Fatalf("ovs-vsctl add-port br0 %s: %v\n%s", name, err, out)
	}
	want := " " + strconv.Itoa(ofport) + "(" + name + "): "
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		out, _ = s.Ofctl("", "show")
		if strings.Contains(out, want) {
			return
		}
	}
	t.Fatalf("br0 does not show port %d(%s) within 10 s:\n%s", ofport, name, out)
}

// AddInternalPorts adds n internal ports p1..pn to br0 as OpenFlow ports
// 1..n (internal ports need no kernel module and no device made first),
// and waits until the bridge describes the last of them.
func (s *Switch) AddInternalPorts(t testing.TB, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		name := "p" + strconv.Itoa(i)
		if out, err := s.Exec("ovs-vsctl", "add-port", "br0", name, "--", "set", "interface", name,
			"type=internal", "ofport_request="+strconv.Itoa(i)).CombinedOutput(); err != nil {
			t.Fatalf("ovs-vsctl add-port br0 %s: %v\n%s", name, err, out)
		}
	}
	last := fmt.Sprintf(" %d(p%d): ", n, n)
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if out, _ = s.Ofctl("", "show"); strings.Contains(out, last) {
			return
		}
	}
	t.Fatalf("br0 does not show port%s within 10 s:\n%s", strings.TrimSuffix(last, ": "), out)
}

// DatapathPorts maps br0's datapath port numbers, as ofproto/trace's
// "Datapath actions" name them, to OpenFlow port numbers (ovs-appctl
// dpif/show: "p1 1/2: (tap)"), for ports p1..pn; it fails t unless it
// finds n of them.
func (s *Switch) DatapathPorts(t testing.TB, n int) map[string]uint32 {
	t.Helper()
	out, err := s.Exec("ovs-appctl", "dpif/show").CombinedOutput()
	if err != nil {
		t.Fatalf("dpif/show: %v\n%s", err, out)
	}
	m := map[string]uint32{}
	for _, f := range dpifPort.FindAllStringSubmatch(string(out), -1) {
		of, _ := strconv.Atoi(f[1])
		m[f[2]] = uint32(of)
	}
	if len(m) != n {
		t.Fatalf("dpif/show: %d ports of p1-p%d:\n%s", len(m), n, out)
	}
	return m
}

var dpifPort = regexp.MustCompile(`(?m)^\s+p\d+ (\d+)/(\d+):`)

// VswitchdPID returns the process id of the bridge's ovs-vswitchd, from
// the pid file the sandbox has it write.
func (s *Switch) VswitchdPID() (int, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir, "run", "ovs-vswitchd.pid"))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("ovs-vswitchd.pid: %w", err)
	}
	return pid, nil
}

//go:build linux

// Package netnstest creates network namespaces and veth pairs for tests
// and removes them when the test ends, even when it fails.
//
// A test that calls New is skipped on a machine without root or iproute2,
// except under CI=true, where it fails instead.
package netnstest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vishvananda/netns"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// Available reports why namespaces cannot be made here, or nil if they
// can: root and the ip command (iproute2).
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("ip not installed (apt-get install iproute2)")
	}
	return nil
}

// Require skips t where Available says no, and fails it under CI=true.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		testutil.SkipOrFail(t, err.Error())
	}
}

// NS is a named network namespace that belongs to one test.
type NS struct {
	Name string
	h    netns.NsHandle
}

var seq atomic.Uint32

// New creates a namespace named prefix plus a suffix unique to this
// process, with its loopback up, and deletes it at t's cleanup (which
// also destroys the interfaces in it). It calls Require first.
func New(t testing.TB, prefix string) *NS {
	t.Helper()
	Require(t)
	name := fmt.Sprintf("%s%d-%d", prefix, os.Getpid()%100000, seq.Add(1))
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v\n%s", name, err, out)
	}
	n := &NS{Name: name, h: -1}
	t.Cleanup(func() {
		if n.h.IsOpen() {
			n.h.Close()
		}
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v\n%s", name, err, out)
		}
	})
	h, err := netns.GetFromName(name)
	if err != nil {
		t.Fatalf("open namespace %s: %v", name, err)
	}
	n.h = h
	n.IP(t, "link", "set", "lo", "up")
	return n
}

// Attach returns an NS for an existing namespace that another helper
// owns (it is not deleted at t's cleanup; its handle is closed then).
func Attach(t testing.TB, name string) *NS {
	t.Helper()
	Require(t)
	h, err := netns.GetFromName(name)
	if err != nil {
		t.Fatalf("open namespace %s: %v", name, err)
	}
	t.Cleanup(func() { h.Close() })
	return &NS{Name: name, h: h}
}

// Handle returns the namespace's handle, valid until the test's cleanup.
func (n *NS) Handle() netns.NsHandle { return n.h }

// IP runs `ip -n NAME args...` and fails t if it fails.
func (n *NS) IP(t testing.TB, args ...string) {
	t.Helper()
	args = append([]string{"-n", n.Name}, args...)
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Exec runs a command in the namespace (ip netns exec) and returns its
// combined output.
func (n *NS) Exec(name string, args ...string) ([]byte, error) {
	return exec.Command("ip", append([]string{"netns", "exec", n.Name, name}, args...)...).CombinedOutput()
}

// Do runs fn on a new goroutine locked to an OS thread that entered the
// namespace, and returns its error. Sockets fn opens belong to the
// namespace. The thread is not reused afterwards: its goroutine exits
// while still locked, so the Go runtime ends the thread.
func (n *NS) Do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		if err := netns.Set(n.h); err != nil {
			errc <- fmt.Errorf("enter namespace %s: %w", n.Name, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// Veth creates a veth pair: interface aName in namespace a and its peer
// bName in b, both up. aName may equal bName. The pair disappears with
// either namespace.
func Veth(t testing.TB, a *NS, aName string, b *NS, bName string) {
	t.Helper()
	a.IP(t, "link", "add", aName, "type", "veth", "peer", "name", bName, "netns", b.Name)
	a.IP(t, "link", "set", aName, "up")
	b.IP(t, "link", "set", bName, "up")
}

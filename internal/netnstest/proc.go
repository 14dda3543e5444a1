//go:build linux

package netnstest

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// Proc is a program a test runs, in a namespace or not, until the test's
// cleanup. Its standard output and error go to one buffer (Log).
type Proc struct {
	Cmd    *exec.Cmd
	out    testutil.LockedBuffer
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// Start starts name in namespace ns ("" for the test's own). At cleanup
// it sends SIGTERM and, if the program is still there 10 s later,
// SIGKILL; if stopErr is set it receives the program's exit error (nil
// for a clean exit on SIGTERM) and its log.
func Start(t testing.TB, ns string, stopErr func(err error, log string), name string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Cmd: exec.Command(name, args...), exited: make(chan struct{})}
	if ns != "" {
		p.Cmd = exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
	}
	p.Cmd.Stdout, p.Cmd.Stderr = &p.out, &p.out
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.Cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			p.Cmd.Process.Kill()
			<-p.exited
			if stopErr != nil {
				stopErr(fmt.Errorf("%s did not stop within 10 s of SIGTERM", name), p.out.String())
			}
			return
		}
		if stopErr != nil {
			stopErr(p.err, p.out.String())
		}
	})
	return p
}

// Exited reports whether the program has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Log returns what the program has printed so far, after its exit error
// if it has ended.
func (p *Proc) Log() string {
	if p.Exited() {
		return fmt.Sprintf("(exited: %v)\n%s", p.err, p.out.String())
	}
	return p.out.String()
}

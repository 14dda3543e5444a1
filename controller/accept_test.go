package controller

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// flakyListener fails its first n Accepts with err, then accepts from l.
type flakyListener struct {
	net.Listener
	n   atomic.Int32
	err error
}

func (f *flakyListener) Accept() (net.Conn, error) {
	if f.n.Add(-1) >= 0 {
		return nil, f.err
	}
	return f.Listener.Accept()
}

// TestServeSurvivesAcceptErrors checks that Serve keeps listening through
// transient accept errors (out of descriptors: what a flood of
// connections causes), logging each, and ends on any other.
func TestServeSurvivesAcceptErrors(t *testing.T) {
	var logBuf testutil.LockedBuffer
	a, err := New(&Config{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: l, err: &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}}
	fl.n.Store(5)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, fl) }()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, nc: nc, r: openflow.NewReader(nc, 0)}
	c.handshake(openflow.Version13)
	nc.Close()
	if n := strings.Count(logBuf.String(), "accept failed"); n != 5 {
		t.Errorf("%d accept failures logged, want 5:\n%s", n, logBuf.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}

	// Any other error ends Serve, naming the listener.
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	bad := &flakyListener{Listener: l2, err: errors.New("listener broken")}
	bad.n.Store(1)
	if err := a.Serve(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "listener broken") || !strings.Contains(err.Error(), l2.Addr().String()) {
		t.Errorf("Serve on a broken listener: %v", err)
	}
}

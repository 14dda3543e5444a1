package controller

import (
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// runPunix runs an agent with cfg on the targets and waits until path
// is a socket other than old (nil: any); the returned function stops it
// and returns Run's error.
func runPunix(t *testing.T, cfg *Config, path string, old fs.FileInfo, targets ...Target) (*Agent, func() error) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, targets) }()
	stop := sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after cancel")
			return nil
		}
	})
	t.Cleanup(func() { stop() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		// The file appears when its mode is final (the rename), so
		// waiting for it does not take a connection.
		if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket && (old == nil || !os.SameFile(fi, old)) {
			return a, stop
		}
		select {
		case err := <-done:
			t.Fatalf("Run ended before %s appeared: %v", path, err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
	}
}

func punixTarget(t *testing.T, path string) Target {
	t.Helper()
	tgt, err := ParseTarget("punix:" + path)
	if err != nil {
		t.Fatal(err)
	}
	return tgt
}

func dialUnix(t *testing.T, path string) *client {
	t.Helper()
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, r: openflow.NewReader(nc, 0)}
}

// TestPunix checks a punix: target: the socket is owner-only (0600) with
// nothing else left in its directory, a controller talks OpenFlow over
// it, and the file is gone when Run returns.
func TestPunix(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "br0.mgmt")
	_, stop := runPunix(t, &Config{}, path, nil, punixTarget(t, path))
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode(), fs.ModeSocket|0o600; got != want {
		t.Errorf("mode of %s = %v, want %v", path, got, want)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 {
		t.Errorf("%s holds %v (%v), want only br0.mgmt", dir, ents, err)
	}
	c := dialUnix(t, path)
	c.handshake(openflow.Version13)
	c.send(&openflow.EchoRequest{Header: hdr(0, 7), Data: []byte("ping")})
	var echo openflow.EchoReply
	if err := echo.UnmarshalBinary(c.recv(openflow.TypeEchoReply)); err != nil || echo.XID != 7 || string(echo.Data) != "ping" {
		t.Errorf("echo reply %+v, %v", echo, err)
	}
	if err := stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("%s after Run returned: %v, want it removed", path, err)
	}
}

// TestPunixReplacesStale checks that a socket file nothing accepts on
// (left by a process that died) is replaced.
func TestPunixReplacesStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "br0.mgmt")
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ul.SetUnlinkOnClose(false)
	ul.Close()
	old, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	runPunix(t, &Config{}, path, old, punixTarget(t, path))
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(fi, old) {
		t.Errorf("%s is still the stale socket", path)
	}
	if fi.Mode() != fs.ModeSocket|0o600 {
		t.Errorf("mode %v, want %v", fi.Mode(), fs.ModeSocket|0o600)
	}
	dialUnix(t, path).handshake(openflow.Version13)
}

// TestPunixRefuses checks that Run refuses a path that is not a socket,
// or a socket that another process accepts on, and leaves it as it was.
func TestPunixRefuses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "live")
	ll, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer ll.Close()
	go func() {
		for {
			c, err := ll.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, tt := range []struct{ path, want string }{
		{file, "not a socket"},
		{sub, "not a socket"},
		{live, "in use: something listens on it"},
	} {
		a, err := New(&Config{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = a.Run(ctx, []Target{punixTarget(t, tt.path)})
		cancel()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run on %s: %v, want an error saying %q", tt.path, err, tt.want)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep me" {
		t.Errorf("%s now holds %q, %v", file, b, err)
	}
	if c, err := net.Dial("unix", live); err != nil {
		t.Errorf("the live socket no longer accepts: %v", err)
	} else {
		c.Close()
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("%s holds %v, want file, dir and live only", dir, ents)
	}
}

// TestPunixTooLong checks that a directory too long for the temporary
// name the socket is bound under first is refused with a clear error,
// and that nothing is left behind.
func TestPunixTooLong(t *testing.T) {
	dir := t.TempDir()
	dir = filepath.Join(dir, strings.Repeat("d", maxSocketPath-8-len(dir)))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "m") // 107 - 6 bytes: fits a socket address
	if _, err := listenUnix(path); err == nil || !strings.Contains(err.Error(), "directory too long") {
		t.Errorf("listenUnix(%q): %v, want directory too long", path, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%s holds %v, want nothing", dir, ents)
	}
}

// TestPunixPeerName checks that a connection accepted on a punix: target
// is named by the path, a count and (on Linux) the peer's pid and uid.
func TestPunixPeerName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "br0.mgmt")
	l, err := listenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ac, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close()
	want := path + "#1"
	if runtime.GOOS == "linux" {
		want += " pid=" + strconv.Itoa(os.Getpid()) + " uid=" + strconv.Itoa(os.Getuid())
	}
	if got := ac.RemoteAddr().String(); got != want {
		t.Errorf("RemoteAddr = %q, want %q", got, want)
	}
	if got := ac.LocalAddr().String(); got != path {
		t.Errorf("LocalAddr = %q, want %q", got, path)
	}
}

// TestPunixCloseKeepsReplacement checks that closing the listener does
// not remove a file that replaced its socket.
func TestPunixCloseKeepsReplacement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "br0.mgmt")
	l, err := listenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Addr().String(); got != path {
		t.Errorf("Addr = %q, want %q", got, path)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("the file that replaced the socket: %v", err)
	}
}

// TestUnixActive checks that a unix: target connects to a controller
// listening on a Unix domain socket.
func TestUnixActive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctl.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tgt, err := ParseTarget("unix:" + path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(&Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, []Target{tgt}) }()
	defer func() { cancel(); <-done }()
	l.(*net.UnixListener).SetDeadline(time.Now().Add(10 * time.Second))
	nc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := &client{t: t, nc: nc, r: openflow.NewReader(nc, 0)}
	c.handshake(openflow.Version13)
	c.send(&openflow.EchoRequest{Header: hdr(0, 9)})
	c.recv(openflow.TypeEchoReply)
}

package controller

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// listen opens the listener of the passive target t: TCP for ptcp: and
// pssl: (the TLS layer is the caller's), a Unix domain socket for punix:
// (see listenUnix).
func listen(t Target) (net.Listener, error) {
	if t.Network() == "unix" {
		return listenUnix(t.Path)
	}
	return net.Listen("tcp", t.Addr())
}

// listenUnix listens on a Unix domain socket at path that only the
// switch's user may connect to (mode 0600, as Open vSwitch's management
// socket), for a punix: target.
//
// The mode is right from the moment the socket is reachable at path: the
// socket is bound in a new directory of mode 0700 beside path, made
// 0600 there and renamed onto path. A umask would do the same with
// one system call less, but the umask belongs to the whole process, and
// another goroutine creating a file at the same moment would get it too.
// The rename replaces a socket file that a dead process left behind
// (nothing accepts on it) in one step; a path that is not a socket, or a
// socket another process accepts on, is refused. The listener's Close
// removes the file, unless something else has replaced it by then. The
// check and the rename are two steps: a user who may write to path's
// directory can swap a file in between, as they could remove the
// socket.
//
// The temporary directory is in path's directory (a rename cannot cross
// file systems), and the name first bound is that directory plus about 20
// bytes: a directory whose name is within that of the 107-byte limit of
// a socket address is refused, saying so.
func listenUnix(path string) (net.Listener, error) {
	if err := checkStaleSocket(path); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), ".ofswitch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	if len(tmp) > maxSocketPath {
		return nil, fmt.Errorf("%s: directory too long: the socket is bound first as %s, over the %d bytes a socket address holds", path, tmp, maxSocketPath)
	}
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, err
	}
	// The listener's own unlink on Close would look for tmp, which is
	// gone: unixListener.Close removes path instead.
	ul.SetUnlinkOnClose(false)
	fi, err := os.Lstat(tmp)
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		ul.Close()
		return nil, err
	}
	return &unixListener{UnixListener: ul, addr: &net.UnixAddr{Name: path, Net: "unix"}, fi: fi}, nil
}

// maxSocketPath is the longest path a Unix domain socket address holds
// on Linux (sun_path is 108 bytes, with its terminating NUL).
const maxSocketPath = 107

// checkStaleSocket returns nil if path does not exist or is a socket
// that nothing accepts on (a dead process's), and an error if it is
// something else, or a socket that something accepts on or that this
// process may not connect to.
func checkStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket (%v): not replacing it", path, fi.Mode().Type())
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%s: in use: something listens on it", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%s: not replacing it: %w", path, err)
	}
	return nil
}

// unixListener is a punix: target's listener: Addr is the target's path,
// Close removes the socket file (if it is still the one the listener
// made), and the connections it accepts are named "PATH#N pid=P uid=U"
// in log lines, N counting them, since a Unix domain socket's peer has no
// address: the process that connected and its user (on Linux).
type unixListener struct {
	*net.UnixListener
	addr   *net.UnixAddr
	fi     fs.FileInfo // the socket file, to recognise it at Close
	n      atomic.Uint64
	remove sync.Once
}

func (l *unixListener) Addr() net.Addr { return l.addr }

func (l *unixListener) Accept() (net.Conn, error) {
	c, err := l.UnixListener.AcceptUnix()
	if err != nil {
		return nil, err
	}
	peer := &net.UnixAddr{Name: l.addr.Name + "#" + strconv.FormatUint(l.n.Add(1), 10) + peerCred(c), Net: "unix"}
	return &unixConn{UnixConn: c, local: l.addr, peer: peer}, nil
}

func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	l.remove.Do(func() {
		if fi, err := os.Lstat(l.addr.Name); err == nil && os.SameFile(fi, l.fi) {
			os.Remove(l.addr.Name)
		}
	})
	return err
}

// unixConn is a connection accepted on a punix: target, with the
// addresses its listener gives it.
type unixConn struct {
	*net.UnixConn
	local, peer net.Addr
}

func (c *unixConn) LocalAddr() net.Addr  { return c.local }
func (c *unixConn) RemoteAddr() net.Addr { return c.peer }

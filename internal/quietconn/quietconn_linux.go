package quietconn

import (
	"io"
	"net"
	"os"
	"syscall"
)

// Wrap returns a TCP connection whose reads and writes are made without
// telling Go's scheduler they are system calls, or nc itself if it is not
// a *net.TCPConn (a TLS connection, a pipe in tests). See the package
// documentation for why.
func Wrap(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	return &conn{TCPConn: tc, rc: rc}
}

// conn is a *net.TCPConn whose Read and Write go through sysRead and
// sysWrite (see Wrap).
type conn struct {
	*net.TCPConn
	rc syscall.RawConn
}

func (c *conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var (
		n    int
		serr error
	)
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			n, serr = sysRead(int(fd), b)
			switch serr {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the poller
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case serr != nil:
		return 0, c.opError("read", serr)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *conn) Write(b []byte) (int, error) {
	var (
		n    int
		serr error
	)
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, e := sysWrite(int(fd), b[n:])
			switch e {
			case nil:
				n += m
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait in the poller, then go on from n
			default:
				serr = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, err
	case serr != nil:
		return n, c.opError("write", serr)
	}
	return n, nil
}

// opError wraps a system call's error as net.Conn's methods do.
func (c *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError(op, err)}
}

package controller

import (
	"io"
	"net"
	"os"
	"syscall"
)

// quietSyscalls returns a TCP connection whose reads and writes are made
// without telling Go's scheduler they are system calls, or nc itself if it
// is not a *net.TCPConn (a TLS connection, a pipe in tests).
//
// A read or write of a Go connection enters the runtime's system call
// state, and the first such entry after the process was idle wakes the
// runtime's monitor thread (sysmon), which then polls every 20 µs for as
// long as the process is busy, preempting the thread that applies the
// burst on a machine of few processors. A switch that a controller keeps
// waiting for each barrier reply is idle between every two batches: each
// batch woke the monitor and was interrupted by it, about 3.6 thread
// switches a batch. The socket is non-blocking, so a read or write here
// never waits in the kernel; when the socket is not ready it waits in
// Go's network poller, with the connection's deadlines, as net.Conn does.
// (BENCHMARKS.md, 2026-11-25: steady 256-flow batches at 100K flows.)
func quietSyscalls(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	return &quietConn{TCPConn: tc, rc: rc}
}

// quietConn is a *net.TCPConn whose Read and Write go through sysRead and
// sysWrite (see quietSyscalls).
type quietConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

func (c *quietConn) Read(b []byte) (int, error) {
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

func (c *quietConn) Write(b []byte) (int, error) {
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
func (c *quietConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError(op, err)}
}

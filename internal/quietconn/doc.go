// Package quietconn makes the reads and writes of a TCP connection without
// telling Go's scheduler they are system calls: the OpenFlow channel's
// connections (package controller) and the push client's
// (controller/push) go through it.
//
// # Why
//
// A read or write of a Go connection enters the runtime's system call
// state, and the first such entry after the process was idle wakes the
// runtime's monitor thread (sysmon), which then polls every 20 µs for as
// long as the process is busy, preempting the thread that applies the
// burst on a machine of few processors. A switch that a controller keeps
// waiting for each barrier reply is idle between every two batches: each
// batch woke the monitor and was interrupted by it, about 3.6 thread
// switches a batch (steady 256-flow batches at 100K flows; commit 2a3ee0e
// has the trace and the comparison).
//
// # How
//
// The socket is non-blocking, so a read or write here never waits in the
// kernel; when the socket is not ready it waits in Go's network poller,
// with the connection's deadlines, as net.Conn does. Under the race
// detector the system calls go through package syscall, whose
// annotations tell the detector that what one goroutine wrote to a socket
// happened before another read it; they are then announced to the
// scheduler, which only costs time. On systems other than Linux, Wrap
// returns the connection as it is.
package quietconn

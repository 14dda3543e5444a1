package rules_test

import (
	"runtime"
	"syscall"
	"unsafe"
)

// threadCPU is a clock of the CPU time the calling goroutine's thread
// runs, for benchmarks on a machine that other work shares: wall time
// counts the slices the scheduler gives to others, CPU time of the thread
// only what the benchmark's loop itself runs (and waits for memory).
type threadCPU struct{ start int64 }

// startThreadCPU locks the goroutine to its thread and starts the clock.
func startThreadCPU() threadCPU {
	runtime.LockOSThread()
	return threadCPU{threadNanos()}
}

// stop returns the thread's CPU nanoseconds since start, and unlocks the
// goroutine; ok is false where the clock cannot be read.
func (c threadCPU) stop() (ns float64, ok bool) {
	end := threadNanos()
	runtime.UnlockOSThread()
	return float64(end - c.start), c.start >= 0 && end >= 0
}

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

func threadNanos() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return ts.Nano()
}

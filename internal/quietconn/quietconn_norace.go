//go:build linux && !race

package quietconn

import (
	"syscall"
	"unsafe"
)

// sysRead is read(2) as a raw system call: the scheduler is not told (see
// Wrap). len(p) > 0.
func sysRead(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// sysWrite is write(2) as a raw system call. len(p) > 0.
func sysWrite(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

package controller

import (
	"net"
	"strconv"
	"syscall"
)

// peerCred returns " pid=P uid=U" for the process at the other end of c
// (SO_PEERCRED: the process that connected, as the kernel recorded it
// then), or "" if the kernel does not say.
func peerCred(c *net.UnixConn) string {
	rc, err := c.SyscallConn()
	if err != nil {
		return ""
	}
	var cred *syscall.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return ""
	}
	return " pid=" + strconv.Itoa(int(cred.Pid)) + " uid=" + strconv.Itoa(int(cred.Uid))
}

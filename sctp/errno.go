package sctp

import "syscall"

var (
	errAddrInUse   error = syscall.EADDRINUSE
	errConnAborted error = syscall.ECONNABORTED
)

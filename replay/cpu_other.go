//go:build !linux

package replay

import "time"

// threadCPU reports false: the controller's CPU time is measured on Linux.
func threadCPU() (time.Duration, bool) { return 0, false }

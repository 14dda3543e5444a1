package rules

import "unsafe"

// prefetch asks the CPU to bring the cache line at addr closer without
// waiting for it (PREFETCHT0); it never faults.
//
//go:noescape
func prefetch(addr unsafe.Pointer)

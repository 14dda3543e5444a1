// Package prefetch asks the processor to start loading a cache line that
// the caller will need soon, so that the miss overlaps other work. It is a
// hint: it never faults and changes nothing a program can observe.
package prefetch

import "unsafe"

// Line starts loading the cache line at addr into all cache levels
// (PREFETCHT0) without waiting for it.
//
//go:noescape
func Line(addr unsafe.Pointer)

// Lines starts loading the cache lines of the size bytes at addr, as Line
// does for each, in one call: an object of a dozen lines costs one call,
// not a dozen.
//
//go:noescape
func Lines(addr unsafe.Pointer, size uintptr)

//go:build !amd64

// Package prefetch asks the processor to start loading a cache line that
// the caller will need soon, so that the miss overlaps other work. It is a
// hint: it never faults and changes nothing a program can observe.
package prefetch

import "unsafe"

// Line does nothing where no prefetch instruction is wired up.
func Line(unsafe.Pointer) {}

// Lines does nothing where no prefetch instruction is wired up.
func Lines(unsafe.Pointer, uintptr) {}

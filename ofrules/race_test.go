//go:build race

package ofrules

// raceEnabled skips the allocation tests, whose counts the race detector
// changes.
const raceEnabled = true

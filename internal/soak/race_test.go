//go:build race

package soak_test

// raceEnabled shortens TestChurnSoak under the race detector and leaves
// out its heap check.
const raceEnabled = true

//go:build race

package classbench_test

// raceEnabled scales the data-driven tests down under the race detector.
const raceEnabled = true

//go:build race

package filter

// raceEnabled scales sequential tests down under the race detector, which
// slows them ~20x without finding more in code that runs on one goroutine.
const raceEnabled = true

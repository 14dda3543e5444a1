//go:build race

package paper

// raceEnabled shrinks the experiments under the race detector.
const raceEnabled = true

//go:build !race

package ofrules

const raceEnabled = false

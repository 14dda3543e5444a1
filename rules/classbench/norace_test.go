//go:build !race

package classbench_test

const raceEnabled = false

package rules

import "testing"

// TestDecideUse checks the rule's thresholds: in an index of less than 1
// MB of slots a subtable goes behind the filter where more than half of
// the sampled visits miss it, beyond where a quarter do; near a threshold
// the use stays; a large index loads the slot ahead unless most visits
// are filter negatives.
func TestDecideUse(t *testing.T) {
	const small, mid, large = 1 << 10, 1 << 14, prefetchSlots
	pct := func(p int) int { return sampleWindow * p / 100 }
	for _, c := range []struct {
		old   uint32
		m     int
		slots int
		want  uint32
	}{
		{useFilter, 0, small, useProbe},
		{useFilter, pct(40), small, useProbe},
		{useFilter, pct(60), small, useFilter},
		{useProbe, pct(90), small, useFilter},
		{useProbe, probeMissesSmall + 1, small, useProbe},             // within the hysteresis
		{useFilter, probeMissesSmall - 1, small, useFilter},           // within the hysteresis
		{useFilter, pct(100), large, useFilter},                       // mostly negatives: nothing ahead
		{useProbe, pct(50), large, useFilterAhead},                    // half misses: filter, slot ahead
		{useFilterAhead, pct(5), large, useProbe},                     // hits: probe
		{useFilterAhead, probeMissesLarge - 1, large, useFilterAhead}, // within the hysteresis
	} {
		if got := decideUse(c.old, c.m, c.slots); got != c.want {
			t.Errorf("decideUse(%d, %d, %d) = %d, want %d", c.old, c.m, c.slots, got, c.want)
		}
	}
}

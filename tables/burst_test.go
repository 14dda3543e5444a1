package tables

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDistOf(t *testing.T) {
	vs := make([]int64, 200)
	for i := range vs {
		vs[i] = int64(200 - i) // 200..1, unsorted
	}
	want := Dist{N: 200, P50: 100, P99: 198, Max: 200, Mean: 100.5}
	if got := distOf(vs); got != want {
		t.Errorf("distOf(1..200) = %+v, want %+v", got, want)
	}
	if got := distOf(nil); got != (Dist{}) {
		t.Errorf("distOf(nil) = %+v", got)
	}
	if got := distOf([]int64{7}); got != (Dist{N: 1, P50: 7, P99: 7, Max: 7, Mean: 7}) {
		t.Errorf("distOf(7) = %+v", got)
	}
}

// TestSelectDist checks the selection behind every burst's figures against
// sorting, on values with few and with many repeats, of every length up to
// a few bursts.
func TestSelectDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, spread := range []int64{1, 3, 1000, 1 << 40} {
		for n := 0; n <= 600; n += 1 + n/16 {
			vs := make([]int64, n)
			for i := range vs {
				vs[i] = 1 + rng.Int64N(spread)
			}
			if spread == 3 && n > 2 {
				slices.Sort(vs) // sorted input: the worst case of naive pivots
			}
			want := distOf(slices.Clone(vs))
			if got := selectDist(vs); got != want {
				t.Fatalf("spread %d, n %d: selectDist = %+v, distOf = %+v", spread, n, got, want)
			}
		}
	}
}

// distOf returns the distribution of vs, which it sorts: the reference
// selectDist must agree with.
func distOf(vs []int64) Dist {
	slices.Sort(vs)
	return selectDist(vs)
}

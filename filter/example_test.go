package filter_test

import (
	"fmt"
	"hash/maphash"

	"github.com/ofswitch/ofswitch/filter"
)

func Example() {
	f, err := filter.New(filter.Config{Buckets: 1 << 10, BloomAfter: 10})
	if err != nil {
		panic(err)
	}
	// The filter takes 64-bit hashes; hash each key once.
	seed := maphash.MakeSeed()
	h := func(s string) uint64 { return maphash.String(seed, s) }

	res := f.Insert(h("10.0.0.1 -> 10.0.0.2 tcp 80"))
	fmt.Println(res.Placement, res.Iterations)
	fmt.Println(f.Contains(h("10.0.0.1 -> 10.0.0.2 tcp 80")))
	fmt.Println(f.Delete(h("10.0.0.1 -> 10.0.0.2 tcp 80")), f.Len())
	// Output:
	// cuckoo 1
	// true
	// true 0
}

// A burst into a nearly full filter: with t = 0 an insertion whose two
// buckets are full takes their Bloom bits at once instead of kicking.
func ExampleFilter_SetBloomAfter() {
	f, _ := filter.New(filter.Config{Buckets: 1 << 12, BloomAfter: -1, Seed: 1})
	key := uint64(0)
	next := func() uint64 { // splitmix64 of a counter: distinct, well mixed
		key++
		z := key * 0x9e3779b97f4a7c15
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for f.Occupancy() < 0.96 {
		f.Insert(next()) // fill with plain cuckoo insertion
	}
	f.SetBloomAfter(0)
	f.ResetStats()
	for range 256 {
		f.Insert(next())
	}
	s := f.Stats()
	fmt.Println("max iterations in the burst:", s.MaxIterationsSeen)
	fmt.Println("elements in the Bloom part:", s.BloomLen)
	// Deleting makes room (and removes a few Bloom elements with their
	// keys); Rebalance then moves the rest back into cuckoo slots.
	for k := range uint64(2048) {
		key = k
		f.Delete(next())
	}
	fmt.Println("moved back when idle:", f.Rebalance(s.BloomLen), "left:", f.BloomLen())
	// Output:
	// max iterations in the burst: 5
	// elements in the Bloom part: 210
	// moved back when idle: 207 left: 0
}

package filter

import (
	"fmt"
	"math/bits"
	"testing"
)

var sinkBool bool

// benchSizes are a cache-resident filter (2^14 buckets, 128 KiB) and one far
// larger than the last-level cache (2^22 buckets, 32 MiB), plus the 2^20 of
// the lookup target.
var benchSizes = []int{1 << 14, 1 << 20, 1 << 22}

// benchFilter returns a filter filled to 95% with keys mix(0..n-1), and n,
// with t set for what follows.
func benchFilter(b *testing.B, m, t int, packed bool) (*Filter, uint64) {
	b.Helper()
	f := mustNew(b, Config{Buckets: m, BloomAfter: -1, Seed: 1, Packed: packed})
	n := fill(f, 0, 0.95) // as the paper fills: plain cuckoo insertion
	f.SetBloomAfter(t)
	return f, n
}

type benchKey struct {
	m      int
	packed bool
}

// filled caches the filters of sharedFilter by size and layout, with their
// key counts.
var filled = map[benchKey]struct {
	f *Filter
	n uint64
}{}

// sharedFilter is benchFilter(b, m, 10) for benchmarks that only look up:
// it fills each size once per process, so that -count repeats and
// sub-benchmarks spend their time measuring, not filling.
func sharedFilter(b *testing.B, m int, packed bool) (*Filter, uint64) {
	b.Helper()
	e, ok := filled[benchKey{m, packed}]
	if !ok {
		e.f, e.n = benchFilter(b, m, 10, packed)
		filled[benchKey{m, packed}] = e
	}
	return e.f, e.n
}

func reportFilter(b *testing.B, f *Filter, ops int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/key")
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds()/1e6, "Mkeys/s")
	bitsPerItem := float64(f.TableBits()) / float64(f.Len())
	b.ReportMetric(bitsPerItem, "bits/item")
}

// layoutNames name the bucket layouts in benchmark names.
var layoutNames = map[bool]string{false: "layout=word", true: "layout=packed"}

func BenchmarkContains(b *testing.B) {
	for _, m := range benchSizes {
		for _, kind := range []string{"positive", "negative"} {
			for _, packed := range layouts {
				b.Run(fmt.Sprintf("buckets=%d/%s/%s", m, kind, layoutNames[packed]), func(b *testing.B) {
					benchContains(b, m, kind, packed)
				})
			}
		}
	}
}

// keyAt returns the i-th key of the lookup benchmarks' sequence over
// 0..n-1: the golden-ratio Weyl sequence scaled to n with one multiply, an
// order the prefetcher cannot follow in which every key comes up about once
// in n lookups. (A stride taken modulo n would cost the loop a 64-bit
// division per key, tens of cycles that are not the filter's.)
func keyAt(i, n uint64) uint64 {
	hi, _ := bits.Mul64(i*0x9e3779b97f4a7c15, n)
	return hi
}

func benchContains(b *testing.B, m int, kind string, packed bool) {
	f, n := sharedFilter(b, m, packed)
	base := uint64(0)
	if kind == "negative" {
		base = 1 << 40
	}
	b.ReportAllocs()
	i, hits := uint64(0), 0
	for b.Loop() {
		if f.Contains(mix(base + keyAt(i, n))) {
			hits++
		}
		i++
	}
	reportFilter(b, f, int(i))
	if kind == "negative" {
		b.ReportMetric(float64(hits)/float64(i), "fpr")
	} else if hits != int(i) {
		b.Fatalf("%d false negatives", int(i)-hits)
	}
}

func BenchmarkContainsBatch(b *testing.B) {
	for _, m := range benchSizes {
		for _, packed := range layouts {
			b.Run(fmt.Sprintf("buckets=%d/%s", m, layoutNames[packed]), func(b *testing.B) {
				benchContainsBatch(b, m, packed)
			})
		}
	}
}

func benchContainsBatch(b *testing.B, m int, packed bool) {
	const batch = 32
	f, n := sharedFilter(b, m, packed)
	hs := make([]uint64, batch)
	out := make([]bool, batch)
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		for j := range hs {
			hs[j] = mix(keyAt(i, 2*n)) // half present
			i++
		}
		f.ContainsBatch(hs, out)
	}
	sinkBool = out[0]
	reportFilter(b, f, int(i))
}

// BenchmarkInsert measures insertion across the whole fill from empty to
// 95%, then at the top of the fill (the last 5%), where walks are long.
func BenchmarkInsert(b *testing.B) {
	for _, m := range benchSizes {
		for _, tp := range []struct {
			t      int
			packed bool
		}{{-1, false}, {-1, true}, {10, false}, {10, true}} {
			t, packed := tp.t, tp.packed
			name := "cuckoo"
			if t >= 0 {
				name = fmt.Sprintf("bcf-t=%d", t)
			}
			name += "/" + layoutNames[packed]
			b.Run(fmt.Sprintf("buckets=%d/%s/fill-0-95", m, name), func(b *testing.B) {
				b.ReportAllocs()
				var ops, iters int
				var f *Filter
				for b.Loop() {
					b.StopTimer()
					f = mustNew(b, Config{Buckets: m, BloomAfter: t, Seed: 2, Packed: packed})
					n := int(0.95 * float64(f.Capacity()))
					b.StartTimer()
					for k := range n {
						iters += f.Insert(mix(uint64(k))).Iterations
					}
					ops += n
				}
				reportFilter(b, f, ops)
				b.ReportMetric(float64(iters)/float64(ops), "iter/insert")
			})
			b.Run(fmt.Sprintf("buckets=%d/%s/fill-90-95", m, name), func(b *testing.B) {
				// Replace: delete one key of the 90% fill, insert a
				// new one at 95%, so occupancy stays at the top.
				f := mustNew(b, Config{Buckets: m, BloomAfter: -1, Seed: 3, Packed: packed})
				n := fill(f, 0, 0.95)
				f.SetBloomAfter(t)
				b.ReportAllocs()
				old, next, iters, ops := uint64(0), n, 0, 0
				for b.Loop() {
					f.Delete(mix(old))
					old++
					iters += f.Insert(mix(next)).Iterations
					next++
					ops++
					if ops%1024 == 0 {
						f.Rebalance(1024)
					}
				}
				reportFilter(b, f, ops)
				b.ReportMetric(float64(iters)/float64(ops), "iter/insert")
			})
		}
	}
}

func BenchmarkDelete(b *testing.B) {
	for _, m := range []int{1 << 14, 1 << 22} {
		b.Run(fmt.Sprintf("buckets=%d", m), func(b *testing.B) {
			f, n := benchFilter(b, m, 10, false)
			b.ReportAllocs()
			i := uint64(0)
			for b.Loop() {
				k := mix(i % n)
				f.Delete(k)
				f.Insert(k)
				i++
			}
			reportFilter(b, f, int(i))
		})
	}
}

package bench

import (
	"encoding/binary"
	"fmt"
	"testing"

	cuckoo "github.com/seiflotfy/cuckoofilter"

	"github.com/ofswitch/ofswitch/filter"
)

// Both filters get the same keys: the uint64 counter k. ofswitch's filter
// takes a 64-bit hash, computed here from k (splitmix64, a few ns); the
// baseline takes the 8 bytes of k and hashes them itself (metro hash).
// Hashing is inside the timed loop for both.

const buckets = 1 << 20 // the lookup target's size: 8 MiB of ours, 4 MiB of theirs

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

type impl struct {
	name   string
	insert func(k uint64) bool
	lookup func(k uint64) bool
	delete func(k uint64) bool
	bits   int // memory per bucket
}

func ours(t testing.TB, bloomAfter int) (*filter.Filter, impl) {
	f, err := filter.New(filter.Config{Buckets: buckets, BloomAfter: bloomAfter, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f, impl{
		name:   "ofswitch",
		insert: func(k uint64) bool { return f.Insert(mix(k)).Placement != filter.Full },
		lookup: func(k uint64) bool { return f.Contains(mix(k)) },
		delete: func(k uint64) bool { return f.Delete(mix(k)) },
		bits:   64,
	}
}

func theirs() impl {
	f := cuckoo.NewFilter(buckets * 4)
	var b [8]byte
	return impl{
		name:   "seiflotfy",
		insert: func(k uint64) bool { binary.LittleEndian.PutUint64(b[:], k); return f.Insert(b[:]) },
		lookup: func(k uint64) bool { binary.LittleEndian.PutUint64(b[:], k); return f.Lookup(b[:]) },
		delete: func(k uint64) bool { binary.LittleEndian.PutUint64(b[:], k); return f.Delete(b[:]) },
		bits:   32,
	}
}

func impls(t testing.TB) []impl {
	_, o := ours(t, -1)
	return []impl{o, theirs()}
}

// fill inserts keys 0..n-1 for 95% occupancy and returns n.
func fill(im impl) uint64 {
	n := uint64(buckets * 4 * 95 / 100)
	for k := range n {
		im.insert(k)
	}
	return n
}

func TestNoFalseNegatives(t *testing.T) {
	for _, im := range impls(t) {
		n := fill(im)
		missing := 0
		for k := range n {
			if !im.lookup(k) {
				missing++
			}
		}
		t.Logf("%s: %d of %d inserted keys missing at 95%%", im.name, missing, n)
		if im.name == "ofswitch" && missing != 0 {
			t.Errorf("ofswitch lost %d keys", missing)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, im := range impls(b) {
		n := fill(im)
		for _, kind := range []string{"positive", "negative"} {
			b.Run(fmt.Sprintf("%s/%s", im.name, kind), func(b *testing.B) {
				base := uint64(0)
				if kind == "negative" {
					base = 1 << 40
				}
				b.ReportAllocs()
				i, hits := uint64(0), 0
				for b.Loop() {
					if im.lookup(base + (i*0x9e3779b1)%n) {
						hits++
					}
					i++
				}
				b.ReportMetric(float64(i)/b.Elapsed().Seconds()/1e6, "Mkeys/s")
				b.ReportMetric(float64(im.bits)/(4*0.95), "bits/item")
				if kind == "negative" {
					b.ReportMetric(float64(hits)/float64(i), "fpr")
				}
			})
		}
	}
}

func BenchmarkLookupBatch(b *testing.B) {
	f, im := ours(b, -1)
	n := fill(im)
	hs := make([]uint64, 32)
	out := make([]bool, 32)
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		for j := range hs {
			hs[j] = mix((i * 0x9e3779b1) % n)
			i++
		}
		f.ContainsBatch(hs, out)
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds()/1e6, "Mkeys/s")
}

// BenchmarkInsertTop replaces keys at 95% occupancy: delete an old key,
// insert a new one. The plain cuckoo walk is at its longest here.
func BenchmarkInsertTop(b *testing.B) {
	for _, im := range impls(b) {
		b.Run(im.name, func(b *testing.B) {
			n := fill(im)
			b.ReportAllocs()
			old, next := uint64(0), n
			for b.Loop() {
				im.delete(old)
				im.insert(next)
				old++
				next++
			}
			b.ReportMetric(float64(next-n)/b.Elapsed().Seconds()/1e6, "Mkeys/s")
		})
	}
}

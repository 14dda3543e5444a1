package bench

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestHashSpread hashes counters, big-endian, as 8-byte keys and at the end
// of 15-byte keys (so that the bytes that vary are the last of a 7-byte
// tail), and checks that every output bit is set about half the time and
// that the low byte (where the bucket index starts) and the high byte (the
// fingerprint) are spread evenly over their 256 values.
func TestHashSpread(t *testing.T) {
	const n = 1 << 16
	for _, size := range []int{8, 15} {
		var ones [64]int
		var lo, hi [256]int
		seen := make(map[uint64]bool, n)
		b := make([]byte, size)
		for k := range uint64(n) {
			binary.BigEndian.PutUint64(b[size-8:], k) // the varying bytes last
			h := Hash(b)
			if seen[h] {
				t.Fatalf("%d-byte keys: Hash collides at key %d", size, k)
			}
			seen[h] = true
			for i := range ones {
				ones[i] += int(h >> i & 1)
			}
			lo[h&0xff]++
			hi[h>>56]++
		}
		for i, c := range ones {
			if math.Abs(float64(c)/n-0.5) > 0.02 {
				t.Errorf("%d-byte keys: bit %d set in %.3f of hashes, want 0.5", size, i, float64(c)/n)
			}
		}
		// Chi-square with 255 degrees of freedom: mean 255, sd ~22.6;
		// 400 is beyond six standard deviations.
		for name, bins := range map[string]*[256]int{"low byte": &lo, "high byte": &hi} {
			chi := 0.0
			for _, c := range bins {
				d := float64(c) - n/256
				chi += d * d / (n / 256)
			}
			if chi > 400 {
				t.Errorf("%d-byte keys, %s: chi-square %.0f over 256 bins, want < 400", size, name, chi)
			}
		}
	}
}

// TestHashLengths checks that keys of every length from 0 to 24 bytes, all
// zero or differing in one byte, get distinct hashes: the length and every
// byte, the tail's included, count.
func TestHashLengths(t *testing.T) {
	seen := map[uint64]string{}
	add := func(p []byte) {
		h := Hash(p)
		if prev, ok := seen[h]; ok {
			t.Fatalf("Hash(%x) = Hash(%x) = %#x", p, prev, h)
		}
		seen[h] = string(p)
	}
	for n := range 25 {
		p := make([]byte, n)
		add(p)
		for i := range n {
			q := append([]byte(nil), p...)
			q[i] = 1
			add(q)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	var buf [8]byte
	s := uint64(0)
	for k := uint64(0); b.Loop(); k++ {
		binary.LittleEndian.PutUint64(buf[:], k)
		s += Hash(buf[:])
	}
	if s == 1 {
		b.Log(s)
	}
}

package rules

import (
	"math/rand/v2"
	"testing"
)

// portSide is one side of a port field: a range, or a value and mask.
type portSide struct {
	pr   PortRange
	v, m uint16
}

func (s portSide) admits(x uint16) bool {
	if s.pr != (PortRange{}) && (x < s.pr.Lo || x > s.pr.Hi) {
		return false
	}
	return x&s.m == s.v
}

func randSide(rng *rand.Rand) portSide {
	switch rng.IntN(4) {
	case 0: // a range, often narrow, often aligned
		lo := uint16(rng.IntN(1 << 16))
		if rng.IntN(2) == 0 {
			lo &^= uint16(1<<rng.IntN(12) - 1)
		}
		hi := lo + uint16(1+rng.IntN(1<<rng.IntN(16)))
		if hi <= lo {
			hi = 0xffff
		}
		if lo == 0 && hi == 0xffff {
			lo = 1
		}
		return portSide{pr: PortRange{lo, hi}}
	case 1: // a prefix
		m := uint16(prefixMask(16, rng.IntN(17)))
		return portSide{v: uint16(rng.IntN(1<<16)) & m, m: m}
	case 2: // any mask
		m := uint16(rng.IntN(1 << 16))
		return portSide{v: uint16(rng.IntN(1<<16)) & m, m: m}
	}
	return portSide{}
}

// TestPortSetsBruteForce checks portCovers, portOverlaps and leastAtLeast
// against the sets they describe, port by port over all 65536 ports.
func TestPortSetsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	var covered, overlapped int
	for range n {
		u, r := randSide(rng), randSide(rng)
		if u.pr == (PortRange{}) && r.pr != (PortRange{}) && rng.IntN(2) == 0 {
			// A mask over the range's high bits, which may cover it.
			u.m = uint16(prefixMask(16, rng.IntN(16)))
			u.v = r.pr.Lo & u.m
		}
		if rng.IntN(8) == 0 && u.pr != (PortRange{}) {
			// An update testing a range and a value and mask (a
			// DELETE, which is not validated): covers only.
			u.m = uint16(prefixMask(16, rng.IntN(8)))
			u.v = u.pr.Lo & u.m
			cov := true
			for x := range 1 << 16 {
				cov = cov && (!r.admits(uint16(x)) || u.admits(uint16(x)))
			}
			if got := portCovers(u.pr, u.v, u.m, r.pr, r.v, r.m); got != cov {
				t.Fatalf("portCovers(%+v, %+v) = %v, want %v", u, r, got, cov)
			}
			continue
		}
		cov, ovl := true, false
		for x := range 1 << 16 {
			in, inU := r.admits(uint16(x)), u.admits(uint16(x))
			cov = cov && (!in || inU)
			ovl = ovl || in && inU
		}
		if got := portCovers(u.pr, u.v, u.m, r.pr, r.v, r.m); got != cov {
			t.Fatalf("portCovers(%+v, %+v) = %v, want %v", u, r, got, cov)
		}
		if got := portOverlaps(u.pr, u.v, u.m, r.pr, r.v, r.m); got != ovl {
			t.Fatalf("portOverlaps(%+v, %+v) = %v, want %v", u, r, got, ovl)
		}
		if cov {
			covered++
		}
		if ovl {
			overlapped++
		}
		a := uint16(rng.IntN(1 << 16))
		want, ok := -1, false
		for x := int(a); x < 1<<16; x++ {
			if uint16(x)&r.m == r.v {
				want, ok = x, true
				break
			}
		}
		if got, gok := leastAtLeast(a, r.v, r.m); gok != ok || ok && int(got) != want {
			t.Fatalf("leastAtLeast(%#x, %#x, %#x) = %#x %v, want %#x %v", a, r.v, r.m, got, gok, want, ok)
		}
	}
	if covered < n/20 || overlapped < n/10 || overlapped > n-n/10 {
		t.Fatalf("%d of %d covered, %d overlapped: the draws test too little", covered, n, overlapped)
	}
}

// TestCheckRangesAllocs: checking an update's ranges, which every add of a
// ranged rule does, allocates nothing (the ranges, passed by value, stay
// on the stack).
func TestCheckRangesAllocs(t *testing.T) {
	var m Match
	m.SetExact(FieldIPProto, IPProtoTCP)
	m.SetPrefix(FieldL4Src, 0x8000, 1)
	rg := Ranges{Dst: PortRange{Lo: 1024, Hi: 2047}}
	if err := checkRanges(&m, rg, false); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = checkRanges(&m, rg, false) }); n != 0 {
		t.Errorf("checkRanges: %v allocations, want 0", n)
	}
}

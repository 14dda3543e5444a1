package wire

import (
	"bytes"
	"testing"
)

func TestAppendZeros(t *testing.T) {
	for n := 0; n < 20; n++ {
		got := AppendZeros([]byte{0xff}, n)
		if len(got) != n+1 || got[0] != 0xff || !AllZero(got[1:]) {
			t.Fatalf("AppendZeros(%d) = %x", n, got)
		}
	}
}

func TestAlignAndPad(t *testing.T) {
	for n, want := range []int{0, 8, 8, 8, 8, 8, 8, 8, 8, 16} {
		if got := Align8(n); got != want {
			t.Errorf("Align8(%d) = %d, want %d", n, got, want)
		}
	}
	got := PadTo8([]byte{9, 1, 2, 3}, 1)
	if !bytes.Equal(got, []byte{9, 1, 2, 3, 0, 0, 0, 0, 0}) {
		t.Errorf("PadTo8 = %x", got)
	}
	if AllZero([]byte{0, 1}) {
		t.Error("AllZero([0 1]) = true")
	}
	buf := make([]byte, 0, 32)
	if n := testing.AllocsPerRun(100, func() { buf = AppendZeros(buf[:0], 24) }); n != 0 {
		t.Errorf("AppendZeros allocates %v times", n)
	}
}

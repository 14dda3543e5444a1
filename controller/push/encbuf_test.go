//go:build unix

package push

import (
	"testing"
	"unsafe"
)

// TestMapBuffer checks that the buffer for encoded messages is the size
// asked for, writable end to end, and, where huge pages may back it,
// starts on a huge page boundary (the first huge page of the messages
// would otherwise fault in page by page).
func TestMapBuffer(t *testing.T) {
	for _, n := range []int{4096, hugePage - 1, hugePage, 3*hugePage + 12345} {
		buf, unmap := mapBuffer(n)
		if buf == nil {
			t.Fatalf("mapBuffer(%d): no mapping", n)
		}
		if len(buf) != n || cap(buf) < n {
			t.Errorf("mapBuffer(%d): len %d cap %d", n, len(buf), cap(buf))
		}
		buf[0], buf[n-1] = 1, 2
		if hugePagesOK && n >= hugePage {
			if a := uintptr(unsafe.Pointer(&buf[0])) % hugePage; a != 0 {
				t.Errorf("mapBuffer(%d): starts %d bytes past a huge page boundary", n, a)
			}
		}
		unmap()
	}
}

package push

import "syscall"

// hugePage is the size of a transparent huge page of amd64, and of arm64
// with 4 KiB pages: 2 MiB. Where huge pages are larger, the buffer is
// not aligned to them and the advice holds for those it happens to span.
const hugePage = 2 << 20

// hugePagesOK reports that the kernel may back memory with transparent
// huge pages where it is asked to (MADV_HUGEPAGE).
const hugePagesOK = true

// hugePages asks the kernel to back b with transparent huge pages: a
// fault in b then maps (and zeroes) 2 MiB at once. Where the system has
// them off ("never"), or has no huge page free, b is mapped page by page
// as without the advice; with the default defrag setting ("madvise"), a
// fault may compact memory to find one.
func hugePages(b []byte) { syscall.Madvise(b, syscall.MADV_HUGEPAGE) }

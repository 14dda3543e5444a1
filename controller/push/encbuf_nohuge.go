//go:build unix && !linux

package push

const (
	hugePage    = 2 << 20
	hugePagesOK = false // no madvise(MADV_HUGEPAGE)
)

func hugePages([]byte) {}

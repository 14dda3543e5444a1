package classbench_test

import (
	"fmt"

	"github.com/ofswitch/ofswitch/rules/classbench"
)

// A ClassBench port range becomes masked ports.
func ExampleExpandPortRange() {
	for _, p := range classbench.ExpandPortRange(1024, 65535) {
		fmt.Printf("%#x/%#x ", p.Value, p.Mask)
	}
	fmt.Println()
	// Output:
	// 0x400/0xfc00 0x800/0xf800 0x1000/0xf000 0x2000/0xe000 0x4000/0xc000 0x8000/0x8000
}

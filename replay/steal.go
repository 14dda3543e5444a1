package replay

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"time"
)

// stealTick is the unit of /proc/stat's times: USER_HZ, which Linux
// exports as 100 per second on every architecture.
const stealTick = 10 * time.Millisecond

// hostSteal returns the time the hypervisor has kept the machine's CPUs
// from running it (summed over CPUs), as /proc/stat counts it since boot,
// and whether it could be read. In a virtual machine on a shared host a
// worker can lose a millisecond or more at a time to it, which shows in
// the figures of a short burst window.
func hostSteal() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	return parseSteal(b)
}

// parseSteal reads the steal time from the aggregate "cpu" line of
// /proc/stat: user nice system idle iowait irq softirq steal ...
func parseSteal(b []byte) (time.Duration, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 || string(f[0]) != "cpu" {
			continue
		}
		if len(f) < 9 {
			return 0, false
		}
		n, err := strconv.ParseUint(string(f[8]), 10, 64)
		if err != nil {
			return 0, false
		}
		return time.Duration(n) * stealTick, true
	}
	return 0, false
}

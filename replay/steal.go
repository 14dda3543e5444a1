package replay

import (
	"bufio"
	"bytes"
	"os"
	"runtime/metrics"
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

// gcSample reads the number of garbage collections completed since the
// process started (runtime/metrics, no stop of the world).
var gcSample = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}

// gcCycles returns the garbage collections completed so far. It is called
// by the one goroutine that runs the bursts.
func gcCycles() uint64 {
	metrics.Read(gcSample)
	if gcSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return gcSample[0].Value.Uint64()
}

// threadSched returns the time the calling thread has run on a CPU and
// the time it has spent runnable but waiting for one (the first two
// fields of Linux's /proc/thread-self/schedstat), and whether they could
// be read. The kernel brings them up to date at scheduling events, so the
// run time of a thread that reads its own lags (threadCPU does not); the
// wait is accounted when the thread gets its CPU back, before it can read. The caller
// locks its goroutine to its thread (runtime.LockOSThread) so that the
// figure is its own: a burst whose controller waited for a CPU shows a
// slow update that neither the filter nor the classifier caused.
func threadSched() (run, wait time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, 0, false
	}
	return parseSchedstat(b)
}

// parseSchedstat reads "cpu-ns wait-ns slices" as schedstat writes it.
func parseSchedstat(b []byte) (run, wait time.Duration, ok bool) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, 0, false
	}
	r, err1 := strconv.ParseUint(string(f[0]), 10, 64)
	w, err2 := strconv.ParseUint(string(f[1]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return time.Duration(r), time.Duration(w), true
}

// loadAverage returns the one-minute load average (/proc/loadavg), 0 if
// it cannot be read.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	return parseLoadAvg(b)
}

// parseLoadAvg reads the first field of /proc/loadavg.
func parseLoadAvg(b []byte) float64 {
	f := bytes.Fields(b)
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(string(f[0]), 64)
	if err != nil {
		return 0
	}
	return v
}

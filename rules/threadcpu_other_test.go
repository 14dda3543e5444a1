//go:build !linux

package rules_test

// threadCPU reads no clock where Linux's CLOCK_THREAD_CPUTIME_ID is not
// there: benchmarks then report wall time only.
type threadCPU struct{}

func startThreadCPU() threadCPU { return threadCPU{} }

func (threadCPU) stop() (float64, bool) { return 0, false }

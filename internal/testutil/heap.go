package testutil

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// LiveHeapPeak runs fn and returns the live heap before it (after a
// collection) and the most it reached while fn ran: the live heap as the
// collector last found it (runtime/metrics /gc/heap/live:bytes), sampled
// every 2 ms. That is what fn holds, not the garbage the collector has yet
// to free, so a bound on it does not move with the collector's pacing.
func LiveHeapPeak(fn func()) (base, peak uint64) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() uint64 { metrics.Read(live); return live[0].Value.Uint64() }
	runtime.GC()
	base = read()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			peak = max(peak, read())
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	runtime.GC() // a last look, for fn's end
	return base, max(peak, read())
}

package controller

import (
	"sync"
	"time"
)

// Burst records one batch of FLOW_MODs applied to the flow tables.
type Burst struct {
	Start   time.Time     // when its first FLOW_MOD was read
	Updates int           // FLOW_MODs in the burst
	Errors  int           // of which failed
	Apply   time.Duration // time in ApplyBatch, to publication
	Latency time.Duration // from the first FLOW_MOD read to publication
	Version uint64        // the table version that published it
}

// burstRing keeps the most recent bursts.
type burstRing struct {
	// mu guards the fields below.
	mu   sync.Mutex
	buf  []Burst
	next int
	full bool
}

func (r *burstRing) init(n int) { r.buf = make([]Burst, n) }

func (r *burstRing) record(b Burst) {
	r.mu.Lock()
	r.buf[r.next] = b
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
	r.mu.Unlock()
}

// Bursts returns the most recent bursts (up to 1024), oldest first.
func (a *Agent) Bursts() []Burst {
	r := &a.bursts
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]Burst(nil), r.buf[:r.next]...)
	}
	return append(append([]Burst(nil), r.buf[r.next:]...), r.buf[:r.next]...)
}

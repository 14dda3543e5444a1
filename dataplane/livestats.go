package dataplane

import "sync/atomic"

// LiveCounters are the switch's main counters as its workers last
// published them: readable at any time, also while the workers run.
// Workers on live ports publish after every vector, PacketOut after every
// call; Replay and Process alone do not publish (use Stats when they are
// done).
type LiveCounters struct {
	Packets    uint64 // frames parsed and classified
	Bytes      uint64 // their bytes
	Hits       uint64 // lookups that found an entry
	Misses     uint64 // lookups that found none
	Drops      uint64 // frames that left the pipeline with no output
	Outputs    uint64 // frames output to a port (each copy)
	NoPort     uint64 // outputs to a port the switch does not have
	PacketIns  uint64 // frames sent to the controller
	TTLExpired uint64 // dec_ttl or dec_mpls_ttl at TTL ≤ 1 (sent as OFPR_INVALID_TTL)
	RxErrors   uint64 // live socket errors and frames too large
	Panics     uint64 // packets whose actions panicked
	// XlateErrors counts the frames dropped at a resubmit limit
	// (MaxResubmitDepth, MaxResubmits).
	XlateErrors uint64
	// Malformed counts the frames the parser skipped, by Reason.
	Malformed [NumReasons]uint64
}

const liveScalars = 12

// published is what one worker last published.
type published struct {
	c    [liveScalars + NumReasons]atomic.Uint64
	last [liveScalars + NumReasons]uint64
	port []pubPort // by port index, made by newWorker
}

// pubPort is one port's published counters.
type pubPort struct {
	v    [4]atomic.Uint64 // rx packets, rx bytes, tx packets, tx bytes
	last portCounters
}

// publish copies the worker's counters that changed to its published
// ones. It is called by the goroutine that owns the worker; it allocates
// nothing.
func (w *Worker) publish() {
	p := &w.pub
	st := &w.stats
	vals := [liveScalars]uint64{st.Packets, st.Bytes, st.Hits, st.Misses, st.Drops, st.Outputs,
		st.NoPort, st.PacketIns, st.TTLExpired, st.RxErrors, st.Panics, st.XlateErrors}
	for i, v := range vals {
		if p.last[i] != v {
			p.last[i] = v
			p.c[i].Store(v)
		}
	}
	for i, v := range w.parser.Stats.Malformed {
		if j := liveScalars + i; p.last[j] != v {
			p.last[j] = v
			p.c[j].Store(v)
		}
	}
	for i := range w.portc {
		c, q := &w.portc[i], &p.port[i]
		if *c != q.last {
			q.last = *c
			q.v[0].Store(c.RxPackets)
			q.v[1].Store(c.RxBytes)
			q.v[2].Store(c.TxPackets)
			q.v[3].Store(c.TxBytes)
		}
	}
}

// LiveStats returns the sum of the counters the workers and PacketOut
// last published. Safe to call at any time.
func (s *Switch) LiveStats() LiveCounters {
	var vals [liveScalars + NumReasons]uint64
	for _, w := range s.all() {
		for i := range vals {
			vals[i] += w.pub.c[i].Load()
		}
	}
	var c LiveCounters
	c.Packets, c.Bytes, c.Hits, c.Misses, c.Drops, c.Outputs = vals[0], vals[1], vals[2], vals[3], vals[4], vals[5]
	c.NoPort, c.PacketIns, c.TTLExpired, c.RxErrors, c.Panics = vals[6], vals[7], vals[8], vals[9], vals[10]
	c.XlateErrors = vals[11]
	copy(c.Malformed[:], vals[liveScalars:])
	return c
}

// LivePortStats returns per-port counters, in the order of Ports, as the
// workers and PacketOut last published them. Safe to call at any time.
func (s *Switch) LivePortStats() []PortStats {
	out := make([]PortStats, len(s.ports))
	for i, pn := range s.ports {
		out[i].Port = pn
		for _, w := range s.all() {
			q := &w.pub.port[i]
			out[i].RxPackets += q.v[0].Load()
			out[i].RxBytes += q.v[1].Load()
			out[i].TxPackets += q.v[2].Load()
			out[i].TxBytes += q.v[3].Load()
		}
	}
	return out
}

package controller

import (
	"sync"
	"time"
)

// replyTrackMin is the smallest reply the budget of replies in flight
// counts: smaller ones leave the socket buffers at once, or hold little.
const replyTrackMin = 64 << 10

// replies tracks the large replies being written, all connections
// together, for Config.ReplyLimitTotal. A connection writes one reply at
// a time (it reads no request while it writes), so a connection has at
// most one entry.
type replies struct {
	mu     sync.Mutex
	bytes  int
	writes map[*conn]replyWrite
}

type replyWrite struct {
	size  int
	since time.Time
}

// stallMin is how long a peer must have taken nothing of its reply to be
// disconnected for ReplyLimitTotal. A peer that reads takes a chunk
// (256 KiB) far more often, unless it reads slower than 2.5 MB/s.
const stallMin = 100 * time.Millisecond

// begin counts c's reply of size bytes as in flight. While the replies
// in flight pass limit, the connection whose reply has been stalled
// longest (whose peer took nothing of it for the longest time, stallMin
// at least; never c, whose reply is starting) is disconnected: its peer
// is the slowest reader, and closing it returns its reply's memory. If no
// reply is stalled, the limit is passed until the writes end.
func (r *replies) begin(c *conn, size, limit int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writes == nil {
		r.writes = map[*conn]replyWrite{}
	}
	now := time.Now()
	r.writes[c] = replyWrite{size, now}
	r.bytes += size
	for r.bytes > limit {
		var oldest *conn
		var w replyWrite
		var stalled time.Time
		for o, ow := range r.writes {
			// The later of the reply's start and the peer's last take.
			at := ow.since
			if took := time.Unix(0, o.out.took.Load()); took.After(at) {
				at = took
			}
			if o != c && now.Sub(at) >= stallMin && (oldest == nil || at.Before(stalled)) {
				oldest, w, stalled = o, ow, at
			}
		}
		if oldest == nil {
			return
		}
		delete(r.writes, oldest)
		r.bytes -= w.size
		oldest.a.cfg.Logger.Warn("controller too slow: replies in flight over the limit, disconnecting the most stalled",
			"peer", oldest.nc.RemoteAddr().String(), "reply", w.size, "stalled", now.Sub(stalled).Round(time.Millisecond), "limit", limit)
		oldest.nc.Close()
	}
}

// end forgets c's reply in flight.
func (r *replies) end(c *conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.writes[c]; ok {
		delete(r.writes, c)
		r.bytes -= w.size
	}
}

package controller

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// progressWriter is the write side of a connection: a write fails when the
// peer takes nothing of it for Config.WriteTimeout, so that a controller
// that stops reading (or vanishes in the middle of a dump) cannot hold the
// connection, its serve loop and the encoded reply for ever; the
// connection then closes. The bound is on progress, not on a whole write:
// a large reply to a slow but reading peer goes on, chunk by chunk. The
// deadline is moved only when half of it has passed, so that most writes
// cost one clock read more. Its writers hold conn.wmu.
type progressWriter struct {
	nc      net.Conn
	timeout time.Duration
	armed   time.Time // when the deadline was last moved
	// took is when the peer last took a chunk (UnixNano), read by other
	// connections choosing the most stalled reply (see replies.go).
	took atomic.Int64
}

// progressChunk is the most written under one deadline.
const progressChunk = 256 << 10

func (w *progressWriter) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if now := time.Now(); now.Sub(w.armed) > w.timeout/2 {
			w.nc.SetWriteDeadline(now.Add(w.timeout))
			w.armed = now
		}
		k, err := w.nc.Write(b[n:min(len(b), n+progressChunk)])
		n += k
		w.took.Store(time.Now().UnixNano())
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = fmt.Errorf("the peer took nothing for %v: %w", w.timeout, err)
			}
			return n, err
		}
	}
	return n, nil
}

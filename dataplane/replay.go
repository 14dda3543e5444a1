package dataplane

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSpeed parses a replay speed: "max" (or "0") is as fast as possible
// and returns 0; "1x", "2.5x" or a bare positive number is a multiple of
// the original timing.
func ParseSpeed(s string) (float64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	if t == "max" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "x"), 64)
	if err != nil || v < 0 || v != v || v > 1e9 {
		return 0, fmt.Errorf("speed %q: want max, or a positive multiple such as 1x or 10x", s)
	}
	return v, nil
}

// ReplayConfig says how Capture.Replay hands out frames. The zero value
// replays as fast as possible.
type ReplayConfig struct {
	// Speed is a multiple of the original timing (1 is real time); 0 means
	// as fast as possible.
	Speed float64
	// Now and Sleep replace the wall clock, for tests; nil means time.Now
	// and a timer that ends early when the context is done.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Replay hands the frames of c, in order, to fn in vectors of up to
// VectorSize frames. Vector.Frames alias c.Data; Link and InPort
// (interface index + 1) are filled in; Hdr and OK are left to the caller's
// parser. fn must not keep v after it returns; a non-nil error from fn
// stops the replay and is returned.
//
// At full speed every vector is full but the last. When paced, a vector
// holds the frames that are due (their capture time, relative to the first
// frame and divided by Speed, has passed), so vectors are small at low
// rates. The context is checked between vectors.
func (c *Capture) Replay(ctx context.Context, cfg *ReplayConfig, fn func(v *Vector) error) error {
	var conf ReplayConfig
	if cfg != nil {
		conf = *cfg
	}
	if conf.Now == nil {
		conf.Now = time.Now
	}
	if conf.Sleep == nil {
		conf.Sleep = sleepCtx
	}
	n := c.Len()
	if n == 0 {
		return ctx.Err()
	}
	v := new(Vector)
	start := conf.Now()
	t0 := c.TS[0]
	due := func(i int) time.Time {
		return start.Add(time.Duration(float64(c.TS[i]-t0) / conf.Speed))
	}
	done := ctx.Done()
	for i := 0; i < n; {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		j := min(i+VectorSize, n)
		if conf.Speed > 0 {
			if wait := due(i).Sub(conf.Now()); wait > 0 {
				if err := conf.Sleep(ctx, wait); err != nil {
					return err
				}
			}
			now := conf.Now()
			k := i + 1
			for k < j && !due(k).After(now) {
				k++
			}
			j = k
		}
		c.fill(v, i, j)
		if err := fn(v); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// fill loads frames [i, j) of c into v.
func (c *Capture) fill(v *Vector, i, j int) {
	v.N = j - i
	for k := 0; k < v.N; k++ {
		f := i + k
		v.Frames[k] = c.Data[c.Off[f]:c.Off[f+1]:c.Off[f+1]]
		ifc := c.Iface[f]
		v.Link[k] = c.Ifaces[ifc].Link
		v.InPort[k] = uint32(ifc) + 1
	}
}

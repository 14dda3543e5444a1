package dataplane

import (
	"context"
	"encoding/binary"
	"sort"
	"sync"
	"time"
)

// FlowHash returns a hash of the flow h belongs to, the same for every
// packet of a flow including all fragments of a datagram: IP addresses and
// protocol for IP packets (ports are left out because later fragments do
// not carry them), MAC addresses and EtherType otherwise, and the VLAN ID
// and in_port always.
func (h *Headers) FlowHash() uint64 {
	x := uint64(h.InPort)<<48 | uint64(h.VLANVID[0])<<32 | uint64(h.EthType)<<16 | uint64(h.IPProto)
	var a, b uint64
	switch h.EthType {
	case EtherTypeIPv4:
		a = uint64(binary.BigEndian.Uint32(h.IPv4Src[:]))<<32 | uint64(binary.BigEndian.Uint32(h.IPv4Dst[:]))
	case EtherTypeIPv6:
		a = binary.BigEndian.Uint64(h.IPv6Src[8:]) ^ binary.BigEndian.Uint64(h.IPv6Src[:8])*0x9e3779b97f4a7c15
		b = binary.BigEndian.Uint64(h.IPv6Dst[8:]) ^ binary.BigEndian.Uint64(h.IPv6Dst[:8])*0x9e3779b97f4a7c15
	default:
		a, b = mac48(&h.EthSrc), mac48(&h.EthDst)
	}
	return fmix64(fmix64(x^a*0xff51afd7ed558ccd) ^ b)
}

func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// shardBuckets is the size of Shard's indirection table.
const shardBuckets = 256

// Shard splits the frames of c among n workers, as a NIC's receive-side
// scaling with an indirection table would: a parsed frame goes to bucket
// FlowHash mod 256, so every flow (all fragments of a datagram included)
// stays on one worker, and each bucket goes to a worker. The buckets are
// spread by their load in c, heaviest first onto the least loaded worker
// (as an administrator reweights a NIC's table), so that a few popular
// flows do not leave one worker with much more than its share. A malformed
// frame goes to worker index mod n. It returns the frame indices of each
// worker in capture order.
func (c *Capture) Shard(n int) [][]int32 {
	if n < 1 {
		n = 1
	}
	out := make([][]int32, n)
	bucket := make([]int16, c.Len()) // -1: malformed
	var load [shardBuckets]int
	wl := make([]int, n)
	p := NewParser()
	for i := range bucket {
		if h, ok := p.Parse(c.Frame(i), c.Link(i), uint32(c.Iface[i])+1); ok {
			b := int16(h.FlowHash() % shardBuckets)
			bucket[i] = b
			load[b]++
		} else {
			bucket[i] = -1
			wl[i%n]++
		}
	}
	var order [shardBuckets]int16
	for i := range order {
		order[i] = int16(i)
	}
	sort.SliceStable(order[:], func(i, j int) bool { return load[order[i]] > load[order[j]] })
	var owner [shardBuckets]int
	for _, b := range order {
		w := 0
		for k := 1; k < n; k++ {
			if wl[k] < wl[w] {
				w = k
			}
		}
		owner[b] = w
		wl[w] += load[b]
	}
	for i, b := range bucket {
		w := i % n
		if b >= 0 {
			w = owner[b]
		}
		out[w] = append(out[w], int32(i))
	}
	return out
}

// fillIdx loads frames idx of c into v.
func (c *Capture) fillIdx(v *Vector, idx []int32) {
	v.N = len(idx)
	for k, f := range idx {
		v.Frames[k] = c.Data[c.Off[f]:c.Off[f+1]:c.Off[f+1]]
		ifc := c.Iface[f]
		v.Link[k] = c.Ifaces[ifc].Link
		v.InPort[k] = uint32(ifc) + 1
	}
}

// ReplayShard processes the frames idx of c (see Capture.Shard) in
// vectors of up to VectorSize frames, as fast as possible or paced as cfg
// says (relative to start, the time frame 0 of c is due). The context is
// checked between vectors.
func (w *Worker) ReplayShard(ctx context.Context, c *Capture, idx []int32, cfg *ReplayConfig, start time.Time) error {
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
	v := &w.vec
	defer w.Quiesce()
	done := ctx.Done()
	t0 := int64(0)
	if c.Len() > 0 {
		t0 = c.TS[0]
	}
	due := func(f int32) time.Time {
		return start.Add(time.Duration(float64(c.TS[f]-t0) / conf.Speed))
	}
	for i := 0; i < len(idx); {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		j := min(i+VectorSize, len(idx))
		if conf.Speed > 0 {
			if wait := due(idx[i]).Sub(conf.Now()); wait > 0 {
				w.Quiesce()
				if err := conf.Sleep(ctx, wait); err != nil {
					return err
				}
			}
			now := conf.Now()
			k := i + 1
			for k < j && !due(idx[k]).After(now) {
				k++
			}
			j = k
		}
		c.fillIdx(v, idx[i:j])
		w.Process(v)
		i = j
	}
	return nil
}

// Replay replays the captures one after the other through all workers,
// each capture sharded by flow (Capture.Shard), and waits for the workers.
// Paced replay (cfg.Speed > 0) keeps each capture's timing across workers.
// It returns the first error (the context's, if cancelled).
func (s *Switch) Replay(ctx context.Context, caps []*Capture, cfg *ReplayConfig) error {
	for _, c := range caps {
		if c == nil || c.Len() == 0 {
			continue
		}
		shards := c.Shard(len(s.workers))
		if err := s.replayShards(ctx, c, shards, cfg); err != nil {
			return err
		}
	}
	return nil
}

func (s *Switch) replayShards(ctx context.Context, c *Capture, shards [][]int32, cfg *ReplayConfig) error {
	now := time.Now
	if cfg != nil && cfg.Now != nil {
		now = cfg.Now
	}
	start := now()
	errs := make([]error, len(s.workers))
	var wg sync.WaitGroup
	for i, w := range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.ReplayShard(ctx, c, shards[i], cfg, start)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

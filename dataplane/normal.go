package dataplane

import (
	"sync/atomic"
	"time"
)

// Defaults of the NORMAL action's MAC learning table.
const (
	DefaultMACTableSize = 4096              // entries
	DefaultMACAging     = 300 * time.Second // as Open vSwitch's mac-aging-time
	macWays             = 4                 // entries per bucket
)

// macTable is the L2 learning table of the NORMAL action: Ethernet source
// address → port index, shared by all workers.
//
// # Layout and policy
//
// A power-of-two array of buckets of macWays entries; an address lives in
// the bucket its hash selects. Each entry is one atomic word holding the
// 48-bit address and the port index plus one (0: empty), so a reader sees
// either a whole entry or none: never an address with another's port.
// Beside it, an atomic word holds the time (seconds since the switch
// started) the entry was last refreshed.
//
// Learning an address refreshes its entry (the time is stored only when
// it changed, so a busy station does not bounce the cache line between
// workers every packet), moves it if the station appeared on another port,
// or else takes the first empty or aged-out way of the bucket, or else the
// least recently refreshed way (overwrite policy: a full bucket forgets its
// oldest station). Entries older than the aging time are ignored by
// lookups. Two workers learning the same new address at the same instant
// may both take a way; lookups then find the first, and the duplicate
// ages out. Nothing allocates after newMACTable.
//
// # Concurrency
//
// learn and lookup are safe from any number of goroutines and never lock.
type macTable struct {
	mask   uint64 // buckets - 1
	aging  uint32 // seconds
	ent    []atomic.Uint64
	seen   []atomic.Uint32
	_      [64]byte
	learns atomic.Uint64 // new or moved entries
}

// newMACTable returns a table of at least size entries (rounded up to a
// power of two, at least one bucket) with the given aging time.
func newMACTable(size int, aging time.Duration) *macTable {
	if size <= 0 {
		size = DefaultMACTableSize
	}
	if aging <= 0 {
		aging = DefaultMACAging
	}
	buckets := 1
	for buckets*macWays < size {
		buckets <<= 1
	}
	secs := aging / time.Second
	if secs < 1 {
		secs = 1
	}
	return &macTable{
		mask:  uint64(buckets - 1),
		aging: uint32(min(secs, 1<<31)),
		ent:   make([]atomic.Uint64, buckets*macWays),
		seen:  make([]atomic.Uint32, buckets*macWays),
	}
}

func (t *macTable) bucket(mac uint64) int {
	return int(fmix64(mac)&t.mask) * macWays
}

// lookup returns the port index learned for mac at time now (seconds), or -1.
func (t *macTable) lookup(mac uint64, now uint32) int {
	b := t.bucket(mac)
	for i := b; i < b+macWays; i++ {
		e := t.ent[i].Load()
		if e>>16 == mac && e&0xffff != 0 {
			if t.age(i, now) > t.aging {
				return -1
			}
			return int(e&0xffff) - 1
		}
	}
	return -1
}

// age returns how long ago (seconds) entry i was refreshed, seen from now;
// another worker's clock may be a second ahead, which counts as 0.
func (t *macTable) age(i int, now uint32) uint32 {
	a := now - t.seen[i].Load()
	if int32(a) < 0 {
		return 0
	}
	return a
}

// learn records that mac was seen on port index pi at time now. Port
// indices from 0xfffe up are not learned.
func (t *macTable) learn(mac uint64, pi int, now uint32) {
	if pi < 0 || pi >= 0xfffe {
		return
	}
	b := t.bucket(mac)
	want := mac<<16 | uint64(pi+1)
	free, victim, oldest := -1, -1, uint32(0)
	for i := b; i < b+macWays; i++ {
		e := t.ent[i].Load()
		if e>>16 == mac && e&0xffff != 0 {
			if e != want { // the station moved
				if !t.ent[i].CompareAndSwap(e, want) {
					return // another worker changed it meanwhile: its news is as fresh
				}
				t.learns.Add(1)
			}
			if t.seen[i].Load() != now {
				t.seen[i].Store(now)
			}
			return
		}
		age := t.age(i, now)
		if free < 0 && (e == 0 || age > t.aging) {
			free = i
			continue
		}
		if victim < 0 || age > oldest {
			victim, oldest = i, age
		}
	}
	if free >= 0 {
		victim = free
	}
	e := t.ent[victim].Load()
	if t.ent[victim].CompareAndSwap(e, want) {
		t.seen[victim].Store(now)
		t.learns.Add(1)
	}
}

// normal forwards parsed frame j as an L2 learning switch (OFPP_NORMAL):
// it learns the source address on the ingress port, then sends unicast
// frames to the port their destination was learned on (dropping them if
// that is the ingress port) and floods broadcast, multicast and unknown
// destinations to every port but the ingress one. Frames from a port the
// switch does not have are flooded without learning. The table is
// VLAN-unaware (one table for all VLANs, as a switch with every port in
// one VLAN); frames keep their tags.
func (w *Worker) normal(j int) {
	fs := &w.pkt[j]
	s := w.sw
	d := fs.data
	if !fs.eth || len(d) < 14 {
		w.stats.Skipped++
		return
	}
	if !w.clock {
		w.now = uint32(time.Since(s.start) / time.Second)
		w.clock = true
	}
	in := s.index(fs.inPort)
	var src, dst [6]byte
	copy(dst[:], d[0:6])
	copy(src[:], d[6:12])
	if in >= 0 && src[0]&1 == 0 && src != ([6]byte{}) {
		s.macs.learn(mac48(&src), in, w.now)
	}
	if dst[0]&1 == 0 {
		if out := s.macs.lookup(mac48(&dst), w.now); out >= 0 {
			fs.sent = true // to the ingress port: filtered, not lost
			if out != in {
				w.transmit(j, out)
			}
			return
		}
	}
	for i, q := range s.ports {
		if q != fs.inPort {
			w.transmit(j, i)
		}
	}
	fs.sent = true
}

// SetFailOpen switches fail-open (standalone) operation on or off: while
// it is on, frames that miss in a flow table are forwarded by the NORMAL
// action instead of being dropped. A table-miss entry installed by a
// controller is a hit, not a miss, and keeps its actions. Safe to call at
// any time; workers see the change from their next vector.
func (s *Switch) SetFailOpen(open bool) { s.failOpen.Store(open) }

// FailOpen reports whether fail-open operation is on.
func (s *Switch) FailOpen() bool { return s.failOpen.Load() }

// MACLearned returns how many times the NORMAL action stored a new or
// moved station. Safe to call at any time.
func (s *Switch) MACLearned() uint64 { return s.macs.learns.Load() }

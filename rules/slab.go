package rules

import (
	"sync/atomic"
	"unsafe"

	"github.com/ofswitch/ofswitch/internal/prefetch"
)

// slab hands out Ts one at a time from chunks of about slabBytes, so that a
// burst pays one allocation per chunk instead of one per rule or node, and
// the garbage collector tracks that many times fewer objects.
//
// Elements are never reused: a chunk lives as long as any of its elements
// is reachable, and the garbage collector frees it after that. So nothing a
// lookup may still read is ever overwritten; the cost is memory. In a table
// that grows, chunks fill up and cost nothing extra. Under churn one live
// element keeps its whole chunk alive: at most slabBytes, plus what the dead
// elements in it point to (a dead node its rules, a dead rule its
// Instructions), which their own chunks then bound in turn.
//
// A slab can keep spare chunks, made ahead of need by fill on another
// goroutine (see Pipeline.Prefault): the writer then takes a chunk whose
// memory is already mapped, instead of paying, in the middle of a burst,
// for the page faults of memory the process touches for the first time (a
// rule and its index node take some 550 bytes, so a burst of 256 adds into
// fresh memory faults about 35 times, each microseconds on a virtual
// machine).
//
// A slab of a pipeline that recycles (Config.Recycle) also reuses elements:
// the writer retires an element once no index node reaches it any more,
// tagged with the pipeline's epoch; reclaim moves the retired elements that
// no reader can still hold (see Reader) to recycled, and next hands those
// out, zeroed, before it starts a chunk.
type slab[T any] struct {
	free []T
	// limbo holds the retired elements, oldest first, with the epoch at
	// which each was retired; recycled the reclaimed ones, ready for
	// reuse. Writer only.
	limbo    []retired[*T]
	recycled []*T
	// spare holds zeroed chunks, their pages touched, made by fill; nil
	// when the slab keeps none.
	spare chan []T
	// used is set by the writer when it first starts a chunk: fill makes
	// spares only for slabs in use (most tables of a pipeline stay empty).
	used atomic.Bool
	// low is the pipeline's flag, shared by its slabs that keep spares,
	// set by the writer when it leaves a slab half or less of its spares,
	// or none (see Pipeline.PrefaultDue).
	low *atomic.Bool
}

// slabBytes is the size of a slab chunk, a size class of its own so that a
// chunk wastes little: 11 rules (with their counters), 27 index nodes or
// 204 entries.
// The cost of an allocation (apart from zeroing the memory, which is per
// byte) is shared by that many elements; 2 KB chunks made BenchmarkAdd 9%
// slower. The price is the worst case under churn: a table whose every
// chunk keeps one live element among dead ones holds 11 times the memory
// of its rules and 27 times that of its nodes (see slab).
const slabBytes = 8192

// pageBytes is the page size fill touches chunks by: the smallest of the
// processors Go runs on, so that no page is missed where pages are larger.
const pageBytes = 4096

// perChunk returns how many Ts a chunk holds.
func (s *slab[T]) perChunk() int {
	var x T
	return max(1, slabBytes/int(unsafe.Sizeof(x)))
}

// keepSpare makes the slab keep spare chunks for about n elements, and
// set low when it has used half of them.
func (s *slab[T]) keepSpare(n int, low *atomic.Bool) {
	if n > 0 {
		per := s.perChunk()
		s.spare = make(chan []T, (n+per-1)/per)
		s.low = low
	}
}

// chunk returns a new chunk for the writer: a spare if there is one, else
// a fresh allocation.
func (s *slab[T]) chunk() []T {
	if s.spare != nil {
		if !s.used.Load() {
			s.used.Store(true)
		}
		select {
		case c := <-s.spare:
			if 2*len(s.spare) <= cap(s.spare) {
				s.low.Store(true)
			}
			return c
		default:
			s.low.Store(true)
		}
	}
	return make([]T, s.perChunk())
}

// fill tops the slab's spare chunks up, if it keeps any and is in use, and
// returns how many it made. It may run on any goroutine, while the writer
// takes chunks.
func (s *slab[T]) fill() int {
	if s.spare == nil || !s.used.Load() {
		return 0
	}
	made := 0
	for len(s.spare) < cap(s.spare) {
		c := make([]T, s.perChunk())
		touch(c)
		select {
		case s.spare <- c:
			made++
		default:
			return made // the writer took some and another fill refilled them
		}
	}
	return made
}

// touch writes a zero byte into every page of c, which make returned
// zeroed: memory the runtime took fresh from the system is not written by
// make, and its pages are mapped at their first write. The bytes stay zero,
// so no field, pointer or not, changes.
func touch[T any](c []T) {
	if len(c) == 0 {
		return
	}
	n := uintptr(len(c)) * unsafe.Sizeof(c[0])
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c))), n)
	for i := uintptr(0); i < n; i += pageBytes {
		b[i] = 0
	}
	b[n-1] = 0
}

// retired is an element in a limbo (a slab's, or a table's retired
// orders), with the epoch at which it was retired.
type retired[E any] struct {
	x     E
	epoch uint64
}

// reclaimRetired moves the elements of *limbo (oldest first) retired at
// epochs before oldest to *free, calling poison, if not nil, on each, and
// returns how many it moved.
func reclaimRetired[E any](limbo *[]retired[E], free *[]E, oldest uint64, poison func(E)) int {
	l := *limbo
	k := 0
	for k < len(l) && l[k].epoch < oldest {
		if poison != nil {
			poison(l[k].x)
		}
		*free = append(*free, l[k].x)
		k++
	}
	n := copy(l, l[k:])
	clear(l[n:])
	*limbo = l[:n]
	return k
}

// retire puts x, which no index node reaches any more, into the limbo at
// epoch e.
func (s *slab[T]) retire(x *T, e uint64) {
	s.limbo = append(s.limbo, retired[*T]{x, e})
}

// reclaim makes the retired elements of epochs before oldest available to
// next, and calls poison, if not nil, on each. It returns how many it
// reclaimed.
func (s *slab[T]) reclaim(oldest uint64, poison func(*T)) int {
	return reclaimRetired(&s.limbo, &s.recycled, oldest, poison)
}

// next returns a zero T: the element reclaimed last, if any, else the next
// of the current chunk, starting a new chunk when it is used up.
func (s *slab[T]) next() *T {
	if n := len(s.recycled); n > 0 {
		x := s.recycled[n-1]
		s.recycled = s.recycled[:n-1]
		if n > 1 {
			prefetchAll(unsafe.Pointer(s.recycled[n-2]), unsafe.Sizeof(*x))
		}
		clear(unsafe.Slice(x, 1))
		return x
	}
	if len(s.free) == 0 {
		s.free = s.chunk()
	}
	x := &s.free[0]
	s.free = s.free[1:]
	if len(s.free) > 0 {
		prefetchAll(unsafe.Pointer(&s.free[0]), unsafe.Sizeof(*x))
	}
	return x
}

// take returns n zero Ts, contiguous, from the current chunk, or from a new
// one when fewer are left (the rest of the old one is then never used). More
// than a quarter of a chunk's worth get an allocation of their own.
func (s *slab[T]) take(n int) []T {
	per := s.perChunk()
	if n > per/4 {
		return make([]T, n)
	}
	if n > len(s.free) {
		s.free = s.chunk()
	}
	xs := s.free[:n:n]
	s.free = s.free[n:]
	return xs
}

// maxPooled is the longest array of entries or checks a recycling table
// keeps for reuse (arrayPool): a node holds at most the collision limit
// (64) of merged entries, and longer nodes, of many rules of one match and
// priority, are rare enough to leave to the garbage collector.
const maxPooled = 64

// arrayPool keeps the entry and check arrays of reclaimed index nodes of
// a recycling table (Config.Recycle), by the entry count of the node that
// held them, for the node copies of later updates: under churn a node
// copy's arrays then come from a node copied or unlinked before, not from
// fresh memory that the garbage collector must then scan and free. An
// array goes into the pool with the node that held it, once that node is
// reclaimed (no reader can hold it), and comes out as it was: its user
// writes every element (newNode, setChecks). The caller knows an array's
// length from its class: n entries, or n checks and their packed
// addresses (addrChecks). Writer only.
type arrayPool[T any] struct {
	free [maxPooled + 1][]*T // free[n]: arrays of nodes of n entries, by their first element
}

// put keeps the array at x of a node of n entries, unless n is out of
// the pool's classes.
func (p *arrayPool[T]) put(n int, x *T) {
	if n > 0 && n <= maxPooled {
		p.free[n] = append(p.free[n], x)
	}
}

// get returns the first element of an array of a node of n entries from
// the pool, with arbitrary contents, or nil if it has none.
func (p *arrayPool[T]) get(n int) *T {
	if n <= 0 || n > maxPooled {
		return nil
	}
	fl := p.free[n]
	if len(fl) == 0 {
		return nil
	}
	x := fl[len(fl)-1]
	fl[len(fl)-1] = nil
	p.free[n] = fl[:len(fl)-1]
	return x
}

// prefetchAll starts loading the cache lines of the size bytes at p: the
// element next hands out after this one, written by the update after.
func prefetchAll(p unsafe.Pointer, size uintptr) {
	prefetch.Lines(p, size)
}

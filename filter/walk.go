package filter

// The kick walk. Insert first simulates the paper's forward walk on a private
// overlay of the buckets it touches, making the same random choices and
// counting the same iterations, without writing shared memory. Only if the
// walk ends (in a free slot, or in the Bloom part) is it carried out, and
// then from its end: each store copies an element to its new slot before the
// next store overwrites the slot it came from, so every element stays
// visible to lookups at every instant.
//
// The overlay tags every fingerprint with the slot it started in, so that
// the net effect of a walk that revisits slots is known: a chain that runs
// from the new element to the slot (or Bloom bits) where the walk ended.
// Elements that a walk only permutes among their own buckets are left where
// they were; that state is as valid as the simulated one.

// Insert adds h. It never loses an element already in the filter; see
// Placement for where h went.
func (f *Filter) Insert(h uint64) InsertResult {
	i1, fp := f.split(h)
	i2 := f.alt(i1, fp)
	f.stats.Inserts++
	for _, i := range [2]uint64{i1, i2} {
		w := f.load(i)
		if s := f.slotOf(w, 0); s >= 0 {
			f.store(i, f.set(w, s, fp))
			f.cuckooN.Add(1)
			return f.done(Cuckoo, 1)
		}
	}
	p, iters := f.walk(fp, i1, i2, f.t)
	switch p {
	case Cuckoo:
		f.cuckooN.Add(1)
		fallthrough
	case Bloom:
		f.stats.Kicks += uint64(iters - 1)
		return f.done(p, iters)
	}
	f.stats.Failed++
	n := int(f.stashN.Load())
	if n == StashSize {
		return f.done(Full, iters)
	}
	f.stashV.Add(1)
	f.stash[n].Store(stashKey(i1, i2, fp))
	f.stashN.Store(int32(n + 1))
	return f.done(Stash, iters)
}

func (f *Filter) done(p Placement, iters int) InsertResult {
	f.hist[min(iters, len(f.hist)-1)]++
	f.stats.MaxIterationsSeen = max(f.stats.MaxIterationsSeen, iters)
	return InsertResult{Placement: p, Iterations: iters}
}

// idNew tags the element being inserted; other elements are tagged with
// their original position, bucket<<2 | slot.
const idNew = ^uint64(0)

type simBucket struct {
	idx   uint64
	word  uint64
	ids   [SlotsPerBucket]uint64
	stamp uint32
}

// sim is an open-addressed table of the buckets a walk touched, cleared in
// O(1) by bumping the generation stamp.
type sim struct {
	tab   []simBucket
	mask  uint64
	stamp uint32
}

func (s *sim) init(maxIter int) {
	n := 16
	for n < 4*(maxIter+4) {
		n <<= 1
	}
	s.tab = make([]simBucket, n)
	s.mask = uint64(n - 1)
}

func (s *sim) reset() {
	s.stamp++
	if s.stamp == 0 {
		clear(s.tab)
		s.stamp = 1
	}
}

// bucket returns the overlay of bucket i, loading it on first touch.
func (f *Filter) simBucket(i uint64) *simBucket {
	s := &f.sim
	for p := (i * 0x9e3779b97f4a7c15 >> 40) & s.mask; ; p = (p + 1) & s.mask {
		e := &s.tab[p]
		if e.stamp != s.stamp {
			e.stamp, e.idx, e.word = s.stamp, i, f.load(i)
			for j := range e.ids {
				e.ids[j] = i<<2 | uint64(j)
			}
			return e
		}
		if e.idx == i {
			return e
		}
	}
}

// rand returns the next number of the writer's splitmix64 sequence.
func (f *Filter) rand() uint64 {
	f.rng += 0x9e3779b97f4a7c15
	z := f.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// walk places fingerprint fp, whose buckets i1 and i2 are both full, by a
// random cuckoo walk; after t kicks (t >= 0) the carried element may take
// the Bloom bits of its two buckets instead. It returns Cuckoo or Bloom with
// the iteration count when the walk was carried out, or Full when it gave up
// after MaxIterations, in which case nothing was written.
func (f *Filter) walk(fp, i1, i2 uint64, t int) (Placement, int) {
	f.sim.reset()
	b := i1
	if f.rand()&1 == 1 {
		b = i2
	}
	c, cid := fp, idNew
	iters := 1
	for kicks := 0; ; kicks++ {
		if t >= 0 && kicks >= t {
			b2 := f.alt(b, c)
			bit := f.bloomBit(c)
			if (f.load(b)|f.load(b2))&bit == 0 {
				f.commitBloom(c, cid, b, b2)
				return Bloom, iters
			}
		}
		if iters >= f.maxIter {
			return Full, iters
		}
		e := f.simBucket(b)
		s := int(f.rand() & (SlotsPerBucket - 1))
		v, vid := f.get(e.word, s), e.ids[s]
		e.word, e.ids[s] = f.set(e.word, s, c), cid
		c, cid = v, vid
		iters++
		b = f.alt(b, c)
		e = f.simBucket(b)
		if s := f.slotOf(e.word, 0); s >= 0 {
			e.word, e.ids[s] = f.set(e.word, s, c), cid
			f.store(b, f.set(f.load(b), s, c))
			f.follow(cid)
			return Cuckoo, iters
		}
	}
}

// commitBloom puts the carried element (fingerprint c, tag id) in the Bloom
// part of buckets a and b, then carries out the chain behind it.
func (f *Filter) commitBloom(c, id, a, b uint64) {
	lo, hi := min(a, b), max(a, b)
	f.bloomN.Add(1) // before the bits: readers test the bits only if n > 0
	f.setBloom(lo, hi, c)
	f.bloom[f.bloomKey(lo, c)] = bloomEntry{other: uint32(hi), fp: uint16(c)}
	f.follow(id)
}

// follow carries out the chain of a walk backwards from the element tagged
// id, whose copy is already in its final place: the slot it came from gets
// its final occupant, whose own old slot is next, until the new element.
func (f *Filter) follow(id uint64) {
	for id != idNew {
		src, slot := id>>2, int(id&(SlotsPerBucket-1))
		e := f.simBucket(src)
		fp := f.get(e.word, slot)
		f.store(src, f.set(f.load(src), slot, fp))
		id = e.ids[slot]
	}
}

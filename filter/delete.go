package filter

// Delete removes one element equal to h (Algorithm 1: from a cuckoo slot if
// its fingerprint is in one of its buckets, else from the Bloom part, else
// from the stash) and reports whether it found one. Delete only hashes that
// were inserted: a cuckoo filter cannot tell two keys with the same
// fingerprint and buckets apart.
func (f *Filter) Delete(h uint64) bool {
	i1, fp := f.split(h)
	i2 := f.alt(i1, fp)
	for _, i := range [2]uint64{i1, i2} {
		w := f.load(i)
		if s := f.slotOf(w, fp); s >= 0 {
			f.store(i, f.set(w, s, 0))
			f.cuckooN.Add(-1)
			return true
		}
	}
	if f.bloomN.Load() > 0 {
		lo, hi := min(i1, i2), max(i1, i2)
		key := f.bloomKey(lo, fp)
		if e, ok := f.bloom[key]; ok && uint64(e.fp) == fp && uint64(e.other) == hi {
			f.clearBloom(lo, hi, fp)
			delete(f.bloom, key)
			f.bloomN.Add(-1)
			return true
		}
	}
	n := int(f.stashN.Load())
	sk := stashKey(i1, i2, fp)
	for i := range n {
		if f.stash[i].Load() == sk {
			// Copy the last key over this one before shrinking, so
			// that a reader never misses the moved key.
			f.stashV.Add(1)
			f.stash[i].Store(f.stash[n-1].Load())
			f.stashN.Store(int32(n - 1))
			return true
		}
	}
	return false
}

// Rebalance moves up to budget elements from the stash and the Bloom part
// back into cuckoo slots, kicking with plain cuckoo walks where needed, and
// returns how many it moved. Call it when the writer is idle, to free Bloom bits for the
// next burst. Every element stays visible to lookups throughout: its
// fingerprint is written to a slot before its Bloom bits are cleared.
func (f *Filter) Rebalance(budget int) int {
	if budget <= 0 {
		return 0
	}
	moved := f.drainStash(budget)
	keys := f.scratch[:0]
	for k := range f.bloom {
		if len(keys) == budget-moved {
			break
		}
		keys = append(keys, k)
	}
	f.scratch = keys
	for _, k := range keys {
		e := f.bloom[k]
		lo, hi, fp := uint64(k>>1), uint64(e.other), uint64(e.fp)
		if !f.relocate(fp, lo, hi) {
			continue
		}
		f.clearBloom(lo, hi, fp)
		delete(f.bloom, k)
		f.bloomN.Add(-1)
		f.stats.Rebalanced++
		moved++
	}
	return moved
}

// relocate writes fp into a free slot of bucket a or b, or places it by a
// plain cuckoo walk, and reports whether it did. It counts the element as a
// cuckoo one; the caller then removes it from where it was.
func (f *Filter) relocate(fp, a, b uint64) bool {
	for _, i := range [2]uint64{a, b} {
		w := f.load(i)
		if s := f.slotOf(w, 0); s >= 0 {
			f.store(i, f.set(w, s, fp))
			f.cuckooN.Add(1)
			return true
		}
	}
	if p, _ := f.walk(fp, a, b, -1); p != Cuckoo {
		return false
	}
	f.cuckooN.Add(1)
	return true
}

// drainStash moves up to budget stashed keys into cuckoo slots. The slot is
// written before the stash entry goes, so a reader sees the key throughout.
func (f *Filter) drainStash(budget int) int {
	moved := 0
	for i := int(f.stashN.Load()) - 1; i >= 0 && moved < budget; i-- {
		sk := f.stash[i].Load()
		lo, fp := sk>>16, sk&0xffff
		if !f.relocate(fp, lo, f.alt(lo, fp)) {
			continue
		}
		n := int(f.stashN.Load())
		f.stashV.Add(1)
		f.stash[i].Store(f.stash[n-1].Load())
		f.stashN.Store(int32(n - 1))
		moved++
	}
	return moved
}

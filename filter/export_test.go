package filter

// Hooks into the writer that only tests use.

// setAfterStore makes fn run after every store to a bucket (nil: nothing
// runs), so that a test can check the invariants at every instant a reader
// sees.
func (f *Filter) setAfterStore(fn func()) { f.afterStore = fn }

// has reports whether a lane of bucket word w holds fp.
func (f *Filter) has(w, fp uint64) bool { return f.lanes(w, fp) != 0 }

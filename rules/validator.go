package rules

// Validator validates matches as Match.Validate does, for a reader of
// many matches that mostly share a mask (a flow file's lines): it
// remembers the last mask that passed the mask checks and checks only the
// prerequisites of a match with that mask. The zero Validator is ready to
// use; it is not safe for concurrent use.
type Validator struct {
	c maskCache
}

// Validate returns what m.Validate returns.
func (v *Validator) Validate(m *Match) error { return m.validateCached(false, &v.c, nil) }

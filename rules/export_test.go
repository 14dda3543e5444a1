package rules

// Poison makes p overwrite every rule and index node it reclaims for reuse
// with values no flow has, so that a reader that still held one fails its
// oracle (and the race detector sees the writes).
func Poison(p *Pipeline) { p.poison = true }

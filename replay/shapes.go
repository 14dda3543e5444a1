package replay

import "github.com/ofswitch/ofswitch/rules"

// ruleShapes returns the matches of the table-0 adds among ups: the
// shapes (subtables) that the synthetic controller's flows take when
// Config.BurstFromRules is set.
func ruleShapes(ups []rules.Update) []rules.Match {
	var out []rules.Match
	for i := range ups {
		if u := &ups[i]; u.Command == rules.CmdAdd && u.Table == 0 {
			out = append(out, u.Match)
		}
	}
	return out
}

// shapeTries is how many rules shaped tries before it gives up on a
// rule set whose masks leave few values free.
const shapeTries = 16

// shaped returns a flow shaped like a random rule of the rule set: its
// mask (so, in package rules, its subtable), eth_type and ip_proto, and
// random values under the mask of its addresses and ports, and not a match
// table 0 holds already, so that it is a new element of table 0's filter
// (each distinct subtable and masked key is one). It reports false if
// shapeTries draws found none; the caller then adds an exact 5-tuple.
func (c *controller) shaped() (rules.Match, bool) {
	for range shapeTries {
		m := c.shapes[c.rng.IntN(len(c.shapes))]
		for _, f := range []rules.Field{rules.FieldIPv4Src, rules.FieldIPv4Dst, rules.FieldL4Src, rules.FieldL4Dst} {
			if _, mask := m.Get(f); mask != 0 {
				m.Set(f, c.rng.Uint64(), mask)
			}
		}
		if !c.taken[m] {
			return m, true
		}
	}
	return rules.Match{}, false
}

// filterElements returns the number of elements the rule set puts into
// table 0's filter: one per distinct subtable and masked key, however many
// rules share it, which only the classifier knows (a ClassBench set's
// flows share many: fw1_1k's 2591 flows make 608), so it loads ups into a
// pipeline without a filter and counts. Sizing the filter by the number of
// updates would leave it far below Config.Occupancy. If the rules do not
// load, it returns len(ups) and runKind reports the error.
func filterElements(ups []rules.Update, tables int) int {
	p, err := rules.New(&rules.Config{Tables: max(tables, 1), Filter: rules.FilterNone})
	if err != nil {
		return len(ups)
	}
	p.ApplyBurst(ups, true)
	return p.Table(0).Stats().Keys
}

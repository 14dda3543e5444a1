// Package classbench reads ClassBench filter sets and packet traces and
// turns them into rules.Update values.
//
// # Files
//
// Parse reads a filter file: one rule a line, "@src/len dst/len lo : hi
// lo : hi proto/mask flags/mask", the first rule winning. ParseTrace reads
// a trace: seven TAB-separated columns (src, dst, sport, dport, proto,
// flags, label), the label naming the rule that generated the header. The
// flags columns are parsed for syntax and dropped. A malformed line stops
// the parse with a *ParseError that says file:line:column and what was
// expected.
//
// # Port ranges
//
// OpenFlow matches ports by value and mask, ClassBench by range: Updates
// expands each rule into one flow entry per (source port prefix,
// destination port prefix) pair of ExpandPortRange, and reports the
// growth (Expansion). Rule i gets priority Priority - i, floored at 1, and
// the entries are added in file order, so that where priorities run out
// the pipeline's insertion order still makes the first rule in file order
// win (see package rules, "Priority order"). PrioritizeByLine gives the
// same priorities to flows read from ClassBench-ng's OpenFlow sets, which
// carry none.
//
// # Checking
//
// A ClassBench rule matches a header by prefix, inclusive port range and
// masked protocol (Rule.MatchesHeader), and the first rule in file order
// wins: First is that classification, a linear scan over the rules as
// written. Check loads a set into a pipeline, classifies every header of
// a trace and checks each answer against First and against the trace's
// label (the rule that generated the header must match it and must not
// come before the answer); ofswitch rules check prints its CheckReport.
package classbench

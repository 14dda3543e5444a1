// Package classbench reads ClassBench filter sets and packet traces and
// turns them into rules.Update values.
//
// # Files
//
// Parse reads a filter file: one rule a line, "@src/len dst/len lo : hi
// lo : hi proto/mask flags/mask", the first rule winning. The flags column
// (TCP flags) is 16 bits wide in ClassBench's own sets, 8 or 32 bits wide
// or absent in other generators'; it is parsed for syntax and dropped.
// ParseTrace reads a trace: seven TAB-separated columns (src, dst, sport,
// dport, proto, flags, label), the label naming the rule that generated the
// header; the flags are dropped too. A malformed line stops the parse with
// a *ParseError that says file:line:column and what was expected.
// GenerateTrace draws a trace from a set as ClassBench's trace generator
// does (random corners of random rules, repeated in Pareto-long runs) and
// WriteTrace writes one in that format (ofswitch bench trace).
// ClassBench-ng's OpenFlow sets (of1) are flows in ovs-ofctl syntax, read
// by package ofctl.
//
// # Five independent fields
//
// ClassBench matches five independent fields: a rule is two prefixes, two
// inclusive port ranges and a masked protocol (Rule.MatchesHeader), and a
// header carries ports whatever its protocol. So a rule may constrain the
// ports of ICMP (0x01/0xFF with source port 21), or of every protocol
// (0x00/0x00 with a port range), and a trace header of protocol 1 may carry
// port 21. First, a linear scan over the rules as written, is that
// classification. The classifier reproduces it exactly: TupleUpdates tests
// the ports whatever the protocol, Header.Key carries them whatever the
// protocol, and the pipeline takes the entries with Config.NoPrereqs, since
// OpenFlow would refuse them (OFPBMC_BAD_PREREQ). Check and the classifier
// benchmarks of package rules load sets this way.
//
// # OpenFlow flows
//
// In OpenFlow only TCP, UDP and SCTP packets have ports, and ip_proto takes
// no mask. Updates (and ofswitch rules convert, which prints them) turns
// each rule into flows that meet OpenFlow's prerequisites (Rule.Flows): a
// rule constraining ports under every protocol becomes a tcp, a udp and an
// sctp copy; one constraining ports of another protocol has no flow for
// it, since no packet of it has ports in any range; a partial protocol mask
// becomes one copy per protocol under it. These flows match exactly what
// Rule.MatchesPacket says: a rule as ClassBench reads it, where a packet of
// a protocol without ports meets only the full port ranges 0 : 65535.
// FirstPacket is the linear scan by that reading. The alternative, dropping
// the port constraint for protocols without ports (so that ICMP with source
// port 21 matches every ICMP packet of its prefixes), was not taken: it
// guesses what the rule meant, and for a rule of every protocol it cannot
// be written, since its portless part would be "ip_proto other than 6, 17
// and 132", which takes 253 flows. Notes says, per
// rule whose flows differ from it, what they do; rules convert writes each
// as a comment line before the rule's flows and rules check prints them.
// ClassBench's own sets (acl, fw, ipc) hold no such rule; on them both
// translations give the same entries.
//
// # Port ranges
//
// ClassBench matches ports by range, OpenFlow by value and mask. Ports
// says which of the two an update gets. With PortRanges, a rule becomes
// one entry per protocol whose ranges ride in rules.Update.Ranges
// (SetPortRange: a single port stays an exact match, 0 : 65535 no test),
// checked by the pipeline after the hash match: fw1_10k's 9,416 rules
// are 9,416 entries, and adding or deleting a rule changes one. With
// PortPrefixes, each rule becomes one entry per protocol and (source port
// prefix, destination port prefix) pair of ExpandPortRange, as OpenFlow
// can say it: 32,181 entries for fw1_10k, up to 36 per rule. TupleUpdates
// (Check, the benchmarks and churn of package rules) uses ranges, and
// TupleUpdatesWith chooses; Updates, whose flows ofswitch rules convert
// writes in ovs-ofctl syntax, uses prefixes, and UpdatesWith chooses.
// Expansion reports the entries either way. Rule i gets priority
// Priority - i, floored at 1, and the entries are added in file order, so
// that where priorities run out the pipeline's insertion order still
// makes the first rule in file order win (see package rules, "Priority
// order"). PrioritizeByLine gives the same priorities to flows read from
// ClassBench-ng's OpenFlow sets, which carry none.
//
// # Checking
//
// Check loads a set over its five fields, classifies every header of a
// trace and checks each answer against First and against the trace's label
// (the rule that generated the header must match it and must not come
// before the answer); ofswitch rules check prints its CheckReport.
package classbench

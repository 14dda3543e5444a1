// Package rules holds flow entries with OpenFlow 1.3 semantics and the
// classifier that decides which entry every packet matches.
//
// # Keys and matches
//
// A Key is a fixed-size array of words holding every field the data plane
// extracts; a Match is a value and a mask over a Key. Match.Validate applies
// OpenFlow 1.3.5's prerequisites and mask rules and returns errors that carry
// the OpenFlow (type, code) pair (OFPBMC_BAD_PREREQ and friends) as plain
// numbers, so this package imports nothing from the wire codec. A pipeline
// with Config.NoPrereqs skips the prerequisites, for classifiers of abstract
// headers whose fields are independent (ClassBench's five fields).
// CheckActions, which a Pipeline runs on every add and modify, refuses the
// actions a flow's match cannot promise (set_field without its field's
// prerequisites, set_nw_ttl without IP: OFPBAC_MATCH_INCONSISTENT) and the
// set_field actions no switch performs (in_port, values beyond the field),
// with Open vSwitch's codes. set_field of eth_type and ip_proto, which Open
// vSwitch refuses, is accepted and leaves the fields above it unknown to the
// actions after it.
//
// Open vSwitch's tunnel metadata fields tun_metadata0-63 have no fixed
// place: a switch's TLV table gives each a length and bytes in the 32-byte
// option space, FieldTunOpts0-3 (Key words 32-35), through a
// TunMetadataLayout. Match.SetTunMetadata and TunMetadata read and write
// a field's bytes; a set_field of one is the loads of TunMetadataLoads
// (one per word, marked ActionExt.TunMetadata), and move and output:field
// take its bits in one word (TunMetadataSubfield, ActionExt.SrcTun and
// DstTun). The words are pipeline metadata, written in the key only.
//
// # Subtables
//
// A Table is a tuple-space classifier: rules are grouped by mask into
// subtables; a subtable maps a masked key to its rules in decreasing
// priority. One filter (package filter: Bloom-Cuckoo, plain cuckoo, or none)
// sits in front of all subtables of a table, keyed by hash(subtable, masked
// key); each distinct (subtable, masked key) is one element of the filter,
// however many rules share it. A filter negative skips the subtable's hash
// probe; a false positive costs one probe and is counted.
//
// The filter is consulted where it pays, per subtable, from evidence. A
// filter negative saves the probe of a subtable that lacks the key; where
// the subtable holds it, the check is pure cost. With s the share of a
// subtable's visits that find the key absent, C the cost of a check (one
// load of the filter's store count, two bucket loads and one test) and P
// that of a probe that finds nothing (a slot load and its tests), the
// filter pays where s > C/P. s is a property of the traffic that the
// writer does not see (fw1_1k's most visited subtables find the key in
// 15-76% of visits; the exact subtable of a table of exact flows in all
// of them, or in half when half the keys are unknown), C/P one of where
// the index and the filter sit in the caches. The rule (direct.go):
//
//   - Evidence: about one lookup in 32 of each reader (chosen by the
//     reader's own count of lookups and the key's address word) notes, for
//     every subtable it visits, whether the key was there, in counters of
//     the subtable's own line: a filter negative is a certain miss,
//     otherwise the probe tells, so the evidence costs no probe and no
//     write in the other lookups. After 256 noted visits, the lookup that
//     noted the last decides the subtable's use and starts a new window.
//     The use is copied in the subtable's order entry, which a visit
//     reads anyway: read from the subtable itself, a line a filter
//     negative does not otherwise touch, it cost fw1_10k 8% of its
//     lookup rate.
//   - Threshold: behind the filter if more than half of the window's
//     visits missed, in an index of less than 2^16 slots (1 MB, what the
//     second-level cache holds; the ClassBench sets have 2^10 to 2^15),
//     and more than a quarter from 2^16 slots on, where a probe's slot is
//     likely a cache miss and the filter's bucket, a few bytes a key
//     against 16 bytes a slot and 2 to 8 slots a key, less likely; probed
//     directly if fewer; within 5% of the threshold the use stays.
//   - From 2^16 slots on, a subtable behind the filter whose visits find
//     the key in more than a quarter of them loads the key's slot ahead
//     of the check, so that a hit waits for one cache miss, not two in a
//     row; where the checks are mostly negatives the line would go unused
//     (without the prefetch in front of the subtables holding few keys,
//     acl1_10k's rules in front of 100,000 exact flows look up 1.14x
//     faster).
//
// A new subtable starts behind the filter. The exact subtable of a table
// of exact flows that traffic hits is probed directly; the same subtable
// with half the keys unknown goes behind the filter. A reader that starts
// from zero Counters every lookup (Lookup) samples by the key's address
// only; LookupBatch samples a chunk's pass over a subtable and notes all
// its keys. The rule decides which subtables a lookup checks against the
// filter, never an answer.
//
// Measured on 2 vCPUs shared with other work (load 3-10), against the
// rule it replaced (the filter in front of every subtable but one that
// held more than three quarters of the table's keys), builds alternated
// 5 rounds, medians: BenchmarkFilterTables (a table built with the filter
// against one without), bcf/none 1.01-1.36 on all eight ClassBench sets
// (acl1_1k 1.03, fw1_1k 1.01, ipc1_1k 1.12, fw1_1k_ps 1.14, acl1_10k
// 1.27, fw1_10k 1.36, ipc1_10k 1.24, acl1_8k 1.13; before: 0.96-1.31,
// acl1_1k 0.97, fw1_1k 0.96); again at load 1.5-2.5, 5 rounds: acl1_1k
// 1.01 (0.96), fw1_1k 0.96 (0.95), ipc1_1k 1.04 (1.05), fw1_1k_ps 1.01
// (1.00), the 10k sets 1.05-1.22 (1.06-1.23): fw1_1k stays below,
// though its table built with the filter, looked up without it, runs at
// 1.01x the other table.
// BenchmarkLookupPaths (one table, the
// rule's path over single lookups without the filter): ClassBench sets
// 1.03-1.20 (0.998-1.13 before; paired, 0.99-1.14x the old rule's rate),
// acl1_1k's first 100 rules 0.99 (0.92), batches 1.02-1.22x the old
// rule's rate; on tables of 1,000 to 100,000 exact flows single lookups
// 0.97-0.99x the old rule's rate (the per-lookup sampling test and the
// read of the entry's use, on lookups of one visit). Thresholds, with the
// same benchmarks: at 10%, 25% and 50% below 2^16 slots, the 1k sets and
// fw1_10k ran fastest at 50% (fw1_1k 0.97, 0.97, 0.98; ipc1_1k 1.09,
// 1.09, 1.11 in LookupPaths), at 70% and 90% no faster on fw1_1k and
// slower on ipc1_1k (1.04, 0.94 in FilterTables) and the 10k sets. In
// BenchmarkExact100K with half the keys unknown (2^18 slots), the exact
// subtable behind the filter (25%) looked up in 0.90x the CPU time of the
// same subtable probed directly.
//
// Checking the key's home slot before the filter, and skipping the
// subtable where it is empty (60-75% of the filter's negatives on the
// ClassBench sets), costs more than the checks it saves: 0.84-0.89x on
// ipc1_1k, ipc1_10k, acl1_8k.
//
// # Priority order
//
// A lookup visits subtables in decreasing order of the best rule they hold
// and stops as soon as no remaining subtable can beat the best match found.
// Rules of equal priority that match the same packet are ordered by
// insertion (the earlier wins), so ClassBench's "first rule in file order"
// is reproduced exactly even when priorities run out. It passes over,
// for a few instructions and without hash or filter check, a subtable
// whose guard the key fails: the bits of in_port, eth_type, vlan_vid,
// ip_proto and the IPv4 addresses on which all of the subtable's nodes
// agree (guardWords; the writer narrows a guard before a node that
// disagrees becomes visible, and never widens it). The writer keeps the
// order sorted: a subtable whose best rank or guard changed, or that
// appeared or went, moves by one delete and one insert when the change is
// published, and a publish that changes no entry stores no new order.
//
// # Versions
//
// Every rule carries the version at which it was added and the one at which
// it was removed; it is visible to lookups at versions in [added, removed),
// as in Open vSwitch's classifier. The writer stamps a burst of updates with
// the next version and publishes it with one atomic store, so publishing
// costs the size of the burst, not of the table. An index node's ranked
// entries are immutable and replaced by copy-on-write, so a lookup walking
// an old node sees a consistent old list. A node of two entries or more with
// checks has room for four entries more after them, its tail: an add into
// it of a rule ranked below its first goes there in place, published to
// lookups by the count of the tail's entries, which the writer raises
// once the entry is written (appendEntry; one such add in five copies
// the node, where every add copied it, and the copy ranks the tail's
// entries). A lookup tests the tail's entries after the ranked ones,
// where one may beat the best found. A burst of more than 16 updates
// ranks the tails it made at its end, and the idle work (Rebalance) those
// of smaller bursts, so that a table loaded or left alone has none. A node takes one copy per run of updates into it,
// not one per rule: the adds that follow each other into one node (the
// entries of a rule whose port ranges expand, in a subtable that does not
// test ports) build one copy, which takes the node's place before the
// writer does anything else, and cleanup unlinks a run of removed rules of
// one node with one copy, or with none: a node that keeps at least four
// times as many rules as it holds unlinked keeps the unlinked entries,
// marked for the writer, until its next copy drops them (lookups pass
// over them as over any removed rule's). Removed rules stay in the index
// for a short grace after the version removing them is published
// (Config.UnlinkAfter, 50 µs by default) and are then unlinked, their
// largest removal version announced first. A lookup at version v that
// finds the announced version above v may have missed a rule unlinked
// under it and starts over at the newer version;
// any other lookup, however many bursts went by meanwhile, needs no retry.
// So a lookup never blocks, is not starved by a stream of small bursts, and
// never returns an answer that no single version would give.
//
// # Lock-free lookups
//
// Lookup, LookupVersion and LookupBatch load the version, the subtable
// order, the filter and the index with atomic reads, write no shared
// memory and allocate nothing; each caller counts what its lookups did in
// Counters of its own. LookupBatch classifies up to 32 keys subtable by
// subtable, so that their filter probes and index loads overlap, where
// that pays: in a table whose index has at least 2^16 slots (1 MB), and
// when the batch's first key, looked up alone, visited one subtable only;
// otherwise it looks the keys up one by one, as Lookup does. A
// chunk's keys still undecided after the first two subtables it visits go
// on one by one, and if the first key found its rule in the first
// subtable it visited, the chunk probes its first subtable without the
// filter. A chunk pays a pass over its undecided keys for every
// subtable it goes through, which costs more than it saves where the
// index sits in cache or lookups visit many subtables (ClassBench sets,
// small tables), and pays where index loads miss the cache and a lookup
// visits one subtable (large exact tables); BenchmarkLookupPaths measures
// each path against the others on the same table, and BENCHMARKS.md
// holds its figures. When the
// filter fills, the writer builds a larger one from the index and swaps
// it in; lookups use the old one until then.
//
// The index (open addressing, linear probing by the node's hash) grows,
// or sheds its tombstones, without a pause: past 3/8 of its slots in use
// the writer allocates the next array, which lookups do not see, copies
// a share of the published slots into it at every add (so that the copy
// ends before the published array is half full), makes every change to
// a slot already copied in both arrays, and publishes the next array,
// complete, with one atomic store. A burst that grows the index pays for
// its share of the copy only, not for moving every node; for a large
// index, Prefault makes the next array, its pages mapped, before the copy
// starts.
//
// # Recycling
//
// Without Config.Recycle, a removed rule and a replaced index node are
// left to the garbage collector once unlinked. With it, the pipeline
// reuses their memory for the rules and nodes of later adds, by
// epoch-based reclamation: the goroutines that look rules up announce
// through a Reader when they may hold rules (Enter) and when they hold
// none (Leave); the writer retires what it takes out of the index, tagged
// with the current epoch, advances the epoch at the end of each burst and
// idle cleanup that leaves something retired, and reuses what was retired
// before the oldest epoch an entered reader announced. A reclaimed node's
// arrays of entries and checks (a node of several rules has them) go, by
// the node's entry count, to pools of its table, from which later copies
// of nodes of that count take them: under churn, where most adds and deletes of merged rules
// copy a node of several entries, updates then take next to no new memory.
// So does the subtable order: one that a newly published order replaced
// is retired and reclaimed as nodes are, and a later publication copies
// the order into it (ClassBench churn one rule a call: 0-7 bytes a call,
// where cloning each order published took 11-149). Readers never wait
// and never write shared memory other than their own announcement; a
// reader that stays entered only keeps memory from being reused. A rule
// stays out of recycling while a MODIFY's new rule shares its counters (a
// flow modified since its add holds two slots: its first version's, for
// the counters, and its current one's); a FlowRemoved record gets a copy
// of its rule, which goes back to the slab as others do. A removed rule
// unlinked from a node that other rules still use (a MODIFY's successor, a
// flow added back) leaves it in a copy without it, and is retired with
// the old node; one unlinked from a node of many rules stays in the node
// (see Versions) and is retired with it when a copy replaces it. The data
// plane's workers announce every vector of frames they process
// (dataplane.Worker.Process and Quiesce).
//
// # Merged subtables
//
// Like TupleMerge, a rule may live in a subtable whose mask is coarser than
// its own, on the relaxed words (ip_proto's, the IPv4 addresses', the L4
// ports' and the ARP addresses'); its node keeps the rule's own value and
// mask on those words (a check), which a lookup tests after the hash
// match. A lookup that finds a node with checks scans them in rank order
// (scanChecks, scan.go): first the IPv4 address word of each, packed after
// the checks four to a cache line, then the whole check of an entry whose
// addresses match, and only then the entry's rank and versions, so that
// the entries the key fails (most of a merged node's) cost a quarter of a
// line each. A rule goes, in this order, to a merged subtable that rules of
// its mask went to before, to the oldest subtable whose mask its own
// covers, or to a subtable of its mask relaxed: first without ports and
// ip_proto, then with them; at both, an address more than 4 bits shorter
// than the other is dropped and both are shortened a little (32 to 28,
// 25..31 by three, 17..24 by two, 9..16 by one). The first whose node for
// the rule holds fewer than 64 entries (the collision limit) takes it,
// else its own mask does. An exact flow (addresses and ports each exact
// or absent, no port ranges, and a microflow where it tests an IPv4 or
// ARP address: both ARP addresses, or both IPv4 addresses and both ports
// or ICMP type and code) never merges. A rule of exact IPv4 addresses
// that tests one of them, or one port or none (a host mask's), merges
// while its mask's rules are a minority of the table: at the end of a
// burst, a host mask whose rules are at most half the table's moves them
// to merged subtables where they share a subtable with other masks'
// rules (a merged subtable of its mask's own rules only saves no visit),
// and one whose rules are more than three quarters, or that shares none,
// moves them back to its own subtable (rehome), where a host-route table,
// or one of hosts beside routes of other addresses, keeps one rule a node
// and no scan. The table remembers, per mask, the merged
// subtables its rules went to, so that finding a rule by match and
// priority probes those and its own. This cuts the subtables a lookup
// visits on ClassBench's firewall sets from 17-21 to 8.4-11.2 (with port
// ranges expanded into prefixes), on the others by a fifth to a quarter.
// Config.NoMerge gives plain tuple space search.
//
// # Port ranges
//
// A rule added through the Go API may carry inclusive ranges of its L4
// source and destination ports (Update.Ranges, Ranges), as ClassBench's
// rules do; OpenFlow has none, and its rules carry the zero Ranges. A
// ranged port is wildcarded in the rule's Match, so the rule is one entry
// in a subtable whose mask does not test that port, and its node's check
// tests lo <= port <= hi after the hash match, as TupleMerge does: the
// check's L4 word holds each port's low end and span in place of a value
// and mask (check.matchesRanges). A lookup tests a check's value and mask
// first; a ranged check never meets them (rangedMark, a bit on the
// check's own line), and only where one fails and is ranged does the
// lookup test the ranges. A single port is an exact match and 0-65535 no test
// (SetPortRange), so neither is ever a range. Ranges are part of a rule's
// identity (ADD, MODIFY_STRICT and DELETE_STRICT find a rule by match,
// ranges and priority), non-strict MODIFY and DELETE compare port sets
// (Rule.CoveredBy), and OFPFF_CHECK_OVERLAP intersects them. A ranged
// rule merges as others do, even where its addresses are exact (relaxMask:
// its ports are a range, not absent), so identical looks in its mask's
// merged subtables whatever the mask. Loaded this way, ClassBench's
// fw1_10k is 9,416 entries in 30 subtables instead of 32,181 in 79
// (package classbench, PortRanges against PortPrefixes), a lookup visits
// 8.4 subtables as before, fw1_1k_ps's 9.2 instead of 16.3, and an add or
// delete of a rule is one entry instead of up to 36. Lookups are 1.0x
// (acl1_10k) to 1.8x (fw1_1k_ps) the rate of the prefix form
// (BenchmarkClassBenchPorts).
//
// # Pipelines
//
// A Pipeline holds the flow tables of a switch and is their one writer. It
// applies a burst of Updates with FLOW_MOD semantics (ApplyBurstTo, which
// reuses the caller's result and can record what each update cost;
// ApplyBurst for a burst now and then), expires timeouts on its clock
// (Expire), rebalances its filters when idle (Rebalance), makes memory
// for later adds ahead of need (Prefault) and walks a packet through
// goto_table and write_metadata (Walk). ApplyAllTo applies a burst whole
// or not at all, for OpenFlow bundles: an update that fails has the burst
// undone before it is published (the rules it inserted removed, those it
// removed put back as copies that keep their counters).
//
// A meter instruction comes first in an entry's list, where the data
// plane runs it, and names a meter the switch has: the pipeline asks the
// function SetMeterCheck gave it (the meter table lives in package
// meters, which this package does not import) and refuses the entry with
// OFPMMFC_INVALID_METER otherwise, or always without one.
//
// Open vSwitch's load, move and output:field name the fields of
// SubfieldFields, bits [Ofs, Ofs+Bits) of one (a Subfield). A field of at
// most 64 bits is read and masked in one word (Key.GetBits, Mask); a
// 128-bit one (an IPv6 address) as one number across its two words
// (Key.GetBits128, Mask128, Place128), and a load of it keeps its mask
// and value in the action's Ext (NewLoad, Action.Load128). Which path a
// subfield takes follows from its field's width alone, so a 128-bit
// field is one row of SubfieldFields.
//
// # Reading the code
//
// One update of a burst goes through these files in order: apply.go
// (ApplyBurstTo: prefetch of the next update, the command, the rule from
// the slab), identical.go (the rule it replaces), index.go (link puts it
// in a subtable's node, in its tail (tail.go) or copy-on-write, with its
// check (check.go); grow.go moves the index into a larger array a share at
// a time), filter.go (a new node's hash into
// the table's filter, rebuilt larger when full), back to apply.go (publish:
// one atomic store), order.go (the subtable order lookups walk) and
// expire.go (cleanup unlinks what was removed, reader.go recycles it). A
// lookup is lookup.go and scan.go against what table.go and index.go build; the
// types a caller passes are in update.go, rule.go, match.go and key.go.
//
// # Text formats
//
// The text formats live in subpackages: ofctl reads and prints the
// ovs-ofctl flow syntax; classbench reads ClassBench filter sets and
// traces and turns them into Updates.
package rules

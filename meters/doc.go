// Package meters is a switch's meter table (OpenFlow 1.3.5 §5.7): meters
// with their bands, a token bucket per band that the data plane charges
// without a lock, and the per-meter and per-band statistics.
//
// # Meters and bands
//
// A meter measures the rate of the packets of the flows whose instructions
// name it, in kilobits per second (FlagKBPS) or packets per second
// (FlagPKTPS), and applies at most one of its bands to each packet: of the
// bands whose rate the packet exceeds, the one with the highest rate
// (§5.7). A DROP band drops the packet; a DSCP_REMARK band raises the drop
// precedence of the packet's DSCP by its PrecLevel (RemarkDSCP).
// EXPERIMENTER bands are refused with OFPMMFC_BAD_BAND, as is any other
// type, and DSCP_REMARK on the virtual meters (a packet-in is a copy of a
// frame whose other outputs a remark would change). Meter ids are 1..Max, and the two virtual meters Slowpath and
// Controller: the data plane charges Controller for every packet it sends
// to the controller; nothing takes a slow path, so Slowpath meters no
// packet.
//
// Table.Apply checks a Mod and refuses it with an *Error carrying the
// OFPMMFC_* code that OpenFlow 1.3.5 and Open vSwitch 3.1 use (see Check):
// METER_EXISTS, UNKNOWN_METER, INVALID_METER, BAD_FLAGS (neither or both of
// KBPS and PKTPS, or an unknown bit), BAD_RATE (0), BAD_BAND (a type other
// than DROP and DSCP_REMARK), BAD_BAND_VALUE (prec_level 0), OUT_OF_BANDS
// (no band, or more than Config.MaxBands) and OUT_OF_METERS. A DELETE of a
// meter that does not exist succeeds, as in Open vSwitch, and a DELETE of
// All deletes every meter.
//
// # Token buckets
//
// Each band is a token bucket of rate Rate and depth BurstSize (packets,
// or kilobits), full when the meter is made; without FlagBurst, or with a
// burst of 0, the depth is one second at the band's rate, Open vSwitch's
// default. The configuration keeps the burst as Open vSwitch 3.1 reports
// it: 0 without FlagBurst, the rate for a burst of 0 with it. A bucket is kept as the generic cell rate algorithm keeps it:
// one number, the theoretical arrival time (TAT) in nanoseconds of the
// table's clock. A packet that costs c nanoseconds of the band's rate
// (1e9/Rate per packet, 8e6/Rate per byte) conforms at time t if
// max(TAT, t)+c-t <= BurstSize/Rate seconds, and then moves TAT there; a
// packet that does not conform exceeds the band and leaves its bucket as
// it was. This is exactly a token bucket of that depth that refills at
// Rate, with the tokens and the time of the last refill folded into one
// int64, so that a worker charges a band with one compare-and-swap: no
// lock, no shared mutex, no allocation. Costs are fixed-point (32.32
// nanoseconds per unit, rounded up), so a band never passes more than its
// rate.
//
// MODIFY replaces a meter's bands; band i's bucket keeps its state (its
// TAT) if the meter had a band i, as Open vSwitch 3.1 keeps it (measured
// with packet-out through a metered flow: after a MODIFY of the same
// band, the packets that had drained the bucket still count). The
// meter's packet and byte counters and its creation time stay, as a flow
// entry's do across a MODIFY (Open vSwitch restarts the counters; its
// duration goes on); the band counters start again.
//
// # Concurrency
//
// One writer (tables.Owner) applies Mods, one at a time. Readers (the data
// plane's Lookup and Charge, statistics) never lock. A Meter is immutable
// but for its atomics (buckets and counters); the table publishes each
// through an atomic pointer: the index is an open-addressing array of
// them, which the writer changes slot by slot (a MODIFY stores a new
// Meter over the old, a DELETE a tombstone) and replaces whole, with one
// atomic store, only when it grows. An Apply costs O(1) amortised:
// publishing a copied snapshot of the whole set per Apply was measured
// at minutes for 65536 meters added one by one. A reader that holds a
// Meter a MODIFY or DELETE replaced goes on charging it harmlessly.
package meters

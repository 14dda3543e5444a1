// Package groups is the OpenFlow 1.3 group table (OpenFlow 1.3.5 §5.6):
// groups of action buckets that flow entries send packets to, checked as
// they are added, modified and deleted, and published copy-on-write so
// that the data plane reads them without a lock.
//
// # Types
//
// ALL runs every bucket; SELECT one bucket, chosen by a hash of the
// packet's flow (FlowHash) in proportion to the buckets' weights among the
// live ones, so that every packet of a flow takes the same bucket and
// flows spread by weight; INDIRECT its one bucket; FAST_FAILOVER its first
// live bucket. A bucket is live when its watch_port is OFPP_ANY or a port
// that is up (Ports says which: link up and not OFPPC_PORT_DOWN) and its
// watch_group is OFPG_ANY or a group with a live bucket.
//
// # Checks
//
// Table.Apply checks a Mod as OpenFlow 1.3.5 §6.7 and §7.3.4.2 ask, with
// the codes of enum ofp_group_mod_failed_code; where Open vSwitch 3.1 is
// looser (it accepts loops, dangling chains and watches, and deletes a
// group other groups forward to, leaving them dangling), the table keeps
// the invariant that makes the data plane simple: every group a bucket
// names, as a group action or a watch_group, exists, and no chain loops.
// So an ADD or MODIFY that names a missing group is refused
// (OFPBAC_BAD_OUT_GROUP for a group action, OFPGMFC_BAD_WATCH for a
// watch), one that closes a loop is refused with OFPGMFC_LOOP, one that
// makes a chain longer than MaxDepth groups with
// OFPGMFC_CHAINING_UNSUPPORTED, and a DELETE of a group another group
// names with OFPGMFC_CHAINED_GROUP (unless that one goes too: OFPG_ALL).
// As in Open vSwitch 3.1 (checked by sending it the same GROUP_MODs): ADD
// of an existing id is OFPGMFC_GROUP_EXISTS, MODIFY of an unknown one
// OFPGMFC_UNKNOWN_GROUP, DELETE of an unknown one does nothing; a reserved
// id, an INDIRECT group without exactly one bucket, a weight outside
// SELECT and a FAST_FAILOVER bucket that watches nothing are
// OFPGMFC_INVALID_GROUP; a watch in an ALL or INDIRECT bucket is
// OFPGMFC_WATCH_UNSUPPORTED; an unknown type OFPGMFC_BAD_TYPE. A
// watch_port may name any port (one the switch lacks is never live).
//
// # Concurrency
//
// Table has one writer at a time (Apply takes a lock); each change
// publishes a new immutable Snapshot with one atomic store, so readers
// (Table.Load) never lock and see a change whole or not at all. A change
// copies the id index, O(groups): groups change seldom next to packets.
// Counters are atomic adds on the group's own counters, so a worker bumps
// them without a shared lock; a MODIFY starts the group's counters afresh
// and keeps its duration, as Open vSwitch 3.1 does.
//
// # Staging
//
// Table.Next applies a mod to a snapshot without publishing it, so that a
// writer applying a bundle (tables.Owner) checks its mods in turn against
// the table they build, and publishes the result (Table.Publish) only if
// every one passes. Snapshot.Union keeps, for readers, the groups a
// bundle deletes until the flows that name them are gone.
package groups

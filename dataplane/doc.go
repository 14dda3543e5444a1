// Package dataplane is the packet path: it takes frames from captures in
// memory or from live AF_PACKET ports, parses them into a fixed-size set of
// header fields without allocating, classifies them against a
// rules.Pipeline and applies the actions of the entries they match.
//
// # Vectors
//
// Frames travel in a [Vector]: up to [VectorSize] (32) frames that a
// worker parses, classifies and acts on at once, with what the parser made
// of them. Whatever costs something per call is paid once per vector, not
// per frame: one parse pass and one deferred recover per stage, one
// LookupBatch per table, one announcement to the pipeline's reclamation
// (rules.Reader), one read of the fail-open flag and of NORMAL's clock,
// one flush of the transmit queues (one sendmmsg(2) on a live port).
//
// # Parsing
//
// A [Parser] is owned by one worker. It drives a gopacket
// DecodingLayerParser (DecodingLayerSparse container, IgnoreUnsupported,
// IgnorePanic) over the package's own decoding layers for Ethernet, 802.1Q
// and 802.1ad tags (up to [MaxVLANs]), BSD loopback, ARP, IPv4, IPv6 with
// its extension headers, TCP, UDP, SCTP, ICMPv4 and ICMPv6, and the
// outermost MPLS label or PBB I-TAG (what follows them is not parsed, as
// Open vSwitch does not parse it). The layers
// decode only the fixed headers, with explicit bounds checks, and write
// straight into a [Headers] value: no per-layer structs, no option slices,
// no errors built per packet. A packet that is too short or inconsistent
// is counted in [Stats] under a [Reason] and skipped.
//
// Walking IPv6's next-header chain, the parser also gathers the OFPIEH_*
// flags of OXM_OF_IPV6_EXTHDR ([ExthdrHop] and the others: which
// extension headers came, and whether they repeat or break RFC 8200's
// order); an ICMPv6 neighbor solicitation or advertisement (code 0) gives
// its target address and its source or target link-layer address option,
// the latter in the ARP hardware address fields as OpenFlow's key holds
// them.
//
// [Parser.ParseVector] parses up to [VectorSize] frames with one deferred
// recover: should a layer ever panic, only the packet that caused it is
// counted (as [ReasonPanic]) and the rest of the vector is parsed.
//
// # Captures
//
// [LoadFile] reads a pcap or pcapng file (through package capture) into
// one contiguous buffer with an offset per frame, so that a worker can
// replay it at full speed; [Capture.Replay] hands it out in vectors, either
// as fast as possible or paced at the original timing times a speed factor
// ([ReplayConfig], [ParseSpeed]). A file that is cut short or corrupt
// yields a [*FileError] naming the file and byte offset, together with the
// frames read before that point. [NewPcapWriter] makes ports that write
// what the switch outputs to a pcapng file, one interface per port.
//
// # Switching
//
// [Headers.Key] copies the parsed fields into a rules.Key ([FlowMatch]
// turns a key into the exact match of its 5-tuple); a frame's tunnel_id,
// like its metadata and its other tunnel fields, starts at 0, since no
// tunnel delivers frames here. A [Switch] owns
// N [Worker]s; [Worker.Process] parses a vector, looks the keys up with one
// LookupBatch per table, counts per-entry hits (rules.Rule.Hit), per-port
// and table-miss counters, and runs the OpenFlow 1.3 instructions in the
// order of §5.9: meter (Config.Meters: a DROP band ends the packet there, a
// DSCP_REMARK band raises its DSCP's drop precedence; see meter.go),
// apply-actions, clear-actions, write-actions (the action set, run in the
// order of §5.10 when the packet leaves the pipeline), write-metadata and
// goto-table. Actions: output to a port (not to the frame's input port:
// only IN_PORT sends it back there, as OpenFlow says and Open vSwitch
// does), IN_PORT, FLOOD, ALL, CONTROLLER
// (a packet-in callback), drop, set_field (MACs, VLAN, IPs, DSCP/ECN, L4
// ports, ICMP, ARP, MPLS label, TC and bottom of stack, PBB I-SID, the
// IPv6 flow label, the ND target and link-layer address options, with
// incremental checksum updates and SCTP's CRC32c; nw_ttl as set_nw_ttl;
// metadata, tunnel_id, pkt_mark, tun_flags and the tunnel fields tun_src,
// tun_dst, tun_ipv6_src, tun_ipv6_dst, tun_gbp_id and tun_gbp_flags, which
// live in the key only and so reach the later tables), push/pop VLAN, set_nw_ttl and dec_ttl (IPv4
// TTL with its checksum, IPv6 hop limit), push/pop MPLS, set_mpls_ttl,
// dec_mpls_ttl, push/pop PBB, copy_ttl_out/in and group (see "Groups"). A push or pop of an MPLS label or PBB I-TAG parses the
// frame again, so that later actions and tables see the frame as it now
// is; an action that does not apply to a frame leaves it alone and is
// counted as skipped. A dec_ttl or dec_mpls_ttl that finds the TTL at 0
// or 1 leaves it so and sends the frame, whole and as the actions before
// left it, to the controller as a packet-in of reason OFPR_INVALID_TTL
// ([PacketInInvalidTTL]) with the entry's table and cookie (subject, as
// every packet-in, to the port's NO_PACKET_IN and the Controller meter),
// counted as Counters.TTLExpired; as in Open vSwitch, the rest of the action list
// does not run (in apply-actions, none of the entry's other instructions
// either: the frame leaves the pipeline), while an action set that
// earlier tables wrote still does.
//
// Open vSwitch's Nicira actions run as in Open vSwitch 3.1: note does
// nothing; exit ends every action that remains, the entry's clear, write,
// metadata and goto instructions, and the action set too (Open vSwitch
// enters the action set after exit but runs none of it); in a group
// bucket, an action set, exit does nothing, and one a resubmitted entry
// runs ends that bucket only. controller(reason=...,max_len=...,
// id=...) sends a packet-in with that reason (action_set, group and
// packet_out, which OpenFlow 1.3 lacks, as OFPR_ACTION) to controller id
// id: every connection has id 0 (there is no NXT_SET_CONTROLLER_ID), so
// another id sends nothing. dec_ttl(id,...) expires like dec_ttl and sends
// one packet-in per id 0 it lists, none without. A rewritten frame is first copied into the
// worker's buffer: captures are never modified. Outputs go to a [Port] if
// one is configured and are counted either way.
//
// load, move and output:field work on the frame's key: a load of pipeline
// metadata (metadata, tunnel_id, pkt_mark, tun_flags, the registers)
// writes the key only; a load of a field of the frame reads the field from the key
// (current after every rewrite), merges the bits and writes the field
// whole as set_field does, checksums fixed; a 128-bit field (ipv6_src,
// ipv6_dst, nd_target) the same through the key's two words, its load's
// mask and value in the action's Ext (rules.NewLoad). move reads its
// source as the actions before it left the frame, up to 128 bits of it.
// vlan_tci (NXM_OF_VLAN_TCI) reads as the outermost tag's TCI, 0 without
// one; writing it with the CFI bit set pushes a tag onto an untagged
// frame and sets its id and priority, with the bit clear pops the tag,
// as Open vSwitch commits a changed vlan_tci (the id and priority bits
// written to an untagged frame without the CFI bit are dropped, where
// Open vSwitch keeps them in the flow for a later load of the bit).
// nw_tos (NXM_OF_IP_TOS) is the DSCP in place in the TOS byte: its ECN
// bits read as 0 and are not written. tun_flags is the 1-bit OAM flag,
// metadata like the registers. output:field outputs to the
// port its bits hold as Open vSwitch does: a 16-bit port number, from
// 0xff00 up a reserved port, above 0xffff nothing. The action set keeps
// every load and move written to it, in order, and runs them where it
// runs set_field, as Open vSwitch keeps its set-or-move actions (a
// set_field replaces the set_field of its field, as before). A move into
// vlan_vid or vlan_pcp of an untagged frame does nothing (Open vSwitch
// pushes a tag); a load into them needs a tag in the flow's match.
//
// A set_field of a tunnel metadata field (tun_metadataN, as the switch's
// TLV table places it in the option space, rules.FieldTunOpts0-3) is the
// loads of the option space words its bytes are in, key-only writes like
// a register's; move and output:field read and write its bits in one
// word as a register's. Every frame starts with the option space zero: no frame
// comes from a tunnel. Open vSwitch instead marks an option absent until
// an action sets it, and an absent option matches no tun_metadataN test,
// not even =0; here a field no action set matches tun_metadataN=0.
//
// resubmit(port,table) runs inline, where it is in its action list: the
// vector pass goes through the tables in order and cannot go back to
// one, so the frame is looked up alone (Table.LookupVersion) in the
// resubmit's table, the current one if it names none, with in_port
// replaced by port for that lookup only, counted in the table's
// TableCount as Open vSwitch counts it. A hit runs that entry's
// instructions at once (its counters count the frame, counted in
// Counters.Resubmits): its actions act on the frame in place, its
// write-actions add to the frame's action set, a goto_table in it runs
// inline too, its exit ends every level, and a dec_ttl expiry in it ends
// its own action list only. A miss does nothing, and a table the switch
// lacks is a miss (Open vSwitch has 255 tables). In the action set a
// resubmit is a final action, run only when the set holds no group and no
// output, as in Open vSwitch. Open vSwitch's limits hold: 64 nested
// resubmits to the same or an earlier table and group actions (a
// group's buckets run one level deeper) (MaxResubmitDepth), 4,096
// resubmits and goto_tables that found an entry in one frame's
// translation (MaxResubmits), checked before each lookup (and before a
// group action looks its group up). A frame that
// reaches one is dropped and counted in Counters.XlateErrors (and
// Drops), with everything its translation did, as Open vSwitch clears a
// failed translation's datapath actions: nothing of it runs after the
// limit, the action set included, and the outputs and packet-ins of its
// actions before the limit are not sent either. For that, while the
// pipeline or the group table may hold a resubmit action
// (rules.Pipeline.MayResubmit, groups.Table.MayResubmit), a worker holds
// each frame's outputs and packet-ins, with the frame's bytes as each
// found them, and sends them in order once the vector's action sets have
// run; a switch without a resubmit entry or group sends as the actions
// run. The two flags follow the tables' contents: the last resubmit
// entry or group deleted, modified or expired, frames send at once
// again.
//
// # Groups
//
// A group action (in an apply-actions list, a bucket, or the action set,
// where it runs after every other action and an output beside it is
// ignored, §5.10) reads the group table (Config.Groups) through the
// snapshot it publishes: one atomic load, no lock. ALL runs every bucket,
// SELECT the bucket groups.Snapshot.Pick gives the flow's hash
// (groups.FlowHash), INDIRECT its bucket, FAST_FAILOVER its first live one,
// liveness from the ports' state ([Switch.SetPortLive]). A bucket's actions
// run as an action set (OpenFlow 1.3.5 §5.6, as in Open vSwitch:
// groups.Group.BucketActions), each bucket on its own copy of the packet
// as the group found it, and the packet
// leaves the group unchanged; groups chain up to groups.MaxDepth (64, as
// deep as Open vSwitch translates), each group a level of translation
// depth as in Open vSwitch (xlate_group_bucket): with resubmits, up to
// MaxResubmitDepth in all. The copies are kept in a
// saved frame per level of translation depth in each worker, so nothing
// is allocated; group and bucket counters are atomic adds on the
// group's own counters. A group action that runs no bucket (no live one,
// or none left by a change) counts as Counters.GroupDrops.
//
// Each worker is a rules.Reader of the pipeline: Process announces that it
// may hold the rules its lookups find, [Worker.Quiesce] that it holds none,
// so that a pipeline that recycles the memory of removed rules
// (rules.Config.Recycle) reuses only what no worker can still hold. The
// switch's own loops quiesce whenever they may wait for frames.
//
// [Capture.Shard] splits a capture among workers by [Headers.FlowHash]
// through an indirection table balanced by load, as receive-side scaling
// would, so a flow stays on one worker and the workers get even shares;
// [Switch.Replay] replays captures through all workers.
//
// # Live ports
//
// [PortInfoByName] reads an interface from netlink (ifindex, address,
// MTU, admin and link state, speed) as a [PortInfo], the stuff of an
// OpenFlow port description; [WatchPorts] turns netlink link
// notifications into [PortEvent]s (added, deleted, modified) until its
// context ends. [OpenLivePort] opens an interface through AF_PACKET
// TPACKET_V3 rings (gopacket/afpacket), one socket per worker in a hash
// fanout group, ignoring PACKET_OUTGOING frames, and pads what it sends to
// the 60-byte Ethernet minimum as a NIC would (a veth does not, and a pop
// of a tag can leave a frame shorter); [Switch.RunLive] runs one
// worker per socket, in vectors, until its context ends. [Switch.PacketOut]
// executes a PACKET_OUT while the workers run; one whose translation (its
// actions and the pipeline an output:TABLE runs, as one) fails on a
// resubmit limit sends nothing and returns ErrTranslation, which Open
// vSwitch answers with OFPFMFC_UNKNOWN. The NORMAL action is an L2
// learning switch over a lock-free, bounded MAC table shared by the
// workers; [Switch.SetFailOpen] sends table misses to it (standalone
// fail mode). [Switch.LiveStats] and [Switch.LivePortStats] read counters
// while the workers run.
//
// # Table statistics
//
// Each worker counts, per flow table, the frames it looked up there and
// how many found an entry (a table-miss entry counts as a match, as in
// Open vSwitch; a frame that finds no entry does not): the lookup and
// matched counts of OpenFlow's OFPMP_TABLE. The counters are the
// worker's own, on cache lines no other worker writes, and are added to
// once per table per vector (the vector's lookups in the table, less the
// misses the instructions loop counts anyway): no work per frame, no
// shared line. [Switch.TableCount] sums them over the workers and
// PacketOut's (whose output:TABLE goes through the pipeline too) at any
// time, also while the workers run.
//
// # Observing lookups
//
// A worker may be given a [LookupObserver] ([Worker.SetLookupObserver]):
// it is told the start, duration, keys and classifier counters of the
// table-0 LookupBatch of every vector. The replay laboratory (package
// replay, `ofswitch replay`) measures lookup latency around bursts of rule
// updates through it. A worker without one pays a nil check before each
// LookupBatch; observing allocates nothing either.
//
// # Performance
//
// Nothing in [Parser.Parse], [Parser.ParseVector], [Headers.Key],
// [Worker.Process] (NORMAL and meters included) or a live port's receive
// loop allocates in steady state, and no lock is taken: a meter is one
// compare-and-swap per band (BenchmarkMeter compares flows with and
// without one); tests check this with
// testing.AllocsPerRun and the benchmarks (BenchmarkSwitchExact,
// BenchmarkSwitchClassBench) report allocs/op, Mpps and Mpps per worker.
package dataplane

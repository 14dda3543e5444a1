// Package push is the client that pushes flows, groups and meters to a
// switch in barrier-delimited batches: ofswitch push, and the benchmarks
// and tests that fill a switch, ofswitch or Open vSwitch alike.
//
// Flows sends a list of rules.Updates as FLOW_MODs over OpenFlow 1.3 (1.4
// when a flow has an importance, or for bundles), Config.Batch at a time,
// each batch followed by a BARRIER_REQUEST, and measures the push: mods
// per second and the barrier latency of each batch. Config.Mods places
// GROUP_MODs and METER_MODs (groups.Mod and meters.Mod, put on the wire
// by ofrules.WireGroupMod and WireMeterMod) among the FLOW_MODs: each
// goes before the update its Mod.Before names, and counts in its batch
// as a FLOW_MOD does. A push without them runs the loop of flows alone. A switch that speaks
// only OpenFlow 1.3 gets flows with an importance without it, and
// Result.ImportanceDropped says so.
//
// # Streaming
//
// Stream pushes what a Source gives, chunk by chunk: Msgs, each a flow, a
// group or a meter mod and where it came from. ofswitch push streams a
// file so (rules/ofctl.ModsReader), and Flows is Stream over its slices.
// The pusher holds the chunk it encodes, the batch in its writer and, for
// the batches in flight, only their messages' names for the errors: a
// push's memory does not grow with its length. A Msg may name itself by
// File and Line, joined only for the error of a mod the switch refuses,
// so that a chunk of flows costs no string per flow; ofswitch push reads
// its chunks into one reused ofctl.Mods (ModsReader.NextInto). A batch over 4 MiB
// (flushLen: --batch 0 of a large file) goes out in pieces as it is
// encoded, once fewer than Window batches are in flight; it stays one
// batch (one bundle). An error of the Source ends the push after the
// switch has answered the batches before it, which the Result counts (a
// batch in pieces gets no barrier, its bundle no commit); a source that
// must be all or nothing checks its input first, as ofswitch push does,
// and may Dial the switch before it checks, handing Stream the
// connection (Config.Conn), so that the connection is made and the
// switch's HELLO waits by the time the push starts (ofswitch push does
// so for files of up to 16 MiB).
// A Msg may also be a message encoded before (Msg.Wire), which the
// pusher copies and gives its xid: ofswitch push encodes a file of up to
// 16 MiB as it checks it, and sends it without parsing it again.
// TLVTable asks a switch for its TLV table (NXT_TLV_TABLE_REQUEST, on a
// connection of its own) and makes the client's table of it
// (ofrules.NewTLVTable); a client that parses flows naming tun_metadataN
// with it (rules/ofctl.ParseOptions.TunMetadata) encodes them with it too
// (Config.TLV, Encoded.SetTLV), and the fields go out as ovs-ofctl sends
// them, NXM_NX_TUN_METADATA<N> of the mapped length. ofswitch push asks
// only when its check finds such a field not mapped (ofctl.ErrNotMapped).
// FitsOneMessage gives the checks that refuse a mod whose message would
// not fit in one (65535 bytes, less a bundle add message's header with
// Config.Bundle): ofswitch push and rules lint refuse such a line before
// anything is sent, as the encoder could not write it.
//
// # Batches in flight
//
// Up to Config.Window batches are in flight: the next batch is written
// before the barrier replies of those before it have arrived, so that the
// switch applies one while the client encodes the next, and each batch is
// encoded before the barrier reply it waits for (with Window 1, while the
// switch applies the batch before). A batch goes out in one write, up to
// 4 MiB: each write over loopback runs the receiving side's
// network stack and wakes the switch, which gains nothing from decoding a
// batch's first FLOW_MODs early.
//
// With Config.Bundle each batch is one bundle, atomic and ordered, as
// ovs-ofctl --bundle sends it: OpenFlow 1.4's bundle messages, or the ONF
// extension (EXT-230) where the switch speaks only OpenFlow 1.3. The
// commit reply takes the place of the barrier reply. Group and meter mods
// go inside the bundle with the flows (Open vSwitch refuses meter mods
// there, OFPBFC_MSG_UNSUP).
//
// # Encoding
//
// FLOW_MODs are encoded by an ofrules.Encoder straight into the batch's
// buffer: a flow file is mostly runs of flows that differ only in their
// values, and each flow of a run after the first is a patched copy of the
// run's first, which is encoded in full (see ofrules, "Push encoding").
// The connection reads and writes without announcing system calls to Go's
// scheduler (see internal/quietconn).
//
// # Errors
//
// An OFPT_ERROR the switch sends is not fatal: it becomes an *Error in the
// Result, naming the flow (by Config.Lines, if given) or the group or
// meter mod (by Mod.Where) that the switch refused, or the first message
// of a bundle whose commit it refused.
// Flows fails only if the connection does, or its context is done.
package push

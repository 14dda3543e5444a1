// Package openflow is an OpenFlow 1.3 wire codec (wire version 0x04, plus
// the OpenFlow 1.4 and ONF EXT-230 bundle messages): message values,
// zero-copy views, stream framing and the OFPT_ERROR each decoding failure
// calls for. It holds no switch state and starts no goroutines.
//
// # Wire format
//
// Every message is a value struct that embeds Header and has
// AppendBinary(dst []byte) ([]byte, error), UnmarshalBinary([]byte) error
// and a one-line MarshalBinary. Layouts follow the OpenFlow 1.3.5
// specification (section numbers are cited on each type); Open vSwitch's
// include/openflow/openflow-1.3.h describes the same structures. Encoding
// computes Type and Length, zeroes every pad byte, and a zero
// Header.Version encodes as Version13. Decoding copies what it keeps, so the
// input buffer may be reused afterwards, and decoding into a reused value
// reuses its slices (m.Instructions = m.Instructions[:0]). Decode picks the
// message type through a table indexed by Type; a Decoder does the same
// into one reused value per type. MultipartReply.AppendSplit spreads a long
// reply over several messages flagged OFPMPF_REPLY_MORE.
//
// Matches are lists of OXM TLVs, actions and instructions are tagged
// structs (Action{Type, Port, ...}), not interfaces, so a list decodes into a
// reused slice without allocating. Unknown experimenter payloads and
// Nicira-class OXMs are kept opaque and re-encoded byte for byte;
// DecodeNXAction gives a typed view (NXAction) of the Nicira actions
// resubmit, note, exit, controller, dec_ttl(ids) and set_tunnel(64);
// nxm.go names the Nicira match fields and splits their payload
// (NXMPayload). Open vSwitch's TLV table messages, which map tunnel
// options to the fields tun_metadata0-63, decode as TLVTableMod,
// TLVTableRequest and TLVTableReply (tlv.go); their Check methods give
// the NXTTMFC_* errors Open vSwitch answers for bad commands, lengths and
// indexes.
//
// Reader frames messages from an io.Reader into one reused buffer, with a
// maximum message length; Writer appends messages to one reused buffer,
// into which a caller may also append messages it encodes itself
// (Reserve, Buffer).
//
// # Views
//
// FlowModView is a FLOW_MOD in wire form. Check validates every length and
// type once, without allocating; the accessors (Priority, Command,
// Lookup, OXMs, ...) then read the bytes in place, so a controller burst of
// thousands of FLOW_MODs is ingested without one allocation per message.
// OXMs, Instructions and Actions walk the match and instruction lists in
// place; OXMHeader reads the fields of an OXM's header. FlowModMatchOffset
// and FlowModMinLen are the layout of ofp_flow_mod that a reader of the
// bytes needs beyond the accessors.
//
// The view's setters write the fixed part in place. FlowModTemplate keeps
// one encoded FLOW_MOD and the offset of each OXM's value, so that a client
// sending runs of flows that differ only in those writes each as a patched
// copy, byte for byte the message AppendBinary would encode.
//
// # Errors
//
// Malformed input yields a *DecodeError naming the message type, the field
// (e.g. "match.oxm[2].length") and its byte offset within the message. It
// unwraps to a sentinel such as ErrBadLength or ErrBadPrereq, and its
// ErrorMsg method returns the OFPT_ERROR (type, code) that OpenFlow 1.3.5
// §7.4.4 prescribes for it; ErrorFor builds the complete reply, with the
// request's XID and its first 64 bytes. ErrorMsg itself implements error,
// so handlers can return protocol failures as values. Match.Validate checks
// duplicate fields, masks and prerequisites (§7.2.3.6) separately from
// decoding, so the switch decides when to enforce them.
//
// # Performance
//
// No reflection, no maps on the decode path, no per-field allocation.
// FlowModView.Check and its accessors allocate nothing; FlowMod decoding
// into a reused value allocates nothing in steady state; encoding appends
// into the caller's buffer. The benchmarks in this package measure FLOW_MOD
// view decode, decode and encode and a 1000-entry FLOW stats reply; the
// figures are in BENCHMARKS.md.
package openflow

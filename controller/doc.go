// Package controller is ofswitch's OpenFlow channel: it accepts and makes
// connections to controllers (and to ovs-ofctl), negotiates the version,
// keeps each connection alive with echo requests, and answers the messages
// that concern the switch as a whole: FEATURES, GET_CONFIG/SET_CONFIG,
// BARRIER, ROLE and ASYNC, and OFPT_ERROR for anything malformed or
// unsupported.
//
// # Connections
//
// Targets use Open vSwitch's syntax: "ptcp:[PORT][:IP]" listens (default
// port 6653, default address 127.0.0.1) and "tcp:IP[:PORT]" connects out,
// reconnecting with exponential backoff. Each connection sends its HELLO at
// once with a version bitmap, and settles on the highest version both sides
// offer; a peer with no common version gets OFPET_HELLO_FAILED and is
// closed. "pssl:" and "ssl:" are the same over TLS 1.3 with mutual
// authentication; a peer accepted on pssl: that has not completed its
// handshake within Config.HandshakeTimeout (10 s) is closed.
// "punix:PATH" listens on a Unix domain socket that only the switch's user
// may connect to (mode 0600, like Open vSwitch's management socket
// br0.mgmt: a local-only channel for ovs-ofctl), and "unix:PATH" connects
// to one. The socket is bound in a private directory and renamed onto PATH
// with its final mode, so no moment exists when others may connect; a
// socket file that nothing accepts on (a dead switch's) is replaced, any
// other file refused, and the file is removed when the listener closes
// (see unix.go).
//
// The accept loop outlives transient errors (out of descriptors, memory or
// buffers): it logs each and retries after a backoff that doubles from 5 ms
// to 1 s, as net/http's Server does, so a flood of connections never
// leaves the switch without its listener. The network passive targets
// together serve at most Config.MaxConns connections (1024): one more is
// accepted and closed at once, with a log line a second at the most. The
// punix: management socket is not counted, so that its owner can always
// get in.
//
// # Errors
//
// A message that fails to decode, or that the switch does not support, is
// answered with the OFPT_ERROR the OpenFlow 1.3.5 specification prescribes,
// carrying the request's xid and its first 64 bytes; the connection keeps
// its state and goes on with the next message. Only a framing error (a
// length field that cannot be trusted) closes the connection, because the
// stream cannot be resynchronised after it.
//
// # Liveness
//
// When a connection has been idle for the echo interval (5 s by default, as
// Open vSwitch's inactivity probe), the switch sends ECHO_REQUEST; if nothing
// arrives within another interval the connection is closed.
//
// # Roles and asynchronous messages
//
// Each connection starts as an equal; ROLE_REQUEST makes it master or slave
// (generation ids compare with wraparound; a stale one is refused). A new
// master demotes the old one to slave, which is told so with
// OFPT_ROLE_STATUS on OpenFlow 1.4 and, as Open vSwitch does, with the ONF
// experimenter message ONFT_ROLE_STATUS on OpenFlow 1.3. A slave's
// state-changing messages (FLOW_MOD, PACKET_OUT, bundles ...) are refused
// with OFPBRC_IS_SLAVE. SET_ASYNC chooses, per role, the reasons of
// PACKET_IN, PORT_STATUS and FLOW_REMOVED a connection receives (on
// OpenFlow 1.4 in the property form, which also covers ROLE_STATUS).
//
// # FLOW_MODs and bursts
//
// Each connection translates the FLOW_MODs it reads with its own
// ofrules.Decoder, which takes a FLOW_MOD of the connection's usual shape
// from its bytes to a rules.Update in one pass, and queues the updates: a
// BARRIER_REQUEST, any other message, Config.BatchMax updates or
// Config.BatchWait apply the queue to the flow tables as one burst (see
// flows.go), answering each refused update with the xid of its own
// FLOW_MOD. Translation between OpenFlow and rules, both ways, is package
// ofrules; the client that pushes flows to a switch is controller/push,
// which this package does not import.
//
// # Bundles
//
// Bundles (OpenFlow 1.4.1 §7.3.9) come as OFPT_BUNDLE_CONTROL and
// OFPT_BUNDLE_ADD_MESSAGE on OpenFlow 1.4 and as the ONF EXT-230
// experimenter messages on 1.3, as ovs-ofctl --bundle sends them. A bundle
// carries FLOW_MODs, GROUP_MODs and METER_MODs (others are
// OFPBFC_MSG_UNSUP), each decoded and translated when added, a refusal
// answered then with its xid. COMMIT applies them in order, whole or not
// at all (tables.Owner.ApplyBundle): a flow may use a group or meter an
// earlier message of the bundle adds, and a group or meter delete removes
// the flows that use it (their FLOW_REMOVED go out). A message that fails
// at COMMIT is answered with its own error and xid, then the COMMIT with
// OFPBFC_MSG_FAILED, as Open vSwitch 3.1 does; nothing changed. Open
// vSwitch refuses METER_MODs in bundles; ofswitch takes them, so that a
// meter and the flows that use it go in together.
//
// # Flow monitoring
//
// Flow monitors (OFPMP_FLOW_MONITOR on OpenFlow 1.4, Open vSwitch's ONF
// extension ONFST_FLOW_MONITOR on 1.3, what ovs-ofctl monitor SWITCH
// watch: sends) report a connection's selection of the flow entries: the
// initial ones, then every add, modify, delete and timeout, as Open
// vSwitch 3.1 reports them (see monitor.go). A monitoring connection that
// leaves more than 128 KiB of updates unread is paused and later resumed
// as Open vSwitch does it: the entries that changed meanwhile come in one
// refresh, so that it never holds more than the threshold plus one update
// per entry.
//
// # Tables
//
// OFPT_TABLE_MOD is taken for a table the switch has, or OFPTT_ALL, when it
// asks for nothing the tables lack: OpenFlow 1.3 defines no table config
// (its two bits are deprecated and ignored), and 1.4's eviction and vacancy
// events are refused with OFPTMFC_BAD_CONFIG, since no table evicts flows or
// reports vacancy (as OFPMP_TABLE_DESC says); another table is
// OFPTMFC_BAD_TABLE.
//
// OFPT_PORT_MOD goes to Config.Ports when it implements PortModder
// (ofswitch run's ports do: OFPPC_PORT_DOWN brings the interface down or up,
// NO_RECV, NO_FWD and NO_PACKET_IN switch the data plane's port, and each
// change goes out as a PORT_STATUS); otherwise the switch has no port to
// change and answers OFPPMFC_BAD_PORT.
//
// # TLV table
//
// Open vSwitch's NXT_TLV_TABLE_MOD and NXT_TLV_TABLE_REQUEST (ovs-ofctl
// add-tlv-map, del-tlv-map, dump-tlv-map) change and show one TLV table
// for the whole switch, shared by every connection as Open vSwitch's is
// (ofrules.TLVTables; tlv.go): it gives tun_metadata0-63 their length and
// their place in the flow tables' option space. The errors are Open
// vSwitch's (NXTTMFC_BAD_COMMAND, _BAD_OPT_LEN, _BAD_FIELD_IDX,
// _ALREADY_MAPPED, _DUP_ENTRY, _TABLE_FULL, _INVALID_TLV_DEL; a slave's
// mod OFPBRC_IS_SLAVE), a mod applies whole or not at all, and a delete
// of an unmapped field is ignored. FLOW_MODs, GROUP_MODs' buckets and
// PACKET_OUTs' actions name tun_metadata fields through the table.
// Differences: the option space is ofrules.OptionSpace (32) bytes where
// Open vSwitch has 256, so the reply announces max_option_space 32 and a
// table needing more is NXTTMFC_TABLE_FULL; a mapping that a group's
// bucket uses cannot be deleted (NXTTMFC_INVALID_TLV_DEL, as for a
// flow's), and a bucket or PACKET_OUT naming an unmapped field is
// NXFMFC_INVALID_TLV_FIELD, where Open vSwitch, which reads those actions
// without the table, takes both.
//
// # Groups
//
// OFPT_GROUP_MOD goes to the group table through the flow tables' owner
// (tables.Owner.ApplyGroup), after the connection's pending FLOW_MODs, so
// that it sees them and later ones see it; its errors are those of package
// groups (OFPGMFC_*, OFPBAC_BAD_OUT_GROUP). A group delete removes the flows
// that use it, whose FLOW_REMOVED go out with reason OFPRR_GROUP_DELETE. A
// FLOW_MOD or PACKET_OUT naming a group the table lacks is refused with
// OFPBAC_BAD_OUT_GROUP. OFPMP_GROUP_DESC, OFPMP_GROUP (ref_count counted by
// a walk of the flow tables) and OFPMP_GROUP_FEATURES describe the table.
// Bundles carry GROUP_MODs too (see Bundles).
//
// # Meters
//
// OFPT_METER_MOD goes to the flow tables' owner (tables.Owner.ApplyMeter),
// the meter table's one writer; a refusal is answered with its
// OFPMMFC_* code (see package meters), and the flow entries a meter
// delete removed go out as FLOW_REMOVED. OFPMP_METER (flow_count
// included), OFPMP_METER_CONFIG and OFPMP_METER_FEATURES are answered
// from the meter table; a meter asked for by an id it lacks is
// OFPMMFC_UNKNOWN_METER, as Open vSwitch answers. The flow tables the
// agent makes for itself (no Config.FlowTables) have a meter table.
//
// # Multipart requests
//
// A request sent in several parts (OFPMPF_REQ_MORE) is reassembled and
// answered when its last part arrives; see multipart.go for the limits and
// the errors. Replies larger than one message are split with REPLY_MORE.
// The ports have no queues: queue statistics for all queues of a port (or
// of every port) and OFPT_QUEUE_GET_CONFIG_REQUEST are answered with empty
// lists, a queue asked for by its id with OFPQOFC_BAD_QUEUE, and a port the
// switch lacks with OFPQOFC_BAD_PORT, as Open vSwitch answers them.
//
// OFPMP_TABLE counts each table's active entries and takes its lookups and
// matches from Config.TableCounters (ofswitch run's data plane counts them
// per worker). OFPMP_TABLE_FEATURES lists what ofrules.SupportedFeatures
// finds the translation accepts: match fields (with the mask bit on those
// that take an arbitrary mask), set_field fields, actions and
// instructions, so a field or action that the translation learns is
// listed with no second list to keep; the last table has no goto_table
// and no next tables.
//
// # Packets
//
// The data plane hands frames for the controllers to Agent.PacketIn and
// port changes to Agent.PortStatus; both encode the message once per wire
// form and queue it on every connection whose role and SET_ASYNC masks
// want it, without waiting for any controller (a controller whose backlog
// passes Config.AsyncLimit is disconnected, and when the backlog of all
// of them passes Config.AsyncLimitTotal, the one with the largest; a
// controller that takes nothing of a write for Config.WriteTimeout is
// disconnected too). PACKET_IN carries no buffer
// id: the whole frame, or as much as the output action's max_len (for
// OFPR_INVALID_TTL, which no output action sends, the connection's
// miss_send_len, OpenFlow 1.3.5 §7.3.2) allows. As in Open vSwitch, masters
// and equals get OFPR_INVALID_TTL packet-ins only once SET_ASYNC asks.
// PACKET_OUT is checked and translated here and executed by
// Config.PacketOut; see packet.go for the checks and for what a switch
// without a data plane does.
//
// # Fail mode
//
// Config.FailMode says what the switch does while none of Run's active
// targets (tcp:, ssl:) has a connected controller. FailSecure, the
// default, changes nothing: the flow entries stay and table misses are
// dropped (or sent to a controller that is not there). FailStandalone
// makes the switch a learning switch once no controller has been
// connected for three inactivity probe intervals (15 s by default, as Open
// vSwitch waits), or at once when Run has no active target: the agent
// calls Config.OnFailOpen(true), and the data plane forwards table misses
// as the NORMAL action would. When a controller completes the handshake
// again the agent calls OnFailOpen(false) and the flow tables rule alone.
// Passive targets (ovs-ofctl and controllers that connect in) do not count.
// The flow entries are kept across both transitions.
package controller

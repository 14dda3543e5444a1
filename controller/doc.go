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
// closed.
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
package controller

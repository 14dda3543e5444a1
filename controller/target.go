package controller

import "github.com/ofswitch/ofswitch/internal/oftarget"

// DefaultPort is the IANA port for OpenFlow.
const DefaultPort = oftarget.DefaultPort

// Target is a connection method in Open vSwitch syntax: Passive (ptcp:,
// pssl:, punix:) listens, an active one (tcp:, ssl:, unix:) connects; TLS
// is set for ssl: and pssl:; Host and Port are the address to listen on or
// connect to, Path the socket file of unix: and punix:. Network and Addr
// return the network and address for net.Dial or net.Listen, and String
// the target in its syntax.
type Target = oftarget.Target

// ParseTarget parses "ptcp:[PORT][:IP]", "tcp:IP[:PORT]", their TLS forms
// "pssl:[PORT][:IP]" and "ssl:IP[:PORT]", and the Unix domain socket forms
// "punix:PATH" and "unix:PATH". A passive TCP target listens on 127.0.0.1
// unless an address is given. A punix: socket is owner-only (mode 0600);
// see Agent.Run.
func ParseTarget(s string) (Target, error) { return oftarget.Parse(s) }

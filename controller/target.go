package controller

import "github.com/ofswitch/ofswitch/internal/oftarget"

// DefaultPort is the IANA port for OpenFlow.
const DefaultPort = oftarget.DefaultPort

// Target is a connection method in Open vSwitch syntax: Passive (ptcp:,
// pssl:) listens, an active one (tcp:, ssl:) connects; TLS is set for
// ssl: and pssl:; Host and Port are the address to listen on or connect
// to. Addr returns host:port for net.Dial or net.Listen, and String the
// target in its syntax.
type Target = oftarget.Target

// ParseTarget parses "ptcp:[PORT][:IP]", "tcp:IP[:PORT]", and their TLS
// forms "pssl:[PORT][:IP]" and "ssl:IP[:PORT]". A passive target listens
// on 127.0.0.1 unless an address is given.
func ParseTarget(s string) (Target, error) { return oftarget.Parse(s) }

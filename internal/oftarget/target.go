// Package oftarget parses OpenFlow connection targets in Open vSwitch's
// syntax: "ptcp:[PORT][:IP]", "pssl:[PORT][:IP]" and "punix:PATH" listen,
// "tcp:IP[:PORT]", "ssl:IP[:PORT]" and "unix:PATH" connect. The switch's channel (package controller,
// which exports it as controller.Target) and the push client
// (controller/push) read their targets with it.
package oftarget

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultPort is the IANA port for OpenFlow.
const DefaultPort = 6653

// Target is a connection method in Open vSwitch syntax.
type Target struct {
	Passive bool   // ptcp:/pssl:/punix: listen; tcp:/ssl:/unix: connect
	TLS     bool   // ssl:/pssl:
	Host    string // address to listen on or connect to
	Port    int
	// Path is the socket file of a unix: or punix: target, which have no
	// Host or Port; empty for the others.
	Path string
}

// Parse parses "ptcp:[PORT][:IP]", "tcp:IP[:PORT]", their TLS forms
// "pssl:[PORT][:IP]" and "ssl:IP[:PORT]", and the Unix domain socket
// forms "punix:PATH" and "unix:PATH". A passive TCP target listens on
// 127.0.0.1 unless an address is given. PATH is taken as it is, relative
// to the working directory unless it starts with "/" (Open vSwitch reads
// a relative one from its run directory, which ofswitch does not have).
func Parse(s string) (Target, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok && s != "ptcp" && s != "pssl" {
		return Target{}, fmt.Errorf("target %q: want ptcp:[PORT][:IP], tcp:IP[:PORT], punix:PATH or unix:PATH (or pssl:, ssl:)", s)
	}
	if kind == "unix" || kind == "punix" {
		if rest == "" {
			return Target{}, fmt.Errorf("target %q: %s: needs a path", s, kind)
		}
		return Target{Passive: kind == "punix", Path: rest}, nil
	}
	t := Target{Port: DefaultPort}
	if kind == "ssl" || kind == "pssl" {
		t.TLS = true
		kind = strings.Replace(kind, "ssl", "tcp", 1)
	}
	port := func(p string) error {
		if p == "" {
			return nil
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return fmt.Errorf("target %q: bad port %q", s, p)
		}
		t.Port = n
		return nil
	}
	switch kind {
	case "ptcp":
		t.Passive, t.Host = true, "127.0.0.1"
		p, host, _ := strings.Cut(rest, ":")
		if err := port(p); err != nil {
			return Target{}, err
		}
		if host != "" {
			t.Host = strings.Trim(host, "[]")
		}
	case "tcp":
		host, p := rest, ""
		if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") {
			host, p = rest[:i], rest[i+1:]
		}
		host = strings.Trim(host, "[]")
		if host == "" {
			return Target{}, fmt.Errorf("target %q: tcp: needs an address", s)
		}
		if err := port(p); err != nil {
			return Target{}, err
		}
		t.Host = host
	default:
		return Target{}, fmt.Errorf("target %q: unknown method %q (want ptcp, tcp, pssl, ssl, punix or unix)", s, kind)
	}
	if net.ParseIP(t.Host) == nil && t.Host != "localhost" {
		return Target{}, fmt.Errorf("target %q: %q is not an IP address", s, t.Host)
	}
	return t, nil
}

// Network returns the network of t for net.Dial or net.Listen: "unix"
// for unix: and punix:, "tcp" for the others.
func (t Target) Network() string {
	if t.Path != "" {
		return "unix"
	}
	return "tcp"
}

// Addr returns the address of t for net.Dial or net.Listen: host:port,
// or the path of a unix: or punix: target.
func (t Target) Addr() string {
	if t.Path != "" {
		return t.Path
	}
	return net.JoinHostPort(t.Host, strconv.Itoa(t.Port))
}

// String returns t in Open vSwitch's syntax, which Parse reads back.
func (t Target) String() string {
	if t.Path != "" {
		if t.Passive {
			return "punix:" + t.Path
		}
		return "unix:" + t.Path
	}
	h := t.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	p, a := "ptcp", "tcp"
	if t.TLS {
		p, a = "pssl", "ssl"
	}
	if t.Passive {
		return fmt.Sprintf("%s:%d:%s", p, t.Port, h)
	}
	return fmt.Sprintf("%s:%s:%d", a, h, t.Port)
}

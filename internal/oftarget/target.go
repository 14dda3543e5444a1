// Package oftarget parses OpenFlow connection targets in Open vSwitch's
// syntax: "ptcp:[PORT][:IP]" and "pssl:[PORT][:IP]" listen, "tcp:IP[:PORT]"
// and "ssl:IP[:PORT]" connect. The switch's channel (package controller,
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
	Passive bool   // ptcp:/pssl: listen; tcp:/ssl: connect
	TLS     bool   // ssl:/pssl:
	Host    string // address to listen on or connect to
	Port    int
}

// Parse parses "ptcp:[PORT][:IP]", "tcp:IP[:PORT]", and their TLS forms
// "pssl:[PORT][:IP]" and "ssl:IP[:PORT]". A passive target listens on
// 127.0.0.1 unless an address is given.
func Parse(s string) (Target, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok && s != "ptcp" && s != "pssl" {
		return Target{}, fmt.Errorf("target %q: want ptcp:[PORT][:IP] or tcp:IP[:PORT] (or pssl:, ssl:)", s)
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
		return Target{}, fmt.Errorf("target %q: unknown method %q (want ptcp, tcp, pssl or ssl)", s, kind)
	}
	if net.ParseIP(t.Host) == nil && t.Host != "localhost" {
		return Target{}, fmt.Errorf("target %q: %q is not an IP address", s, t.Host)
	}
	return t, nil
}

// Addr returns host:port for net.Dial or net.Listen.
func (t Target) Addr() string { return net.JoinHostPort(t.Host, strconv.Itoa(t.Port)) }

func (t Target) String() string {
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

package oftarget

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Target
		err  bool
	}{
		{in: "ptcp:6653", want: Target{Passive: true, Host: "127.0.0.1", Port: 6653}},
		{in: "ptcp:", want: Target{Passive: true, Host: "127.0.0.1", Port: 6653}},
		{in: "ptcp:16653:127.0.0.2", want: Target{Passive: true, Host: "127.0.0.2", Port: 16653}},
		{in: "ptcp::[::1]", want: Target{Passive: true, Host: "::1", Port: 6653}},
		{in: "tcp:127.0.0.1:6633", want: Target{Host: "127.0.0.1", Port: 6633}},
		{in: "tcp:127.0.0.1", want: Target{Host: "127.0.0.1", Port: 6653}},
		{in: "tcp:[::1]:7000", want: Target{Host: "::1", Port: 7000}},
		{in: "tcp:", err: true},
		{in: "tcp:127.0.0.1:70000", err: true},
		{in: "udp:127.0.0.1", err: true},
		{in: "tcp:not-an-ip:1", err: true},
		{in: "6653", err: true},
		{in: "punix:/run/ofswitch/br0.mgmt", want: Target{Passive: true, Path: "/run/ofswitch/br0.mgmt"}},
		{in: "punix:br0.mgmt", want: Target{Passive: true, Path: "br0.mgmt"}},
		{in: "unix:/run/ofswitch/br0.mgmt", want: Target{Path: "/run/ofswitch/br0.mgmt"}},
		{in: "unix:/tmp/a:b", want: Target{Path: "/tmp/a:b"}},
		{in: "punix:", err: true},
		{in: "unix:", err: true},
		{in: "unix", err: true},
	} {
		got, err := Parse(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("Parse(%q) error = %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); !tt.err && diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
		}
		if !tt.err {
			if again, err := Parse(got.String()); err != nil || again != got {
				t.Errorf("Parse(%q.String() = %q) = %+v, %v", tt.in, got.String(), again, err)
			}
		}
	}
}

func TestNetworkAddr(t *testing.T) {
	for _, tt := range []struct {
		in, network, addr string
	}{
		{"ptcp:6653", "tcp", "127.0.0.1:6653"},
		{"ssl:[::1]:7000", "tcp", "[::1]:7000"},
		{"punix:/run/br0.mgmt", "unix", "/run/br0.mgmt"},
		{"unix:rel/br0.mgmt", "unix", "rel/br0.mgmt"},
	} {
		got, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if got.Network() != tt.network || got.Addr() != tt.addr {
			t.Errorf("Parse(%q): Network, Addr = %q, %q; want %q, %q", tt.in, got.Network(), got.Addr(), tt.network, tt.addr)
		}
	}
}

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

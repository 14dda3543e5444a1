package ofctl

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ofswitch/ofswitch/rules"
)

// scanLines are lines for the one-pass reader (scanLine, fastActions,
// dottedQuad, shortDecimal) and for the mutations of
// TestScanLineAgreesWithSlow: ordinary flows and the corners where the
// one pass must hand over to parseLineSlow.
var scanLines = []string{
	"priority=100,tcp,nw_src=10.0.0.1,nw_dst=10.1.2.3,tp_dst=80,actions=output:2",
	"priority=100 tcp nw_src=10.0.0.1/24 nw_dst=10.1.2.3/255.255.0.0 tp_src=0x50/0xfff0 actions=output:2,3,FLOOD",
	"ip,nw_src=10.0.0.01,actions=drop",
	"ip,nw_src=256.0.0.1,actions=drop",
	"ip,nw_src=1.2.3,actions=drop",
	"ip,nw_src=1.2.3.4.5,actions=drop",
	"arp,nw_src=10.0.0.1,nw_dst=10.0.0.2,actions=NORMAL",
	"dl_type=0x0806,nw_dst=10.0.0.2,actions=normal",
	"nw_src=10.0.0.1,actions=drop",
	"tcp,tp_dst=65536,actions=drop",
	"tcp,tp_dst=080,actions=out:02",
	"udp,tp_src=1,actions=output:4294967295",
	"udp,tp_src=1,actions=output:4294967296",
	"udp,tp_src=1,actions=output:0",
	"udp,tp_src=1,actions=output:01",
	"udp,tp_src=1,actions=output:1:2",
	"udp,tp_src=1,actions=output:12345678901",
	"udp,tp_src=1,actions=output:7 \r",
	"udp,tp_src=1,actions=output:",
	"udp,tp_src=1,actions=output:-1",
	"priority=65535,in_port=1,actions=goto_table:1",
	"priority=65536,actions=drop",
	"priority=1,actions=output:1,goto_table:2",
	"priority=1,actions=goto_table:2,goto_table:3",
	"priority=1,actions=goto_table:256",
	"priority=1,actions=CONTROLLER,controller:128,controller:65536",
	"priority=1,actions=CONTROLLER,controller:128,controller",
	"priority=1,actions=1,2,3,4,5,6,7,8",
	"priority=1,actions=1,2,3,4,5,6,7,8,9",
	"priority=1,actions=output:1,drop",
	"priority=1,actions=drop,",
	"priority=1,actions=1,,2",
	"priority=1,actions=",
	"priority=1,actions=  \r",
	"priority=1 , actions = drop",
	"priority=1,instructions=drop",
	"priority=1,instructions=drop,actions=output:1",
	"priority=1\ractions=drop",
	"priority=1,\tactions=output:1\t",
	"priority=1,actions=output:1 output:2",
	"priority=1,actions=mod_vlan_vid:5,output:1",
	"priority=1,actions=set_field:10.0.0.1->ip_src,output:1",
	"priority=1,actions=write_actions(output:1),goto_table:1",
	"priority=1,cookie=0x5/-1,table=2,idle_timeout=10,hard_timeout=20,send_flow_rem,actions=in_port,TABLE,local,all",
	"tcp6,ipv6_src=::1,tp_dst=22,actions=output:3",
	"vlan_pcp=3,actions=drop",
	"tcp,actions=output:1",
	"tp_dst=80,actions=output:1",
	"priority=1",
	"tcp,nw_src=10.0.0.1",
	"bogus=1,actions=drop",
	"tcp,bogus,actions=drop",
	"tcp:1,actions=drop",
	"priority:7,actions=drop",
	"priority=1,actions:drop",
	"mpls,mpls_label=5,actions=output:1",
	"in_port=LOCAL,actions=output:in_port",
	"priority=18446744073709551616,actions=drop",
	"",
	"   ",
}

// TestScanLineAgreesWithSlow: the one pass (parseLine) gives what
// parseLineSlow gives, flows and errors, on every line of scanLines and on
// random mutations of them, with each set of options; and it reads the
// ordinary lines itself.
func TestScanLineAgreesWithSlow(t *testing.T) {
	opts := []ParseOptions{{}, {NoActions: true}, {FixPrereqs: true}}
	check := func(line string) {
		t.Helper()
		for _, o := range opts {
			fast := flowParser{file: "f", line: 7, opt: &o}
			got, gerr := fast.parseLine(nil, line)
			slow := flowParser{file: "f", line: 7, opt: &o}
			want, werr := slow.parseLineSlow(make([]rules.Update, 1), line)
			if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
				t.Fatalf("%q %+v: error %v, parseLineSlow's %v", line, o, gerr, werr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%q %+v: flows (-parseLineSlow +parseLine):\n%s", line, o, d)
			}
		}
	}
	for _, l := range scanLines {
		check(l)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{",", " ", "=", ":", "/", ".", "\r", "\t", "0", "1", "9", "0x", "actions=", "instructions=", "drop",
		"output:", "goto_table:", "FLOOD", "arp", "tcp", "nw_src=", "tp_dst=", "255", "256", "-", "(", ")"}
	deadline := 20000
	if testing.Short() {
		deadline = 2000
	}
	for range deadline {
		l := []byte(scanLines[r.IntN(len(scanLines))])
		for range 1 + r.IntN(3) {
			at := 0
			if len(l) > 0 {
				at = r.IntN(len(l))
			}
			switch r.IntN(3) {
			case 0: // delete a byte
				if len(l) > 0 {
					l = append(l[:at], l[at+1:]...)
				}
			case 1: // insert a piece
				p := pieces[r.IntN(len(pieces))]
				l = append(l[:at], append([]byte(p), l[at:]...)...)
			default: // replace a byte
				if len(l) > 0 {
					l[at] = pieces[r.IntN(len(pieces))][0]
				}
			}
		}
		check(string(l))
	}
	// The ordinary lines take the one pass, not parseLineSlow.
	for _, l := range scanLines[:2] {
		p := flowParser{file: "f", line: 1, opt: &ParseOptions{}}
		if !p.scanLine(new(rules.Update), l) {
			t.Errorf("scanLine(%q) handed the line over", l)
		}
	}
}

// TestShorthandOf: shorthandOf knows every shorthand, and nothing else.
func TestShorthandOf(t *testing.T) {
	for name, want := range shorthands {
		if got, ok := shorthandOf(name); !ok || got != want {
			t.Errorf("shorthandOf(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	for _, name := range []string{"", "i", "ipv4", "tcp4", "TCP", "icmpv6", "priority"} {
		if _, ok := shorthandOf(name); ok {
			t.Errorf("shorthandOf(%q) found a shorthand", name)
		}
	}
}

// FuzzScanLine holds the one pass to parseLineSlow's answers.
func FuzzScanLine(f *testing.F) {
	for _, l := range scanLines {
		f.Add(l, false)
	}
	f.Fuzz(func(t *testing.T, line string, noActions bool) {
		if strings.ContainsRune(line, '\n') {
			return
		}
		o := ParseOptions{NoActions: noActions}
		fast := flowParser{file: "f", line: 1, opt: &o}
		got, gerr := fast.parseLine(nil, line)
		slow := flowParser{file: "f", line: 1, opt: &o}
		want, werr := slow.parseLineSlow(make([]rules.Update, 1), line)
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("%q: error %v, parseLineSlow's %v", line, gerr, werr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%q: flows (-parseLineSlow +parseLine):\n%s", line, d)
		}
	})
}

// TestNextMarked: nextMarked stops at every byte that has a class, and
// at no byte at or above ',' that has none, at each offset and length:
// the bytes a scan of one byte at a time stops at.
func TestNextMarked(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "abz_09.-/+(){}<>\x00\x7f\x80\xff!\"#*,= \t\r:"
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		s := string(b)
		for pos := 0; pos <= len(s); pos++ {
			got := nextMarked(s, pos)
			want := pos
			for want < len(s) && byteClass[s[want]] == 0 {
				want++
			}
			// got may stop early at a byte below ',', never late.
			if got > want || got < pos || got < want && (byteClass[s[got]] != 0 || s[got] > ',') {
				t.Fatalf("nextMarked(%q, %d) = %d; want %d", s, pos, got, want)
			}
			if got < want {
				for i := pos; i < got; i++ {
					if s[i] <= ',' {
						t.Fatalf("nextMarked(%q, %d) = %d passes byte %d (%q)", s, pos, got, i, s[i])
					}
				}
			}
		}
	}
}

// TestDottedQuad: dottedQuad reads what netip.ParseAddr reads as an IPv4
// address in its plain form, four decimal bytes without leading zeros,
// and reports false for everything else.
func TestDottedQuad(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := "0123456789....x/ "
	check := func(s string) {
		v, ok := dottedQuad(s)
		a, err := netip.ParseAddr(s)
		plain := err == nil && a.Is4() && a.String() == s
		if ok != plain {
			t.Fatalf("dottedQuad(%q) = %v; netip reads %v, %v", s, ok, a, err)
		}
		if ok {
			b := a.As4()
			if want := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3]); v != want {
				t.Fatalf("dottedQuad(%q) = %#x; want %#x", s, v, want)
			}
		}
	}
	for _, s := range []string{"0.0.0.0", "255.255.255.255", "256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.04", "1.2.3.00", "10.0.0.1", "1..2.3", ".1.2.3", "1.2.3.", "1000.1.1.1", "0001.1.1.1"} {
		check(s)
	}
	for range 200000 {
		b := make([]byte, 5+r.IntN(13))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
		// And the form of a real address, to reach the true cases.
		check(fmt.Sprintf("%d.%d.%d.%d", r.IntN(300), r.IntN(256), r.IntN(256), r.IntN(1100)))
	}
}

// TestFieldFastKeys: the keys field reads ahead of its switch (nw_src,
// nw_dst, tp_src, tp_dst) give what their synonyms, which the switch
// reads, give: values, masks, errors, ARP's addresses included.
func TestFieldFastKeys(t *testing.T) {
	synonyms := map[string]string{"nw_src": "ip_src", "nw_dst": "ip_dst", "tp_src": "tcp_src", "tp_dst": "tcp_dst"}
	vals := []string{"10.0.0.1", "10.0.0.0/8", "10.0.0.0/255.0.0.0", "1.2.3", "256.1.1.1", "80", "0x50/0xfff0", "65536", "", "x", "01.2.3.4"}
	for _, proto := range []string{"tcp", "arp", "ip"} {
		for key, syn := range synonyms {
			for _, v := range vals {
				line := proto + "," + key + "=" + v + ",actions=drop"
				other := proto + "," + syn + "=" + v + ",actions=drop"
				p := flowParser{file: "f", line: 1, opt: &ParseOptions{}}
				got, gerr := p.parseLine(nil, line)
				q := flowParser{file: "f", line: 1, opt: &ParseOptions{}}
				want, werr := q.parseLine(nil, other)
				if (gerr == nil) != (werr == nil) {
					t.Fatalf("%q: %v; %q: %v", line, gerr, other, werr)
				}
				if gerr != nil {
					// The synonym is longer: its columns lie further
					// right; the messages name the key read.
					var g, w *ParseError
					if !errors.As(gerr, &g) || !errors.As(werr, &w) || strings.ReplaceAll(w.Msg, syn, key) != g.Msg {
						t.Fatalf("%q: %v; %q: %v", line, gerr, other, werr)
					}
					continue
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%q against %q:\n%s", line, other, d)
				}
			}
		}
	}
}

package ofctl_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// genFlows writes n varied flows in ovs-ofctl add-flows syntax, each with a
// distinct priority so that no two are the same flow.
func genFlows(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 17))
	mac := func() string {
		return fmt.Sprintf("02:%02x:%02x:%02x:%02x:%02x", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
	}
	ip4 := func() string { return fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256)) }
	var out []string
	for i := range n {
		var f []string
		table := r.IntN(3)
		if table != 0 || r.IntN(2) == 0 {
			f = append(f, fmt.Sprintf("table=%d", table))
		}
		f = append(f, fmt.Sprintf("priority=%d", 1+i*37%60000))
		if r.IntN(3) == 0 {
			f = append(f, fmt.Sprintf("cookie=%#x", r.Uint64()>>r.IntN(64)))
		}
		if r.IntN(4) == 0 {
			f = append(f, fmt.Sprintf("idle_timeout=%d", 1+r.IntN(1000)))
		}
		if r.IntN(4) == 0 {
			f = append(f, fmt.Sprintf("hard_timeout=%d", 1+r.IntN(1000)))
		}
		if r.IntN(6) == 0 {
			f = append(f, "send_flow_rem")
		}
		proto := []string{"", "ip", "tcp", "udp", "icmp", "arp", "ipv6", "tcp6", "udp6", "icmp6", "sctp"}[r.IntN(11)]
		if proto != "" {
			f = append(f, proto)
		}
		if r.IntN(3) == 0 {
			f = append(f, fmt.Sprintf("in_port=%d", 1+r.IntN(64)))
		}
		if r.IntN(6) == 0 {
			f = append(f, fmt.Sprintf("metadata=%#x", r.Uint64()>>r.IntN(64)))
		}
		switch r.IntN(12) {
		case 0:
			f = append(f, fmt.Sprintf("tun_id=%#x", r.Uint64()>>r.IntN(64)))
		case 1:
			f = append(f, fmt.Sprintf("tun_id=%#x/0xffff0000", r.Uint64()&0xffff0000))
		}
		hasVLAN := false
		switch r.IntN(6) {
		case 0:
			f = append(f, fmt.Sprintf("dl_vlan=%d", r.IntN(4095)))
			hasVLAN = true
		case 1:
			f = append(f, fmt.Sprintf("dl_vlan=%d,dl_vlan_pcp=%d", r.IntN(4095), r.IntN(8)))
			hasVLAN = true
		case 2:
			f = append(f, "dl_vlan=0xffff")
		}
		if r.IntN(4) == 0 {
			f = append(f, "dl_src="+mac())
		}
		if r.IntN(4) == 0 {
			if r.IntN(2) == 0 {
				f = append(f, "dl_dst="+mac())
			} else {
				f = append(f, "dl_dst=01:00:00:00:00:00/01:00:00:00:00:00")
			}
		}
		switch proto {
		case "":
			if r.IntN(3) == 0 {
				f = append(f, fmt.Sprintf("dl_type=0x%04x", []int{0x88cc, 0x8809, 0x88e5}[r.IntN(3)]))
			}
		case "ip", "tcp", "udp", "icmp", "sctp":
			if r.IntN(2) == 0 {
				f = append(f, fmt.Sprintf("nw_src=%s/%d", ip4(), 8+r.IntN(25)))
			}
			if r.IntN(2) == 0 {
				f = append(f, "nw_dst="+ip4())
			}
			if r.IntN(4) == 0 {
				f = append(f, fmt.Sprintf("nw_tos=%d", 4*r.IntN(64)))
			}
			if r.IntN(6) == 0 {
				f = append(f, fmt.Sprintf("nw_ecn=%d", r.IntN(4)))
			}
			if proto == "ip" && r.IntN(3) == 0 {
				f = append(f, fmt.Sprintf("nw_proto=%d", []int{47, 50, 89}[r.IntN(3)]))
			}
		case "arp":
			if r.IntN(2) == 0 {
				f = append(f, fmt.Sprintf("arp_op=%d", 1+r.IntN(2)))
			}
			if r.IntN(2) == 0 {
				f = append(f, "arp_spa="+ip4())
			}
			if r.IntN(2) == 0 {
				f = append(f, fmt.Sprintf("arp_tpa=%s/%d", ip4(), 16+r.IntN(17)))
			}
			if r.IntN(3) == 0 {
				f = append(f, "arp_sha="+mac())
			}
		case "ipv6", "tcp6", "udp6", "icmp6":
			if r.IntN(2) == 0 {
				f = append(f, fmt.Sprintf("ipv6_src=2001:db8:%x::/%d", r.IntN(65536), 16+r.IntN(33)))
			}
			if r.IntN(2) == 0 {
				f = append(f, fmt.Sprintf("ipv6_dst=2001:db8::%x", 1+r.IntN(65535)))
			}
			switch r.IntN(6) {
			case 0:
				f = append(f, fmt.Sprintf("ipv6_label=%#x", r.IntN(1<<20)))
			case 1:
				f = append(f, fmt.Sprintf("ipv6_label=%#x/0xff000", r.IntN(1<<20)&0xff000))
			}
		}
		nd := 0 // icmpv6_type of a neighbor discovery match
		if proto == "icmp6" && r.IntN(2) == 0 {
			nd = 135 + r.IntN(2)
			f = append(f, fmt.Sprintf("icmp_type=%d", nd))
			switch r.IntN(3) {
			case 0:
				f = append(f, fmt.Sprintf("nd_target=2001:db8::%x", r.IntN(65536)))
			case 1:
				f = append(f, fmt.Sprintf("nd_target=fe80::%x/64", 1+r.IntN(65535)))
			}
			ll := map[int]string{135: "nd_sll=", 136: "nd_tll="}[nd]
			switch r.IntN(3) {
			case 0:
				f = append(f, ll+mac())
			case 1:
				f = append(f, ll+"02:00:00:00:00:00/ff:ff:ff:00:00:00")
			}
		}
		switch proto {
		case "tcp", "udp", "sctp", "tcp6", "udp6":
			if r.IntN(2) == 0 {
				f = append(f, fmt.Sprintf("tp_src=%d", r.IntN(65536)))
			}
			switch r.IntN(3) {
			case 0:
				f = append(f, fmt.Sprintf("tp_dst=%d", r.IntN(65536)))
			case 1:
				bits := 1 + r.IntN(15)
				mask := 0xffff &^ (1<<(16-bits) - 1)
				f = append(f, fmt.Sprintf("tp_dst=%#x/%#x", r.IntN(65536)&mask, mask))
			}
		case "icmp", "icmp6":
			if nd == 0 && r.IntN(2) == 0 {
				f = append(f, fmt.Sprintf("icmp_type=%d", r.IntN(256)))
			}
			switch {
			case nd != 0 && r.IntN(2) == 0:
				f = append(f, "icmp_code=0") // neighbor discovery has code 0
			case nd == 0 && r.IntN(2) == 0:
				f = append(f, fmt.Sprintf("icmp_code=%d", r.IntN(256)))
			}
		}
		var acts []string
		ipish := proto != "" && proto != "arp"
		vlanDone := false
		v6 := strings.HasSuffix(proto, "6")
		for range r.IntN(4) {
			k := r.IntN(14)
			if k == 4 || k == 5 || k == 8 {
				if vlanDone {
					continue
				}
				vlanDone = true
			}
			switch k {
			case 0:
				acts = append(acts, fmt.Sprintf("output:%d", 1+r.IntN(64)))
			case 1:
				acts = append(acts, []string{"FLOOD", "ALL", "IN_PORT", "NORMAL", "LOCAL"}[r.IntN(5)])
			case 2:
				acts = append(acts, fmt.Sprintf("CONTROLLER:%d", r.IntN(65536)))
			case 3:
				acts = append(acts, "set_field:"+mac()+"->eth_dst")
			case 4:
				acts = append(acts, fmt.Sprintf("mod_vlan_vid:%d", r.IntN(4096)))
			case 5:
				if hasVLAN {
					acts = append(acts, "strip_vlan")
				} else {
					vlanDone = false
				}
			case 6:
				if ipish {
					acts = append(acts, "dec_ttl")
				}
			case 7:
				if proto == "ip" || proto == "tcp" || proto == "udp" {
					acts = append(acts, "set_field:"+ip4()+"->ip_dst")
				}
			case 8:
				acts = append(acts, "push_vlan:0x8100")
			case 9:
				acts = append(acts, fmt.Sprintf("set_field:%#x->tun_id", r.Uint64()>>r.IntN(64)))
			case 10:
				if ipish {
					acts = append(acts, fmt.Sprintf("mod_nw_ttl:%d", r.IntN(256)))
				}
			case 11:
				if v6 {
					acts = append(acts, fmt.Sprintf("set_field:%#x->ipv6_label", r.IntN(1<<20)))
				}
			case 12:
				switch nd {
				case 135:
					acts = append(acts, "set_field:"+mac()+"->nd_sll")
				case 136:
					acts = append(acts, "set_field:"+mac()+"->nd_tll", fmt.Sprintf("set_field:2001:db8::%x->nd_target", r.IntN(65536)))
				}
			case 13:
				if proto == "udp" || proto == "udp6" {
					acts = append(acts, fmt.Sprintf("set_field:%d->udp_src", r.IntN(65536)))
				}
			}
		}
		dropOK := len(acts) == 0
		if r.IntN(5) == 0 {
			acts = append(acts, fmt.Sprintf("write_metadata:%#x/%#x", r.IntN(256), 0xff))
		}
		if table < 2 && r.IntN(4) == 0 {
			acts = append(acts, fmt.Sprintf("goto_table:%d", table+1+r.IntN(2-table)))
		}
		if len(acts) == 0 {
			if dropOK && r.IntN(2) == 0 {
				acts = append(acts, "drop")
			} else {
				acts = append(acts, fmt.Sprintf("output:%d", 1+r.IntN(8)))
			}
		}
		out = append(out, strings.Join(f, ",")+",actions="+strings.Join(acts, ","))
	}
	return out
}

var durationRE = regexp.MustCompile(`duration=[0-9.]+s, `)

func dumpLines(ups []rules.Update) []string {
	var out []string
	for i := range ups {
		u := &ups[i]
		out = append(out, durationRE.ReplaceAllString(ofctl.FormatFlow(u.Table, &u.Match, u.Priority, u.Cookie, u.IdleTimeout, u.HardTimeout, u.Flags, u.Instructions, ofctl.FlowStats{}), ""))
	}
	slices.Sort(out)
	return out
}

// TestFlowRoundTrip parses several hundred varied flows, prints them, and
// parses the printed text again: the second parse equals the first.
func TestFlowRoundTrip(t *testing.T) {
	lines := genFlows(600, 1)
	ups, errs := ofctl.ParseFlows("gen.flows", []byte(strings.Join(lines, "\n")), nil)
	if len(errs) > 0 {
		t.Fatalf("%d errors, first: %v", len(errs), errs[0])
	}
	if len(ups) != len(lines) {
		t.Fatalf("%d flows from %d lines", len(ups), len(lines))
	}
	for i := range ups {
		text := ofctl.FormatUpdate(&ups[i])
		again, err := ofctl.ParseFlow(text)
		if err != nil {
			t.Fatalf("line %d %q printed as %q: %v", i+1, lines[i], text, err)
		}
		again.ID = ups[i].ID
		if text2 := ofctl.FormatUpdate(&again); text2 != text || again.Match != ups[i].Match || again.Priority != ups[i].Priority {
			t.Fatalf("line %d: %q -> %q -> %q", i+1, lines[i], text, text2)
		}
	}
}

// TestTCPFlagsText: tcp_flags in every form ovs-ofctl takes, written back
// as Open vSwitch 3.1 wrote each (dump-flows after add-flow, by hand in
// the ovs-sandbox), and the forms it refuses.
func TestTCPFlagsText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"tcp,tcp_flags=+syn-ack", "tcp,tcp_flags=+syn-ack"},
		{"tcp,tcp_flags=0x002/0x012", "tcp,tcp_flags=+syn-ack"},
		{"tcp,tcp_flags=0x010", "tcp,tcp_flags=ack"},
		{"tcp,tcp_flags=0x012", "tcp,tcp_flags=syn|ack"},
		{"tcp,tcp_flags=syn|ack", "tcp,tcp_flags=syn|ack"},
		{"tcp,tcp_flags=0", "tcp,tcp_flags=0"},
		{"tcp,tcp_flags=0x800/0x800", "tcp,tcp_flags=+[800]"},
		{"tcp,tcp_flags=+syn+ack-fin", "tcp,tcp_flags=-fin+syn+ack"},
		{"tcp,tcp_flags=0x0ff/0x0ff", "tcp,tcp_flags=+fin+syn+rst+psh+ack+urg+ece+cwr"},
		{"tcp,tcp_flags=0x1ff", "tcp,tcp_flags=fin|syn|rst|psh|ack|urg|ece|cwr|ns"},
		{"tcp,tcp_flags=0x3/0x7", "tcp,tcp_flags=+fin+syn-rst"},
		{"tcp6,tcp_flags=+rst", "tcp6,tcp_flags=+rst"},
	} {
		u, err := ofctl.ParseFlow(c.in + ",actions=drop")
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := ofctl.FormatMatch(&u.Match, u.Priority); got != c.want {
			t.Errorf("%s printed as %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"tcp,tcp_flags=+SYN", `unknown TCP flag "SYN"`},
		{"tcp,tcp_flags=0x1002", "does not fit in 12 bits"},
		{"tcp,tcp_flags=+syn+syn", "given twice"},
		{"tcp,tcp_flags=syn|bogus", `unknown TCP flag "bogus"`},
		{"udp,tcp_flags=+syn", "OFPBMC_BAD_PREREQ"},
		{"ip,tcp_flags=+syn", "needs ip_proto=6"},
	} {
		if _, err := ofctl.ParseFlow(c.in + ",actions=drop"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.in, err, c.want)
		}
	}
}

// TestSyntaxFlows checks the real example files against the text Open
// vSwitch 3.1 printed for them (dump-flows after add-flows).
func TestSyntaxFlows(t *testing.T) {
	p := testutil.SharedData(t, "openflow-captures", "syntax.flows")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ups, errs := ofctl.ParseFlows("syntax.flows", b, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// Recorded from ovs-ofctl -O OpenFlow13 dump-flows (OVS 3.1.0), durations removed.
	want := []string{
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=700,ip,in_port=2 actions=set_field:02:00:00:00:00:0b->eth_dst,goto_table:1",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=600,dl_vlan=100 actions=pop_vlan,output:1",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=600,in_port=1,vlan_tci=0x0000/0x1fff actions=push_vlan:0x8100,set_field:4196->vlan_vid,output:2",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=50,icmp actions=drop",
		" cookie=0x1234, table=0, n_packets=0, n_bytes=0, idle_timeout=30, hard_timeout=300, priority=500,udp actions=output:2",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=400,tcp,nw_dst=127.0.0.1,tp_dst=80 actions=output:1",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=400,udp,tp_src=53,tp_dst=1024 actions=CONTROLLER:65535",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=300,ip,nw_src=127.1.0.0/16,nw_dst=127.2.3.0/24 actions=NORMAL",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=200,arp actions=FLOOD",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=100,dl_src=02:00:00:00:00:0a,dl_dst=02:00:00:00:00:0b actions=output:2",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=10,in_port=1 actions=output:2",
		" cookie=0x0, table=0, n_packets=0, n_bytes=0, priority=0 actions=CONTROLLER:128",
		" cookie=0x0, table=1, n_packets=0, n_bytes=0, priority=1 actions=output:2",
	}
	slices.Sort(want)
	if got := dumpLines(ups); !slices.Equal(got, want) {
		t.Errorf("dump-flows text differs:\n got %q\nwant %q", got, want)
	}
}

func TestParseFlowErrors(t *testing.T) {
	for _, tt := range []struct {
		in   string
		col  int
		want string
		err  error
	}{
		{"priority=5,ip,actions=output:1", 0, "", nil},
		{"priority=5,ip", 14, "expected actions=", ofctl.ErrSyntax},
		{"priority=x,actions=drop", 10, "expected priority", ofctl.ErrSyntax},
		{"ip,nw_src=10.0.0.300,actions=drop", 11, "expected an IPv4 address", ofctl.ErrSyntax},
		{"ip,nw_src=10.0.0.0/40,actions=drop", 20, "prefix length", ofctl.ErrSyntax},
		{"frobnicate=1,actions=drop", 1, "unknown field", ofctl.ErrSyntax},
		{"ip,actions=output:1,bogus", 21, "unknown action", ofctl.ErrSyntax},
		{"ip,actions=controller(reason=no_match,userdata=01.02)", 39, "controller(userdata) is not supported", ofctl.ErrSyntax},
		{"ip,actions=controller(pause)", 23, "controller(pause) is not supported", ofctl.ErrSyntax},
		{"ip,actions=controller(reason=frob)", 23, "unknown reason", ofctl.ErrSyntax},
		{"ip,actions=dec_ttl(1,x),output:1", 22, "controller id", ofctl.ErrSyntax},
		{"ip,actions=note:0.1", 17, "bad hex digit", ofctl.ErrSyntax},
		{"ip,actions=write_actions(exit)", 12, "write_actions cannot hold", ofctl.ErrSyntax},
		{"tp_dst=80,actions=drop", 1, "OFPBMC_BAD_PREREQ", rules.ErrBadPrereq},
		{"ip,nw_proto=6,tp_dst=80,actions=drop", 0, "", nil},
		{"dl_src=02:00:00:00:00,actions=drop", 8, "expected an Ethernet address", ofctl.ErrSyntax},
		{"ip,actions=drop,output:1", 12, "drop", ofctl.ErrSyntax},
	} {
		_, err := ofctl.ParseFlow(tt.in)
		if tt.err == nil {
			if err != nil {
				t.Errorf("%q: %v", tt.in, err)
			}
			continue
		}
		var pe *ofctl.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, tt.err) || pe.Col != tt.col || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q at column %d (%v)", tt.in, err, tt.want, tt.col, tt.err)
		}
	}
	// FixPrereqs turns the bad line into TCP and UDP flows.
	ups, errs := ofctl.ParseFlows("f", []byte("tp_dst=80,actions=drop\n"), &ofctl.ParseOptions{FixPrereqs: true})
	if len(errs) != 0 || len(ups) != 2 {
		t.Fatalf("FixPrereqs: %v %v", ups, errs)
	}
}

// nxFieldLines are flows with Open vSwitch's Nicira fields and the forms
// of vlan_tci, whose reading TestDumpFlowsMatchesOVS checks against what
// Open vSwitch holds once ovs-ofctl has sent them over OpenFlow 1.3: a
// vlan_tci mask with some priority bits becomes an exact vlan_pcp (or
// nothing when the id's value is 0).
var nxFieldLines = []string{
	"table=5,priority=1,ip,nw_ttl=1,actions=CONTROLLER:64",
	"table=5,priority=2,ipv6,nw_ttl=255,nw_frag=later,actions=drop",
	"table=5,priority=3,tcp,ip_frag=no,nw_ttl=0,tp_dst=80,actions=drop",
	"table=5,priority=4,ip,ip_frag=yes,actions=drop",
	"table=5,priority=5,udp6,nw_frag=first,actions=drop",
	"table=5,priority=6,ip,nw_frag=not_later,nw_tos=8,actions=drop",
	"table=5,priority=7,pkt_mark=0x5,actions=drop",
	"table=5,priority=8,pkt_mark=0x10/0xf0,ip,actions=drop",
	"table=5,priority=9,tun_id=0x3,tun_flags=+oam,metadata=0x1,actions=drop",
	"table=5,priority=10,tun_flags=-oam,in_port=3,actions=drop",
	"table=5,priority=11,tun_flags=0x1/0x1,pkt_mark=0,actions=drop",
	"table=5,priority=20,vlan_tci=0,actions=drop",
	"table=5,priority=21,vlan_tci=0x1000/0x1000,actions=drop",
	"table=5,priority=22,vlan_tci=0x0000/0x1fff,actions=drop",
	"table=5,priority=23,vlan_tci=0x2000/0xe000,actions=drop",
	"table=5,priority=24,vlan_tci=0xf123,actions=drop",
	"table=5,priority=25,vlan_tci=0x3005/0xf0ff,actions=drop",
	"table=5,priority=26,vlan_tci=0x1005/0x1fff,actions=drop",
	"table=5,priority=27,vlan_tci=0x1000/0x1f00,actions=drop",
	"table=5,priority=28,vlan_tci=0x5000/0x5000,actions=drop",
	"table=5,priority=29,vlan_tci=0xa000/0xa000,actions=drop",
	"table=5,priority=30,vlan_tci=0x0000/0xffff,actions=drop",
	"table=5,priority=31,vlan_tci=0x7005/0xffff,ip,actions=drop",
	// Registers (printed by register, an xreg as its pair) and the
	// tunnel addresses.
	"table=6,priority=1,reg0=0,actions=drop",
	"table=6,priority=2,reg3=0x5/0xff,actions=drop",
	"table=6,priority=3,reg15=0xffffffff,reg1=7,actions=drop",
	"table=6,priority=4,xreg1=0x5,actions=drop",
	"table=6,priority=5,xreg7=0x1234567800000000/0xffffffff00000000,actions=drop",
	"table=6,priority=6,xreg2=0/0xf0000000f,actions=drop",
	"table=6,priority=7,reg4=0/0x80000000,reg5=0x80000000/0x80000000,actions=drop",
	"table=6,priority=8,tun_src=10.0.0.1/24,actions=drop",
	"table=6,priority=9,tun_dst=192.168.1.1,tun_src=1.2.3.4/255.0.255.0,tun_id=0x5,actions=drop",
	"table=6,priority=10,ip,reg2=0x10/0x10,nw_ttl=3,pkt_mark=1,tun_dst=10.1.0.0/16,tun_flags=+oam,actions=drop",
	"table=6,priority=11,tcp6,ipv6_src=2001:db8::1,reg0=1,reg9=0x10,reg14=3,tun_src=1.1.1.1,metadata=0x3,tp_dst=80,actions=drop",
	// The IPv6 tunnel addresses and VXLAN group policy fields
	// (tun_gbp_flags printed without its mask, as Open vSwitch does).
	"table=6,priority=12,tun_ipv6_src=2001:db8::1,actions=drop",
	"table=6,priority=13,tun_ipv6_dst=2001:db8::/32,tun_ipv6_src=fe80::1/ffff::ffff,actions=drop",
	"table=6,priority=14,tun_gbp_id=300,actions=drop",
	"table=6,priority=15,tun_gbp_id=0x10/0xff,tun_gbp_flags=0x81,actions=drop",
	"table=6,priority=16,tun_gbp_id=0/0x8000,tun_gbp_flags=0x1/0x3,actions=drop",
	"table=6,priority=17,tun_gbp_flags=0,tun_ipv6_dst=::,tun_src=1.2.3.4,tun_id=7,tun_flags=-oam,actions=drop",
	"table=6,priority=18,tcp6,ipv6_src=2001:db8::1,reg3=1,tun_ipv6_src=2001:db8::2/64,tun_gbp_id=5,tp_dst=80,actions=drop",
}

// TestDumpFlowsMatchesOVS loads several hundred varied flows into a
// userspace Open vSwitch and compares its dump-flows text with FormatFlow's.
func TestDumpFlowsMatchesOVS(t *testing.T) {
	for _, tool := range []string{"ovs-ofctl", "ovs-vswitchd", "ovsdb-server", "ovs-vsctl", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.SkipOrFail(t, "Open vSwitch not installed ("+tool+" missing)")
		}
	}
	if os.Geteuid() != 0 {
		testutil.SkipOrFail(t, "needs root for a network namespace")
	}
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	sandbox := filepath.Join(testutil.RepoRoot(t), "..", "shared", "tools", "ovs-sandbox")
	if _, err := os.Stat(sandbox); err != nil {
		testutil.SkipOrFail(t, "ovs-sandbox missing: "+sandbox)
	}
	ns := fmt.Sprintf("ofsw-rules-%d", os.Getpid())
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command("ip", append([]string{"netns", "exec", ns}, args...)...)
		return cmd.CombinedOutput()
	}
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		testutil.SkipOrFail(t, fmt.Sprintf("ip netns add: %v %s", err, out))
	}
	dir := t.TempDir()
	t.Cleanup(func() {
		run(sandbox, "down", dir)
		exec.Command("ip", "netns", "del", ns).Run()
	})
	if out, err := run(sandbox, "up", dir, "16653"); err != nil {
		t.Fatalf("ovs-sandbox up: %v\n%s", err, out)
	}
	lines := append(genFlows(400, 2), nxFieldLines...)
	file := filepath.Join(dir, "gen.flows")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sw := "tcp:127.0.0.1:16653"
	if out, err := run("ovs-ofctl", "-O", "OpenFlow13", "--no-names", "add-flows", sw, file); err != nil {
		t.Fatalf("add-flows: %v\n%s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	var dump []byte
	var err error
	for {
		dump, err = run("ovs-ofctl", "-O", "OpenFlow13", "--no-names", "dump-flows", sw)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("dump-flows: %v\n%s", err, dump)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(dump)), "\n")[1:] {
		want = append(want, durationRE.ReplaceAllString(l, ""))
	}
	slices.Sort(want)
	ups, errs := ofctl.ParseFlows(file, []byte(strings.Join(lines, "\n")), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := dumpLines(ups)
	if len(got) != len(want) {
		t.Fatalf("%d flows printed, OVS dumped %d", len(got), len(want))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			bad++
			if bad <= 5 {
				t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d lines differ from ovs-ofctl dump-flows", bad, len(got))
	}
}

// TestImportance: OpenFlow 1.4's importance as ovs-ofctl writes it on an
// add (importance=N, 16 bits): read, printed, read back, and refused where
// it does not fit. (The pipeline's side is rules' TestImportance.)
func TestImportance(t *testing.T) {
	u, err := ofctl.ParseFlow("importance=7,priority=5,ip,actions=output:1")
	if err != nil {
		t.Fatal(err)
	}
	if u.Importance != 7 {
		t.Fatalf("importance=7 parsed as %d", u.Importance)
	}
	s := ofctl.FormatUpdate(&u)
	if !strings.Contains(s, "importance=7") {
		t.Fatalf("FormatUpdate dropped importance: %q", s)
	}
	if back, err := ofctl.ParseFlow(s); err != nil || back.Importance != 7 {
		t.Fatalf("%q read back: importance %d, %v", s, back.Importance, err)
	}
	if _, err := ofctl.ParseFlow("priority=5,importance=65536,ip,actions=drop"); err == nil || !strings.Contains(err.Error(), "flow:1:23:") {
		t.Fatalf("importance=65536: %v, want an error at its value, column 23", err)
	}
}

// TestMinusNumbers: ovs-ofctl reads 64-bit numbers (cookie, metadata) as
// strtoull does, so a minus sign wraps: -1 is all ones.
func TestMinusNumbers(t *testing.T) {
	u, err := ofctl.ParseFlow("cookie=-3,priority=5,metadata=0x5/-1,actions=drop")
	if err != nil {
		t.Fatal(err)
	}
	if u.Cookie != 0xfffffffffffffffd {
		t.Errorf("cookie=-3 read as %#x", u.Cookie)
	}
	if v, mk := u.Match.Get(rules.FieldMetadata); v != 5 || mk != ^uint64(0) {
		t.Errorf("metadata=0x5/-1 read as %#x/%#x", v, mk)
	}
	if u, err = ofctl.ParseFlow("cookie=0x5/-1,priority=5,actions=drop"); err != nil || u.CookieMask != ^uint64(0) {
		t.Errorf("cookie=0x5/-1: mask %#x, %v", u.CookieMask, err)
	}
	for _, bad := range []string{"cookie=-,actions=drop", "cookie=0x5/-x,actions=drop", "priority=-1,actions=drop"} {
		if _, err := ofctl.ParseFlow(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// prereqBroken says, from the text alone, whether a ClassBench-ng line
// breaks OpenFlow prerequisites: ports without nw_proto, or IP fields
// without eth_type.
func prereqBroken(line string) bool {
	has := func(k string) bool { return strings.Contains(line, k+"=") }
	return (has("tp_src") || has("tp_dst")) && !has("nw_proto") ||
		(has("nw_src") || has("nw_dst") || has("nw_proto")) && !has("eth_type")
}

// TestOF1Prereqs loads the ClassBench-ng OpenFlow sets both ways: strict
// loading rejects exactly the lines that break prerequisites, with
// OFPBMC_BAD_PREREQ; FixPrereqs loads every line.
func TestOF1Prereqs(t *testing.T) {
	for _, name := range []string{"lyxocs-ruleSet/of1_1k", "lyxocs-ruleSet/of1_10k"} {
		data := readCB(t, name)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		broken := 0
		for _, l := range lines {
			if prereqBroken(l) {
				broken++
			}
		}
		ups, errs := ofctl.ParseFlows(name, data, &ofctl.ParseOptions{NoActions: true})
		if len(errs) != broken || len(ups) != len(lines)-broken {
			t.Errorf("%s strict: %d rejected, %d loaded; want %d rejected of %d", name, len(errs), len(ups), broken, len(lines))
		}
		for _, err := range errs {
			var pe *ofctl.ParseError
			if !errors.Is(err, rules.ErrBadPrereq) || !errors.As(err, &pe) || !prereqBroken(lines[pe.Line-1]) {
				t.Fatalf("%s: %v is not a BAD_PREREQ on a broken line", name, err)
			}
		}
		fixed, errs := ofctl.ParseFlows(name, data, &ofctl.ParseOptions{NoActions: true, FixPrereqs: true})
		if len(errs) != 0 {
			t.Fatalf("%s fixed: %v", name, errs[0])
		}
		lineSeen := map[int]bool{}
		for _, u := range fixed {
			lineSeen[u.ID] = true
			if err := u.Match.Validate(); err != nil {
				t.Fatalf("%s line %d after fixing: %v", name, u.ID, err)
			}
		}
		if len(lineSeen) != len(lines) {
			t.Errorf("%s fixed: %d lines loaded of %d", name, len(lineSeen), len(lines))
		}
		t.Logf("%s: %d lines, %d break prerequisites; fixed load has %d flows", name, len(lines), broken, len(fixed))
	}
}

// readCB reads a file below the shared ClassBench data.
func readCB(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(testutil.SharedData(t, "classbench", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkParseFlows parses a file of 100K exact 5-tuple flows in
// ovs-ofctl syntax, as `ofswitch push` reads BenchmarkPushCLI's.
func BenchmarkParseFlows(b *testing.B) {
	var buf bytes.Buffer
	const n = 100_000
	for k := range n {
		fmt.Fprintf(&buf, "priority=100,tcp,nw_src=127.%d.%d.%d,nw_dst=127.%d.%d.%d,tp_src=%d,tp_dst=80,actions=output:2\n",
			16+k>>16&0xf, k>>8&0xff, k&0xff, 32+k>>16&0xf, k>>8&0xff, k&0xff, 1024+k%50000)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		ups, errs := ofctl.ParseFlows("bench.flows", data, nil)
		if len(ups) != n || len(errs) != 0 {
			b.Fatalf("%d flows, %d errors", len(ups), len(errs))
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*n), "ns/line")
}

// ordinaryFlows returns n lines of ordinary flows: a protocol, two
// addresses, two ports and one output.
func ordinaryFlows(n int) []byte {
	var buf bytes.Buffer
	for k := range n {
		fmt.Fprintf(&buf, "priority=100,tcp,nw_src=127.%d.%d.%d,nw_dst=127.%d.%d.%d,tp_src=%d,tp_dst=80,actions=output:2\n",
			16+k>>16&0xf, k>>8&0xff, k&0xff, 32+k>>16&0xf, k>>8&0xff, k&0xff, 1024+k%50000)
	}
	return buf.Bytes()
}

// BenchmarkFlowParser parses 100K ordinary flows into a reused slice with
// a reused FlowParser, as a reader of chunks does: lines/s and
// allocations per line.
func BenchmarkFlowParser(b *testing.B) {
	const n = 100_000
	data := ordinaryFlows(n)
	var fp ofctl.FlowParser
	ups := make([]rules.Update, 0, n)
	b.ReportAllocs()
	var lines int
	for b.Loop() {
		var errs []error
		ups, errs = fp.AppendFlows(ups[:0], "bench.flows", data)
		if len(ups) != n || len(errs) != 0 {
			b.Fatalf("%d flows, %d errors", len(ups), len(errs))
		}
		lines += n
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(lines), "ns/line")
}

// TestFlowParserAllocs: a FlowParser reading ordinary flows into a reused
// slice allocates nothing per line, and gives what ParseFlows gives.
func TestFlowParserAllocs(t *testing.T) {
	const n = 1000
	data := ordinaryFlows(n)
	want, errs := ofctl.ParseFlows("f", data, nil)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var fp ofctl.FlowParser
	ups, errs := fp.AppendFlows(nil, "f", data)
	if len(errs) != 0 || !slices.EqualFunc(ups, want, func(a, b rules.Update) bool {
		return a.Match == b.Match && a.ID == b.ID && a.Priority == b.Priority && ofctl.FormatActions(a.Instructions) == ofctl.FormatActions(b.Instructions)
	}) {
		t.Fatalf("FlowParser: %d flows, errors %v; want ParseFlows' %d", len(ups), errs, len(want))
	}
	allocs := testing.AllocsPerRun(10, func() {
		ups, errs = fp.AppendFlows(ups[:0], "f", data)
		if len(ups) != n || len(errs) != 0 {
			t.Fatalf("%d flows, %d errors", len(ups), len(errs))
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per %d lines, want 0", allocs, n)
	}
}

// TestARPAddresses: after arp (or dl_type=0x0806), nw_src and nw_dst are
// ARP's sender and target addresses.
func TestARPAddresses(t *testing.T) {
	for _, l := range []string{"arp,nw_src=10.0.0.1,nw_dst=10.0.0.2,actions=drop", "dl_type=0x0806,ip_src=10.0.0.1,ip_dst=10.0.0.2,actions=drop"} {
		u, err := ofctl.ParseFlow(l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		spa, _ := u.Match.Get(rules.FieldARPSPA)
		tpa, _ := u.Match.Get(rules.FieldARPTPA)
		if spa != 0x0a000001 || tpa != 0x0a000002 || u.Match.Has(rules.FieldIPv4Src) || u.Match.Has(rules.FieldIPv4Dst) {
			t.Errorf("%s: arp_spa %#x, arp_tpa %#x; ip_src tested %v", l, spa, tpa, u.Match.Has(rules.FieldIPv4Src))
		}
	}
}

// TestConnTrackRefused: Open vSwitch's connection tracking fields and
// actions are named as not supported, with file:line:column, rather than
// reported as unknown.
func TestConnTrackRefused(t *testing.T) {
	data := []byte("priority=1,ip,actions=drop\npriority=5,ct_state=+trk,ip,actions=drop\nip,ct_mark=1,actions=drop\n" +
		"ip,actions=ct(commit),output:1\nip,actions=output:1,ct_clear\n" +
		"actions=set_field:1->ct_mark\nactions=output:1,set_field:0x5->ct_label\nactions=set_field:1->ct_state\n")
	_, errs := ofctl.ParseFlows("f.flows", data, nil)
	want := []string{
		"f.flows:2:12: connection tracking (ct_state) is not supported",
		"f.flows:3:4: connection tracking (ct_mark) is not supported",
		"f.flows:4:12: connection tracking (ct) is not supported",
		"f.flows:5:21: connection tracking (ct_clear) is not supported",
		"f.flows:6:22: connection tracking (ct_mark) is not supported",
		"f.flows:7:33: connection tracking (ct_label) is not supported",
		"f.flows:8:22: connection tracking (ct_state) is not supported",
	}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want %d", errs, len(want))
	}
	for i, err := range errs {
		if !errors.Is(err, ofctl.ErrSyntax) || !strings.Contains(err.Error(), want[i]) {
			t.Errorf("error %d = %v, want %q", i, err, want[i])
		}
	}
}

// TestUnsupportedFieldsRefused: the Open vSwitch match fields ofswitch
// knows by name but does not match on (xxregN) are named as not
// supported, tun_metadataN without a TLV table as not mapped, with
// file:line:column; register numbers out of range are unknown fields, and
// register values wider than the register are refused.
func TestUnsupportedFieldsRefused(t *testing.T) {
	data := []byte("reg3=1,actions=drop\ntun_metadata0=1,actions=drop\npriority=5,tun_metadata63=0x1/0x1,actions=drop\n" +
		"tun_ipv6_src=::1,actions=drop\ntun_ipv6_dst=::2/::1:0:0,actions=drop\ntun_gbp_id=0x10000,actions=drop\ntun_gbp_flags=1/0x100,actions=drop\n" +
		"xxreg0=1,actions=drop\nxxreg3=1,actions=drop\nreg16=1,actions=drop\nxreg8=1,actions=drop\nreg01=1,actions=drop\n" +
		"tun_metadata64=1,actions=drop\nreg1=0x100000000,actions=drop\nxreg0=0x10000000000000000,actions=drop\ntun_src=10.0.0.1/33,actions=drop\n")
	_, errs := ofctl.ParseFlows("f.flows", data, nil)
	want := []string{
		"f.flows:2:1: match field tun_metadata0 is not mapped (no TLV table maps it: add-tlv-map)",
		"f.flows:3:12: match field tun_metadata63 is not mapped (no TLV table maps it: add-tlv-map)",
		"f.flows:6:12: tun_gbp_id 0x10000 does not fit in 16 bits",
		"f.flows:7:17: tun_gbp_flags mask 0x100 does not fit in 8 bits",
		"f.flows:8:1: match field xxreg0 is not supported",
		"f.flows:9:1: match field xxreg3 is not supported",
		`f.flows:10:1: unknown field "reg16"`,
		`f.flows:11:1: unknown field "xreg8"`,
		`f.flows:12:1: unknown field "reg01"`,
		`f.flows:13:1: unknown field "tun_metadata64"`,
		"f.flows:14:",
		"f.flows:15:",
		"f.flows:16:",
	}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want %d", errs, len(want))
	}
	for i, err := range errs {
		if !errors.Is(err, ofctl.ErrSyntax) || !strings.Contains(err.Error(), want[i]) {
			t.Errorf("error %d = %v, want %q", i, err, want[i])
		}
	}
}

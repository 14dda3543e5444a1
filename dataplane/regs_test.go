package dataplane

import (
	"slices"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// TestRegistersStartAtZero: every frame starts with its registers and
// tunnel fields 0, so reg0=0, xreg1=0, tun_src=0.0.0.0, tun_ipv6_src=::
// and tun_gbp_id=0 match and reg0=1, tun_gbp_id=0x1/0x1 do not, in table 0 and after a
// goto_table; a flow that tests 19 key words (IPv6 addresses, all sixteen
// registers, the tunnel addresses, besides eth_src, tunnel_id, metadata,
// nw_ttl and pkt_mark), more than an index node keeps, matches too.
func TestRegistersStartAtZero(t *testing.T) {
	flows := `table=0,priority=30,reg0=1,actions=output:3
table=0,priority=20,ip,reg0=0,reg15=0,tun_src=0.0.0.0,tun_dst=0.0.0.0/8,tun_ipv6_src=::,tun_ipv6_dst=::/16,tun_gbp_id=0,tun_gbp_flags=0/0x1,actions=goto_table:1
table=0,priority=25,ip,tun_gbp_id=0x1/0x1,actions=output:3
table=0,priority=26,ip,tun_ipv6_dst=::1/128,actions=output:3
table=0,priority=40,tcp6,ipv6_src=2001:db8::1,ipv6_dst=fe80::/64,reg0=0,reg1=0,reg2=0,reg3=0,reg4=0,reg5=0,reg6=0,reg7=0,reg8=0,reg9=0,reg10=0,reg11=0,reg12=0,reg13=0,reg14=0,reg15=0,tun_src=0.0.0.0,tun_dst=0.0.0.0,metadata=0,dl_src=02:00:00:00:00:0a,tun_id=0,pkt_mark=0,nw_ttl=9,tp_dst=443,actions=output:3
table=0,priority=35,tcp6,reg7=0x1/0x1,actions=output:1
table=0,priority=1,actions=output:1
table=1,priority=10,reg3=0x1/0x1,actions=output:3
table=1,priority=5,xreg1=0,actions=output:2
`
	for _, c := range []struct {
		name  string
		frame []byte
		ports []uint32
	}{
		{"ipv4", build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload), []uint32{2}},
		{"ipv6, 19 key words", build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolTCP), tcp(), payload), []uint32{3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _ := tagRun(t, 2, flows, c.frame)
			if got := sentPorts(out); !slices.Equal(got, c.ports) {
				t.Fatalf("sent on ports %v, want %v", got, c.ports)
			}
		})
	}
	// Headers.Key clears the words of a key that held another frame's.
	h, ok := NewParser().Parse(build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload), layers.LinkTypeEthernet, 1)
	if !ok {
		t.Fatal("parse")
	}
	var k rules.Key
	for i := range k {
		k[i] = ^uint64(0)
	}
	h.Key(&k)
	for f := rules.FieldXReg0; f <= rules.FieldTunGbpFlags; f++ {
		if f.Bits() == 128 {
			if hi, lo := k.Get128(f); hi|lo != 0 {
				t.Errorf("%s = %#x:%#x after Key, want 0", f, hi, lo)
			}
			continue
		}
		if v := k.Get(f); v != 0 {
			t.Errorf("%s = %#x after Key, want 0", f, v)
		}
	}
}

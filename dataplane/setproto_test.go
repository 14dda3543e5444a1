package dataplane

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// inetSum folds b into the one's-complement sum s.
func inetSum(s uint32, b []byte) uint32 {
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	return s
}

func fold(s uint32) uint16 {
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// TestSetEthTypeIPProto: set_field on eth_type rewrites the EtherType
// after the VLAN tags and on ip_proto the IPv4 protocol or the IPv6
// next-header field that names the transport (after extension headers),
// with the IPv4 header checksum and the transport checksum, whose
// pseudo-header holds the protocol, valid for the new protocol; later
// tables read the frame as the new values say. Open vSwitch refuses both;
// Ryu's switch tests expect them performed.
func TestSetEthTypeIPProto(t *testing.T) {
	payload := gopacket.Payload("payload")
	v4 := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload)
	v6 := build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolTCP), tcp(), payload)
	ext := func() []byte {
		ip := ipv6(layers.IPProtocolIPv6HopByHop)
		hop := &layers.IPv6HopByHop{}
		hop.NextHeader = layers.IPProtocolTCP
		hop.Options = []*layers.IPv6HopByHopOption{{OptionType: 1, OptionLength: 4, OptionData: []byte{0, 0, 0, 0}}}
		return build(t, eth(layers.EthernetTypeIPv6), ip, hop, tcp(), payload)
	}()

	t.Run("eth_type", func(t *testing.T) {
		got, _ := runFrame(t, 2, "table=0,ip,actions=set_field:0x8848->eth_type,goto_table:1\n"+
			"table=1,dl_type=0x8848,actions=output:2\ntable=1,priority=0,actions=output:3", v4)
		want := bytes.Clone(v4)
		want[12], want[13] = 0x88, 0x48
		if !bytes.Equal(got[2], want) {
			t.Errorf("port 2 got\n%x\nwant\n%x (port 3: %x)", got[2], want, got[3])
		}
	})
	for _, tt := range []struct {
		name      string
		in        []byte
		at, l4    int // offsets of the protocol byte and of the transport header
		v6        bool
		ipv4Check bool
	}{
		{"ipv4", v4, 14 + 9, 14 + 20, false, true},
		{"ipv6", v6, 14 + 6, 14 + 40, true, false},
		{"ipv6 after a hop-by-hop header", ext, 14 + 40, 14 + 48, true, false},
	} {
		t.Run("ip_proto "+tt.name, func(t *testing.T) {
			flows := "table=0,ip,actions=set_field:17->ip_proto,goto_table:1\ntable=1,udp,actions=output:2\n"
			if tt.v6 {
				flows = "table=0,ipv6,actions=set_field:17->ip_proto,goto_table:1\ntable=1,udp6,actions=output:2\n"
			}
			got, _ := runFrame(t, 2, flows+"table=1,priority=0,actions=output:3", tt.in)
			out := got[2]
			if len(out) != len(tt.in) {
				t.Fatalf("port 2 got %x (port 3: %x)", out, got[3])
			}
			if out[tt.at] != 17 {
				t.Errorf("protocol byte %d, want 17", out[tt.at])
			}
			// Only the protocol and the checksums change.
			for i := range out {
				if out[i] != tt.in[i] && i != tt.at && !(tt.ipv4Check && (i == 24 || i == 25)) && i != tt.l4+16 && i != tt.l4+17 {
					t.Errorf("byte %d changed from %#x to %#x", i, tt.in[i], out[i])
				}
			}
			if tt.ipv4Check && fold(inetSum(0, out[14:34])) != 0xffff {
				t.Error("IPv4 header checksum invalid")
			}
			seg := out[tt.l4:]
			var s uint32
			if tt.v6 {
				s = inetSum(inetSum(0, out[22:54]), []byte{0, 0, byte(len(seg) >> 8), byte(len(seg)), 0, 0, 0, 17})
			} else {
				s = inetSum(inetSum(0, out[26:34]), []byte{0, 17, byte(len(seg) >> 8), byte(len(seg))})
			}
			if fold(inetSum(s, seg)) != 0xffff {
				t.Error("transport checksum invalid under the pseudo-header of protocol 17")
			}
		})
	}
}

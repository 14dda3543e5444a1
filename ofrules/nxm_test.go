package ofrules

import (
	"bytes"
	"errors"
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func nx1(field openflow.OXMField, value, mask []byte) openflow.OXM {
	return openflow.NXM(openflow.OXMClassNXM1, field, value, mask)
}

func nx0(field openflow.OXMField, value, mask []byte) openflow.OXM {
	return openflow.NXM(openflow.OXMClassNXM0, field, value, mask)
}

// nxmFlowMod returns a FLOW_MOD with match fields and no instructions.
func nxmFlowMod(t testing.TB, fields ...openflow.OXM) []byte {
	fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version13, XID: 3}, Priority: 5,
		BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
		Match: openflow.Match{Fields: fields}}
	b, err := fm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	oxmIPv4 = openflow.EthType(0x0800)
	oxmIPv6 = openflow.EthType(0x86dd)
)

// TestNXMMatch: the Nicira fields, as ovs-ofctl sends them and as an NXM
// controller sends aliases of basic fields, translate to the match that
// ofctl reads from the text; and a match with the new fields encodes back
// to the same match, with the NXM entries Open vSwitch sends.
func TestNXMMatch(t *testing.T) {
	mac := []byte{2, 0, 0, 0, 0, 1}
	ff := []byte{0xff, 0xff, 0xff, 0, 0, 0}
	for _, c := range []struct {
		text   string
		fields []openflow.OXM
	}{
		{"ip,nw_ttl=1", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPTTL, []byte{1}, nil)}},
		{"ipv6,nw_ttl=255", []openflow.OXM{oxmIPv6, nx1(openflow.NXMNxIPTTL, []byte{255}, []byte{0xff})}},
		{"ip,nw_frag=first", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPFrag, []byte{1}, nil)}},
		{"ip,nw_frag=no", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPFrag, []byte{0}, []byte{3})}},
		{"ip,nw_frag=yes", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPFrag, []byte{1}, []byte{1})}},
		{"ip,nw_frag=not_later", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPFrag, []byte{0}, []byte{0xfe})}},
		{"pkt_mark=0x10/0xf0", []openflow.OXM{nx1(openflow.NXMNxPktMark, []byte{0, 0, 0, 0x10}, []byte{0, 0, 0, 0xf0})}},
		{"pkt_mark=0xffffffff", []openflow.OXM{nx1(openflow.NXMNxPktMark, []byte{0xff, 0xff, 0xff, 0xff}, nil)}},
		{"tun_flags=+oam", []openflow.OXM{nx1(openflow.NXMNxTunFlags, []byte{0, 1}, []byte{0, 1})}},
		{"tun_flags=-oam", []openflow.OXM{nx1(openflow.NXMNxTunFlags, []byte{0, 0}, nil)}},
		// packet_type=(0,0), Ethernet, which ovs-ofctl sends for a match
		// whose only bits no OXM carries (vlan_tci=0x2000/0xe000).
		{"ip", []openflow.OXM{openflow.NewOXM(openflow.FieldPacketType, []byte{0, 0, 0, 0}, nil), oxmIPv4}},
		// Aliases of basic fields, decoded only.
		{"dl_vlan=5", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0x10, 0x05}, []byte{0x1f, 0xff})}},
		{"vlan_tci=0xf123", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0xf1, 0x23}, nil)}},
		{"vlan_tci=0x0000", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0, 0}, nil)}},
		{"vlan_tci=0x1000/0x1000", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0x10, 0}, []byte{0x10, 0})}},
		{"dl_vlan_pcp=3", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0x70, 0}, []byte{0xf0, 0})}},
		{"tun_id=0x1234/0xffff", []openflow.OXM{nx1(openflow.NXMNxTunID, []byte{0, 0, 0, 0, 0, 0, 0x12, 0x34}, []byte{0, 0, 0, 0, 0, 0, 0xff, 0xff})}},
		{"arp,arp_sha=02:00:00:00:00:01,arp_tha=02:00:00:00:00:00/ff:ff:ff:00:00:00", []openflow.OXM{nx0(openflow.NXMOfEthType, []byte{8, 6}, nil),
			nx1(openflow.NXMNxARPSHA, mac, nil), nx1(openflow.NXMNxARPTHA, []byte{2, 0, 0, 0, 0, 0}, ff)}},
		{"icmp6,icmp_type=135,nd_target=2001:db8::1,nd_sll=02:00:00:00:00:01", []openflow.OXM{oxmIPv6, openflow.IPProto(58),
			nx1(openflow.NXMNxICMPv6Type, []byte{135}, nil), nx1(openflow.NXMNxNDTarget, []byte{0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, nil),
			nx1(openflow.NXMNxNDSLL, mac, nil)}},
		// NXM prerequisites of basic OXMs.
		{"tcp,nw_dst=10.1.2.3,tp_src=22", []openflow.OXM{nx0(openflow.NXMOfEthType, []byte{8, 0}, nil), nx0(openflow.NXMOfIPProto, []byte{6}, nil),
			openflow.IPv4Dst(netip.MustParsePrefix("10.1.2.3/32")), openflow.TCPSrc(22)}},
		{"in_port=65533,dl_dst=02:00:00:00:00:01,tcp,nw_src=10.0.0.0/8,nw_tos=32,tp_dst=80", []openflow.OXM{nx0(openflow.NXMOfInPort, []byte{0xff, 0xfd}, nil),
			nx0(openflow.NXMOfEthDst, mac, nil), nx0(openflow.NXMOfEthType, []byte{8, 0}, nil), nx0(openflow.NXMOfIPProto, []byte{6}, nil),
			nx0(openflow.NXMOfIPSrc, []byte{10, 0, 0, 0}, []byte{255, 0, 0, 0}), nx0(openflow.NXMOfIPTos, []byte{32}, nil),
			nx0(openflow.NXMOfTCPDst, []byte{0, 80}, nil)}},
	} {
		t.Run(c.text, func(t *testing.T) {
			want, err := ofctl.ParseFlow("priority=5," + c.text + ",actions=drop")
			if err != nil {
				t.Fatal(err)
			}
			if c.text == "in_port=65533,dl_dst=02:00:00:00:00:01,tcp,nw_src=10.0.0.0/8,nw_tos=32,tp_dst=80" {
				// NXM_OF_IN_PORT's 0xfffd is OFPP_CONTROLLER, 0xfffffffd.
				want.Match.SetExact(rules.FieldInPort, 0xfffffffd)
			}
			var got rules.Update
			if err := NewDecoder(&Options{Tables: 4}).Decode(&got, nxmFlowMod(t, c.fields...)); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got.Match != want.Match {
				t.Fatalf("decoded %s, want %s", ofctl.FormatMatch(&got.Match, 5), ofctl.FormatMatch(&want.Match, 5))
			}
			wm := WireMatch(&got.Match)
			var back rules.Match
			if err := Match(&back, &wm, nil); err != nil || back != got.Match {
				t.Fatalf("re-encoded %v: %s, %v", wm.Fields, ofctl.FormatMatch(&back, 5), err)
			}
		})
	}
}

// TestNXMEncoding: replies carry the four Nicira-only fields as Open
// vSwitch encodes them (bytes from the golden FLOW_MOD that ovs-ofctl
// sent, which nx_put_raw also builds replies with).
func TestNXMEncoding(t *testing.T) {
	u, err := ofctl.ParseFlow("priority=10000,ip,nw_ttl=1,ip_frag=first,pkt_mark=0x10/0xf0,tun_flags=+oam,actions=drop")
	if err != nil {
		t.Fatal(err)
	}
	wm := WireMatch(&u.Match)
	var got []byte
	for i := range wm.Fields {
		if wm.Fields[i].IsNXM() {
			got, _ = wm.Fields[i].AppendBinary(got)
		}
	}
	golden := readHexFile(t, filepath.Join("testdata", "golden", "flow_mod_nxm_ttl_frag_mark.hex"))
	for _, want := range [][]byte{
		{0x00, 0x01, 0x34, 0x01, 0x01},
		{0x00, 0x01, 0x3a, 0x01, 0x01},
		{0x00, 0x01, 0xd1, 0x04, 0x00, 0x01, 0x00, 0x01},
		{0x00, 0x01, 0x43, 0x08, 0, 0, 0, 0x10, 0, 0, 0, 0xf0},
	} {
		if !bytes.Contains(golden, want) {
			t.Fatalf("golden lacks %x", want)
		}
		if !bytes.Contains(got, want) {
			t.Errorf("encoded NXM entries %x lack %x", got, want)
		}
	}
	if len(got) != 5+5+8+12 {
		t.Errorf("encoded NXM entries %x: %d bytes, want 30", got, len(got))
	}
}

// TestNXMRefusals: the errors of Open vSwitch's nx_pull_match_entry and
// nx_pull_raw for Nicira fields.
func TestNXMRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields []openflow.OXM
		want   openflow.BadMatchCode
	}{
		{"nw_ttl without ip", []openflow.OXM{nx1(openflow.NXMNxIPTTL, []byte{1}, nil)}, openflow.BadMatchBadPrereq},
		{"ip_frag under arp", []openflow.OXM{openflow.EthType(0x0806), nx1(openflow.NXMNxIPFrag, []byte{1}, nil)}, openflow.BadMatchBadPrereq},
		{"nw_ttl partial mask", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPTTL, []byte{1}, []byte{0x0f})}, openflow.BadMatchBadMask},
		{"nw_ttl two bytes", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPTTL, []byte{0, 1}, nil)}, openflow.BadMatchBadLen},
		{"ip_frag 4", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPFrag, []byte{4}, nil)}, openflow.BadMatchBadValue},
		{"pkt_mark value outside mask", []openflow.OXM{nx1(openflow.NXMNxPktMark, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 2})}, openflow.BadMatchBadWildcards},
		{"tun_flags 2", []openflow.OXM{nx1(openflow.NXMNxTunFlags, []byte{0, 2}, nil)}, openflow.BadMatchBadValue},
		{"ip_tos with ECN bits", []openflow.OXM{oxmIPv4, nx0(openflow.NXMOfIPTos, []byte{33}, nil)}, openflow.BadMatchBadValue},
		{"tun_id twice", []openflow.OXM{openflow.NewOXM(openflow.FieldTunnelID, make([]byte, 8), nil), nx1(openflow.NXMNxTunID, make([]byte, 8), nil)}, openflow.BadMatchDupField},
		{"tun_id twice, NXM first", []openflow.OXM{nx1(openflow.NXMNxTunID, make([]byte, 8), nil), openflow.NewOXM(openflow.FieldTunnelID, make([]byte, 8), nil)}, openflow.BadMatchDupField},
		{"nw_ttl twice", []openflow.OXM{oxmIPv4, nx1(openflow.NXMNxIPTTL, []byte{1}, nil), nx1(openflow.NXMNxIPTTL, []byte{2}, nil)}, openflow.BadMatchDupField},
		{"vlan_tci partial priority mask", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0x50, 0}, []byte{0x50, 0})}, openflow.BadMatchBadMask},
		{"vlan_tci priority without a tag", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0x20, 0}, []byte{0xe0, 0})}, openflow.BadMatchBadValue},
		{"vlan_tci and vlan_pcp", []openflow.OXM{nx0(openflow.NXMOfVLANTCI, []byte{0x10, 5}, []byte{0x1f, 0xff}), openflow.NewOXM(openflow.FieldVLANPCP, []byte{3}, nil)}, openflow.BadMatchDupField},
		{"packet_type (1,0x800)", []openflow.OXM{openflow.NewOXM(openflow.FieldPacketType, []byte{0, 1, 8, 0}, nil)}, openflow.BadMatchBadValue},
		{"unknown NXM", []openflow.OXM{nx1(35, make([]byte, 4), nil)}, openflow.BadMatchBadField},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The full checks; a Decoder leaves the prerequisites to the
			// pipeline, which answers the same.
			var out rules.Match
			err := Match(&out, &openflow.Match{Fields: c.fields}, nil)
			var em openflow.ErrorMsg
			if !errors.As(WireError(err), &em) || em.Type != openflow.ErrTypeBadMatch || em.Code != uint16(c.want) {
				t.Fatalf("err = %v, want OFPET_BAD_MATCH code %d", err, c.want)
			}
		})
	}
}

// FuzzNXMMatch decodes a FLOW_MOD (seeded with ones carrying Nicira
// fields); one that is accepted must encode back to a FLOW_MOD that
// decodes to the same match.
func FuzzNXMMatch(f *testing.F) {
	f.Add(readHexFile(f, filepath.Join("testdata", "golden", "flow_mod_nxm_ttl_frag_mark.hex")))
	f.Add(nxmFlowMod(f, oxmIPv6, nx1(openflow.NXMNxIPTTL, []byte{7}, nil), nx1(openflow.NXMNxIPFrag, []byte{2}, []byte{2})))
	f.Add(nxmFlowMod(f, nx0(openflow.NXMOfEthType, []byte{8, 0}, nil), nx0(openflow.NXMOfIPSrc, []byte{10, 1, 0, 0}, []byte{255, 255, 0, 0}),
		nx1(openflow.NXMNxTunFlags, []byte{0, 1}, nil), nx1(openflow.NXMNxPktMark, []byte{1, 2, 3, 4}, nil)))
	// Registers, by halves and by pairs, and the tunnel addresses.
	f.Add(nxmFlowMod(f, nx1(openflow.NXMNxReg0+3, []byte{0, 0, 0, 5}, []byte{0, 0, 0, 0xff}), nx1(openflow.NXMNxReg0, []byte{0, 0, 0, 0}, nil),
		pktReg(4, []byte{0, 0, 0, 0, 0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0, 0, 1}), nx1(openflow.NXMNxReg0+15, []byte{1, 2, 3, 4}, nil)))
	f.Add(nxmFlowMod(f, oxmIPv6, openflow.IPProto(6), pktReg(7, []byte{1, 2, 3, 4, 5, 6, 7, 8}, nil),
		nx1(openflow.NXMNxTunIPv4Src, []byte{10, 0, 0, 0}, []byte{255, 0, 0, 0}), nx1(openflow.NXMNxTunIPv4Dst, []byte{10, 0, 0, 9}, nil)))
	f.Add(readHexFile(f, filepath.Join("testdata", "golden", "flow_mod_nxm_regs.hex")))
	f.Add(readHexFile(f, filepath.Join("testdata", "golden", "flow_mod_nxm_tun.hex")))
	// The IPv6 tunnel addresses and the VXLAN group policy fields.
	f.Add(nxmFlowMod(f, nx1(openflow.NXMNxTunIPv6Src, []byte{0x20, 1, 0xd, 0xb8, 15: 1}, nil),
		nx1(openflow.NXMNxTunIPv6Dst, []byte{0x20, 1, 0xd, 0xb8, 15: 0}, []byte{0xff, 0xff, 0xff, 0xff, 15: 0}),
		nx1(openflow.NXMNxTunGbpID, []byte{0, 0x10}, []byte{0, 0xff}), nx1(openflow.NXMNxTunGbpFlags, []byte{0x81}, nil)))
	// Tunnel metadata fields of fuzzTLV's table: split, across words,
	// shorter and longer than mapped, masked.
	f.Add(nxmFlowMod(f, nx1(40+1, []byte{1, 2, 3, 4, 5, 6, 7, 8}, nil), nx1(40+2, []byte{9}, []byte{0x0f}),
		nx1(40+63, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, nil)))
	tlv := fuzzTLV(f)
	opt := &Options{Tables: 4, TLV: tlv}
	f.Fuzz(func(t *testing.T, msg []byte) {
		var u rules.Update
		// A Decoder leaves the prerequisites to the pipeline: only a
		// match the pipeline takes need encode to one it takes again.
		if NewDecoder(opt).Decode(&u, msg) != nil || u.Command != rules.CmdAdd || u.Match.Validate() != nil {
			return
		}
		wm := WireMatchTLV(&u.Match, tlv.Load())
		b, err := nxmFlowModMatch(wm)
		if err != nil {
			t.Fatalf("encode %v: %v", wm.Fields, err)
		}
		var again rules.Update
		if err := NewDecoder(opt).Decode(&again, b); err != nil {
			t.Fatalf("re-encoded %x: %v", b, err)
		}
		if again.Match != u.Match {
			t.Fatalf("re-decoded %s, want %s", ofctl.FormatMatch(&again.Match, 0), ofctl.FormatMatch(&u.Match, 0))
		}
	})
}

func nxmFlowModMatch(m openflow.Match) ([]byte, error) {
	fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version13, XID: 3}, Priority: 5,
		BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, Match: m}
	return fm.MarshalBinary()
}

// TestNXMSetField: set_field of NXM_NX_IP_TTL, NXM_NX_PKT_MARK,
// NXM_NX_TUN_FLAGS, the tunnel addresses (IPv4 and IPv6) and the group
// policy fields becomes set_field of the rules fields and goes back out
// as the same actions, byte for byte; the refusals are Open vSwitch's
// decode_ofpat_set_field's (checked against it in controller's
// TestRefusalsAsOVS).
func TestNXMSetField(t *testing.T) {
	in := []openflow.Action{
		openflow.SetField(nx1(openflow.NXMNxIPTTL, []byte{64}, nil)),
		openflow.SetField(nx1(openflow.NXMNxPktMark, []byte{0xde, 0xad, 0xbe, 0xef}, nil)),
		openflow.SetField(nx1(openflow.NXMNxTunFlags, []byte{0, 1}, nil)),
		openflow.SetField(nx1(openflow.NXMNxTunIPv4Src, []byte{10, 0, 0, 1}, nil)),
		openflow.SetField(nx1(openflow.NXMNxTunIPv4Dst, []byte{10, 0, 0, 2}, nil)),
		openflow.SetField(nx1(openflow.NXMNxTunIPv6Src, []byte{0x20, 1, 0xd, 0xb8, 15: 1}, nil)),
		openflow.SetField(nx1(openflow.NXMNxTunIPv6Dst, []byte{0xfe, 0x80, 15: 9}, nil)),
		openflow.SetField(nx1(openflow.NXMNxTunGbpID, []byte{1, 0x2c}, nil)),
		openflow.SetField(nx1(openflow.NXMNxTunGbpFlags, []byte{0x81}, nil)),
		openflow.Output(1, 0),
	}
	acts, err := Actions(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []rules.Action{
		{Kind: rules.ActionSetField, Field: rules.FieldNwTTL, Value: [2]uint64{0, 64}},
		{Kind: rules.ActionSetField, Field: rules.FieldPktMark, Value: [2]uint64{0, 0xdeadbeef}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunFlags, Value: [2]uint64{0, 1}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunSrc, Value: [2]uint64{0, 0x0a000001}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunDst, Value: [2]uint64{0, 0x0a000002}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunIPv6Src, Value: [2]uint64{0x20010db800000000, 1}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunIPv6Dst, Value: [2]uint64{0xfe80000000000000, 9}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunGbpID, Value: [2]uint64{0, 300}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunGbpFlags, Value: [2]uint64{0, 0x81}},
	}
	for i, w := range want {
		if acts[i].Kind != w.Kind || acts[i].Field != w.Field || acts[i].Value != w.Value {
			t.Errorf("action %d = %+v, want %+v", i, acts[i], w)
		}
	}
	enc := func(as []openflow.Action) []byte {
		t.Helper()
		var b []byte
		for i := range as {
			var err error
			if b, err = as[i].AppendBinary(b); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	var m rules.Match
	m.Set(rules.FieldEthType, rules.EthTypeIPv4, 0xffff)
	if got, w := enc(actionsToWire(acts, &m, nil)), enc(in); !bytes.Equal(got, w) {
		t.Errorf("written back as\n%x\nwant\n%x", got, w)
	}
	for _, c := range []struct {
		name string
		o    openflow.OXM
		typ  openflow.ErrorType
		code uint16
	}{
		{"nw_ttl two bytes", nx1(openflow.NXMNxIPTTL, []byte{0, 64}, nil), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadSetLen)},
		{"pkt_mark masked", nx1(openflow.NXMNxPktMark, []byte{0, 0, 0, 5}, []byte{0, 0, 0, 0xf}), openflow.ErrTypeExperimenter, onfBadSetMask},
		{"NXM_OF_ETH_DST", nx0(openflow.NXMOfEthDst, make([]byte, 6), nil), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadSetType)},
		{"tun_ipv6_src 4 bytes", nx1(openflow.NXMNxTunIPv6Src, make([]byte, 4), nil), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadSetLen)},
		{"tun_gbp_id masked", nx1(openflow.NXMNxTunGbpID, []byte{0, 5}, []byte{0, 0xf}), openflow.ErrTypeExperimenter, onfBadSetMask},
		{"tun_ipv6_dst masked", nx1(openflow.NXMNxTunIPv6Dst, make([]byte, 16), make([]byte, 16)), openflow.ErrTypeExperimenter, onfBadSetMask},
		{"unknown NXM", nx1(35, make([]byte, 4), nil), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadSetType)},
	} {
		_, err := Actions([]openflow.Action{openflow.SetField(c.o)})
		var em openflow.ErrorMsg
		if !errors.As(err, &em) || em.Type != c.typ || em.Code != c.code {
			t.Errorf("%s: %v, want type %d code %d", c.name, err, c.typ, c.code)
		}
	}
	// ip_frag is translated, and refused by rules.CheckActions with Open
	// vSwitch's code, as set_field of in_port is.
	ins := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionSetField, Field: rules.FieldIPFrag, Value: [2]uint64{0, 1}}}}}
	var re *rules.Error
	if err := rules.CheckActions(&m, ins); !errors.As(err, &re) || re.Code != rules.BadActionBadSetArg {
		t.Errorf("CheckActions of set_field ip_frag: %v, want OFPBAC_BAD_SET_ARGUMENT", err)
	}
}

// fuzzTLV returns a TLV table that maps tun_metadata1 (8 bytes) over two
// runs of the option space, tun_metadata2 (4) and tun_metadata63 (20,
// across words).
func fuzzTLV(tb testing.TB) *TLVTables {
	var ts TLVTables
	for _, m := range []openflow.TLVTableMod{
		{Command: openflow.TLVAdd, Maps: []openflow.TLVMap{{OptionType: 0, OptionLen: 4, Index: 0}, {OptionType: 2, OptionLen: 4, Index: 2},
			{OptionType: 3, OptionLen: 4, Index: 3}, {OptionType: 63, OptionLen: 20, Index: 63}}},
		{Command: openflow.TLVDelete, Maps: []openflow.TLVMap{{Index: 0}, {Index: 3}}},
		{Command: openflow.TLVAdd, Maps: []openflow.TLVMap{{OptionType: 1, OptionLen: 8, Index: 1}}},
	} {
		if err := ts.Mod(&m, nil); err != nil {
			tb.Fatal(err)
		}
	}
	if f, _ := ts.Load().Mapping(1); f.NChunks != 2 {
		tb.Fatalf("tun_metadata1 in %d pieces", f.NChunks)
	}
	return &ts
}

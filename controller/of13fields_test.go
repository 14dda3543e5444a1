package controller

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// refusal is a FLOW_MOD that a switch may refuse, and what it must answer.
type refusal struct {
	name   string
	match  []openflow.OXM
	acts   []openflow.Action
	write  bool   // the actions go in a write-actions instruction
	want   string // the OFPT_ERROR ("OFPET_X/OFPXXX_Y"), or "" for accepted
	ovsOff bool   // Open vSwitch answers otherwise, by design (see the case)
}

func oxmU(f openflow.OXMField, v uint64) openflow.OXM {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return openflow.NewOXM(f, b[8-f.Size():], nil)
}

func oxmUMask(f openflow.OXMField, v, m uint64) openflow.OXM {
	b := make([]byte, 16)
	binary.BigEndian.PutUint64(b, v)
	binary.BigEndian.PutUint64(b[8:], m)
	return openflow.NewOXM(f, b[8-f.Size():8], b[16-f.Size():])
}

func oxmBytes(f openflow.OXMField, b ...byte) openflow.OXM { return openflow.NewOXM(f, b, nil) }

var (
	mIPv4   = oxmU(openflow.FieldEthType, 0x0800)
	mIPv6   = oxmU(openflow.FieldEthType, 0x86dd)
	mICMPv6 = oxmU(openflow.FieldIPProto, 58)
	mVLAN   = oxmU(openflow.FieldVLANVID, 0x1005)
	ndAddr  = []byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	setTTL  = openflow.Action{Type: openflow.ActionSetNWTTL, TTL: 7}
	decTTL  = openflow.Action{Type: openflow.ActionDecNWTTL}
)

func set(o openflow.OXM) openflow.Action { return openflow.SetField(o) }

// nxm returns the NXM_NX field f (class 0x0001) with value b, unmasked.
func nxm(f openflow.OXMField, b ...byte) openflow.OXM {
	return openflow.NXM(openflow.OXMClassNXM1, f, b, nil)
}

// refusals are the FLOW_MODs whose answer ofswitch and Open vSwitch
// must agree on: the set_field actions a switch cannot perform
// (OpenFlow 1.3.5 §7.2.5), set_field of a field whose prerequisites the
// match lacks, values out of a field's range in matches and set_field,
// and the new fields and actions that both accept.
var refusals = []refusal{
	// Fields a switch cannot write.
	// ofswitch writes eth_type and ip_proto (the frame is then read as they
	// say); Open vSwitch refuses them with OFPBAC_BAD_SET_ARGUMENT.
	{name: "set eth_type", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{set(oxmU(openflow.FieldEthType, 0x86dd))}, want: "", ovsOff: true},
	{name: "set ip_proto", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{set(oxmU(openflow.FieldIPProto, 17))}, want: "", ovsOff: true},
	{name: "set in_port", acts: []openflow.Action{set(oxmU(openflow.FieldInPort, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	// Open vSwitch writes metadata with set_field, as write_metadata does.
	{name: "set metadata", acts: []openflow.Action{set(oxmU(openflow.FieldMetadata, 1))}},
	// Open vSwitch knows no ipv6_exthdr and answers OFPBAC_BAD_SET_LEN.
	{name: "set ipv6_exthdr", match: []openflow.OXM{mIPv6}, acts: []openflow.Action{set(oxmU(openflow.FieldIPv6ExtHdr, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_TYPE", ovsOff: true},
	// set_field without the field's prerequisites in the match.
	{name: "set ipv4_src no eth_type", acts: []openflow.Action{set(oxmU(openflow.FieldIPv4Src, 0x0a000001))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "set ipv6_flabel on IPv4", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{set(oxmU(openflow.FieldIPv6FLabel, 5))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "set nd_target no icmpv6_type", match: []openflow.OXM{mIPv6, mICMPv6}, acts: []openflow.Action{set(oxmBytes(openflow.FieldIPv6NDTarget, ndAddr...))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "set nd_sll on NA", match: []openflow.OXM{mIPv6, mICMPv6, oxmU(openflow.FieldICMPv6Type, 136)}, acts: []openflow.Action{set(oxmU(openflow.FieldIPv6NDSLL, 0x0a0b0c0d0e0f))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "set vlan_vid untagged", acts: []openflow.Action{set(oxmU(openflow.FieldVLANVID, 0x1005))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "set tcp_src on udp", match: []openflow.OXM{mIPv4, oxmU(openflow.FieldIPProto, 17)}, acts: []openflow.Action{set(oxmU(openflow.FieldTCPSrc, 5))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "write set ipv4_dst no eth_type", write: true, acts: []openflow.Action{set(oxmU(openflow.FieldIPv4Dst, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "push_vlan then set vlan_vid", acts: []openflow.Action{{Type: openflow.ActionPushVLAN, EtherType: 0x8100}, set(oxmU(openflow.FieldVLANVID, 0x1005))}},
	{name: "pop_vlan then set vlan_pcp", match: []openflow.OXM{mVLAN}, acts: []openflow.Action{{Type: openflow.ActionPopVLAN}, set(oxmU(openflow.FieldVLANPCP, 3))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	// set_field values out of range.
	{name: "set vlan_vid 0x2005", match: []openflow.OXM{mVLAN}, acts: []openflow.Action{set(oxmU(openflow.FieldVLANVID, 0x2005))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set vlan_pcp 8", match: []openflow.OXM{mVLAN}, acts: []openflow.Action{set(oxmU(openflow.FieldVLANPCP, 8))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set ip_dscp 64", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{set(oxmU(openflow.FieldIPDSCP, 64))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set ip_ecn 4", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{set(oxmU(openflow.FieldIPECN, 4))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set ipv6_flabel 0x100000", match: []openflow.OXM{mIPv6}, acts: []openflow.Action{set(oxmU(openflow.FieldIPv6FLabel, 0x100000))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	// Match values out of range.
	{name: "match ip_dscp 64", match: []openflow.OXM{mIPv4, oxmU(openflow.FieldIPDSCP, 64)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
	{name: "match ip_ecn 4", match: []openflow.OXM{mIPv4, oxmU(openflow.FieldIPECN, 4)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
	{name: "match vlan_vid 0x2005", match: []openflow.OXM{oxmU(openflow.FieldVLANVID, 0x2005)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
	{name: "match vlan_pcp 8", match: []openflow.OXM{mVLAN, oxmU(openflow.FieldVLANPCP, 8)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
	// Port 0 is no port, but Open vSwitch takes the match (it matches nothing).
	{name: "match in_port 0", match: []openflow.OXM{oxmU(openflow.FieldInPort, 0)}},
	{name: "match ipv6_flabel 0x100000", match: []openflow.OXM{mIPv6, oxmU(openflow.FieldIPv6FLabel, 0x100000)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
	// What both accept.
	{name: "match ipv6_flabel masked", match: []openflow.OXM{mIPv6, oxmUMask(openflow.FieldIPv6FLabel, 0x12300, 0xfff00)}},
	{name: "match nd_target nd_sll", match: []openflow.OXM{mIPv6, mICMPv6, oxmU(openflow.FieldICMPv6Type, 135), oxmBytes(openflow.FieldIPv6NDTarget, ndAddr...), oxmU(openflow.FieldIPv6NDSLL, 0x0a0b0c0d0e0f)}},
	{name: "match nd_tll", match: []openflow.OXM{mIPv6, mICMPv6, oxmU(openflow.FieldICMPv6Type, 136), oxmU(openflow.FieldIPv6NDTLL, 0x0a0b0c0d0e0f)}},
	{name: "match nd_tll on NS", match: []openflow.OXM{mIPv6, mICMPv6, oxmU(openflow.FieldICMPv6Type, 135), oxmU(openflow.FieldIPv6NDTLL, 0x0a0b0c0d0e0f)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ"},
	{name: "match tunnel_id masked", match: []openflow.OXM{oxmUMask(openflow.FieldTunnelID, 0x500, 0xff00)}},
	{name: "set tunnel_id", acts: []openflow.Action{set(oxmU(openflow.FieldTunnelID, 0x1234))}},
	{name: "set ipv6_flabel", match: []openflow.OXM{mIPv6}, acts: []openflow.Action{set(oxmU(openflow.FieldIPv6FLabel, 0x12345))}},
	{name: "set nd_target nd_sll", match: []openflow.OXM{mIPv6, mICMPv6, oxmU(openflow.FieldICMPv6Type, 135)}, acts: []openflow.Action{set(oxmBytes(openflow.FieldIPv6NDTarget, ndAddr...)), set(oxmU(openflow.FieldIPv6NDSLL, 0x0a0b0c0d0e0f))}},
	{name: "set nd_tll", match: []openflow.OXM{mIPv6, mICMPv6, oxmU(openflow.FieldICMPv6Type, 136)}, acts: []openflow.Action{set(oxmU(openflow.FieldIPv6NDTLL, 0x0a0b0c0d0e0f))}},
	{name: "set_nw_ttl ipv4", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{setTTL}},
	{name: "set_nw_ttl ipv6", match: []openflow.OXM{mIPv6}, acts: []openflow.Action{setTTL}},
	{name: "set_nw_ttl no eth_type", acts: []openflow.Action{setTTL}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "dec_nw_ttl ipv6", match: []openflow.OXM{mIPv6}, acts: []openflow.Action{decTTL}},
	{name: "dec_nw_ttl no eth_type", acts: []openflow.Action{decTTL}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	// set_field of the Nicira fields that have no basic OXM, as ovs-ofctl
	// sends them (an OXM of class NXM_NX): nw_ttl needs IPv4 or IPv6,
	// tun_flags takes only its oam bit; ip_frag and the connection
	// tracking fields are not writable.
	{name: "set nx nw_ttl ipv4", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{set(nxm(openflow.NXMNxIPTTL, 9))}},
	{name: "set nx nw_ttl ipv6", match: []openflow.OXM{mIPv6}, acts: []openflow.Action{set(nxm(openflow.NXMNxIPTTL, 9))}},
	{name: "set nx nw_ttl no eth_type", acts: []openflow.Action{set(nxm(openflow.NXMNxIPTTL, 9))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "write set nx nw_ttl arp", write: true, match: []openflow.OXM{oxmU(openflow.FieldEthType, 0x0806)}, acts: []openflow.Action{set(nxm(openflow.NXMNxIPTTL, 9))}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "set nx pkt_mark", acts: []openflow.Action{set(nxm(openflow.NXMNxPktMark, 0, 0, 0, 5))}},
	{name: "write set nx pkt_mark", write: true, acts: []openflow.Action{set(nxm(openflow.NXMNxPktMark, 0xff, 0xff, 0xff, 0xff))}},
	{name: "set nx pkt_mark short", acts: []openflow.Action{set(nxm(openflow.NXMNxPktMark, 0, 5))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	// A mask: OFPBAC_BAD_SET_MASK, as the ONF experimenter error 4250.
	{name: "set nx pkt_mark masked", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM1, openflow.NXMNxPktMark, []byte{0, 0, 0, 5}, []byte{0, 0, 0, 0xff}))}, want: "OFPET_EXPERIMENTER/4250"},
	// The tunnel fields, metadata here: set_field of each, unmasked.
	{name: "set nx tun_src", acts: []openflow.Action{set(nxm(openflow.NXMNxTunIPv4Src, 10, 0, 0, 1))}},
	{name: "write set nx tun_dst", write: true, acts: []openflow.Action{set(nxm(openflow.NXMNxTunIPv4Dst, 10, 0, 0, 2))}},
	{name: "set nx tun_ipv6_src", acts: []openflow.Action{set(nxm(openflow.NXMNxTunIPv6Src, 0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))}},
	{name: "write set nx tun_ipv6_dst", write: true, acts: []openflow.Action{set(nxm(openflow.NXMNxTunIPv6Dst, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))}},
	{name: "set nx tun_ipv6_src short", acts: []openflow.Action{set(nxm(openflow.NXMNxTunIPv6Src, 10, 0, 0, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "set nx tun_ipv6_dst masked", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM1, openflow.NXMNxTunIPv6Dst, make([]byte, 16), make([]byte, 16)))}, want: "OFPET_EXPERIMENTER/4250"},
	{name: "set nx tun_gbp_id", acts: []openflow.Action{set(nxm(openflow.NXMNxTunGbpID, 1, 0x2c))}},
	{name: "set nx tun_gbp_id short", acts: []openflow.Action{set(nxm(openflow.NXMNxTunGbpID, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "set nx tun_gbp_id masked", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM1, openflow.NXMNxTunGbpID, []byte{0, 5}, []byte{0, 0xf}))}, want: "OFPET_EXPERIMENTER/4250"},
	{name: "set nx tun_gbp_flags", acts: []openflow.Action{set(nxm(openflow.NXMNxTunGbpFlags, 0x81))}},
	{name: "write set nx tun_gbp_flags", write: true, acts: []openflow.Action{set(nxm(openflow.NXMNxTunGbpFlags, 0))}},
	{name: "set nx tun_gbp_flags long", acts: []openflow.Action{set(nxm(openflow.NXMNxTunGbpFlags, 0, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	// Open vSwitch also takes the Nicira aliases of basic OXMs in
	// set_field, which ovs-ofctl never sends there; ofswitch does not.
	{name: "set nx eth_dst", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM0, openflow.NXMOfEthDst, []byte{2, 0, 0, 0, 0, 1}, nil))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_TYPE", ovsOff: true},
	{name: "set nx tun_flags oam", acts: []openflow.Action{set(nxm(openflow.NXMNxTunFlags, 0, 1))}},
	{name: "set nx tun_flags 0", acts: []openflow.Action{set(nxm(openflow.NXMNxTunFlags, 0, 0))}},
	{name: "set nx tun_flags 2", acts: []openflow.Action{set(nxm(openflow.NXMNxTunFlags, 0, 2))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set nx ip_frag", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{set(nxm(openflow.NXMNxIPFrag, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set nx ct_mark", acts: []openflow.Action{set(nxm(107, 0, 0, 0, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set nx ct_label", acts: []openflow.Action{set(nxm(108, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set nx ct_state", acts: []openflow.Action{set(nxm(105, 0, 0, 0, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "set nx ct_zone", acts: []openflow.Action{set(nxm(106, 0, 1))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	// Nicira extension actions (vendor 0x2320): lengths, subtypes and
	// must-be-zero fields as Open vSwitch checks them. It checks no pad
	// but dec_ttl(ids)'s zeros.
	{name: "nx note", acts: []openflow.Action{nx(0, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)}},
	{name: "nx exit", acts: []openflow.Action{nx(0, 17, 0, 0, 0, 0, 0, 0)}},
	{name: "nx exit pad not zero", acts: []openflow.Action{nx(0, 17, 1, 2, 3, 4, 5, 6)}},
	{name: "nx exit len 24", acts: []openflow.Action{nx(0, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_LEN"},
	{name: "nx controller", acts: []openflow.Action{nx(0, 20, 0, 64, 0, 3, 0, 0)}},
	{name: "nx controller zero not zero", acts: []openflow.Action{nx(0, 20, 0, 64, 0, 0, 2, 9)}},
	{name: "nx controller len 24", acts: []openflow.Action{nx(0, 20, 0, 64, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_LEN"},
	{name: "nx set_tunnel", acts: []openflow.Action{nx(0, 2, 0, 0, 0, 0, 0, 5)}},
	{name: "nx set_tunnel64", acts: []openflow.Action{nx(0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 5)}},
	{name: "nx set_tunnel64 len 16", acts: []openflow.Action{nx(0, 9, 0, 0, 0, 0, 0, 5)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_LEN"},
	{name: "nx dec_ttl ids", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{nx(0, 21, 0, 2, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0)}},
	{name: "nx dec_ttl ids no eth_type", acts: []openflow.Action{nx(0, 21, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "nx dec_ttl ids zeros", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{nx(0, 21, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0)}, want: "OFPET_EXPERIMENTER/4"},
	{name: "nx dec_ttl ids short", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{nx(0, 21, 0, 5, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_LEN"},
	// load (NXAST_REG_LOAD: ofs_nbits, NXM header, value), move
	// (NXAST_REG_MOVE: n_bits, src_ofs, dst_ofs, src, dst), output:field
	// (NXAST_OUTPUT_REG: ofs_nbits, src, max_len, zeros; _REG2: ofs_nbits,
	// max_len, src, pad), NXAST_REG_LOAD2 (an OXM entry, padded).
	{name: "nx load pkt_mark", acts: []openflow.Action{nx(0, 7, 0, 0x1f, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 5)}},
	{name: "nx load pkt_mark beyond", acts: []openflow.Action{nx(0, 7, 0x04, 0x1f, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 5)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx load offset beyond", acts: []openflow.Action{nx(0, 7, 0x08, 0x00, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx load value wider than n_bits", acts: []openflow.Action{nx(0, 7, 0, 7, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 1, 0xff)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_ARGUMENT"},
	{name: "nx load ip_frag", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{nx(0, 7, 0, 1, 0, 1, 0x34, 1, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "nx load eth_type", acts: []openflow.Action{nx(0, 7, 0, 15, 0, 0, 6, 2, 0, 0, 0, 0, 0, 0, 8, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	// Open vSwitch writes in_port with a load (it accepts this); ofswitch
	// does not change a frame's in_port.
	{name: "nx load in_port", acts: []openflow.Action{nx(0, 7, 0, 15, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT", ovsOff: true},
	{name: "nx load ip_dst without ip", acts: []openflow.Action{nx(0, 7, 0, 31, 0, 0, 0x10, 4, 0, 0, 0, 0, 1, 2, 3, 4)}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "nx load ip_dst", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{nx(0, 7, 0, 31, 0, 0, 0x10, 4, 0, 0, 0, 0, 1, 2, 3, 4)}},
	{name: "nx load tcp_dst under udp", match: []openflow.OXM{mIPv4, oxmU(openflow.FieldIPProto, 17)}, acts: []openflow.Action{nx(0, 7, 0, 15, 0, 0, 0x14, 2, 0, 0, 0, 0, 0, 0, 0, 80)}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "nx load unknown field", acts: []openflow.Action{nx(0, 7, 0, 15, 0, 1, 0xfe, 2, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_TYPE"},
	{name: "nx load len 16", acts: []openflow.Action{nx(0, 7, 0, 15, 0, 1, 0x42, 4)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_LEN"},
	{name: "nx move eth_src eth_dst", acts: []openflow.Action{nx(0, 6, 0, 48, 0, 0, 0, 0, 0, 0, 4, 6, 0, 0, 2, 6)}},
	{name: "nx move beyond", acts: []openflow.Action{nx(0, 6, 0, 48, 0, 8, 0, 0, 0, 0, 4, 6, 0, 0, 2, 6)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx move into eth_type", acts: []openflow.Action{nx(0, 6, 0, 16, 0, 0, 0, 0, 0, 0, 4, 6, 0, 0, 6, 2)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "nx move ip_src without ip", acts: []openflow.Action{nx(0, 6, 0, 32, 0, 0, 0, 0, 0, 0, 0x0e, 4, 0, 1, 0x42, 4)}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "nx move ip_src", match: []openflow.OXM{mIPv4}, acts: []openflow.Action{nx(0, 6, 0, 32, 0, 0, 0, 0, 0, 0, 0x0e, 4, 0, 1, 0x42, 4)}},
	{name: "nx move padding not zero", acts: []openflow.Action{nx(0, 6, 0, 48, 0, 0, 0, 0, 0, 0, 4, 6, 0, 0, 2, 6, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_EXPERIMENTER/4"},
	{name: "nx move unknown field", acts: []openflow.Action{nx(0, 6, 0, 16, 0, 0, 0, 0, 0, 1, 0xfe, 2, 0, 0, 2, 6)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_FIELD"},
	{name: "nx output_reg pkt_mark", acts: []openflow.Action{nx(0, 15, 0, 15, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 0)}},
	{name: "nx output_reg zeros not zero", acts: []openflow.Action{nx(0, 15, 0, 15, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_ARGUMENT"},
	{name: "nx output_reg beyond", acts: []openflow.Action{nx(0, 15, 0x07, 0xcf, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx output_reg tcp_src without tcp", acts: []openflow.Action{nx(0, 15, 0, 15, 0, 0, 0x12, 2, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{name: "nx write output_reg", write: true, acts: []openflow.Action{nx(0, 15, 0, 15, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_TYPE"},
	{name: "nx output_reg2 pkt_mark", acts: []openflow.Action{nx(0, 32, 0, 15, 0, 0, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 0)}},
	{name: "nx output_reg2 pad not zero", acts: []openflow.Action{nx(0, 32, 0, 15, 0, 0, 0, 1, 0x42, 4, 0, 0, 0, 0, 0, 1)}, want: "OFPET_EXPERIMENTER/4"},
	{name: "nx load2 pkt_mark masked", acts: []openflow.Action{nx(0, 33, 0, 1, 0x43, 8, 0, 0, 0, 5, 0, 0, 0, 0xff, 0, 0)}},
	{name: "nx load2 pkt_mark", acts: []openflow.Action{nx(0, 33, 0, 1, 0x42, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0)}},
	{name: "nx load2 value outside mask", acts: []openflow.Action{nx(0, 33, 0, 1, 0x43, 8, 0, 0, 1, 5, 0, 0, 0, 0xff, 0, 0)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_WILDCARDS"},
	{name: "nx load2 pad not zero", acts: []openflow.Action{nx(0, 33, 0, 1, 0x42, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "nx load2 eth_type", acts: []openflow.Action{nx(0, 33, 0, 0, 6, 2, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{name: "nx load2 short payload", acts: []openflow.Action{nx(0, 33, 0, 1, 0x42, 2, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	// The registers NXM_NX_REG0-15 (class 1, fields 0-15, 32 bits).
	{name: "nx load reg0", acts: []openflow.Action{nx(0, 7, 0, 0x1f, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5)}},
	{name: "nx load reg3[4..7]", acts: []openflow.Action{nx(0, 7, 0x01, 0x03, 0, 1, 6, 4, 0, 0, 0, 0, 0, 0, 0, 1)}},
	{name: "nx load reg0 beyond 32 bits", acts: []openflow.Action{nx(0, 7, 0x07, 0x83, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx load reg1 bit 32", acts: []openflow.Action{nx(0, 7, 0x08, 0x00, 0, 1, 2, 4, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx load reg15 ones", acts: []openflow.Action{nx(0, 7, 0, 0x1f, 0, 1, 0x1e, 4, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)}},
	{name: "nx move reg0 reg1", acts: []openflow.Action{nx(0, 6, 0, 32, 0, 0, 0, 0, 0, 1, 0, 4, 0, 1, 2, 4)}},
	{name: "nx move reg0 into reg1 beyond", acts: []openflow.Action{nx(0, 6, 0, 32, 0, 0, 0, 8, 0, 1, 0, 4, 0, 1, 2, 4)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx move reg2 beyond into reg3", acts: []openflow.Action{nx(0, 6, 0, 16, 0, 20, 0, 0, 0, 1, 4, 4, 0, 1, 6, 4)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx output_reg reg0", acts: []openflow.Action{nx(0, 15, 0, 15, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0)}},
	{name: "nx output_reg reg0 beyond", acts: []openflow.Action{nx(0, 15, 0x05, 0x0f, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx load2 reg1 masked", acts: []openflow.Action{nx(0, 33, 0, 1, 0x03, 8, 0, 0, 0, 5, 0, 0, 0, 0xff, 0, 0)}},
	{name: "nx load2 reg1 short", acts: []openflow.Action{nx(0, 33, 0, 1, 0x02, 2, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "set nx reg3", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM1, openflow.NXMNxReg0+3, []byte{0, 0, 0, 7}, nil))}},
	{name: "set nx reg3 masked", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM1, openflow.NXMNxReg0+3, []byte{0, 0, 0, 7}, []byte{0, 0, 0, 0xff}))}, want: "OFPET_EXPERIMENTER/4250"},
	{name: "set nx reg3 short", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM1, openflow.NXMNxReg0+3, []byte{0, 7}, nil))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	// The tunnel fields load and move take: tun_src, tun_dst (32 bits),
	// tun_gbp_id (16), tun_gbp_flags (8).
	{name: "nx load tun_gbp_id", acts: []openflow.Action{nx(0, 7, 0, 0x0f, 0, 1, 0x4c, 2, 0, 0, 0, 0, 0, 0, 0, 5)}},
	{name: "nx load tun_gbp_id beyond 16 bits", acts: []openflow.Action{nx(0, 7, 0x02, 0x0f, 0, 1, 0x4c, 2, 0, 0, 0, 0, 0, 0, 0, 5)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx load tun_src", acts: []openflow.Action{nx(0, 7, 0, 0x1f, 0, 1, 0x3e, 4, 0, 0, 0, 0, 10, 0, 0, 1)}},
	{name: "nx load2 tun_gbp_flags masked", acts: []openflow.Action{nx(0, 33, 0, 1, 0x4f, 2, 1, 3)}},
	{name: "nx load2 tun_gbp_flags value outside mask", acts: []openflow.Action{nx(0, 33, 0, 1, 0x4f, 2, 5, 3)}, want: "OFPET_BAD_MATCH/OFPBMC_BAD_WILDCARDS"},
	{name: "nx move tun_gbp_id reg0", acts: []openflow.Action{nx(0, 6, 0, 16, 0, 0, 0, 0, 0, 1, 0x4c, 2, 0, 1, 0, 4)}},
	{name: "nx move tun_gbp_flags into tun_gbp_id beyond", acts: []openflow.Action{nx(0, 6, 0, 8, 0, 0, 0, 12, 0, 1, 0x4e, 1, 0, 1, 0x4c, 2)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx write move tun_dst tun_src", write: true, acts: []openflow.Action{nx(0, 6, 0, 32, 0, 0, 0, 0, 0, 1, 0x40, 4, 0, 1, 0x3e, 4)}},
	{name: "nx output_reg tun_gbp_id", acts: []openflow.Action{nx(0, 15, 0, 15, 0, 1, 0x4c, 2, 0, 0, 0, 0, 0, 0, 0, 0)}},
	// OXM_OF_PKT_REG0-7 (class 0x8001, 64 bits).
	{name: "nx load xreg1", acts: []openflow.Action{nx(0, 7, 0, 0x3f, 0x80, 1, 2, 8, 0, 0, 0, 1, 0, 0, 0, 5)}},
	{name: "nx load xreg1 beyond 64 bits", acts: []openflow.Action{nx(0, 7, 0x0f, 0x07, 0x80, 1, 2, 8, 0, 0, 0, 0, 0, 0, 0, 1)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx move xreg1 xreg2", acts: []openflow.Action{nx(0, 6, 0, 64, 0, 0, 0, 0, 0x80, 1, 2, 8, 0x80, 1, 4, 8)}},
	{name: "set xreg1", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassPacketRegs, 1, []byte{0, 0, 0, 1, 0, 0, 0, 2}, nil))}},
	{name: "set xreg1 short", acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassPacketRegs, 1, []byte{0, 0, 0, 1}, nil))}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_SET_LEN"},
	{name: "nx write load reg0", write: true, acts: []openflow.Action{nx(0, 7, 0, 0x1f, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5)}},
	{name: "write set nx reg3", write: true, acts: []openflow.Action{set(openflow.NXM(openflow.OXMClassNXM1, openflow.NXMNxReg0+3, []byte{0, 0, 0, 7}, nil))}},
	{name: "nx unknown subtype", acts: []openflow.Action{nx(0, 0xfe, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_EXP_TYPE"},
	{name: "nx write note", write: true, acts: []openflow.Action{nx(0, 8, 1, 2, 3, 4, 5, 6)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_TYPE"},
	{name: "nx write exit", write: true, acts: []openflow.Action{nx(0, 17, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_TYPE"},
	{name: "nx write controller", write: true, acts: []openflow.Action{nx(0, 20, 0, 64, 0, 3, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_TYPE"},
	{name: "nx write dec_ttl ids", write: true, match: []openflow.OXM{mIPv6}, acts: []openflow.Action{nx(0, 21, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)}},
	{name: "other vendor", acts: []openflow.Action{{Type: openflow.ActionExperimenter, Experimenter: 0x1234, Data: []byte{0, 1, 0, 0, 0, 0, 0, 0}}}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_EXPERIMENTER"},
	{name: "nx resubmit", acts: []openflow.Action{nx(0, 1, 0, 1, 0, 0, 0, 0)}},
	{name: "nx resubmit ignores its pad", acts: []openflow.Action{nx(0, 1, 0, 1, 9, 1, 2, 3)}},
	{name: "nx resubmit_table", acts: []openflow.Action{nx(0, 14, 0xff, 0xf8, 200, 0, 0, 0)}},
	{name: "nx resubmit_table pad", acts: []openflow.Action{nx(0, 14, 0, 1, 1, 0, 1, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_ARGUMENT"},
	{name: "nx resubmit long", acts: []openflow.Action{nx(0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)}, want: "OFPET_BAD_ACTION/OFPBAC_BAD_LEN"},
	{name: "nx write resubmit", write: true, acts: []openflow.Action{nx(0, 14, 0xff, 0xf8, 1, 0, 0, 0)}},
}

// nx returns a Nicira experimenter action whose bytes from the subtype on
// are b.
func nx(b ...byte) openflow.Action {
	return openflow.Action{Type: openflow.ActionExperimenter, Experimenter: 0x2320, Data: b}
}

// flowModAnswer sends one FLOW_MOD and a barrier on c and returns the
// OFPT_ERROR the switch answered with ("" if none).
func flowModAnswer(t *testing.T, c net.Conn, r *openflow.Reader, xid uint32, rf *refusal) string {
	t.Helper()
	fm := openflow.FlowMod{Header: hdr(openflow.TypeFlowMod, xid), Priority: 100, BufferID: 0xffffffff,
		OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, Match: openflow.Match{Fields: rf.match}}
	if rf.acts != nil {
		in := openflow.ApplyActions(rf.acts...)
		if rf.write {
			in.Type = openflow.InstructionWriteActions
		}
		fm.Instructions = []openflow.Instruction{in}
	}
	b, err := fm.AppendBinary(nil)
	if err != nil {
		t.Fatalf("%s: %v", rf.name, err)
	}
	return answerOf(t, c, r, xid, b)
}

// answerOf sends msg, whose xid is xid, and a barrier (xid+1) on c and
// returns the OFPT_ERROR the switch answered msg with ("" if none) once
// the barrier reply arrives.
func answerOf(t *testing.T, c net.Conn, r *openflow.Reader, xid uint32, msg []byte) string {
	t.Helper()
	bar := openflow.NewBarrierRequest(xid + 1)
	b, err := bar.AppendBinary(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	answer := ""
	for {
		m, err := r.Next()
		if err != nil {
			t.Fatalf("xid %d: waiting for the barrier reply: %v", xid, err)
		}
		switch openflow.Type(m[1]) {
		case openflow.TypeError:
			var em openflow.ErrorMsg
			if err := em.UnmarshalBinary(m); err != nil {
				t.Fatal(err)
			}
			if em.XID == xid {
				answer = strings.TrimPrefix(em.Error(), "openflow: ")
			}
		case openflow.TypeBarrierReply:
			return answer
		}
	}
}

// dialOF13 connects to addr with dial and exchanges OpenFlow 1.3 HELLOs.
func dialOF13(t *testing.T, dial func() (net.Conn, error)) (net.Conn, *openflow.Reader) {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	h := openflow.NewHello(1, openflow.Version13)
	b, _ := h.AppendBinary(nil)
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	r := openflow.NewReader(c, 0)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if msg, err := r.Next(); err != nil || openflow.Type(msg[1]) != openflow.TypeHello {
		t.Fatalf("hello: %v", err)
	}
	return c, r
}

// TestRefusalsAsOVS sends each FLOW_MOD of refusals to ofswitch and, where
// Open vSwitch runs, to Open vSwitch: both must answer the expected
// OFPT_ERROR (or accept).
func TestRefusalsAsOVS(t *testing.T) {
	_, addr := startAgent(t, &Config{Tables: 4})
	ours, ourR := dialOF13(t, func() (net.Conn, error) { return net.Dial("tcp", addr) })
	var theirs net.Conn
	var theirR *openflow.Reader
	if err := ovstest.Available(testutil.RepoRoot(t)); err == nil || testutil.InCI() {
		ovs := ovstest.Start(t)
		theirs, theirR = dialOF13(t, func() (net.Conn, error) { return ovs.Dial(fmt.Sprintf("127.0.0.1:%d", ovstest.Port)) })
	} else {
		t.Logf("ofswitch only: %v", err)
	}
	for i := range refusals {
		rf := &refusals[i]
		xid := uint32(100 + 2*i)
		got := flowModAnswer(t, ours, ourR, xid, rf)
		if got != rf.want {
			t.Errorf("%s: ofswitch answers %q, want %q", rf.name, got, rf.want)
		}
		if theirs == nil || rf.ovsOff {
			continue
		}
		if o := flowModAnswer(t, theirs, theirR, xid, rf); o != rf.want {
			t.Errorf("%s: Open vSwitch answers %q, want %q", rf.name, o, rf.want)
		}
	}
}

// TestTableFeaturesFields: TABLE_FEATURES lists the fields the tables
// match on, the fields set_field writes (not in_port or ipv6_exthdr, which
// it refuses) and set_nw_ttl among the actions.
func TestTableFeaturesFields(t *testing.T) {
	var a Agent
	a.cfg.Tables = 1
	tf := a.tableFeatures()[0]
	has := func(typ openflow.TableFeaturePropType, f openflow.OXMField) bool {
		for _, p := range tf.Properties {
			if p.Type == typ {
				for _, id := range p.OXMIDs {
					if id == oxmID(f, false) || id == oxmID(f, true) {
						return true
					}
				}
			}
		}
		return false
	}
	for _, f := range []openflow.OXMField{openflow.FieldIPv6FLabel, openflow.FieldIPv6NDTarget, openflow.FieldIPv6NDSLL,
		openflow.FieldIPv6NDTLL, openflow.FieldTunnelID, openflow.FieldIPv6ExtHdr, openflow.FieldEthType} {
		if !has(openflow.TFPMatch, f) {
			t.Errorf("%v not matched", f)
		}
		settable := f != openflow.FieldIPv6ExtHdr
		if has(openflow.TFPApplySetField, f) != settable || has(openflow.TFPWriteSetFieldMiss, f) != settable {
			t.Errorf("%v: set_field listed %v, want %v", f, has(openflow.TFPApplySetField, f), settable)
		}
	}
	found := false
	for _, p := range tf.Properties {
		if p.Type == openflow.TFPApplyActions {
			for _, id := range p.IDs {
				found = found || id.Type == uint16(openflow.ActionSetNWTTL)
			}
		}
	}
	if !found {
		t.Error("set_nw_ttl not among the apply actions")
	}
}

// TestPacketInTunnelID: a packet-in carries tunnel_id, like metadata, as
// an OXM of its match when not zero (OpenFlow 1.3.5 §7.4.1: context
// fields the frame cannot tell), and ovs-ofctl reads it.
func TestPacketInTunnelID(t *testing.T) {
	a, addr := startAgent(t, nil)
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	waitConns(t, a, 1)
	for _, p := range []PacketIn{
		{InPort: 7, TunnelID: 0x1234},
		{InPort: 7, Metadata: 0xabc, TunnelID: 0x1234},
	} {
		p.Reason, p.MaxLen, p.Frame = openflow.PacketInAction, openflow.ControllerMaxLenNoBuffer, testFrame(80)
		a.PacketIn(&p)
		raw := c.recv(openflow.TypePacketIn)
		var pin openflow.PacketIn
		if err := pin.UnmarshalBinary(raw); err != nil {
			t.Fatal(err)
		}
		want := []openflow.OXM{openflow.NewOXM(openflow.FieldInPort, []byte{0, 0, 0, 7}, nil)}
		if p.Metadata != 0 {
			want = append(want, openflow.NewOXM(openflow.FieldMetadata, []byte{0, 0, 0, 0, 0, 0, 0x0a, 0xbc}, nil))
		}
		want = append(want, openflow.NewOXM(openflow.FieldTunnelID, []byte{0, 0, 0, 0, 0, 0, 0x12, 0x34}, nil))
		if diff := cmp.Diff(want, pin.Match.Fields); diff != "" || !bytes.Equal(pin.Data, testFrame(80)) {
			t.Errorf("match (-want +got):\n%s", diff)
		}
		if ofctl, err := exec.LookPath("ovs-ofctl"); err == nil {
			out, err := exec.Command(ofctl, "ofp-print", hex.EncodeToString(raw)).CombinedOutput()
			if s := string(out); err != nil || !strings.Contains(s, "tun_id=0x1234") {
				t.Errorf("ovs-ofctl ofp-print: %v\n%s", err, s)
			}
		}
	}
}

// ipv4Frame is an Ethernet frame of an IPv4 UDP datagram (checksums not
// computed: no switch here checks them).
func ipv4Frame() []byte {
	f := []byte{
		0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00, // Ethernet
		0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, // IPv4
		0, 53, 0, 53, 0, 8, 0, 0, // UDP
	}
	return append(f, make([]byte, 64-len(f))...)
}

// packetOutAnswer sends one PACKET_OUT of ipv4Frame from the controller
// and a barrier, and returns the OFPT_ERROR the switch answered ("" if
// none).
func packetOutAnswer(t *testing.T, c net.Conn, r *openflow.Reader, xid uint32, acts []openflow.Action) string {
	t.Helper()
	po := openflow.PacketOut{Header: hdr(openflow.TypePacketOut, xid), BufferID: openflow.NoBuffer,
		InPort: openflow.PortController, Actions: acts, Data: ipv4Frame()}
	b, err := po.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return answerOf(t, c, r, xid, b)
}

// packetOutRefusals are PACKET_OUT actions on ipv4Frame and what Open
// vSwitch 3.1 answers: it checks them against the packet's own fields, as
// a flow's actions against its match. dataplane's TestPacketOutChecks
// holds ofswitch's data plane to the same answers.
var packetOutRefusals = []struct {
	act  openflow.Action
	want string
}{
	{set(oxmU(openflow.FieldEthType, 0x86dd)), "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{set(oxmU(openflow.FieldIPProto, 6)), "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{set(oxmU(openflow.FieldVLANPCP, 8)), "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{set(oxmU(openflow.FieldIPDSCP, 64)), "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
	{set(oxmU(openflow.FieldIPv6FLabel, 5)), "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{set(oxmU(openflow.FieldARPSPA, 5)), "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{set(oxmU(openflow.FieldVLANVID, 0x1005)), "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
	{setTTL, ""},
	{set(oxmU(openflow.FieldTunnelID, 5)), ""},
	{set(oxmU(openflow.FieldIPv4Src, 5)), ""},
}

// TestPacketOutRefusalsAsOVS: Open vSwitch answers packetOutRefusals as
// listed.
func TestPacketOutRefusalsAsOVS(t *testing.T) {
	ovs := ovstest.Start(t)
	theirs, theirR := dialOF13(t, func() (net.Conn, error) { return ovs.Dial(fmt.Sprintf("127.0.0.1:%d", ovstest.Port)) })
	for i, c := range packetOutRefusals {
		if got := packetOutAnswer(t, theirs, theirR, uint32(10+2*i), []openflow.Action{c.act}); got != c.want {
			t.Errorf("%v: Open vSwitch answers %q, want %q", c.act.String(), got, c.want)
		}
	}
}

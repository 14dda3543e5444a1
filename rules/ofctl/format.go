package ofctl

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// FormatMatch returns the match and priority the way ovs-ofctl dump-flows
// prints them: "priority=N," (omitted for the default priority), a protocol
// shorthand, then the fields in Open vSwitch's order, joined by commas.
// The tunnel metadata option space is left out: FormatMatchTLV prints it.
func FormatMatch(m *rules.Match, priority uint16) string { return FormatMatchTLV(m, priority, nil) }

// FormatMatchTLV is FormatMatch with the fields tun_metadata0-63 that
// layout places in the option space, printed as Open vSwitch's
// tun_metadata_match_format does: the mapped length's bytes in hex
// without leading zeros, "/mask" unless the mask is all ones, a field
// whose mask is all zeros left out.
func FormatMatchTLV(m *rules.Match, priority uint16, layout rules.TunMetadataLayout) string {
	var parts []string
	if priority != DefaultPriority {
		parts = append(parts, fmt.Sprintf("priority=%d", priority))
	}
	if v, mk := m.Get(rules.FieldPktMark); mk != 0 {
		// Open vSwitch prints pkt_mark before the protocol shorthand.
		parts = append(parts, "pkt_mark="+hexMasked(v, mk, rules.FieldPktMark.FullMask()))
	}
	eth, ethMask := m.Get(rules.FieldEthType)
	proto, protoMask := m.Get(rules.FieldIPProto)
	skipType, skipProto := false, false
	if ethMask == 0xffff {
		var sh string
		switch eth {
		case rules.EthTypeIPv4:
			sh = "ip"
			if protoMask == 0xff {
				switch proto {
				case rules.IPProtoICMP:
					sh, skipProto = "icmp", true
				case rules.IPProtoTCP:
					sh, skipProto = "tcp", true
				case rules.IPProtoUDP:
					sh, skipProto = "udp", true
				case rules.IPProtoSCTP:
					sh, skipProto = "sctp", true
				}
			}
		case rules.EthTypeIPv6:
			sh = "ipv6"
			if protoMask == 0xff {
				switch proto {
				case rules.IPProtoICMPv6:
					sh, skipProto = "icmp6", true
				case rules.IPProtoTCP:
					sh, skipProto = "tcp6", true
				case rules.IPProtoUDP:
					sh, skipProto = "udp6", true
				case rules.IPProtoSCTP:
					sh, skipProto = "sctp6", true
				}
			}
		case rules.EthTypeARP:
			sh = "arp"
		case rules.EthTypeMPLS:
			sh = "mpls"
		case rules.EthTypeMPLSMulticast:
			sh = "mplsm"
		}
		if sh != "" {
			parts = append(parts, sh)
			skipType = true
		}
	}
	for n := range rules.NumRegs {
		// Registers by halves, as Open vSwitch prints an xreg too.
		if v, mk := m.Reg(n); mk != 0 {
			parts = append(parts, fmt.Sprintf("reg%d=%s", n, hexMasked(uint64(v), uint64(mk), 0xffffffff)))
		}
	}
	if v, mk := m.Get(rules.FieldTunnelID); mk != 0 {
		parts = append(parts, "tun_id="+hexMasked(v, mk, ^uint64(0)))
	}
	if v, mk := m.Get(rules.FieldTunSrc); mk != 0 {
		parts = append(parts, "tun_src="+ipv4Masked(v, mk))
	}
	if v, mk := m.Get(rules.FieldTunDst); mk != 0 {
		parts = append(parts, "tun_dst="+ipv4Masked(v, mk))
	}
	for _, f := range [...]rules.Field{rules.FieldTunIPv6Src, rules.FieldTunIPv6Dst} {
		if mhi, mlo := m.Mask.Get128(f); mhi|mlo != 0 {
			parts = append(parts, f.String()+"="+ipv6Masked(m, f))
		}
	}
	if v, mk := m.Get(rules.FieldTunGbpID); mk != 0 {
		// format_be16_masked: decimal when exact, else hex value/mask.
		if mk == 0xffff {
			parts = append(parts, fmt.Sprintf("tun_gbp_id=%d", v))
		} else {
			parts = append(parts, fmt.Sprintf("tun_gbp_id=%#x/%#x", v, mk))
		}
	}
	if v, mk := m.Get(rules.FieldTunGbpFlags); mk != 0 {
		// Open vSwitch's format_flow_tunnel prints the value alone,
		// %#x, whatever the mask.
		parts = append(parts, "tun_gbp_flags="+cHex(v))
	}
	if v, mk := m.Get(rules.FieldTunFlags); mk != 0 {
		// format_flags_masked: the one matchable flag under a mask that
		// is not all of Open vSwitch's tunnel flags.
		if v != 0 {
			parts = append(parts, "tun_flags=+oam")
		} else {
			parts = append(parts, "tun_flags=-oam")
		}
	}
	parts = appendTunMetadata(parts, m, layout)
	if v, mk := m.Get(rules.FieldMetadata); mk != 0 {
		parts = append(parts, "metadata="+hexMasked(v, mk, ^uint64(0)))
	}
	if v, mk := m.Get(rules.FieldInPort); mk != 0 {
		parts = append(parts, "in_port="+portString(uint32(v)))
	}
	vid, vidMask := m.Get(rules.FieldVLANVID)
	pcp, pcpMask := m.Get(rules.FieldVLANPCP)
	if vidMask != 0 || pcpMask != 0 {
		tci, tciMask := pcp<<13|vid, pcpMask<<13|vidMask
		vm, cfi := vidMask&0xfff, vidMask&rules.VIDPresent
		if cfi != 0 && vid&rules.VIDPresent != 0 && (vm == 0 || vm == 0xfff) && (vm != 0 || pcpMask != 0) {
			if vm != 0 {
				parts = append(parts, fmt.Sprintf("dl_vlan=%d", vid&0xfff))
			}
			if pcpMask != 0 {
				parts = append(parts, fmt.Sprintf("dl_vlan_pcp=%d", pcp))
			}
		} else if tciMask == 0xffff {
			parts = append(parts, fmt.Sprintf("vlan_tci=0x%04x", tci))
		} else {
			parts = append(parts, fmt.Sprintf("vlan_tci=0x%04x/0x%04x", tci, tciMask))
		}
	}
	if v, mk := m.Get(rules.FieldEthSrc); mk != 0 {
		parts = append(parts, "dl_src="+macMasked(v, mk))
	}
	if v, mk := m.Get(rules.FieldEthDst); mk != 0 {
		parts = append(parts, "dl_dst="+macMasked(v, mk))
	}
	if ethMask != 0 && !skipType {
		parts = append(parts, fmt.Sprintf("dl_type=0x%04x", eth))
	}
	isARP := ethMask == 0xffff && eth == rules.EthTypeARP
	parts = appendTagFields(parts, m)
	if m.Has(rules.FieldIPv6Src) {
		parts = append(parts, "ipv6_src="+ipv6Masked(m, rules.FieldIPv6Src))
	}
	if m.Has(rules.FieldIPv6Dst) {
		parts = append(parts, "ipv6_dst="+ipv6Masked(m, rules.FieldIPv6Dst))
	}
	if v, mk := m.Get(rules.FieldIPv6FLabel); mk != 0 {
		if mk == rules.FieldIPv6FLabel.FullMask() {
			parts = append(parts, fmt.Sprintf("ipv6_label=0x%05x", v))
		} else {
			parts = append(parts, fmt.Sprintf("ipv6_label=0x%05x/0x%05x", v, mk))
		}
	}
	if v, mk := m.Get(rules.FieldIPv6Exthdr); mk != 0 {
		parts = append(parts, "ipv6_exthdr="+hexMasked(v, mk, rules.FieldIPv6Exthdr.FullMask()))
	}
	if v, mk := m.Get(rules.FieldIPv4Src); mk != 0 {
		parts = append(parts, "nw_src="+ipv4Masked(v, mk))
	}
	if v, mk := m.Get(rules.FieldIPv4Dst); mk != 0 {
		parts = append(parts, "nw_dst="+ipv4Masked(v, mk))
	}
	if v, mk := m.Get(rules.FieldARPSPA); mk != 0 {
		parts = append(parts, "arp_spa="+ipv4Masked(v, mk))
	}
	if v, mk := m.Get(rules.FieldARPTPA); mk != 0 {
		parts = append(parts, "arp_tpa="+ipv4Masked(v, mk))
	}
	if isARP {
		if v, mk := m.Get(rules.FieldARPOp); mk != 0 {
			parts = append(parts, fmt.Sprintf("arp_op=%d", v))
		}
	} else if protoMask != 0 && !skipProto {
		parts = append(parts, fmt.Sprintf("nw_proto=%d", proto))
	}
	if !isARP {
		if v, mk := m.Get(rules.FieldARPOp); mk != 0 {
			parts = append(parts, fmt.Sprintf("arp_op=%d", v))
		}
	}
	// Under eth_type 0x86dd, arp_sha and arp_tha hold nd_sll and nd_tll,
	// which Open vSwitch prints after the ICMP fields.
	isIPv6 := ethMask == 0xffff && eth == rules.EthTypeIPv6
	if !isIPv6 {
		if v, mk := m.Get(rules.FieldARPSHA); mk != 0 {
			parts = append(parts, "arp_sha="+macMasked(v, mk))
		}
		if v, mk := m.Get(rules.FieldARPTHA); mk != 0 {
			parts = append(parts, "arp_tha="+macMasked(v, mk))
		}
	}
	if v, mk := m.Get(rules.FieldIPDSCP); mk != 0 {
		parts = append(parts, fmt.Sprintf("nw_tos=%d", v<<2))
	}
	if v, mk := m.Get(rules.FieldIPECN); mk != 0 {
		parts = append(parts, fmt.Sprintf("nw_ecn=%d", v))
	}
	if v, mk := m.Get(rules.FieldNwTTL); mk != 0 {
		parts = append(parts, fmt.Sprintf("nw_ttl=%d", v))
	}
	if v, mk := m.Get(rules.FieldIPFrag); mk != 0 {
		parts = append(parts, "nw_frag="+fragString(v, mk))
	}
	if v, mk := m.Get(rules.FieldICMPType); mk != 0 {
		parts = append(parts, fmt.Sprintf("icmp_type=%d", v))
	}
	if v, mk := m.Get(rules.FieldICMPCode); mk != 0 {
		parts = append(parts, fmt.Sprintf("icmp_code=%d", v))
	}
	if m.Has(rules.FieldNDTarget) {
		parts = append(parts, "nd_target="+ipv6Masked(m, rules.FieldNDTarget))
	}
	if isIPv6 {
		if v, mk := m.Get(rules.FieldARPSHA); mk != 0 {
			parts = append(parts, "nd_sll="+macMasked(v, mk))
		}
		if v, mk := m.Get(rules.FieldARPTHA); mk != 0 {
			parts = append(parts, "nd_tll="+macMasked(v, mk))
		}
	}
	if v, mk := m.Get(rules.FieldL4Src); mk != 0 {
		parts = append(parts, "tp_src="+portMasked(v, mk))
	}
	if v, mk := m.Get(rules.FieldL4Dst); mk != 0 {
		parts = append(parts, "tp_dst="+portMasked(v, mk))
	}
	if v, mk := m.Get(rules.FieldTCPFlags); mk != 0 {
		parts = append(parts, "tcp_flags="+tcpFlagsMasked(v, mk))
	}
	return strings.Join(parts, ",")
}

// tcpFlagsMasked writes TCP flags as Open vSwitch does: an exact value as
// the names of its flags joined by '|' (0 for none), a masked one as +name
// or -name for each flag of the mask, lowest first.
func tcpFlagsMasked(v, mk uint64) string {
	var b strings.Builder
	if mk == rules.FieldTCPFlags.FullMask() {
		if v == 0 {
			return "0"
		}
		for i, n := range tcpFlagNames {
			if v&(1<<i) != 0 {
				if b.Len() > 0 {
					b.WriteByte('|')
				}
				b.WriteString(n)
			}
		}
		return b.String()
	}
	for i, n := range tcpFlagNames {
		if mk&(1<<i) == 0 {
			continue
		}
		if v&(1<<i) != 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		b.WriteString(n)
	}
	return b.String()
}

func hexMasked(v, mk, full uint64) string {
	if mk == full {
		return cHex(v)
	}
	return cHex(v) + "/" + cHex(mk)
}

// cHex writes v as C's printf("%#x") does, which Open vSwitch uses: 0x
// before the digits, except for 0.
func cHex(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}

func portMasked(v, mk uint64) string {
	if mk == 0xffff {
		return strconv.FormatUint(v, 10)
	}
	return fmt.Sprintf("%#x/%#x", v, mk)
}

func macString(v uint64) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func macMasked(v, mk uint64) string {
	if mk == 1<<48-1 {
		return macString(v)
	}
	return macString(v) + "/" + macString(mk)
}

func ipv4String(v uint64) string {
	return fmt.Sprintf("%d.%d.%d.%d", byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func ipv4Masked(v, mk uint64) string {
	if mk == 0xffffffff {
		return ipv4String(v)
	}
	for n := 0; n <= 32; n++ {
		if rules.FieldIPv4Src.PrefixMask(n) == mk {
			return fmt.Sprintf("%s/%d", ipv4String(v), n)
		}
	}
	return ipv4String(v) + "/" + ipv4String(mk)
}

func ipv6Addr(hi, lo uint64) netip.Addr {
	var b [16]byte
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	return netip.AddrFrom16(b)
}

func ipv6Masked(m *rules.Match, f rules.Field) string {
	hi, lo := m.Key.Get128(f)
	mhi, mlo := m.Mask.Get128(f)
	a := ipv6Addr(hi, lo).String()
	if mhi == ^uint64(0) && mlo == ^uint64(0) {
		return a
	}
	for n := 0; n <= 128; n++ {
		var t rules.Match
		t.SetPrefix128(f, 0, 0, n)
		if thi, tlo := t.Mask.Get128(f); thi == mhi && tlo == mlo {
			return fmt.Sprintf("%s/%d", a, n)
		}
	}
	return a + "/" + ipv6Addr(mhi, mlo).String()
}

func portString(p uint32) string {
	for name, v := range map[string]uint32{"IN_PORT": rules.PortInPort, "TABLE": rules.PortTable, "NORMAL": rules.PortNormal,
		"FLOOD": rules.PortFlood, "ALL": rules.PortAll, "CONTROLLER": rules.PortController, "LOCAL": rules.PortLocal, "ANY": rules.PortAny} {
		if v == p {
			return name
		}
	}
	return strconv.FormatUint(uint64(p), 10)
}

// FlowStats are the counters dump-flows prints for a flow.
type FlowStats struct {
	Duration time.Duration
	Packets  uint64
	Bytes    uint64
}

// FormatFlow returns one line as ovs-ofctl -O OpenFlow13 dump-flows prints
// it for a flow in table, with its leading space:
//
//	cookie=0x0, duration=1.234s, table=0, n_packets=0, n_bytes=0, priority=5,ip actions=drop
func FormatFlow(table uint8, m *rules.Match, priority uint16, cookie uint64, idle, hard uint16, flags rules.FlowFlags, ins []rules.Instruction, st FlowStats) string {
	return FormatFlowTLV(table, m, priority, cookie, idle, hard, flags, ins, st, nil)
}

// FormatFlowTLV is FormatFlow with the switch's TLV table layout: the
// match's tun_metadata fields (FormatMatchTLV) and the actions that set,
// load, move or output them print by the field's name, as Open vSwitch's
// dump-flows prints them (a set_field of the mapped length, mask left out
// when every byte is written; NXM_NX_TUN_METADATAn[a..b]).
func FormatFlowTLV(table uint8, m *rules.Match, priority uint16, cookie uint64, idle, hard uint16, flags rules.FlowFlags, ins []rules.Instruction, st FlowStats, layout rules.TunMetadataLayout) string {
	var b strings.Builder
	fmt.Fprintf(&b, " cookie=%#x, duration=%.3fs, table=%d, n_packets=%d, n_bytes=%d, ", cookie, st.Duration.Seconds(), table, st.Packets, st.Bytes)
	if cookie == 0 {
		b.Reset()
		fmt.Fprintf(&b, " cookie=0x0, duration=%.3fs, table=%d, n_packets=%d, n_bytes=%d, ", st.Duration.Seconds(), table, st.Packets, st.Bytes)
	}
	if idle != 0 {
		fmt.Fprintf(&b, "idle_timeout=%d, ", idle)
	}
	if hard != 0 {
		fmt.Fprintf(&b, "hard_timeout=%d, ", hard)
	}
	for _, f := range []struct {
		f    rules.FlowFlags
		name string
	}{{rules.FlagSendFlowRem, "send_flow_rem"}, {rules.FlagCheckOverlap, "check_overlap"}, {rules.FlagResetCounts, "reset_counts"}, {rules.FlagNoPktCounts, "no_packet_counts"}, {rules.FlagNoBytCounts, "no_byte_counts"}} {
		if flags&f.f != 0 {
			b.WriteString(f.name + " ")
		}
	}
	if ms := FormatMatchTLV(m, priority, layout); ms != "" {
		b.WriteString(ms + " ")
	}
	b.WriteString("actions=" + formatActions(ins, m, layout))
	return b.String()
}

// FormatRule is FormatFlow for a rule in a table, with its counters and its
// duration at now.
func FormatRule(r *rules.Rule, now time.Time) string {
	st := FlowStats{Packets: r.Packets(), Bytes: r.Bytes()}
	if c := r.Created(); !c.IsZero() {
		st.Duration = now.Sub(c)
	}
	return FormatFlow(r.Table(), &r.Match, r.Priority, r.Cookie, r.IdleTimeout, r.HardTimeout, r.Flags, r.Instructions, st)
}

// FormatUpdate prints an ADD update in ovs-ofctl add-flows syntax (the
// dump-flows text without the statistics), which ParseFlow reads back.
func FormatUpdate(u *rules.Update) string {
	var parts []string
	if u.Cookie != 0 {
		parts = append(parts, fmt.Sprintf("cookie=%#x", u.Cookie))
	}
	if u.Table != 0 {
		parts = append(parts, fmt.Sprintf("table=%d", u.Table))
	}
	if u.IdleTimeout != 0 {
		parts = append(parts, fmt.Sprintf("idle_timeout=%d", u.IdleTimeout))
	}
	if u.HardTimeout != 0 {
		parts = append(parts, fmt.Sprintf("hard_timeout=%d", u.HardTimeout))
	}
	if u.Importance != 0 {
		parts = append(parts, fmt.Sprintf("importance=%d", u.Importance))
	}
	for _, f := range []struct {
		f    rules.FlowFlags
		name string
	}{{rules.FlagSendFlowRem, "send_flow_rem"}, {rules.FlagCheckOverlap, "check_overlap"}, {rules.FlagResetCounts, "reset_counts"}, {rules.FlagNoPktCounts, "no_packet_counts"}, {rules.FlagNoBytCounts, "no_byte_counts"}} {
		if u.Flags&f.f != 0 {
			parts = append(parts, f.name)
		}
	}
	if ms := FormatMatch(&u.Match, u.Priority); ms != "" {
		parts = append(parts, ms)
	}
	parts = append(parts, "actions="+formatActions(u.Instructions, &u.Match, nil))
	return strings.Join(parts, ",")
}

// appendTagFields appends the MPLS and PBB fields of m, in Open vSwitch's
// order (mpls_label, mpls_tc, mpls_bos), then pbb_isid and pbb_uca.
func appendTagFields(parts []string, m *rules.Match) []string {
	for _, f := range [...]rules.Field{rules.FieldMPLSLabel, rules.FieldMPLSTC, rules.FieldMPLSBoS} {
		if v, mk := m.Get(f); mk != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", f, v))
		}
	}
	if v, mk := m.Get(rules.FieldPBBISID); mk == rules.FieldPBBISID.FullMask() {
		parts = append(parts, fmt.Sprintf("pbb_isid=%d", v))
	} else if mk != 0 {
		parts = append(parts, fmt.Sprintf("pbb_isid=%#x/%#x", v, mk))
	}
	if v, mk := m.Get(rules.FieldPBBUCA); mk != 0 {
		parts = append(parts, fmt.Sprintf("pbb_uca=%d", v))
	}
	return parts
}

// appendTunMetadata appends tun_metadataN=V[/M] for each field layout
// maps whose mask in m is not all zeros.
func appendTunMetadata(parts []string, m *rules.Match, layout rules.TunMetadataLayout) []string {
	if layout == nil {
		return parts
	}
	var pb [rules.TunOptsBytes]uint8
	var vb, mb [rules.TunOptsBytes]byte
	for idx := range 64 {
		place, ok := layout.TunMetadataPlace(pb[:0], idx)
		if !ok || len(place) == 0 {
			continue
		}
		v, mk := m.TunMetadata(place, vb[:0], mb[:0])
		zero, full := true, true
		for _, b := range mk {
			zero, full = zero && b == 0, full && b == 0xff
		}
		if zero {
			continue
		}
		s := fmt.Sprintf("tun_metadata%d=%s", idx, hexBytes(v))
		if !full {
			s += "/" + hexBytes(mk)
		}
		parts = append(parts, s)
	}
	return parts
}

// hexBytes prints b as Open vSwitch's ds_put_hex: 0x and the hex digits
// without leading zeros, "0" for zero.
func hexBytes(b []byte) string {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) == 0 {
		return "0"
	}
	s := strconv.FormatUint(uint64(b[0]), 16)
	for _, c := range b[1:] {
		s += fmt.Sprintf("%02x", c)
	}
	return "0x" + s
}

package ofctl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ofswitch/ofswitch/rules"
)

// splitTop splits s at commas outside parentheses, returning each piece
// with its offset.
func splitTop(s string) ([]string, []int) {
	var parts []string
	var offs []int
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' && depth == 0 {
			parts = append(parts, s[start:i])
			offs = append(offs, start)
			start = i + 1
			continue
		}
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	return parts, offs
}

// actions parses an ovs-ofctl action list into instructions.
func (p *flowParser) actions(s string, col int, m *rules.Match) ([]rules.Instruction, error) {
	s = strings.TrimRight(s, " \t\r")
	var apply []rules.Action
	var out []rules.Instruction
	var gotoTable *rules.Instruction
	var meta *rules.Instruction
	var write *rules.Instruction
	var meter *rules.Instruction
	clearActs := false
	if strings.TrimSpace(s) == "" {
		return nil, p.errAt(col, "expected an action list (or drop)")
	}
	parts, offs := splitTop(s)
	if len(parts) > 1 {
		for i, a := range parts {
			if strings.TrimSpace(a) == "drop" {
				return nil, p.errAt(col+offs[i], "\"drop\" must not be accompanied by any other action or instruction")
			}
		}
	}
	for i, a := range parts {
		acol := col + offs[i]
		a = strings.TrimSpace(a)
		name, arg, hasArg := strings.Cut(a, ":")
		if po := strings.IndexByte(a, '('); po >= 0 && (!hasArg || po < strings.IndexByte(a, ':')) {
			name, arg, _ = strings.Cut(a, "(")
			arg = strings.TrimSuffix(arg, ")")
			hasArg = true
		}
		lname := strings.ToLower(name)
		switch {
		case lname == "drop" && !hasArg:
		case (lname == "output" || lname == "out") && strings.Contains(arg, "["):
			ext := &rules.ActionExt{}
			src, err := p.subfield(arg, acol+len(name)+1, &ext.SrcTun)
			if err != nil {
				return nil, err
			}
			ext.Src = src
			apply = append(apply, rules.Action{Kind: rules.ActionOutputReg, Ext: ext})
		case lname == "load":
			act, err := p.load(arg, acol+len(name)+1, m)
			if err != nil {
				return nil, err
			}
			apply = append(apply, act)
		case lname == "move":
			act, err := p.move(arg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, act)
		case lname == "output" || lname == "out":
			port, err := p.port(arg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionOutput, Port: port})
		case lname == "controller":
			act, err := p.controller(arg, hasArg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, act)
		case lname == "note":
			b, err := p.hexBytes(arg, acol+len(name)+1, "note")
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionNote, Ext: &rules.ActionExt{Note: b}})
		case lname == "exit" && !hasArg:
			apply = append(apply, rules.Action{Kind: rules.ActionExit})
		case lname == "resubmit":
			act, err := p.resubmit(arg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, act)
		case lname == "set_tunnel" || lname == "set_tunnel64":
			// Open vSwitch sends both as set_field of tun_id over
			// OpenFlow 1.2 and later, and prints them so back.
			v, err := p.num(arg, acol+len(name)+1, 64, "tunnel id")
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionSetField, Field: rules.FieldTunnelID, Value: [2]uint64{0, v}})
		case !hasArg && (lname == "flood" || lname == "all" || lname == "in_port" || lname == "normal" || lname == "local" || lname == "table"):
			apply = append(apply, rules.Action{Kind: rules.ActionOutput, Port: portNames[strings.ToUpper(name)]})
		case !hasArg && isNumber(a):
			port, err := p.port(a, acol)
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionOutput, Port: port})
		case lname == "strip_vlan" || lname == "pop_vlan":
			apply = append(apply, rules.Action{Kind: rules.ActionPopVLAN})
		case lname == "push_vlan":
			v, err := p.num(arg, acol+len(name)+1, 16, "push_vlan ethertype")
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionPushVLAN, EthType: uint16(v)})
		case lname == "mod_vlan_vid":
			v, err := p.num(arg, acol+len(name)+1, 12, "VLAN id")
			if err != nil {
				return nil, err
			}
			if vv, vm := m.Get(rules.FieldVLANVID); !(vm&rules.VIDPresent != 0 && vv&rules.VIDPresent != 0) {
				apply = append(apply, rules.Action{Kind: rules.ActionPushVLAN, EthType: rules.EthTypeVLAN})
			}
			apply = append(apply, rules.Action{Kind: rules.ActionSetField, Field: rules.FieldVLANVID, Value: [2]uint64{0, rules.VIDPresent | v}})
		case lname == "push_mpls" || lname == "pop_mpls" || lname == "push_pbb":
			v, err := p.num(arg, acol+len(name)+1, 16, lname+" ethertype")
			if err != nil {
				return nil, err
			}
			kind := map[string]rules.ActionKind{"push_mpls": rules.ActionPushMPLS, "pop_mpls": rules.ActionPopMPLS, "push_pbb": rules.ActionPushPBB}[lname]
			if kind == rules.ActionPushMPLS && v != rules.EthTypeMPLS && v != rules.EthTypeMPLSMulticast ||
				kind == rules.ActionPushPBB && v != rules.EthTypePBB {
				return nil, p.errAt(acol+len(name)+1, "%s ethertype %s is not %s", lname, arg, map[bool]string{true: "0x8847 or 0x8848", false: "0x88e7"}[kind == rules.ActionPushMPLS])
			}
			apply = append(apply, rules.Action{Kind: kind, EthType: uint16(v)})
		case lname == "set_mpls_ttl":
			v, err := p.num(arg, acol+len(name)+1, 8, "MPLS TTL")
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionSetMPLSTTL, TTL: uint8(v)})
		case lname == "set_mpls_label" || lname == "set_mpls_tc":
			f := rules.FieldMPLSLabel
			if lname == "set_mpls_tc" {
				f = rules.FieldMPLSTC
			}
			v, err := p.num(arg, acol+len(name)+1, f.Bits(), f.String())
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionSetField, Field: f, Value: [2]uint64{0, v}})
		case !hasArg && tagActionNames[lname] != 0:
			apply = append(apply, rules.Action{Kind: tagActionNames[lname]})
		case lname == "dec_ttl":
			act := rules.Action{Kind: rules.ActionDecNwTTL}
			if strings.TrimSpace(arg) != "" {
				// dec_ttl(id,...) names the controllers of its
				// packet-in (NXAST_DEC_TTL_CNT_IDS); dec_ttl() is plain
				// dec_ttl, as in Open vSwitch.
				ids, err := p.controllerIDs(arg, acol+len(name)+1)
				if err != nil {
					return nil, err
				}
				act.Ext = &rules.ActionExt{IDs: ids}
			}
			apply = append(apply, act)
		case modFields[lname] != "":
			act, err := p.modField(lname, arg, acol+len(name)+1, m)
			if err != nil {
				return nil, err
			}
			apply = append(apply, act...)
		case lname == "mod_nw_ttl":
			v, err := p.num(arg, acol+len(name)+1, 8, "TTL")
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionSetNwTTL, TTL: uint8(v)})
		case lname == "group":
			v, err := p.num(arg, acol+len(name)+1, 32, "group id")
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionGroup, Group: uint32(v)})
		case lname == "set_queue":
			v, err := p.num(arg, acol+len(name)+1, 32, "queue id")
			if err != nil {
				return nil, err
			}
			apply = append(apply, rules.Action{Kind: rules.ActionSetQueue, Queue: uint32(v)})
		case lname == "set_field" && strings.Contains(arg, "->tun_metadata"):
			as, err := p.setTunMetadata(arg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, as...)
		case lname == "set_field" || lname == "load" && false:
			act, err := p.setField(arg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, act)
		case lname == "meter":
			v, err := p.num(arg, acol+len(name)+1, 32, "meter id")
			if err != nil {
				return nil, err
			}
			meter = &rules.Instruction{Kind: rules.InstMeter, Meter: uint32(v)}
		case lname == "goto_table":
			v, err := p.num(arg, acol+len(name)+1, 8, "table")
			if err != nil {
				return nil, err
			}
			gotoTable = &rules.Instruction{Kind: rules.InstGotoTable, Table: uint8(v)}
		case lname == "write_metadata":
			v, mk, err := p.numMask(arg, acol+len(name)+1, 64, "metadata")
			if err != nil {
				return nil, err
			}
			meta = &rules.Instruction{Kind: rules.InstWriteMetadata, Metadata: v, MetadataMask: mk}
		case lname == "clear_actions":
			clearActs = true
		case lname == "write_actions":
			sub, err := p.actions(arg, acol+len(name)+1, m)
			if err != nil {
				return nil, err
			}
			var acts []rules.Action
			for _, in := range sub {
				if in.Kind != rules.InstApplyActions {
					return nil, p.errAt(acol, "write_actions takes actions only")
				}
				for _, a := range in.Actions {
					switch a.Kind {
					case rules.ActionNote, rules.ActionExit, rules.ActionController, rules.ActionOutputReg:
						// Open vSwitch: "disallowed action in action set".
						return nil, p.errAt(acol, "write_actions cannot hold note, exit, controller(...) or output:field: the action set has no place for them")
					}
				}
				acts = append(acts, in.Actions...)
			}
			write = &rules.Instruction{Kind: rules.InstWriteActions, Actions: acts}
		case lname == "ct" || lname == "ct_clear":
			return nil, p.errAt(acol, "connection tracking (%s) is not supported", lname)
		default:
			return nil, p.errAt(acol, "unknown action %q; expected output, drop, CONTROLLER[:len], FLOOD, ALL, IN_PORT, NORMAL, LOCAL, set_field, mod_dl_src, mod_dl_dst, mod_nw_src, mod_nw_dst, mod_nw_tos, mod_nw_ecn, mod_tp_src, mod_tp_dst, mod_vlan_vid, mod_vlan_pcp, strip_vlan, push_vlan, pop_vlan, dec_ttl, dec_ttl(ids), mod_nw_ttl, note, exit, controller(...), resubmit, load, move, output:field[bits], set_tunnel, set_tunnel64, push_mpls, pop_mpls, set_mpls_ttl, dec_mpls_ttl, set_mpls_label, set_mpls_tc, push_pbb, pop_pbb, copy_ttl_out, copy_ttl_in, group, meter, goto_table, write_metadata, write_actions or clear_actions", a)
		}
	}
	if meter != nil {
		out = append(out, *meter) // first, as the data plane runs it (§5.9)
	}
	if len(apply) > 0 {
		out = append(out, rules.Instruction{Kind: rules.InstApplyActions, Actions: apply})
	}
	if clearActs {
		out = append(out, rules.Instruction{Kind: rules.InstClearActions})
	}
	if write != nil {
		out = append(out, *write)
	}
	if meta != nil {
		out = append(out, *meta)
	}
	if gotoTable != nil {
		out = append(out, *gotoTable)
	}
	return out, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 0, 32)
	return err == nil
}

var setFieldNames = map[string]rules.Field{
	"eth_dst": rules.FieldEthDst, "eth_src": rules.FieldEthSrc, "dl_dst": rules.FieldEthDst, "dl_src": rules.FieldEthSrc,
	"vlan_vid": rules.FieldVLANVID, "vlan_pcp": rules.FieldVLANPCP, "ip_dscp": rules.FieldIPDSCP, "ip_ecn": rules.FieldIPECN,
	"ip_src": rules.FieldIPv4Src, "ip_dst": rules.FieldIPv4Dst, "nw_src": rules.FieldIPv4Src, "nw_dst": rules.FieldIPv4Dst,
	"ipv6_src": rules.FieldIPv6Src, "ipv6_dst": rules.FieldIPv6Dst,
	"tcp_src": rules.FieldL4Src, "tcp_dst": rules.FieldL4Dst, "udp_src": rules.FieldL4Src, "udp_dst": rules.FieldL4Dst,
	"sctp_src": rules.FieldL4Src, "sctp_dst": rules.FieldL4Dst, "tp_src": rules.FieldL4Src, "tp_dst": rules.FieldL4Dst,
	"metadata": rules.FieldMetadata, "arp_op": rules.FieldARPOp, "arp_spa": rules.FieldARPSPA, "arp_tpa": rules.FieldARPTPA,
	"arp_sha": rules.FieldARPSHA, "arp_tha": rules.FieldARPTHA, "icmp_type": rules.FieldICMPType, "icmp_code": rules.FieldICMPCode,
	"icmpv4_type": rules.FieldICMPType, "icmpv4_code": rules.FieldICMPCode,
	"icmpv6_type": rules.FieldICMPType, "icmpv6_code": rules.FieldICMPCode,
	"ipv6_label": rules.FieldIPv6FLabel, "nd_target": rules.FieldNDTarget,
	"nd_sll": rules.FieldARPSHA, "nd_tll": rules.FieldARPTHA, "tun_id": rules.FieldTunnelID, "tunnel_id": rules.FieldTunnelID,
	"mpls_label": rules.FieldMPLSLabel, "mpls_tc": rules.FieldMPLSTC, "mpls_bos": rules.FieldMPLSBoS, "pbb_isid": rules.FieldPBBISID,
	"pbb_uca": rules.FieldPBBUCA, "eth_type": rules.FieldEthType, "dl_type": rules.FieldEthType,
	"ip_proto": rules.FieldIPProto, "nw_proto": rules.FieldIPProto,
	"nw_ttl": rules.FieldNwTTL, "pkt_mark": rules.FieldPktMark, "tun_flags": rules.FieldTunFlags,
	"tun_src": rules.FieldTunSrc, "tun_dst": rules.FieldTunDst,
	"tun_ipv6_src": rules.FieldTunIPv6Src, "tun_ipv6_dst": rules.FieldTunIPv6Dst,
	"tun_gbp_id": rules.FieldTunGbpID, "tun_gbp_flags": rules.FieldTunGbpFlags,
}

// modFields are Open vSwitch's mod_* actions and the field each sets:
// ovs-ofctl sends them as OFPAT_SET_FIELD over OpenFlow 1.2 and later, and
// Open vSwitch prints them back as set_field, as ofswitch does.
var modFields = map[string]string{
	"mod_dl_src": "eth_src", "mod_dl_dst": "eth_dst", "mod_nw_src": "ip_src", "mod_nw_dst": "ip_dst",
	"mod_tp_src": "tp_src", "mod_tp_dst": "tp_dst", "mod_nw_tos": "ip_dscp", "mod_nw_ecn": "ip_ecn",
	"mod_vlan_pcp": "vlan_pcp",
}

// modField parses the argument of mod_* action name at col as Open
// vSwitch does: mod_nw_tos takes the DSCP bits of a TOS byte (a multiple
// of 4), mod_nw_ecn an ECN of 0-3, and mod_vlan_pcp, like mod_vlan_vid,
// pushes an 802.1Q header first unless the match says that the frame has
// one.
func (p *flowParser) modField(name, arg string, col int, m *rules.Match) ([]rules.Action, error) {
	switch name {
	case "mod_nw_tos", "mod_nw_ecn":
		v, err := p.num(arg, col, 8, strings.TrimPrefix(name, "mod_nw_"))
		if err != nil {
			return nil, err
		}
		if name == "mod_nw_tos" {
			if v&3 != 0 {
				return nil, p.errAt(col, "%s: not a valid TOS (its two ECN bits must be 0)", arg)
			}
			return []rules.Action{{Kind: rules.ActionSetField, Field: rules.FieldIPDSCP, Value: [2]uint64{0, v >> 2}}}, nil
		}
		if v > 3 {
			return nil, p.errAt(col, "%s: not a valid ECN (0-3)", arg)
		}
		return []rules.Action{{Kind: rules.ActionSetField, Field: rules.FieldIPECN, Value: [2]uint64{0, v}}}, nil
	}
	a, err := p.setField(arg+"->"+modFields[name], col)
	if err != nil {
		return nil, err
	}
	if name == "mod_vlan_pcp" {
		if vv, vm := m.Get(rules.FieldVLANVID); !(vm&rules.VIDPresent != 0 && vv&rules.VIDPresent != 0) {
			return []rules.Action{{Kind: rules.ActionPushVLAN, EthType: rules.EthTypeVLAN}, a}, nil
		}
	}
	return []rules.Action{a}, nil
}

// tagActionNames are the MPLS, PBB and TTL-copy actions without an
// argument. Open vSwitch knows dec_mpls_ttl; pop_pbb, copy_ttl_out and
// copy_ttl_in, which it does not have, go by their OpenFlow names.
var tagActionNames = map[string]rules.ActionKind{
	"dec_mpls_ttl": rules.ActionDecMPLSTTL, "pop_pbb": rules.ActionPopPBB,
	"copy_ttl_out": rules.ActionCopyTTLOut, "copy_ttl_in": rules.ActionCopyTTLIn,
}

func (p *flowParser) setField(arg string, col int) (rules.Action, error) {
	vs, fname, ok := strings.Cut(arg, "->")
	if !ok {
		return rules.Action{}, p.errAt(col, "expected set_field:value->field, found %q", arg)
	}
	fcol := col + len(vs) + 2
	if r := rules.SubfieldByName(fname); r >= 0 && (isReg(&rules.SubfieldFields[r]) || isXReg(&rules.SubfieldFields[r])) {
		if strings.Contains(vs, "/") {
			return p.setFieldMasked(vs, col, r)
		}
		v, err := p.num(vs, col, int(rules.SubfieldFields[r].Bits), fname+" value")
		if err != nil {
			return rules.Action{}, err
		}
		return regSetField(r, v), nil
	}
	if fname == "nw_tos" {
		// The DSCP bits in place in a TOS byte (NXM_OF_IP_TOS).
		v, err := p.num(vs, col, 8, "nw_tos")
		if err == nil && v&3 != 0 {
			err = p.errAt(col, "%s: not a valid TOS (its two ECN bits must be 0)", vs)
		}
		return rules.Action{Kind: rules.ActionSetField, Field: rules.FieldIPDSCP, Reason: rules.SetFieldNwTOS,
			Value: [2]uint64{0, v >> 2}}, err
	}
	f, ok := setFieldNames[fname]
	if !ok {
		switch {
		case connTrackField(fname):
			return rules.Action{}, p.errAt(fcol, "connection tracking (%s) is not supported", fname)
		case fname == "ip_frag" || fname == "nw_frag":
			return rules.Action{}, p.errAt(fcol, "%s is read-only", fname) // as ovs-ofctl says
		}
		return rules.Action{}, p.errAt(fcol, "unknown set_field field %q", fname)
	}
	a := rules.Action{Kind: rules.ActionSetField, Field: f}
	if strings.Contains(vs, "/") {
		if r := rules.SubfieldFor(f, 0); r >= 0 && f != rules.FieldTunFlags && f != rules.FieldIPFrag {
			return p.setFieldMasked(vs, col, r)
		}
	}
	switch f {
	case rules.FieldTunFlags:
		// oam, or a number whose one bit is oam's. Open vSwitch makes
		// +oam, -oam and a masked value a load of the bit, which
		// ofswitch does not have.
		if vs == "oam" {
			a.Value[1] = rules.TunFlagOAM
			return a, nil
		}
		if vs == "" || vs[0] < '0' || vs[0] > '9' || strings.Contains(vs, "/") {
			return a, p.errAt(col, "set_field takes tun_flags oam or a number (0 or 1), found %q", vs)
		}
		v, err := p.num(vs, col, 16, "tun_flags value")
		if err == nil && v&^rules.TunFlagOAM != 0 {
			err = p.errAt(col, "tun_flags %s: unknown tunnel flag(s) (oam, 0x1, is the one)", vs)
		}
		a.Value[1] = v
		return a, err
	case rules.FieldEthDst, rules.FieldEthSrc, rules.FieldARPSHA, rules.FieldARPTHA:
		v, err := p.mac(vs, col)
		a.Value[1] = v
		return a, err
	case rules.FieldIPv4Src, rules.FieldIPv4Dst, rules.FieldARPSPA, rules.FieldARPTPA, rules.FieldTunSrc, rules.FieldTunDst:
		v, mk, err := p.ipv4(vs, col)
		if err == nil && mk != 0xffffffff {
			return a, p.errAt(col, "set_field takes an address, not a prefix")
		}
		a.Value[1] = v
		return a, err
	case rules.FieldIPv6Src, rules.FieldIPv6Dst, rules.FieldNDTarget, rules.FieldTunIPv6Src, rules.FieldTunIPv6Dst:
		hi, lo, _, _, err := p.ipv6(vs, col)
		a.Value = [2]uint64{hi, lo}
		return a, err
	}
	v, err := p.num(vs, col, f.Bits(), fname+" value")
	a.Value[1] = v
	return a, err
}

// FormatActions returns the instructions the way ovs-ofctl prints them
// after "actions=" ("drop" for none). The fields that several OXM fields
// share (the transport ports, ICMP type and code, arp_sha and arp_tha) are
// named as in a flow without a match: tcp_src, icmp_type, arp_sha;
// FormatFlow names them after the flow's match.
func FormatActions(ins []rules.Instruction) string { return formatActions(ins, nil, nil) }

// formatActions is FormatActions for the instructions of a flow whose
// match is m (nil: none); layout, if not nil, names the actions that set,
// load, move or output tun_metadata0-63 by the field (else they print as
// loads and subfields of the option space words).
func formatActions(ins []rules.Instruction, m *rules.Match, layout rules.TunMetadataLayout) string {
	nm := fieldNamer{tun: layout}
	if m != nil {
		nm.proto, _ = m.Get(rules.FieldIPProto)
		nm.eth, _ = m.Get(rules.FieldEthType)
	}
	var parts []string
	order := []rules.InstructionKind{rules.InstMeter, rules.InstApplyActions, rules.InstClearActions, rules.InstWriteActions, rules.InstWriteMetadata, rules.InstGotoTable}
	for _, kind := range order {
		for _, in := range ins {
			if in.Kind != kind {
				continue
			}
			switch kind {
			case rules.InstMeter:
				parts = append(parts, fmt.Sprintf("meter:%d", in.Meter))
			case rules.InstApplyActions:
				parts = nm.appendActions(parts, in.Actions)
			case rules.InstClearActions:
				parts = append(parts, "clear_actions")
			case rules.InstWriteActions:
				sub := nm.appendActions(nil, in.Actions)
				parts = append(parts, "write_actions("+strings.Join(sub, ",")+")")
			case rules.InstWriteMetadata:
				parts = append(parts, "write_metadata:"+hexMasked(in.Metadata, in.MetadataMask, ^uint64(0)))
			case rules.InstGotoTable:
				parts = append(parts, fmt.Sprintf("goto_table:%d", in.Table))
			}
		}
	}
	if len(parts) == 0 {
		return "drop"
	}
	return strings.Join(parts, ",")
}

var setFieldPrint = map[rules.Field]string{
	rules.FieldEthDst: "eth_dst", rules.FieldEthSrc: "eth_src", rules.FieldVLANVID: "vlan_vid", rules.FieldVLANPCP: "vlan_pcp",
	rules.FieldIPDSCP: "ip_dscp", rules.FieldIPECN: "nw_ecn", rules.FieldIPv4Src: "ip_src", rules.FieldIPv4Dst: "ip_dst",
	rules.FieldIPv6Src: "ipv6_src", rules.FieldIPv6Dst: "ipv6_dst", rules.FieldL4Src: "tcp_src", rules.FieldL4Dst: "tcp_dst",
	rules.FieldMetadata: "metadata", rules.FieldARPOp: "arp_op", rules.FieldARPSPA: "arp_spa", rules.FieldARPTPA: "arp_tpa",
	rules.FieldARPSHA: "arp_sha", rules.FieldARPTHA: "arp_tha", rules.FieldICMPType: "icmp_type", rules.FieldICMPCode: "icmp_code",
	rules.FieldMPLSLabel: "mpls_label", rules.FieldMPLSTC: "mpls_tc", rules.FieldMPLSBoS: "mpls_bos", rules.FieldPBBISID: "pbb_isid",
	rules.FieldPBBUCA:     "pbb_uca",
	rules.FieldIPv6FLabel: "ipv6_label", rules.FieldNDTarget: "nd_target", rules.FieldTunnelID: "tun_id",
	rules.FieldEthType: "eth_type", rules.FieldIPProto: "nw_proto",
	rules.FieldNwTTL: "nw_ttl", rules.FieldPktMark: "pkt_mark", rules.FieldTunFlags: "tun_flags",
	rules.FieldTunSrc: "tun_src", rules.FieldTunDst: "tun_dst",
	rules.FieldTunIPv6Src: "tun_ipv6_src", rules.FieldTunIPv6Dst: "tun_ipv6_dst",
	rules.FieldTunGbpID: "tun_gbp_id", rules.FieldTunGbpFlags: "tun_gbp_flags",
}

// fieldNamer names set_field's fields after the match of their flow: the
// ip_proto and eth_type it tests (0 for none).
type fieldNamer struct {
	proto, eth uint64
	tun        rules.TunMetadataLayout // names tun_metadata0-63 (nil: none)
}

// appendActions appends each action of as formatted to parts; the loads
// of one set_field of a tun_metadata field that nm.tun maps
// (rules.TunMetadataLoads) print as that set_field.
func (nm fieldNamer) appendActions(parts []string, as []rules.Action) []string {
	for i := 0; i < len(as); i++ {
		if s, n := nm.formatTunLoads(as[i:]); n > 0 {
			parts = append(parts, s)
			i += n - 1
			continue
		}
		parts = append(parts, nm.formatAction(&as[i]))
	}
	return parts
}

// formatTunLoads formats the loads at the start of as that make one
// set_field of tun_metadataN (the first with TunFirst, the others of the
// same field following it) as Open vSwitch prints it,
// set_field:V[/M]->tun_metadataN of the mapped length, the mask left out
// when every byte is written; n is how many loads it took, 0 when as does
// not start so or nm.tun does not map the field.
func (nm fieldNamer) formatTunLoads(as []rules.Action) (s string, n int) {
	a := &as[0]
	if nm.tun == nil || a.Kind != rules.ActionLoad || a.Ext == nil || a.Ext.TunMetadata == 0 || !a.Ext.TunFirst {
		return "", 0
	}
	idx := int(a.Ext.TunMetadata) - 1
	var pb [rules.TunOptsBytes]uint8
	place, ok := nm.tun.TunMetadataPlace(pb[:0], idx)
	if !ok || len(place) == 0 {
		return "", 0
	}
	var wv, wm [rules.TunOptsBytes / 8]uint64
	for n = 0; n < len(as); n++ {
		b := &as[n]
		if b.Kind != rules.ActionLoad || b.Ext == nil || b.Ext.TunMetadata != a.Ext.TunMetadata || (n > 0 && b.Ext.TunFirst) {
			break
		}
		w := int(b.Field - rules.FieldTunOpts0)
		if w < 0 || w >= len(wm) {
			return "", 0
		}
		wm[w] |= b.Value[0]
		wv[w] = wv[w]&^b.Value[0] | b.Value[1]&b.Value[0]
	}
	val, mask := make([]byte, len(place)), make([]byte, len(place))
	full := true
	for i, p := range place {
		sh := 56 - 8*uint(p%8)
		val[i], mask[i] = byte(wv[p/8]>>sh), byte(wm[p/8]>>sh)
		full = full && mask[i] == 0xff
	}
	s = "set_field:" + hexBytes(val)
	if !full {
		s += "/" + hexBytes(mask)
	}
	return s + fmt.Sprintf("->tun_metadata%d", idx), n
}

// tunSubfieldString names the bits sf of an option space word as bits of
// tun_metadata<tun-1> (NXM_NX_TUN_METADATAn[a..b]) when tun is not 0 and
// nm.tun maps the field over them, else as subfieldString does.
func (nm fieldNamer) tunSubfieldString(sf rules.Subfield, tun uint8) string {
	if tun == 0 || nm.tun == nil {
		return subfieldString(sf)
	}
	var pb [rules.TunOptsBytes]uint8
	place, ok := nm.tun.TunMetadataPlace(pb[:0], int(tun)-1)
	w := int(sf.Field - rules.FieldTunOpts0)
	if !ok || w < 0 || w >= rules.TunOptsBytes/8 {
		return subfieldString(sf)
	}
	ofs := int(sf.RowOfs())
	p := uint8(8*w + 7 - ofs/8) // the option space byte of the lowest bit
	l := len(place)
	for i, q := range place {
		if q != p {
			continue
		}
		lo := 8*(l-1-i) + ofs%8
		name := fmt.Sprintf("NXM_NX_TUN_METADATA%d", tun-1)
		switch {
		case lo == 0 && int(sf.Bits) == 8*l:
			return name + "[]"
		case sf.Bits == 1:
			return fmt.Sprintf("%s[%d]", name, lo)
		}
		return fmt.Sprintf("%s[%d..%d]", name, lo, lo+int(sf.Bits)-1)
	}
	return subfieldString(sf)
}

// name returns the ovs-ofctl name of field f in a set_field.
func (nm fieldNamer) name(f rules.Field) string {
	var l4 string
	switch nm.proto {
	case rules.IPProtoUDP:
		l4 = "udp"
	case rules.IPProtoSCTP:
		l4 = "sctp"
	}
	v6 := nm.eth == rules.EthTypeIPv6
	switch {
	case f == rules.FieldL4Src && l4 != "":
		return l4 + "_src"
	case f == rules.FieldL4Dst && l4 != "":
		return l4 + "_dst"
	case f == rules.FieldICMPType && v6:
		return "icmpv6_type"
	case f == rules.FieldICMPCode && v6:
		return "icmpv6_code"
	case f == rules.FieldARPSHA && v6:
		return "nd_sll"
	case f == rules.FieldARPTHA && v6:
		return "nd_tll"
	}
	return setFieldPrint[f]
}

func (nm fieldNamer) formatAction(a *rules.Action) string {
	switch a.Kind {
	case rules.ActionOutput:
		switch a.Port {
		case rules.PortController:
			return fmt.Sprintf("CONTROLLER:%d", a.MaxLen)
		case rules.PortInPort, rules.PortTable, rules.PortNormal, rules.PortFlood, rules.PortAll, rules.PortLocal:
			return portString(a.Port)
		}
		return fmt.Sprintf("output:%d", a.Port)
	case rules.ActionGroup:
		return fmt.Sprintf("group:%d", a.Group)
	case rules.ActionSetQueue:
		return fmt.Sprintf("set_queue:%d", a.Queue)
	case rules.ActionPushVLAN:
		return fmt.Sprintf("push_vlan:0x%04x", a.EthType)
	case rules.ActionPopVLAN:
		return "pop_vlan"
	case rules.ActionDecNwTTL:
		if a.Ext != nil && a.Ext.IDs != nil {
			ids := make([]string, len(a.Ext.IDs))
			for i, id := range a.Ext.IDs {
				ids[i] = strconv.Itoa(int(id))
			}
			return "dec_ttl(" + strings.Join(ids, ",") + ")"
		}
		return "dec_ttl"
	case rules.ActionNote:
		var note []byte
		if a.Ext != nil {
			note = a.Ext.Note
		}
		// Padded with zeros as the wire action is (to a multiple of 8
		// bytes, at least 16, after its 10-byte header): Open vSwitch
		// prints the padding it decodes back.
		n := max(16, (10+len(note)+7)&^7) - 10
		var b strings.Builder
		b.WriteString("note:")
		for i := range n {
			if i > 0 {
				b.WriteByte('.')
			}
			var c byte
			if i < len(note) {
				c = note[i]
			}
			fmt.Fprintf(&b, "%02x", c)
		}
		return b.String()
	case rules.ActionExit:
		return "exit"
	case rules.ActionResubmit:
		return resubmitString(a.Port, a.Table)
	case rules.ActionController:
		if a.Reason == reasonAction && a.CtlID == 0 {
			return fmt.Sprintf("CONTROLLER:%d", a.MaxLen)
		}
		var args []string
		if a.Reason != reasonAction {
			args = append(args, "reason="+reasonName(a.Reason))
		}
		if a.MaxLen != rules.ControllerMaxLenNoBuffer {
			args = append(args, fmt.Sprintf("max_len=%d", a.MaxLen))
		}
		if a.CtlID != 0 {
			args = append(args, fmt.Sprintf("id=%d", a.CtlID))
		}
		return "controller(" + strings.Join(args, ",") + ")"
	case rules.ActionPushMPLS:
		return fmt.Sprintf("push_mpls:0x%04x", a.EthType)
	case rules.ActionPopMPLS:
		return fmt.Sprintf("pop_mpls:0x%04x", a.EthType)
	case rules.ActionPushPBB:
		return fmt.Sprintf("push_pbb:0x%04x", a.EthType)
	case rules.ActionSetMPLSTTL:
		return fmt.Sprintf("set_mpls_ttl(%d)", a.TTL)
	case rules.ActionDecMPLSTTL, rules.ActionPopPBB, rules.ActionCopyTTLOut, rules.ActionCopyTTLIn:
		for name, k := range tagActionNames {
			if k == a.Kind {
				return name
			}
		}
	case rules.ActionSetNwTTL:
		return fmt.Sprintf("mod_nw_ttl:%d", a.TTL)
	case rules.ActionLoad:
		return nm.formatLoad(a)
	case rules.ActionMove:
		return "move:" + nm.tunSubfieldString(a.Ext.Src, a.Ext.SrcTun) + "->" + nm.tunSubfieldString(a.Ext.Dst, a.Ext.DstTun)
	case rules.ActionOutputReg:
		return "output:" + nm.tunSubfieldString(a.Ext.Src, a.Ext.SrcTun)
	case rules.ActionSetField:
		var v string
		switch a.Field {
		case rules.FieldEthDst, rules.FieldEthSrc, rules.FieldARPSHA, rules.FieldARPTHA:
			v = macString(a.Value[1])
		case rules.FieldIPv4Src, rules.FieldIPv4Dst, rules.FieldARPSPA, rules.FieldARPTPA, rules.FieldTunSrc, rules.FieldTunDst:
			v = ipv4String(a.Value[1])
		case rules.FieldIPv6Src, rules.FieldIPv6Dst, rules.FieldNDTarget, rules.FieldTunIPv6Src, rules.FieldTunIPv6Dst:
			v = ipv6Addr(a.Value[0], a.Value[1]).String()
		case rules.FieldMetadata, rules.FieldTunnelID, rules.FieldIPv6FLabel, rules.FieldPktMark, rules.FieldTunGbpFlags:
			v = cHex(a.Value[1])
		case rules.FieldTunFlags:
			v = "0"
			if a.Value[1]&rules.TunFlagOAM != 0 {
				v = "oam"
			}
		default:
			v = strconv.FormatUint(a.Value[1], 10)
		}
		if a.Field == rules.FieldIPDSCP && a.Reason == rules.SetFieldNwTOS {
			return "set_field:" + strconv.FormatUint(a.Value[1]<<2, 10) + "->nw_tos"
		}
		return "set_field:" + v + "->" + nm.name(a.Field)
	}
	return fmt.Sprintf("action(%d)", a.Kind)
}

// reasonAction is OFPR_ACTION, the packet-in reason of output:CONTROLLER.
const reasonAction = 1

// packetInReasons are ovs-ofctl's names of the packet-in reasons, by
// ofp_packet_in_reason.
var packetInReasons = []string{"no_match", "action", "invalid_ttl", "action_set", "group", "packet_out"}

func reasonName(r uint8) string {
	if int(r) < len(packetInReasons) {
		return packetInReasons[r]
	}
	return strconv.Itoa(int(r))
}

// controller parses the argument of controller: none, a decimal max_len
// (controller:N or controller(N)), or Open vSwitch's key=value list
// reason=, max_len=, id=. As ovs-ofctl does, reason=action with id 0 is
// output:CONTROLLER, the rest controller(...) (NXAST_CONTROLLER).
// userdata, pause and meter_id need NXAST_CONTROLLER2 and a resumable
// packet-in, which ofswitch does not have: they are refused by name.
func (p *flowParser) controller(arg string, hasArg bool, col int) (rules.Action, error) {
	a := rules.Action{Kind: rules.ActionOutput, Port: rules.PortController, MaxLen: rules.ControllerMaxLenNoBuffer}
	if !hasArg || arg == "" {
		return a, nil
	}
	if strings.Trim(arg, "0123456789") == "" {
		v, err := p.num(arg, col, 16, "controller max_len")
		a.MaxLen = uint16(v)
		return a, err
	}
	reason, id := uint8(reasonAction), uint16(0)
	off := 0
	for _, kv := range strings.Split(arg, ",") {
		kcol := col + off
		off += len(kv) + 1
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		switch k {
		case "reason":
			i := slices.Index(packetInReasons, v)
			if i < 0 {
				return a, p.errAt(kcol, "unknown reason %q", v)
			}
			reason = uint8(i)
		case "max_len":
			n, err := p.num(v, kcol+len(k)+1, 16, "max_len")
			if err != nil {
				return a, err
			}
			a.MaxLen = uint16(n)
		case "id":
			n, err := p.num(v, kcol+len(k)+1, 16, "id")
			if err != nil {
				return a, err
			}
			id = uint16(n)
		case "userdata", "pause", "meter_id":
			return a, p.errAt(kcol, "controller(%s) is not supported: it needs NXAST_CONTROLLER2, which ofswitch does not have", k)
		default:
			return a, p.errAt(kcol, "unknown key %q parsing controller action", k)
		}
	}
	if reason != reasonAction || id != 0 {
		a = rules.Action{Kind: rules.ActionController, MaxLen: a.MaxLen, Reason: reason, CtlID: id}
	}
	return a, nil
}

// controllerIDs parses dec_ttl's list of controller ids, separated by
// commas or spaces.
func (p *flowParser) controllerIDs(arg string, col int) ([]uint16, error) {
	ids := []uint16{}
	off := 0
	for _, f := range strings.FieldsFunc(arg, func(r rune) bool { return r == ',' || r == ' ' }) {
		i := strings.Index(arg[off:], f) + off
		v, err := p.num(f, col+i, 16, "controller id")
		if err != nil {
			return nil, err
		}
		off = i + len(f)
		ids = append(ids, uint16(v))
	}
	return ids, nil
}

// hexBytes parses hex digit pairs, which periods may separate, as Open
// vSwitch's ofpbuf_put_hex does (its blanks end the action in a flow).
func (p *flowParser) hexBytes(s string, col int, what string) ([]byte, error) {
	var b []byte
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			i++
			continue
		}
		if i+1 >= len(s) {
			return nil, p.errAt(col+i, "bad hex digit in `%s' argument", what)
		}
		v, err := strconv.ParseUint(s[i:i+2], 16, 8)
		if err != nil {
			return nil, p.errAt(col+i, "bad hex digit in `%s' argument", what)
		}
		b = append(b, byte(v))
		i += 2
	}
	return b, nil
}

// resubmit parses resubmit's argument as Open vSwitch does (parse_RESUBMIT):
// "P" of resubmit:P, or "P,T" of resubmit(P,T), either slot empty but not
// both. An empty port is in_port's, an empty table the current one. A
// third slot "ct" (look up with the connection tracking 5-tuple) is
// refused by name, as connection tracking is.
func (p *flowParser) resubmit(arg string, col int) (rules.Action, error) {
	a := rules.Action{Kind: rules.ActionResubmit, Port: rules.PortInPort, Table: rules.TableAll}
	slots := strings.SplitN(arg, ",", 3)
	if s := slots[0]; s != "" {
		port, err := p.port(s, col)
		if err != nil {
			return a, err
		}
		if port >= 0xff00 && port < rules.PortMax {
			// The wire action has 16 bits for it.
			return a, p.errAt(col, "port %d is outside the supported range 0 through %d or 0xffffff00 through 0xffffffff", port, 0xfeff)
		}
		a.Port = port
	}
	if len(slots) > 1 {
		if s := slots[1]; s != "" {
			v, err := strconv.ParseUint(s, 10, 8)
			if err != nil {
				return a, p.errAt(col, "%s: resubmit to unknown table (0 to 255)", s)
			}
			a.Table = uint8(v)
		}
	}
	if len(slots) > 2 {
		switch s := slots[2]; s {
		case "":
		case "ct":
			return a, p.errAt(col, "connection tracking (resubmit(,,ct)) is not supported")
		default:
			return a, p.errAt(col, "%s: unknown parameter of resubmit", s)
		}
	}
	if a.Port == rules.PortInPort && a.Table == rules.TableAll {
		return a, p.errAt(col, "at least one \"in_port\" or \"table\" must be specified on resubmit")
	}
	return a, nil
}

// resubmitString formats a resubmit to port (PortInPort keeps the packet's)
// and table (0xff: the current one) as Open vSwitch prints it:
// resubmit:P when only the port is given, else resubmit(P,T) with an empty
// slot for what is not. A port at or above OFPP_MAX that has no name
// prints as its 16-bit form, as Open vSwitch prints it.
func resubmitString(port uint32, table uint8) string {
	p := portString(port)
	if port >= rules.PortMax && p[0] >= '0' && p[0] <= '9' {
		p = strconv.FormatUint(uint64(port&0xffff), 10)
	}
	if port != rules.PortInPort && table == 0xff {
		return "resubmit:" + p
	}
	s := "resubmit("
	if port != rules.PortInPort {
		s += p
	}
	s += ","
	if table != 0xff {
		s += strconv.Itoa(int(table))
	}
	return s + ")"
}

package rules

import "fmt"

// setFieldRefusal returns the OFPET_BAD_ACTION code with which a set_field
// of f is refused, or -1 if the data plane performs it. in_port is where
// the frame came from and ip_frag describes how the frame was cut: Open
// vSwitch refuses both with OFPBAC_BAD_SET_ARGUMENT (not writable), as
// this does. ipv6_exthdr and tcp_flags describe the frame and are no field
// of it. eth_type and ip_proto, which Open vSwitch also refuses, are
// written: the rest of the frame is then read as the new type or protocol
// says. nw_ttl is written as mod_nw_ttl writes it; pkt_mark and tun_flags
// are pipeline metadata, as in Open vSwitch.
func setFieldRefusal(f Field) int {
	switch f {
	case FieldInPort, FieldIPFrag:
		return BadActionBadSetArg
	case FieldIPv6Exthdr, FieldTCPFlags:
		return BadActionBadSetType
	}
	if f >= numFields {
		return BadActionBadSetType
	}
	return -1
}

// Writable reports whether set_field may write f: whether the data plane
// performs it, so that CheckActions accepts it given its prerequisites.
func (f Field) Writable() bool { return setFieldRefusal(f) < 0 }

func badAction(code int, field, why string) error {
	return &Error{Type: ErrTypeBadAction, Code: code, Field: field, Why: why}
}

// CheckActions checks the actions of instructions ins of an entry whose
// match is m as Open vSwitch checks them (its ofpacts_check): the match,
// as the actions before change it (push_vlan, pop_vlan, set_field), must
// promise every set_field the prerequisites of its field, vlan_vid a VLAN
// tag, and set_nw_ttl and dec_nw_ttl an IP packet
// (OFPBAC_MATCH_INCONSISTENT); set_field must name a field the data plane
// writes (OFPBAC_BAD_SET_TYPE, or OFPBAC_BAD_SET_ARGUMENT for eth_type,
// ip_proto and in_port) with a value that fits it
// (OFPBAC_BAD_SET_ARGUMENT). The instructions are walked in order, the
// apply-actions before the write-actions, as Open vSwitch does.
func CheckActions(m *Match, ins []Instruction) error {
	// Most entries only output: they need no copy of m (576 bytes,
	// zeroed on the stack before it is written), which checkActionsFrom
	// makes at the first action that changes or tests the match.
	for i := range ins {
		for j := range ins[i].Actions {
			switch ins[i].Actions[j].Kind {
			case ActionOutput, ActionGroup, ActionSetQueue:
				continue
			}
			return checkActionsFrom(m, ins, i, j)
		}
	}
	return nil
}

// checkActionsFrom is CheckActions from action j of instruction i on,
// the first that is not an output, group or set_queue: the ones before
// it leave the match as m is.
func checkActionsFrom(m *Match, ins []Instruction, i, j int) error {
	t := *m // m as the actions so far change it
	for ; i < len(ins); i, j = i+1, 0 {
		for ; j < len(ins[i].Actions); j++ {
			a := &ins[i].Actions[j]
			switch a.Kind {
			case ActionOutput, ActionGroup, ActionSetQueue:
				continue
			}
			if err := checkAction(&t, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkAction checks a against t, the match as the actions before a left
// it, and applies a's effect to t.
func checkAction(t *Match, a *Action) error {
	switch a.Kind {
	case ActionPushVLAN:
		v, mk := t.Get(FieldVLANVID)
		t.Set(FieldVLANVID, v|VIDPresent, mk|VIDPresent)
	case ActionPopVLAN:
		t.Set(FieldVLANVID, 0, 0)
		t.Set(FieldVLANPCP, 0, 0)
	case ActionPushMPLS, ActionPushPBB:
		// The new outer header hides what the match says of the packet's
		// network and transport layers: only L2 stays settable.
		t.clearAbove()
		t.Set(FieldEthType, uint64(a.EthType), 0xffff)
	case ActionPopMPLS:
		t.clearAbove()
		t.Set(FieldMPLSLabel, 0, 0)
		t.Set(FieldMPLSTC, 0, 0)
		t.Set(FieldMPLSBoS, 0, 0)
		t.Set(FieldEthType, uint64(a.EthType), 0xffff)
	case ActionPopPBB:
		// What the I-TAG encapsulates is not known from the match.
		t.clearAbove()
		t.Set(FieldPBBISID, 0, 0)
		t.Set(FieldPBBUCA, 0, 0)
		t.Set(FieldEthType, 0, 0)
	case ActionLoad:
		// The row the load names or, of an xreg field, the 32-bit
		// register that holds the mask's bits (the xreg if across).
		r := LoadRow(a, 0)
		if r < 0 {
			return badAction(BadActionBadSetType, a.Field.String(), "load into a field that load does not write")
		}
		row := &SubfieldFields[r]
		if !row.Writable {
			return badAction(BadActionBadSetArg, row.Name, "destination field is not writable")
		}
		mask, val := a.Load128()
		full := [2]uint64{0, RowMask(r)}
		if row.Bits > 64 {
			full[0] = ^uint64(0)
		}
		if row.Pack != 0 {
			full[1] = ^uint64(0) >> (64 - uint(row.Bits))
		}
		if mask == [2]uint64{} || mask[0]&^full[0] != 0 || mask[1]&^full[1] != 0 || val[0]&^mask[0] != 0 || val[1]&^mask[1] != 0 {
			return badAction(BadActionBadSetArg, row.Name, fmt.Sprintf("value %#x%016x under mask %#x%016x does not fit the field's %d bits", val[0], val[1], mask[0], mask[1], row.Bits))
		}
		// The transport and ICMP fields: the match's protocol names
		// the field, and must be one that has it.
		p, pm := t.Get(FieldIPProto)
		if pm != 0xff {
			p = 0
		}
		s := Subfield{Field: a.Field, Bits: row.Bits, Row: uint8(LoadRow(a, p))}
		if err := checkSubfieldPrereqs(t, s); err != nil {
			return err
		}
		switch row.Pack {
		case PackTCI:
			// As Open vSwitch's check_SET_FIELD: the tag is there
			// after it as the value's CFI bit says, whatever the mask.
			t.Set(FieldVLANPCP, 0, 0)
			t.Set(FieldVLANVID, val[1]&VIDPresent, VIDPresent)
			return nil
		case PackTOS:
			t.setBits(FieldIPDSCP, val[1]>>2, mask[1]>>2)
			return nil
		}
		if v, mk := t.Get(FieldVLANVID); a.Field == FieldVLANVID && v&mk&VIDPresent == 0 {
			return badAction(BadActionMatchInconsistent, row.Name, "needs a VLAN tag")
		}
		t.setBits128(a.Field, val, mask)
	case ActionMove, ActionOutputReg:
		if a.Ext == nil {
			return badAction(BadActionBadArgument, "", "move or output:field without its subfields")
		}
		if err := CheckSubfield(a.Ext.Src, false); err != nil {
			return err
		}
		if err := checkSubfieldPrereqs(t, a.Ext.Src); err != nil {
			return err
		}
		if a.Kind == ActionOutputReg {
			break
		}
		d := a.Ext.Dst
		if err := CheckSubfield(d, true); err != nil {
			return err
		}
		if d.Bits != a.Ext.Src.Bits {
			return badAction(BadActionBadSetLen, SubfieldFields[d.Row].Name, "source and destination differ in width")
		}
		if err := checkSubfieldPrereqs(t, d); err != nil {
			return err
		}
		// What the destination's bits hold is no longer known (Open
		// vSwitch's check leaves the match as it is; of a packed row,
		// so does this).
		if SubfieldFields[d.Row].Pack == 0 {
			t.clearBits(d)
		}
	case ActionSetNwTTL, ActionDecNwTTL:
		if !t.Exact(FieldEthType, EthTypeIPv4) && !t.Exact(FieldEthType, EthTypeIPv6) {
			name := "set_nw_ttl"
			if a.Kind == ActionDecNwTTL {
				name = "dec_nw_ttl"
			}
			return badAction(BadActionMatchInconsistent, name, "needs eth_type=0x0800 or 0x86dd")
		}
	case ActionSetField:
		f := a.Field
		if c := setFieldRefusal(f); c >= 0 {
			return badAction(c, f.String(), "set_field of a field the switch does not write")
		}
		if f.Bits() <= 64 && a.Value[1]&^f.FullMask() != 0 {
			return badAction(BadActionBadSetArg, f.String(), fmt.Sprintf("value %#x does not fit in %d bits", a.Value[1], f.Bits()))
		}
		if f == FieldVLANVID {
			if v, mk := t.Get(FieldVLANVID); v&mk&VIDPresent == 0 {
				return badAction(BadActionMatchInconsistent, f.String(), "needs a VLAN tag")
			}
		} else if err := t.checkPrereqsOf(1 << f); err != nil {
			return badAction(BadActionMatchInconsistent, f.String(), err.(*Error).Why)
		}
		switch f {
		case FieldEthType:
			t.clearAbove() // the layers above are read anew
		case FieldIPProto:
			t.clearTransport()
		}
		if f.Bits() == 128 {
			t.Set128(f, a.Value[0], a.Value[1], ^uint64(0), ^uint64(0))
		} else {
			t.Set(f, a.Value[1], f.FullMask())
		}
	}
	return nil
}

// clearAbove wildcards every field above the Ethernet and VLAN headers, as
// a push or pop of an MPLS label or PBB I-TAG leaves them unknown.
func (m *Match) clearAbove() {
	for f := Field(0); f < numFields; f++ {
		switch f {
		case FieldInPort, FieldMetadata, FieldTunnelID, FieldEthDst, FieldEthSrc, FieldEthType,
			FieldVLANVID, FieldVLANPCP, FieldMPLSLabel, FieldMPLSTC, FieldMPLSBoS, FieldPBBISID, FieldPBBUCA,
			FieldTunFlags, FieldPktMark:
			continue
		}
		m.Clear(f)
	}
}

// clearTransport wildcards the transport fields, as a set_field of ip_proto
// leaves them unknown.
func (m *Match) clearTransport() {
	for _, f := range []Field{FieldL4Src, FieldL4Dst, FieldICMPType, FieldICMPCode, FieldTCPFlags, FieldNDTarget, FieldARPSHA, FieldARPTHA} {
		m.Clear(f)
	}
}

// ActionSetOrder is the order in which an action set executes (OpenFlow
// 1.3.5 §5.10), by kind: copy TTL inwards, pop, push-MPLS, push-PBB,
// push-VLAN, copy TTL outwards, decrement TTL, set, qos, group, output.
// The pops go from the outermost header in (VLAN, PBB, MPLS), undoing the
// pushes, which go from the innermost out; set_mpls_ttl and set_nw_ttl are
// sets, after set_field as in Open vSwitch. A resubmit (Open vSwitch's) is
// a final action after group and output, run only without them.
var ActionSetOrder = [...]ActionKind{ActionCopyTTLIn,
	ActionPopVLAN, ActionPopPBB, ActionPopMPLS,
	ActionPushMPLS, ActionPushPBB, ActionPushVLAN,
	ActionCopyTTLOut, ActionDecNwTTL, ActionDecMPLSTTL,
	ActionSetMPLSTTL, ActionSetField, ActionSetNwTTL, ActionSetQueue, ActionGroup, ActionOutput,
	ActionResubmit}

// SetOrMove reports whether k is a load or a move: an action set keeps
// every one written to it, in order, and runs them in set_field's place,
// as Open vSwitch keeps its set-or-move actions (ofpacts_execute_action_set).
func (k ActionKind) SetOrMove() bool { return k == ActionLoad || k == ActionMove }

// ExecActionSet returns what an action set written with acts, in order,
// executes, in the order it executes it: the last action of each kind
// (of set_field, the last for each field, where the first one stood;
// every load and move, in set_field's place and in the order written), in
// ActionSetOrder; a group takes precedence over an output, and either over
// a resubmit (Open vSwitch's ofpacts_execute_action_set); kinds an action
// set cannot hold (note, exit, controller) are left out. Group buckets run
// this way (OpenFlow 1.3.5 §5.6: "The actions in a bucket are always
// applied as an action set").
func ExecActionSet(acts []Action) []Action {
	var kept []Action
next:
	for _, a := range acts {
		for i := range kept {
			if b := &kept[i]; b.Kind == a.Kind && (a.Kind != ActionSetField || b.Field == a.Field) && !a.Kind.SetOrMove() {
				*b = a
				continue next
			}
		}
		kept = append(kept, a)
	}
	var out []Action
	grouped, final := false, false
	for _, kind := range ActionSetOrder {
		if kind == ActionOutput && grouped || kind == ActionResubmit && final {
			continue
		}
		for _, a := range kept {
			if a.Kind == kind || kind == ActionSetField && a.Kind.SetOrMove() {
				grouped = grouped || kind == ActionGroup
				final = final || kind == ActionGroup || kind == ActionOutput
				out = append(out, a)
			}
		}
	}
	return out
}

package ofrules

import (
	"slices"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Encoder encodes rules.Updates as FLOW_MODs for a client that pushes runs
// of them, keeping what makes the next one cheap to encode: the OXM list
// of the last mask (a plan), the translation of the last instruction list,
// and the wire form of the last FLOW_MOD encoded in full, of which a flow
// with the same mask, ip_proto, eth_type and instructions is written as a
// patched copy (see doc.go, "Push encoding"). Every FLOW_MOD is byte for
// byte what WireFlowMod and openflow.FlowMod.AppendBinary give.
//
// The zero Encoder is ready to use. An Encoder is not safe for concurrent
// use.
type Encoder struct {
	// TLV, if set before the first Encode, is the switch's TLV table:
	// the option space bytes a match tests and the loads of a set_field
	// of tun_metadataN go out as the NXM_NX_TUN_METADATA<N> fields it
	// maps there, of the mapped length, as WireMatchTLV and FlowStatsTLV
	// write them (and as ovs-ofctl sends them with the same table). Nil
	// leaves the option space out, as WireFlowMod does. A flow that tests
	// option bytes is encoded in full: the template holds the fields of
	// the match plan alone.
	TLV *TLVTable

	fm   openflow.FlowMod // the full encoding's, reused
	ins  wireInsCache
	tmpl flowModTemplate
}

// Encode appends the FLOW_MOD of u, of this version and with this xid, to
// dst and returns the extended buffer (dst as it was, on error).
func (e *Encoder) Encode(dst []byte, u *rules.Update, version uint8, xid uint32) ([]byte, error) {
	if t := &e.tmpl; t.fits(u, version) {
		n := t.wire.Len()
		dst = slices.Grow(dst, n)
		t.write(dst[len(dst):len(dst)+n], u, xid)
		return dst[:len(dst)+n], nil
	}
	encodeUpdate(u, &e.fm, &e.ins, e.TLV)
	e.fm.Version, e.fm.XID = version, xid
	start := len(dst)
	dst, err := e.fm.AppendBinary(dst)
	if err != nil {
		return dst, err
	}
	e.tmpl.learn(dst[start:], u, &e.ins.plan, version)
	return dst, nil
}

// WireFlowMod fills fm with the FLOW_MOD of u, header left zero. It
// reuses fm's match slice, so that a caller that encodes many allocates
// little per flow.
func WireFlowMod(fm *openflow.FlowMod, u *rules.Update) { encodeUpdate(u, fm, nil, nil) }

// wireInsCache is the last instruction list an Encoder translated, with
// the ip_proto and eth_type its set_field actions were translated for.
type wireInsCache struct {
	ins         keptInstructions
	proto, eth  uint64
	out         []openflow.Instruction
	initialized bool
	plan        matchPlan // of the last match
}

// keptInstructions is a copy of an instruction list, in memory of its own.
// An Encoder compares each next flow's instructions with those of the
// flow its template and translation came from, and that flow's memory is
// the caller's: a client that parses a file a chunk at a time into the
// same memory (ofctl.ModsReader.NextInto) has overwritten it with another
// chunk's instructions by then, which would make a flow with other
// actions look the same and go out with the template's. Copying costs
// only the flows encoded in full, the first of each run.
type keptInstructions struct {
	ins  []rules.Instruction
	acts []rules.Action
}

// keep makes k a copy of ins and returns it.
func (k *keptInstructions) keep(ins []rules.Instruction) []rules.Instruction {
	n := 0
	for i := range ins {
		n += len(ins[i].Actions)
	}
	k.ins = append(k.ins[:0], ins...)
	k.acts = slices.Grow(k.acts[:0], n)
	for i := range k.ins {
		if a := k.ins[i].Actions; a != nil {
			off := len(k.acts)
			k.acts = append(k.acts, a...)
			k.ins[i].Actions = k.acts[off:len(k.acts):len(k.acts)]
		}
	}
	return k.ins
}

// encodeUpdate is WireFlowMod; with a cache, flows whose instructions
// equal the previous flow's share their translation (it is only read).
// With a TLV table t the option space goes out as the tun_metadata
// fields t maps there, after the other fields (WireMatchTLV), and
// set_fields of them as FlowStatsTLV writes them.
func encodeUpdate(u *rules.Update, fm *openflow.FlowMod, c *wireInsCache, t *TLVTable) {
	var fields []openflow.OXM
	if c != nil {
		fields = appendMatchPlanned(fm.Match.Fields[:0], &u.Match, &c.plan)
	} else {
		fields = appendMatch(fm.Match.Fields[:0], &u.Match)
	}
	fields = appendTunMetadata(fields, &u.Match, t)
	var ins []openflow.Instruction
	if c != nil {
		proto, _ := u.Match.Get(rules.FieldIPProto)
		eth, _ := u.Match.Get(rules.FieldEthType)
		if c.initialized && c.proto == proto && c.eth == eth && sameInstructions(c.ins.ins, u.Instructions) {
			ins = c.out
		} else {
			ins = instructionsToWire(u.Instructions, &u.Match, t)
			c.ins.keep(u.Instructions)
			c.proto, c.eth, c.out, c.initialized = proto, eth, ins, true
		}
	} else {
		ins = instructionsToWire(u.Instructions, &u.Match, t)
	}
	*fm = openflow.FlowMod{
		Cookie: u.Cookie, CookieMask: u.CookieMask, TableID: u.Table,
		Command: openflow.FlowModCommand(u.Command), IdleTimeout: u.IdleTimeout,
		HardTimeout: u.HardTimeout, Priority: u.Priority, BufferID: 0xffffffff,
		OutPort: u.OutPort, OutGroup: u.OutGroup, Flags: uint16(u.Flags), Importance: u.Importance,
		Match: openflow.Match{Fields: fields}, Instructions: ins,
	}
	if fm.OutPort == 0 {
		fm.OutPort = openflow.PortAny
	}
	if fm.OutGroup == 0 {
		fm.OutGroup = openflow.GroupAny
	}
}

// sameInstructions reports whether a and b say the same, field by field.
func sameInstructions(a, b []rules.Instruction) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Kind != y.Kind || x.Table != y.Table || x.Metadata != y.Metadata ||
			x.MetadataMask != y.MetadataMask || x.Meter != y.Meter || len(x.Actions) != len(y.Actions) {
			return false
		}
		for j := range x.Actions {
			p, q := &x.Actions[j], &y.Actions[j]
			if p.Ext == nil && q.Ext == nil {
				// Equal, without its copies of both.
				if *p != *q {
					return false
				}
				continue
			}
			if !p.Equal(q) {
				return false
			}
		}
	}
	return true
}

// flowModTemplate is the wire form of the last FLOW_MOD the Encoder encoded
// in full, and what a flow must share with it to be written as a patched
// copy: the match plan's shape (mask, ip_proto, eth_type, which decide the
// OXMs, their order and which are masked), the instructions and the
// version.
type flowModTemplate struct {
	ok         bool
	version    uint8
	mask       rules.Key
	proto, eth uint64
	ins        keptInstructions
	wire       openflow.FlowModTemplate
	fields     []tmplField // where each of the plan's fields lies in the message
}

// tmplField is one OXM of a template: the rules field, and the offset of
// its value in the message and its size.
type tmplField struct {
	f         rules.Field
	off, size int
}

// learn makes msg, the full encoding of u with version v along plan (the
// plan encodeUpdate used for it), the template. It keeps no template when
// msg's OXMs do not line up with the plan's fields.
func (t *flowModTemplate) learn(msg []byte, u *rules.Update, plan *matchPlan, v uint8) {
	t.ok = false
	if !plan.ok || t.wire.Reset(msg) != nil {
		return
	}
	oxms := t.wire.OXMs()
	if len(oxms) != len(plan.fields) {
		return
	}
	t.fields = t.fields[:0]
	for i, pf := range plan.fields {
		h := oxms[i].Header
		size := h.Len()
		if h.HasMask() {
			size /= 2
		}
		if h.Field() != pf.of || h.HasMask() == pf.full || size != pf.of.Size() {
			return
		}
		if pf.f == rules.FieldEthType || pf.f == rules.FieldIPProto {
			// fits asks for u's to be the template's: its bytes stand.
			continue
		}
		t.fields = append(t.fields, tmplField{f: pf.f, off: oxms[i].Offset, size: size})
	}
	t.version, t.mask, t.proto, t.eth = v, plan.mask, plan.proto, plan.eth
	t.ins.keep(u.Instructions)
	t.ok = true
}

// fits reports whether u, sent as version v, can be written as a patched
// copy of the template.
func (t *flowModTemplate) fits(u *rules.Update, v uint8) bool {
	if !t.ok || t.version != v || t.mask != u.Match.Mask {
		return false
	}
	proto, _ := u.Match.Get(rules.FieldIPProto)
	eth, _ := u.Match.Get(rules.FieldEthType)
	return t.proto == proto && t.eth == eth && sameInstructions(t.ins.ins, u.Instructions)
}

// write writes the FLOW_MOD of u with xid into b, which is the template's
// length: the template with u's fields and values over it, as
// encodeUpdate and FlowMod.AppendBinary would encode them.
func (t *flowModTemplate) write(b []byte, u *rules.Update, xid uint32) {
	v := t.wire.Copy(b)
	v.SetXID(xid)
	v.SetCookie(u.Cookie)
	v.SetCookieMask(u.CookieMask)
	v.SetTableID(u.Table)
	v.SetCommand(openflow.FlowModCommand(u.Command))
	v.SetIdleTimeout(u.IdleTimeout)
	v.SetHardTimeout(u.HardTimeout)
	v.SetPriority(u.Priority)
	outPort, outGroup := u.OutPort, u.OutGroup
	if outPort == 0 {
		outPort = openflow.PortAny
	}
	if outGroup == 0 {
		outGroup = openflow.GroupAny
	}
	v.SetOutPort(outPort)
	v.SetOutGroup(outGroup)
	v.SetFlags(uint16(u.Flags))
	v.SetImportance(u.Importance)
	// The masks are the template's: fits asked for u's to be the same.
	for i := range t.fields {
		tf := &t.fields[i]
		v := b[tf.off : tf.off+tf.size]
		if tf.size == 16 {
			vhi, vlo := u.Match.Key.Get128(tf.f)
			putValue(v, vhi, vlo)
			continue
		}
		putValue(v, 0, u.Match.Key.Get(tf.f))
	}
}

package controller

// The push client's fast path. A flow file is mostly runs of flows that
// differ only in their values: the same fields with the same masks, the
// same instructions. For such a run the pusher encodes the first FLOW_MOD
// in full (openflow.FlowMod.AppendBinary) and keeps its bytes as a
// template; each next flow of the run is a copy of the template with the
// fixed part's fields and the OXM values (and masks) written over it, with
// no openflow.OXM or openflow.Instruction built at all. TestPushTemplate
// checks it against the full encoding, byte for byte.

import (
	"encoding/binary"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Offsets in an ofp_flow_mod (OpenFlow 1.3.5 §7.3.4.1), after the
// ofp_header's xid at 4.
const (
	fmCookie     = 8
	fmCookieMask = 16
	fmTableID    = 24
	fmCommand    = 25
	fmIdle       = 26
	fmHard       = 28
	fmPriority   = 30
	fmOutPort    = 36
	fmOutGroup   = 40
	fmFlags      = 44
	fmImportance = 46 // OpenFlow 1.4; padding in 1.3
)

// flowModTemplate is the wire form of the last FLOW_MOD the pusher encoded
// in full, and what a flow must share with it to be written as a patched
// copy: the match plan's shape (mask, ip_proto, eth_type, which decide the
// OXMs, their order and which are masked), the instructions and the
// version.
type flowModTemplate struct {
	ok         bool
	version    uint8
	mask       rules.Key
	proto, eth uint64
	ins        []rules.Instruction
	msg        []byte
	fields     []tmplField // where each of the plan's fields lies in msg
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
	if !plan.ok || len(msg) < flowModMinLen {
		return
	}
	t.msg = append(t.msg[:0], msg...)
	t.fields = t.fields[:0]
	it := openflow.FlowModView(msg).OXMs()
	off := flowModMatch + 4 // of the OXM that it.Next returns next
	for _, pf := range plan.fields {
		h, payload, ok := it.Next()
		if !ok {
			return
		}
		masked, size := h&(1<<8) != 0, len(payload)
		if masked {
			size /= 2
		}
		if openflow.OXMField(h>>9&0x7f) != pf.of || masked == pf.full || size != pf.of.Size() {
			return
		}
		t.fields = append(t.fields, tmplField{f: pf.f, off: off + 4, size: size})
		off += 4 + len(payload)
	}
	if len(it) != 0 {
		return
	}
	t.version, t.mask, t.proto, t.eth = v, plan.mask, plan.proto, plan.eth
	t.ins = u.Instructions
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
	return t.proto == proto && t.eth == eth && sameInstructions(t.ins, u.Instructions)
}

// write writes the FLOW_MOD of u with xid into b, which is len(t.msg)
// bytes: the template with u's fields and values over it, as
// encodeUpdate and FlowMod.AppendBinary would encode them.
func (t *flowModTemplate) write(b []byte, u *rules.Update, xid uint32) {
	copy(b, t.msg)
	binary.BigEndian.PutUint32(b[4:], xid)
	binary.BigEndian.PutUint64(b[fmCookie:], u.Cookie)
	binary.BigEndian.PutUint64(b[fmCookieMask:], u.CookieMask)
	b[fmTableID], b[fmCommand] = u.Table, uint8(u.Command)
	binary.BigEndian.PutUint16(b[fmIdle:], u.IdleTimeout)
	binary.BigEndian.PutUint16(b[fmHard:], u.HardTimeout)
	binary.BigEndian.PutUint16(b[fmPriority:], u.Priority)
	outPort, outGroup := u.OutPort, u.OutGroup
	if outPort == 0 {
		outPort = openflow.PortAny
	}
	if outGroup == 0 {
		outGroup = openflow.GroupAny
	}
	binary.BigEndian.PutUint32(b[fmOutPort:], outPort)
	binary.BigEndian.PutUint32(b[fmOutGroup:], outGroup)
	binary.BigEndian.PutUint16(b[fmFlags:], uint16(u.Flags))
	if t.version >= openflow.Version14 {
		binary.BigEndian.PutUint16(b[fmImportance:], u.Importance)
	}
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

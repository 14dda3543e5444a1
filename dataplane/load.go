package dataplane

import "github.com/ofswitch/ofswitch/rules"

// loadBits writes bits mk of field f of frame j with those of v. Pipeline
// metadata (rules.MetaField: metadata, tunnel_id, pkt_mark, registers)
// lives in the key only; a field of the frame is read from the key, which
// the rewrites before keep current, merged and written whole through
// setField, which fixes the checksums.
func (w *Worker) loadBits(j int, f rules.Field, mk, v uint64) {
	k := &w.keys[j]
	nv := k.Get(f)&^mk | v&mk
	if rules.MetaField(f) {
		k.Set(f, nv)
		w.stats.Rewrites++
		return
	}
	sf := rules.Action{Kind: rules.ActionSetField, Field: f}
	sf.Value[1] = nv
	if w.setField(j, &sf) {
		w.stats.Rewrites++
	} else {
		w.stats.Skipped++
	}
}

// move copies the bits x.Src of frame j to its bits x.Dst, reading the
// source as the actions before left it.
func (w *Worker) move(j int, x *rules.ActionExt) {
	v := w.subfield(j, x.Src)
	w.loadBits(j, x.Dst.Field, x.Dst.Mask(), v<<x.Dst.Ofs)
}

// subfield reads bits s of frame j's key, in_port as its 16-bit NXM form.
func (w *Worker) subfield(j int, s rules.Subfield) uint64 {
	k := &w.keys[j]
	if s.Field == rules.FieldInPort {
		p := k.Get(rules.FieldInPort)
		return uint64(uint16(p)) >> s.Ofs & (^uint64(0) >> (64 - uint(s.Bits)))
	}
	return k.GetBits(s)
}

// outputReg outputs frame j to the port numbered by bits a.Ext.Src as
// Open vSwitch does (xlate_output_reg_action): a number above 0xffff is
// out of range and sends nothing; the others are 16-bit port numbers,
// those from 0xff00 up the reserved ports (0xfff8 IN_PORT, 0xfffd
// CONTROLLER...). Port 0, OFPP_NONE (0xffff) or one the switch lacks
// sends nothing.
func (w *Worker) outputReg(j int, a *rules.Action, r *rules.Rule, t uint8) {
	p := w.subfield(j, a.Ext.Src)
	if p > 0xffff || p == 0 || p == 0xffff {
		w.stats.Skipped++
		return
	}
	if p >= 0xff00 {
		p |= 0xffff0000
	}
	out := rules.Action{Kind: rules.ActionOutput, Port: uint32(p), MaxLen: a.MaxLen}
	w.output(j, &out, r, t)
}

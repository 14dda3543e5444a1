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

// loadWide is loadBits of a 128-bit field (an IPv6 address), mask mk and
// value v high word first: the address is merged in the key and written
// whole, as Open vSwitch writes a masked set_field of it.
func (w *Worker) loadWide(j int, f rules.Field, mk, v [2]uint64) {
	k := &w.keys[j]
	hi, lo := k.Get128(f)
	hi, lo = hi&^mk[0]|v[0]&mk[0], lo&^mk[1]|v[1]&mk[1]
	if rules.MetaField(f) {
		k.Set128(f, hi, lo)
		w.stats.Rewrites++
		return
	}
	sf := rules.Action{Kind: rules.ActionSetField, Field: f, Value: [2]uint64{hi, lo}}
	if w.setField(j, &sf) {
		w.stats.Rewrites++
	} else {
		w.stats.Skipped++
	}
}

// runLoad runs ActionLoad a on frame j.
// A load whose Ext carries only its tunnel metadata naming (a word of the
// option space, rules.ActionExt.TunMetadata) is a 64-bit load as one
// without Ext, as Load128 reads it.
func (w *Worker) runLoad(j int, a *rules.Action) {
	if a.Ext == nil || (a.Field.Bits() <= 64 && a.Ext.LoadRow == 0) {
		w.loadBits(j, a.Field, a.Value[0], a.Value[1])
		return
	}
	mk, v := a.Load128()
	if a.Ext.LoadRow != 0 {
		w.loadPacked(j, rules.SubfieldFields[a.Ext.LoadRow-1].Pack, mk[1], v[1])
		return
	}
	w.loadWide(j, a.Field, mk, v)
}

// loadPacked writes bits mk of the packed field p (rules.PackTCI,
// PackTOS) of frame j with those of v, as Open vSwitch sets and commits
// vlan_tci and nw_tos: a TCI with the CFI bit pushes a tag onto an
// untagged frame (TPID 0x8100) and sets the tag's id and priority, one
// without it pops the tag (an untagged frame stays untagged, the other
// bits dropped); the TOS byte's DSCP bits are written, its ECN bits
// are not.
func (w *Worker) loadPacked(j int, p uint8, mk, v uint64) {
	k := &w.keys[j]
	nv := k.Packed(p)&^mk | v&mk
	ok := false
	switch p {
	case rules.PackTCI:
		had := k.Get(rules.FieldVLANVID)&rules.VIDPresent != 0
		switch {
		case nv&rules.VIDPresent == 0:
			ok = had && w.popVLAN(j)
		case !had && !w.pushVLAN(j, EtherTypeVLAN):
		default:
			vid := rules.Action{Kind: rules.ActionSetField, Field: rules.FieldVLANVID, Value: [2]uint64{0, nv & 0x0fff}}
			pcp := rules.Action{Kind: rules.ActionSetField, Field: rules.FieldVLANPCP, Value: [2]uint64{0, nv >> 13}}
			ok = w.setField(j, &vid) && w.setField(j, &pcp)
		}
	case rules.PackTOS:
		a := rules.Action{Kind: rules.ActionSetField, Field: rules.FieldIPDSCP, Value: [2]uint64{0, nv >> 2 & 0x3f}}
		ok = w.setField(j, &a)
	}
	if ok {
		w.stats.Rewrites++
	} else {
		w.stats.Skipped++
	}
}

// move copies the bits x.Src of frame j to its bits x.Dst, reading the
// source as the actions before left it. A move from or to a 128-bit
// field carries up to 128 bits through the wide path.
func (w *Worker) move(j int, x *rules.ActionExt) {
	if !x.Src.Wide() && !x.Dst.Wide() {
		v := w.subfield(j, x.Src)
		if p := rules.SubfieldFields[x.Dst.Row].Pack; p != 0 {
			w.loadPacked(j, p, x.Dst.Mask(), v<<x.Dst.Ofs)
			return
		}
		w.loadBits(j, x.Dst.Field, x.Dst.Mask(), v<<x.Dst.Ofs)
		return
	}
	var hi, lo uint64
	if x.Src.Wide() {
		hi, lo = w.keys[j].GetBits128(x.Src)
	} else {
		lo = w.subfield(j, x.Src)
	}
	hi, lo = x.Dst.Place128(hi, lo)
	if !x.Dst.Wide() {
		if p := rules.SubfieldFields[x.Dst.Row].Pack; p != 0 {
			w.loadPacked(j, p, x.Dst.Mask(), lo)
			return
		}
		w.loadBits(j, x.Dst.Field, x.Dst.Mask(), lo)
		return
	}
	mh, ml := x.Dst.Mask128()
	w.loadWide(j, x.Dst.Field, [2]uint64{mh, ml}, [2]uint64{hi, lo})
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

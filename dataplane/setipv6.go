package dataplane

import "github.com/ofswitch/ofswitch/rules"

// setIPv6 writes the flow label or the neighbor discovery target of frame
// j and of its key: the flow label is in no checksum; the target is under
// the ICMPv6 checksum, fixed word by word.
func (w *Worker) setIPv6(j int, a *rules.Action) bool {
	fs := &w.pkt[j]
	d := fs.data
	if fs.ethType != EtherTypeIPv6 || !has(d, fs.l3, 40) {
		return false
	}
	k := &w.keys[j]
	if a.Field == rules.FieldIPv6FLabel {
		d = w.writable(j)
		v := uint32(a.Value[1] & 0xfffff)
		d[fs.l3+1] = d[fs.l3+1]&0xf0 | byte(v>>16)
		d[fs.l3+2], d[fs.l3+3] = byte(v>>8), byte(v)
		k.Set(rules.FieldIPv6FLabel, uint64(v))
		return true
	}
	if !fs.isND(d) {
		return false
	}
	d = w.writable(j)
	sum := fs.l4 + 2
	for i, half := range a.Value {
		for s := 0; s < 4; s++ {
			replace16(d, fs.l4+8+8*i+2*s, uint16(half>>(48-16*s)), sum)
		}
	}
	k.Set128(rules.FieldNDTarget, a.Value[0], a.Value[1])
	return true
}

// isND reports whether frame d is an ICMPv6 neighbor solicitation or
// advertisement (code 0) with room for its target address.
func (fs *frameState) isND(d []byte) bool {
	if fs.proto != ProtoICMPv6 || !has(d, fs.l4, 24) {
		return false
	}
	t := d[fs.l4]
	return (t == 135 || t == 136) && d[fs.l4+1] == 0
}

// setNDOption writes the source (FieldARPSHA, of a solicitation) or
// target (FieldARPTHA, of an advertisement) link-layer address option of
// the neighbor discovery message in frame j, fixing the ICMPv6 checksum.
// As Open vSwitch does, it rewrites an option the message has and adds
// none.
func (w *Worker) setNDOption(j int, a *rules.Action) bool {
	fs := &w.pkt[j]
	d := fs.data
	if !fs.isND(d) {
		return false
	}
	want, typ := uint8(1), uint8(135)
	if a.Field == rules.FieldARPTHA {
		want, typ = 2, 136
	}
	if d[fs.l4] != typ {
		return false
	}
	off := -1
	for o := fs.l4 + 24; o+8 <= len(d); {
		n := int(d[o+1]) * 8
		if n == 0 {
			return false
		}
		if d[o] == want && n == 8 {
			off = o + 2
			break
		}
		o += n
	}
	if off < 0 {
		return false
	}
	d = w.writable(j)
	v := a.Value[1]
	sum := fs.l4 + 2
	for s := 0; s < 3; s++ {
		replace16(d, off+2*s, uint16(v>>(32-16*s)), sum)
	}
	w.keys[j].Set(a.Field, v)
	return true
}

// setTTL sets the IPv4 TTL (fixing the header checksum) or the IPv6 hop
// limit of frame j (OFPAT_SET_NW_TTL).
func (w *Worker) setTTL(j int, ttl uint8) bool {
	fs := &w.pkt[j]
	d := fs.data
	switch {
	case fs.ethType == EtherTypeIPv4 && has(d, fs.l3, 20):
		d = w.writable(j)
		replace16(d, fs.l3+8, uint16(ttl)<<8|uint16(d[fs.l3+9]), fs.l3+10)
	case fs.ethType == EtherTypeIPv6 && has(d, fs.l3, 40):
		d = w.writable(j)
		d[fs.l3+7] = ttl
	default:
		return false
	}
	w.keys[j].Set(rules.FieldNwTTL, uint64(ttl)) // for a later table matching nw_ttl
	return true
}

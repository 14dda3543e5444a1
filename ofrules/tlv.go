package ofrules

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// OptionSpace is the number of bytes of tunnel option space the flow
// tables hold (rules.Key words 32-35). Open vSwitch holds 256
// (TUN_METADATA_TOT_OPT_SIZE); a TLV table whose mappings need more than
// OptionSpace bytes is refused with NXTTMFC_TABLE_FULL, which Open
// vSwitch answers only beyond its 256.
const OptionSpace = 32

// optionUnits is OptionSpace in the 4-byte units mappings are allocated
// in.
const optionUnits = OptionSpace / 4

// TLVChunk is one piece of a mapped field's place in the option space:
// Len bytes at byte Offset. Both are multiples of 4.
type TLVChunk struct {
	Offset, Len uint8
}

// TLVMapping is one mapping of a TLV table: the tunnel option of class
// Class and type Type, Len bytes, is the field tun_metadata<index>. Its
// bytes are Chunks[:NChunks] in the option space, in order: a field's
// first bytes are in the first chunk. Open vSwitch's allocator
// (tun_metadata_alloc_chain) splits a field over several free runs when
// no run is long enough, and so does this one.
type TLVMapping struct {
	Valid   bool
	Class   uint16
	Type    uint8
	Len     uint8
	NChunks uint8
	Chunks  [optionUnits]TLVChunk
}

// TLVTable is one version of a switch's TLV table: which tunnel option
// each tun_metadataN field is and where in the option space its bytes
// are. A TLVTable is never changed once published (TLVTables.Load); a
// change makes a new one.
type TLVTable struct {
	Fields [openflow.TLVMaxFields]TLVMapping
	used   [optionUnits]bool // 4-byte units of the option space allocated
}

// NewTLVTable returns the table of maps, a switch's TLV table as its
// NXT_TLV_TABLE_REPLY lists them, for a client that encodes flows for
// that switch (Encoder.TLV) and parses their text
// (rules.TunMetadataLayout): each field of the mapped length, placed in
// the option space as this switch would place it. The places are the
// client's own (only the lengths go on the wire), so that a switch with
// more option space, such as Open vSwitch's 256 bytes, may map fields
// that do not all fit in OptionSpace: those that do not, and invalid
// maps, are left out (unmapped), in index order. It returns the table
// and the indexes left out.
func NewTLVTable(maps []openflow.TLVMap) (*TLVTable, []int) {
	t := new(TLVTable)
	ms := slices.Clone(maps)
	slices.SortStableFunc(ms, func(a, b openflow.TLVMap) int { return int(a.Index) - int(b.Index) })
	var left []int
	for _, mp := range ms {
		if mp.Check() != nil {
			left = append(left, int(mp.Index))
			continue
		}
		if t.add(int(mp.Index), mp.OptionClass, mp.OptionType, mp.OptionLen) != nil {
			left = append(left, int(mp.Index))
		}
	}
	return t, left
}

// Mapping returns the mapping of tun_metadata<idx> and whether there is
// one. A nil table maps nothing.
func (t *TLVTable) Mapping(idx int) (*TLVMapping, bool) {
	if t == nil || idx < 0 || idx >= len(t.Fields) || !t.Fields[idx].Valid {
		return nil, false
	}
	return &t.Fields[idx], true
}

// Maps returns the mappings in index order, as NXT_TLV_TABLE_REPLY lists
// them.
func (t *TLVTable) Maps() []openflow.TLVMap {
	var out []openflow.TLVMap
	if t == nil {
		return out
	}
	for i := range t.Fields {
		if f := &t.Fields[i]; f.Valid {
			out = append(out, openflow.TLVMap{OptionClass: f.Class, OptionType: f.Type, OptionLen: f.Len, Index: uint16(i)})
		}
	}
	return out
}

// Mask returns, for each byte of the option space, whether
// tun_metadata<idx> holds it (all false if it is not mapped).
func (t *TLVTable) Mask(idx int) (m [OptionSpace]bool) {
	f, ok := t.Mapping(idx)
	if !ok {
		return m
	}
	for _, c := range f.Chunks[:f.NChunks] {
		for i := c.Offset; i < c.Offset+c.Len; i++ {
			m[i] = true
		}
	}
	return m
}

// add maps idx to the option (class, typ) of len bytes, as Open
// vSwitch's tun_metadata_add_entry: ALREADY_MAPPED, DUP_ENTRY, then
// TABLE_FULL.
func (t *TLVTable) add(idx int, class uint16, typ, length uint8) error {
	f := &t.Fields[idx]
	if f.Valid {
		return openflow.ErrTLVAlreadyMapped
	}
	for i := range t.Fields {
		if o := &t.Fields[i]; o.Valid && o.Class == class && o.Type == typ {
			return openflow.ErrTLVDupEntry
		}
	}
	*f = TLVMapping{Valid: true, Class: class, Type: typ, Len: length}
	for left := int(length) / 4; left > 0; {
		start, n := t.allocChunk(left)
		if n == 0 {
			t.del(idx)
			return openflow.ErrTLVTableFull
		}
		for u := start; u < start+n; u++ {
			t.used[u] = true
		}
		f.Chunks[f.NChunks] = TLVChunk{Offset: uint8(start * 4), Len: uint8(n * 4)}
		f.NChunks++
		left -= n
	}
	return nil
}

// allocChunk finds room for want units as tun_metadata_alloc_chain does:
// the first free run of want units, else the longest free run (the first
// of the longest). n is 0 when no unit is free.
func (t *TLVTable) allocChunk(want int) (start, n int) {
	bestStart, bestLen := 0, 0
	for u := 0; u < optionUnits; {
		if t.used[u] {
			u++
			continue
		}
		e := u
		for e < optionUnits && e-u < want && !t.used[e] {
			e++
		}
		if e-u == want {
			return u, want
		}
		if e-u > bestLen {
			bestStart, bestLen = u, e-u
		}
		u = e + 1
	}
	return bestStart, bestLen
}

// del unmaps idx and frees its bytes; an unmapped idx is left alone.
func (t *TLVTable) del(idx int) {
	f := &t.Fields[idx]
	if !f.Valid {
		return
	}
	for _, c := range f.Chunks[:f.NChunks] {
		for u := int(c.Offset) / 4; u < int(c.Offset+c.Len)/4; u++ {
			t.used[u] = false
		}
	}
	*f = TLVMapping{}
}

// TLVTables is a switch's TLV table, shared by all its connections as
// Open vSwitch's is: Load returns the current version without locking,
// for translating matches and writing them back; Mod changes it under a
// mutex and publishes a new version.
//
// The zero TLVTables maps nothing and is ready for use.
type TLVTables struct {
	mu  sync.Mutex
	cur atomic.Pointer[TLVTable]
}

// Load returns the current table (nil when nothing was ever mapped, which
// maps nothing).
func (ts *TLVTables) Load() *TLVTable {
	if ts == nil {
		return nil
	}
	return ts.cur.Load()
}

// Mod applies a TLV table mod as Open vSwitch does, all or nothing: the
// message's own errors (openflow.TLVTableMod.Check), then for an ADD the
// mappings in order (ALREADY_MAPPED, DUP_ENTRY, TABLE_FULL); a DELETE
// ignores unmapped indexes. When a DELETE or CLEAR removes mappings,
// inUse, if not nil, is given the current table and the indexes removed
// and says whether a flow uses one of them: then the mod is refused with
// NXTTMFC_INVALID_TLV_DEL. It is called under the table's lock, so no
// other mod interleaves.
func (ts *TLVTables) Mod(m *openflow.TLVTableMod, inUse func(old *TLVTable, removed []int) bool) error {
	if err := m.Check(); err != nil {
		return err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	old := ts.cur.Load()
	next := new(TLVTable)
	if old != nil && m.Command != openflow.TLVClear {
		*next = *old
	}
	var removed []int
	switch m.Command {
	case openflow.TLVAdd:
		for _, mp := range m.Maps {
			if err := next.add(int(mp.Index), mp.OptionClass, mp.OptionType, mp.OptionLen); err != nil {
				return err
			}
		}
	case openflow.TLVDelete:
		for _, mp := range m.Maps {
			if next.Fields[mp.Index].Valid {
				removed = append(removed, int(mp.Index))
			}
			next.del(int(mp.Index))
		}
	case openflow.TLVClear:
		if old != nil {
			for i := range old.Fields {
				if old.Fields[i].Valid {
					removed = append(removed, i)
				}
			}
		}
	}
	if len(removed) > 0 && inUse != nil && inUse(old, removed) {
		return openflow.ErrTLVInvalidDel
	}
	ts.cur.Store(next)
	return nil
}

// nxmTunMetadata0 is NXM_NX_TUN_METADATA0's field number in class
// 0x0001: tun_metadataN is field 40+N (Open vSwitch's meta-flow.h).
const nxmTunMetadata0 = 40

// tunMetadataIndex returns N if o is NXM_NX_TUN_METADATA<N>.
func tunMetadataIndex(o *openflow.OXM) (int, bool) {
	if o.Class != openflow.OXMClassNXM1 || o.Field < nxmTunMetadata0 || o.Field >= nxmTunMetadata0+openflow.TLVMaxFields {
		return 0, false
	}
	return int(o.Field - nxmTunMetadata0), true
}

// optionSpace reads the option space of k.
func optionSpace(k *rules.Key) (b [OptionSpace]byte) {
	for i := range OptionSpace / 8 {
		binary.BigEndian.PutUint64(b[8*i:], k.Get(rules.FieldTunOpts0+rules.Field(i)))
	}
	return b
}

// setOptionSpace writes b into the option space of k.
func setOptionSpace(k *rules.Key, b *[OptionSpace]byte) {
	for i := range OptionSpace / 8 {
		k.Set(rules.FieldTunOpts0+rules.Field(i), binary.BigEndian.Uint64(b[8*i:]))
	}
}

// gather copies the bytes of mapping f out of the option space sp, in
// the field's order.
func (f *TLVMapping) gather(dst []byte, sp *[OptionSpace]byte) []byte {
	for _, c := range f.Chunks[:f.NChunks] {
		dst = append(dst, sp[c.Offset:c.Offset+c.Len]...)
	}
	return dst
}

// scatter copies b, the field's f.Len bytes, into its places in sp.
func (f *TLVMapping) scatter(sp *[OptionSpace]byte, b []byte) {
	for _, c := range f.Chunks[:f.NChunks] {
		b = b[copy(sp[c.Offset:c.Offset+c.Len], b):]
	}
}

// tunMetadataMatch makes out match NXM_NX_TUN_METADATA<idx>, o, as Open
// vSwitch's nx_pull_match_entry and tun_metadata_set_match do with the
// switch's TLV table t: an unmapped field is NXFMFC_INVALID_TLV_FIELD;
// the payload (value, or value and mask of equal halves) may have any
// length: its first min(len, mapped length) bytes are the field's last
// bytes, the others 0 (copy_entry_value), value bits outside the mask
// are OFPBMC_BAD_WILDCARDS, a field whose bytes the match tests already
// OFPBMC_DUP_FIELD.
func tunMetadataMatch(out *rules.Match, o *openflow.OXM, idx int, t *TLVTable) error {
	f, ok := t.Mapping(idx)
	if !ok {
		return openflow.ErrInvalidTLVField
	}
	val, mask := o.Data, []byte(nil)
	if o.HasMask {
		if len(o.Data)%2 != 0 {
			return badMatch(openflow.BadMatchBadLen)
		}
		val, mask = o.Data[:len(o.Data)/2], o.Data[len(o.Data)/2:]
		for i := range val {
			if val[i]&^mask[i] != 0 {
				return badMatch(openflow.BadMatchBadWildcards)
			}
		}
	}
	n := int(f.Len)
	v, m := rightAlign(val, mask, n)
	ks, ms := optionSpace(&out.Key), optionSpace(&out.Mask)
	var had [openflow.TLVMaxOptLen]byte
	for _, b := range f.gather(had[:0], &ms) {
		if b != 0 {
			return badMatch(openflow.BadMatchDupField)
		}
	}
	for i := range n {
		v[i] &= m[i]
	}
	f.scatter(&ks, v[:n])
	f.scatter(&ms, m[:n])
	setOptionSpace(&out.Key, &ks)
	setOptionSpace(&out.Mask, &ms)
	return nil
}

// appendTunMetadata appends, for each field t maps whose bytes m tests,
// its NXM_NX_TUN_METADATA<N> entry of the mapped length, masked unless
// the mask is all ones, as Open vSwitch's tun_metadata_to_nx_match.
func appendTunMetadata(dst []openflow.OXM, m *rules.Match, t *TLVTable) []openflow.OXM {
	if t == nil {
		return dst
	}
	ks, ms := optionSpace(&m.Key), optionSpace(&m.Mask)
	for idx := range t.Fields {
		f := &t.Fields[idx]
		if !f.Valid || f.Len == 0 {
			continue
		}
		var vb, mb [openflow.TLVMaxOptLen]byte
		v, mk := f.gather(vb[:0], &ks), f.gather(mb[:0], &ms)
		zero, full := true, true
		for _, b := range mk {
			zero = zero && b == 0
			full = full && b == 0xff
		}
		if zero {
			continue
		}
		if full {
			mk = nil
		}
		dst = append(dst, openflow.NXM(openflow.OXMClassNXM1, nxmTunMetadata0+openflow.OXMField(idx), v, mk))
	}
	return dst
}

// UsesTLVFields reports whether m tests a byte of one of the fields
// tun_metadata<idx> for idx in removed, as t maps them.
func UsesTLVFields(m *rules.Match, t *TLVTable, removed []int) bool {
	if t == nil {
		return false
	}
	ms := optionSpace(&m.Mask)
	for _, idx := range removed {
		f, ok := t.Mapping(idx)
		if !ok {
			continue
		}
		var mb [openflow.TLVMaxOptLen]byte
		for _, b := range f.gather(mb[:0], &ms) {
			if b != 0 {
				return true
			}
		}
	}
	return false
}

// TunMetadataPlace implements rules.TunMetadataLayout: the option space
// bytes of tun_metadata<idx>, in order, as t maps them.
func (t *TLVTable) TunMetadataPlace(dst []uint8, idx int) ([]uint8, bool) {
	f, ok := t.Mapping(idx)
	if !ok {
		return dst, false
	}
	for _, c := range f.Chunks[:f.NChunks] {
		for i := c.Offset; i < c.Offset+c.Len; i++ {
			dst = append(dst, i)
		}
	}
	return dst, true
}

// tunMetadataSet translates a set_field of NXM_NX_TUN_METADATA<idx>
// (OFPAT_SET_FIELD, or NXAST_REG_LOAD2 with masked) whose OXM payload is
// data, as Open vSwitch's nx_pull_entry and tun_metadata_write do with
// the switch's TLV table t: an unmapped field is
// NXFMFC_INVALID_TLV_FIELD, value bits outside the mask
// OFPBMC_BAD_WILDCARDS; the payload's first min(len, mapped length)
// bytes are the field's last ones (copy_entry_value), the others 0 (and
// not written, under a mask). It appends one ActionLoad per word of the
// option space the written bytes are in (ActionExt.TunMetadata).
func tunMetadataSet(out []rules.Action, idx int, data []byte, masked bool, t *TLVTable) ([]rules.Action, error) {
	var pb [OptionSpace]uint8
	place, ok := t.TunMetadataPlace(pb[:0], idx)
	if !ok {
		return out, openflow.ErrInvalidTLVField
	}
	val, mask := data, []byte(nil)
	if masked {
		if len(data)%2 != 0 {
			return out, badMatch(openflow.BadMatchBadLen)
		}
		val, mask = data[:len(data)/2], data[len(data)/2:]
		for i := range val {
			if val[i]&^mask[i] != 0 {
				return out, badMatch(openflow.BadMatchBadWildcards)
			}
		}
	}
	n := len(place)
	v, m := rightAlign(val, mask, n)
	k := len(out)
	out = rules.TunMetadataLoads(out, idx, place, v[:n], m[:n])
	if len(out) == k {
		// A mask of zeros, or a mapping of no bytes: nothing to write,
		// which the flow tables cannot hold as an action.
		return out, badAction(openflow.BadActionBadSetArgument)
	}
	return out, nil
}

// tunMetadataToWire appends the wire form of the loads as, which start
// with one that has TunFirst, as the set_field they came as: the field's
// mapped length, OFPAT_SET_FIELD when every byte is written, else
// NXAST_REG_LOAD2 with the mask, as Open vSwitch sends a set_field back.
// It returns the number of loads it took (1 at least).
func tunMetadataToWire(out []openflow.Action, as []rules.Action, t *TLVTable) ([]openflow.Action, int) {
	idx := int(as[0].Ext.TunMetadata) - 1
	n := 1
	for n < len(as) && as[n].Kind == rules.ActionLoad && as[n].Ext != nil &&
		as[n].Ext.TunMetadata == as[0].Ext.TunMetadata && !as[n].Ext.TunFirst {
		n++
	}
	var pb [OptionSpace]uint8
	place, ok := t.TunMetadataPlace(pb[:0], idx)
	if !ok {
		// The table changed under a flow that uses it, which Mod
		// refuses: nothing to name the bytes with.
		return out, n
	}
	var wv, wm [OptionSpace / 8]uint64
	for _, a := range as[:n] {
		w := a.Field - rules.FieldTunOpts0
		wm[w], wv[w] = a.Value[0], a.Value[1]
	}
	val, mask := make([]byte, len(place)), make([]byte, len(place))
	full := true
	for i, p := range place {
		sh := 56 - 8*uint(p%8)
		val[i], mask[i] = byte(wv[p/8]>>sh), byte(wm[p/8]>>sh)
		full = full && mask[i] == 0xff
	}
	f := openflow.OXMField(nxmTunMetadata0 + idx)
	if full {
		return append(out, openflow.SetField(openflow.NXM(openflow.OXMClassNXM1, f, val, nil))), n
	}
	h := openflow.OXMHeader(uint32(openflow.OXMClassNXM1)<<16 | uint32(f)<<9 | 1<<8 | uint32(2*len(place)))
	x := openflow.NXAction{Subtype: openflow.NXRegLoad2, Dst: h, Payload: append(val, mask...)}
	return append(out, x.Action()), n
}

// usesTunMetadata reports whether ins holds a set_field of a tunnel
// metadata field, whose translation depends on the TLV table.
func usesTunMetadata(ins []rules.Instruction) bool {
	for i := range ins {
		for _, a := range ins[i].Actions {
			if a.Ext != nil && (a.Ext.TunMetadata != 0 || a.Ext.SrcTun != 0 || a.Ext.DstTun != 0) {
				return true
			}
		}
	}
	return false
}

// UsesTLVAction reports whether an action of ins sets, moves or outputs
// one of the fields tun_metadata<idx> for idx in removed.
func UsesTLVAction(ins []rules.Instruction, removed []int) bool {
	for i := range ins {
		if usesTLVActions(ins[i].Actions, removed) {
			return true
		}
	}
	return false
}

// UsesTLVBuckets reports whether an action of a bucket of bs sets, moves
// or outputs one of the fields tun_metadata<idx> for idx in removed.
func UsesTLVBuckets(bs []groups.Bucket, removed []int) bool {
	for i := range bs {
		if usesTLVActions(bs[i].Actions, removed) {
			return true
		}
	}
	return false
}

func usesTLVActions(as []rules.Action, removed []int) bool {
	for _, a := range as {
		if a.Ext == nil {
			continue
		}
		for _, idx := range removed {
			n := uint8(idx) + 1
			if a.Ext.TunMetadata == n || a.Ext.SrcTun == n || a.Ext.DstTun == n {
				return true
			}
		}
	}
	return false
}

// tunHeaderIndex returns N if h is NXM_NX_TUN_METADATA<N>'s header.
func tunHeaderIndex(h openflow.OXMHeader) (int, bool) {
	if h.Class() != openflow.OXMClassNXM1 || h.Field() < nxmTunMetadata0 || h.Field() >= nxmTunMetadata0+openflow.TLVMaxFields {
		return 0, false
	}
	return int(h.Field() - nxmTunMetadata0), true
}

// tunRegLoad translates NXAST_REG_LOAD of bits [ofs, ofs+n) of
// tun_metadata<idx> with v as Open vSwitch does: bits beyond the mapped
// length are OFPBAC_BAD_SET_LEN, a value wider than n bits
// OFPBAC_BAD_ARGUMENT; the load is the set_field of the field under the
// mask of those bits (which Open vSwitch prints and sends back so).
func tunRegLoad(out []rules.Action, idx, ofs, n int, v uint64, t *TLVTable) ([]rules.Action, error) {
	var pb [OptionSpace]uint8
	place, ok := t.TunMetadataPlace(pb[:0], idx)
	if !ok {
		return out, openflow.ErrInvalidTLVField
	}
	l := len(place)
	if n == 0 || ofs+n > 8*l {
		return out, badAction(openflow.BadActionBadSetLen)
	}
	if n < 64 && v>>n != 0 {
		return out, badAction(openflow.BadActionBadArgument)
	}
	val, mask := make([]byte, l), make([]byte, l)
	for i := range n {
		bit := ofs + i
		b := l - 1 - bit/8
		mask[b] |= 1 << (bit % 8)
		if v>>i&1 != 0 {
			val[b] |= 1 << (bit % 8)
		}
	}
	return rules.TunMetadataLoads(out, idx, place, val, mask), nil
}

// rightAlign places val and mask (nil: all ones) at the end of n bytes,
// as Open vSwitch places a tun_metadata value in its mapped length
// (tun_metadata_set_match): a shorter one zero-extended in front, a
// longer one cut to its first n bytes.
func rightAlign(val, mask []byte, n int) (v, m [openflow.TLVMaxOptLen]byte) {
	cp := min(len(val), n)
	copy(v[n-cp:n], val[:cp])
	if mask == nil {
		for i := range n {
			m[i] = 0xff
		}
	} else {
		copy(m[n-cp:n], mask[:cp])
	}
	return v, m
}

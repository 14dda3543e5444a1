package ofrules

import (
	"sync"
	"sync/atomic"

	"github.com/ofswitch/ofswitch/openflow"
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

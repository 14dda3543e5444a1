package ofrules

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
)

func tlvCode(err error) int {
	var em openflow.ErrorMsg
	if !errors.As(err, &em) {
		return -1
	}
	return int(em.Code)
}

// TestTLVTablesAlloc checks the allocator against Open vSwitch's
// tun_metadata_alloc_chain: first fit, else split over the longest free
// runs; all or nothing; deletes free the bytes.
func TestTLVTablesAlloc(t *testing.T) {
	var ts TLVTables
	add := func(maps ...openflow.TLVMap) error {
		return ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVAdd, Maps: maps}, nil)
	}
	del := func(idx ...uint16) error {
		m := &openflow.TLVTableMod{Command: openflow.TLVDelete}
		for _, i := range idx {
			m.Maps = append(m.Maps, openflow.TLVMap{Index: i})
		}
		return ts.Mod(m, nil)
	}
	chunks := func(idx int) []TLVChunk {
		f, ok := ts.Load().Mapping(idx)
		if !ok {
			return nil
		}
		return f.Chunks[:f.NChunks]
	}
	if err := add(openflow.TLVMap{OptionType: 0, OptionLen: 4, Index: 0}, openflow.TLVMap{OptionType: 1, OptionLen: 8, Index: 1},
		openflow.TLVMap{OptionType: 2, OptionLen: 4, Index: 2}, openflow.TLVMap{OptionType: 3, OptionLen: 16, Index: 3}); err != nil {
		t.Fatal(err)
	}
	if got := chunks(3); len(got) != 1 || got[0] != (TLVChunk{16, 16}) {
		t.Fatalf("tun_metadata3 at %v", got)
	}
	// Full: nothing of a failed mod stays.
	if err := add(openflow.TLVMap{OptionType: 9, OptionLen: 0, Index: 9}, openflow.TLVMap{OptionType: 4, OptionLen: 4, Index: 4}); tlvCode(err) != 19 {
		t.Fatalf("add to a full table: %v", err)
	}
	if _, ok := ts.Load().Mapping(9); ok {
		t.Fatal("tun_metadata9 stayed after a failed mod")
	}
	// Free 0-4 and 12-16: 8 bytes come back in two pieces, in order.
	if err := del(0, 2, 40); err != nil {
		t.Fatal(err)
	}
	if err := add(openflow.TLVMap{OptionType: 5, OptionLen: 8, Index: 5}); err != nil {
		t.Fatal(err)
	}
	if got := chunks(5); len(got) != 2 || got[0] != (TLVChunk{0, 4}) || got[1] != (TLVChunk{12, 4}) {
		t.Fatalf("tun_metadata5 at %v", got)
	}
	m := ts.Load().Mask(5)
	if !m[0] || !m[3] || m[4] || !m[12] || !m[15] || m[16] {
		t.Fatalf("Mask(5) = %v", m)
	}
	for _, c := range []struct {
		m    openflow.TLVMap
		code int
	}{
		{openflow.TLVMap{OptionType: 7, OptionLen: 4, Index: 1}, 20}, // ALREADY_MAPPED
		{openflow.TLVMap{OptionType: 1, OptionLen: 4, Index: 7}, 21}, // DUP_ENTRY
		{openflow.TLVMap{OptionType: 7, OptionLen: 5, Index: 7}, 17}, // BAD_OPT_LEN
		{openflow.TLVMap{OptionType: 7, OptionLen: 4, Index: 64}, 18},
	} {
		if err := add(c.m); tlvCode(err) != c.code {
			t.Errorf("%+v: %v, want code %d", c.m, err, c.code)
		}
	}
	// In use: the delete and the clear are refused and change nothing.
	inUse := func(old *TLVTable, removed []int) bool { return len(removed) == 1 && removed[0] == 3 }
	if err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVDelete, Maps: []openflow.TLVMap{{Index: 3}}}, inUse); tlvCode(err) != 38 {
		t.Fatalf("delete in use: %v", err)
	}
	all := func(old *TLVTable, removed []int) bool { return len(removed) == 3 }
	if err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVClear}, all); tlvCode(err) != 38 {
		t.Fatalf("clear in use: %v", err)
	}
	if n := len(ts.Load().Maps()); n != 3 {
		t.Fatalf("%d mappings after refusals, want 3", n)
	}
	if err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVClear}, nil); err != nil || len(ts.Load().Maps()) != 0 {
		t.Fatalf("clear: %v, %v", err, ts.Load().Maps())
	}
	if err := add(openflow.TLVMap{OptionType: 3, OptionLen: 32, Index: 3}); err != nil {
		t.Fatalf("32 bytes into a cleared table: %v", err)
	}
}

package openflow

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTableMod14: a TABLE_MOD of OpenFlow 1.4 carries its properties, one
// of 1.3 none; properties that do not frame are ErrBadLength.
func TestTableMod14(t *testing.T) {
	props := []byte{0, 2, 0, 8, 0, 0, 0, 1, 0, 3, 0, 6, 10, 20, 0, 0} // eviction; vacancy, 6 bytes padded to 8
	m := TableMod{Header: Header{Version: Version14, XID: 3}, TableID: 1, Config: TableConfigEviction, Properties: props}
	b, err := m.MarshalBinary()
	if err != nil || len(b) != 32 {
		t.Fatalf("1.4 TABLE_MOD: %d bytes, %v; want 32", len(b), err)
	}
	var back TableMod
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	m.Type, m.Length = TypeTableMod, 32
	if diff := cmp.Diff(m, back); diff != "" {
		t.Errorf("round trip (-sent +decoded):\n%s", diff)
	}
	m.Version = Version13
	if b, _ := m.MarshalBinary(); len(b) != 16 {
		t.Errorf("1.3 TABLE_MOD with properties: %d bytes, want 16", len(b))
	}
	for _, bad := range [][]byte{{0, 2, 0, 8, 0, 0}, {0, 2, 0, 3, 0, 0, 0, 0}, {0, 2, 0, 16, 0, 0, 0, 1}} {
		m := TableMod{Header: Header{Version: Version14, XID: 3}, Properties: bad}
		b, _ := m.MarshalBinary()
		if err := back.UnmarshalBinary(b); !errors.Is(err, ErrBadLength) {
			t.Errorf("properties %x: %v, want ErrBadLength", bad, err)
		}
	}
}

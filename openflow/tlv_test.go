package openflow

import (
	"errors"
	"testing"
)

// TestTLVTableModCheck checks the errors Open vSwitch's
// ofputil_decode_tlv_table_mod gives, in its order.
func TestTLVTableModCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    TLVTableMod
		want *ErrorMsg
	}{
		{"add", TLVTableMod{Command: TLVAdd, Maps: []TLVMap{{OptionLen: 124, Index: 63}, {OptionLen: 0}}}, nil},
		{"bad command", TLVTableMod{Command: 3, Maps: []TLVMap{{OptionLen: 3}}}, &ErrTLVBadCommand},
		{"len not a multiple of 4", TLVTableMod{Maps: []TLVMap{{OptionLen: 6}}}, &ErrTLVBadOptLen},
		{"len over 124", TLVTableMod{Maps: []TLVMap{{OptionLen: 128}}}, &ErrTLVBadOptLen},
		{"index 64", TLVTableMod{Command: TLVDelete, Maps: []TLVMap{{OptionLen: 4, Index: 64}}}, &ErrTLVBadFieldIdx},
		{"len before index", TLVTableMod{Maps: []TLVMap{{OptionLen: 5, Index: 64}}}, &ErrTLVBadOptLen},
		{"clear checks its maps", TLVTableMod{Command: TLVClear, Maps: []TLVMap{{OptionLen: 4, Index: 99}}}, &ErrTLVBadFieldIdx},
	} {
		got := tc.m.Check()
		var em ErrorMsg
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: Check() = %v, want nil", tc.name, got)
		case tc.want != nil && (!errors.As(got, &em) || em.Type != tc.want.Type || em.Code != tc.want.Code || em.Experimenter != NXExperimenter):
			t.Errorf("%s: Check() = %v, want %v", tc.name, got, *tc.want)
		}
	}
}

// TestTLVDecodeRefuses checks the structural refusals of the decoders:
// a body that is not a whole number of maps, a request with a body, the
// wrong subtype.
func TestTLVDecodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		hex  string
		m    Message
	}{
		{"mod with a cut map", "0404001c 00000002 00002320 00000018 0000000000000000 ffff0004", new(TLVTableMod)},
		{"mod without its command", "04040010 00000002 00002320 00000018", new(TLVTableMod)},
		{"request with a body", "04040018 00000002 00002320 00000019 0000000000000000", new(TLVTableRequest)},
		{"reply with a cut header", "04040018 00000002 00002320 0000001a 0000002000400000", new(TLVTableReply)},
		{"mod of ONF", "04040018 00000002 4f4e4600 00000018 0002000000000000", new(TLVTableMod)},
		{"request decoded as a mod", "04040018 00000002 00002320 00000019 0002000000000000", new(TLVTableMod)},
	} {
		if err := tc.m.UnmarshalBinary(mustHex(t, tc.hex)); err == nil {
			t.Errorf("%s: decoded", tc.name)
		}
	}
	// Decode dispatches the three on the subtype, at 1.3 and 1.4.
	for hex, want := range map[string]Message{
		"04040018 00000002 00002320 00000018 0002000000000000":                  new(TLVTableMod),
		"05040010 00000002 00002320 00000019":                                   new(TLVTableRequest),
		"04040020 00000002 00002320 0000001a 0000010000400000 0000000000000000": new(TLVTableReply),
		"04040010 00000002 00002320 00000017":                                   new(Experimenter),
	} {
		m, err := Decode(mustHex(t, hex))
		if err != nil {
			t.Fatalf("%s: %v", hex, err)
		}
		if got, w := typeName(m), typeName(want); got != w {
			t.Errorf("%s decodes as %s, want %s", hex, got, w)
		}
	}
}

func typeName(m Message) string {
	switch m.(type) {
	case *TLVTableMod:
		return "TLVTableMod"
	case *TLVTableRequest:
		return "TLVTableRequest"
	case *TLVTableReply:
		return "TLVTableReply"
	case *Experimenter:
		return "Experimenter"
	}
	return "other"
}

package ofctl

import (
	"errors"
	"strings"
	"testing"
)

// splitLayout maps tun_metadata0 to 4 bytes at 28-32 and tun_metadata5
// to 8 bytes split over 0-4 and 12-16, as a TLV table may place them.
type splitLayout struct{}

func (splitLayout) TunMetadataPlace(dst []uint8, idx int) ([]uint8, bool) {
	switch idx {
	case 0:
		return append(dst, 28, 29, 30, 31), true
	case 5:
		return append(dst, 0, 1, 2, 3, 12, 13, 14, 15), true
	}
	return dst, false
}

// TestTunMetadataText parses tun_metadata fields through a layout and
// prints them back; the bytes land where the layout says.
func TestTunMetadataText(t *testing.T) {
	opt := &ParseOptions{TunMetadata: splitLayout{}}
	for _, c := range []struct{ in, out string }{
		{"tun_metadata0=0x1234", "tun_metadata0=0x1234"},
		{"tun_metadata0=4660", "tun_metadata0=0x1234"},
		{"tun_metadata5=0x1122334455667788", "tun_metadata5=0x1122334455667788"},
		{"tun_metadata5=0x100000000/0xff00000000", "tun_metadata5=0x100000000/0xff00000000"},
		{"tun_metadata0=0x1/0xff", "tun_metadata0=0x1"},        // as ovs-ofctl's text reaches Open vSwitch
		{"tun_metadata0=0x10/0xf0", "tun_metadata0=0x10/0xf0"}, // not all ones
		{"tun_metadata0=0", "tun_metadata0=0"},
	} {
		ups, errs := ParseFlows("f", []byte(c.in+",actions=drop"), opt)
		if len(errs) != 0 {
			t.Fatalf("%s: %v", c.in, errs)
		}
		if got := FormatMatchTLV(&ups[0].Match, ups[0].Priority, splitLayout{}); got != c.out {
			t.Errorf("%s prints %q, want %q", c.in, got, c.out)
		}
		if got := FormatMatch(&ups[0].Match, ups[0].Priority); got != "" {
			t.Errorf("%s without a layout prints %q", c.in, got)
		}
	}
	ups, _ := ParseFlows("f", []byte("tun_metadata5=0x1122334455667788,actions=drop"), opt)
	m := &ups[0].Match
	if b := m.Key.TunOptByte(0); b != 0x11 {
		t.Errorf("byte 0 = %#x", b)
	}
	if b := m.Key.TunOptByte(12); b != 0x55 {
		t.Errorf("byte 12 = %#x", b)
	}
	if b := m.Mask.TunOptByte(4); b != 0 {
		t.Errorf("mask byte 4 = %#x", b)
	}
	for _, bad := range []string{"tun_metadata0=0x112233445", "tun_metadata0=0x3/0x1", "tun_metadata0=0xzz", "tun_metadata1=1", "tun_metadata0"} {
		if _, errs := ParseFlows("f", []byte(bad+",actions=drop"), opt); len(errs) == 0 {
			t.Errorf("%s: parsed", bad)
		} else if !strings.Contains(errs[0].Error(), "tun_metadata") {
			t.Errorf("%s: %v", bad, errs[0])
		}
	}
}

// TestTunMetadataActionsText parses actions on tun_metadata fields
// through splitLayout and prints them back by the field's name with
// FormatFlowTLV (FormatFlow, without the layout, names the option space
// words), a set_field over the split field's two runs included.
func TestTunMetadataActionsText(t *testing.T) {
	opt := &ParseOptions{TunMetadata: splitLayout{}}
	for _, c := range []struct{ in, out string }{
		{"set_field:0x1234->tun_metadata0", "set_field:0x1234->tun_metadata0"},
		{"load:0x12->tun_metadata0[0..7]", "set_field:0x12/0xff->tun_metadata0"},
		{"set_field:0x1122334455667788->tun_metadata5,output:1", "set_field:0x1122334455667788->tun_metadata5,output:1"},
		{"set_field:0x100000000/0xff00000000->tun_metadata5", "set_field:0x100000000/0xff00000000->tun_metadata5"},
		{"set_field:0x1->tun_metadata0,set_field:0x2->tun_metadata0", "set_field:0x1->tun_metadata0,set_field:0x2->tun_metadata0"},
		{"move:NXM_NX_TUN_METADATA0[8..23]->NXM_NX_REG0[0..15]", "move:NXM_NX_TUN_METADATA0[8..23]->NXM_NX_REG0[0..15]"},
		{"move:NXM_NX_REG0[0..31]->NXM_NX_TUN_METADATA5[32..63]", "move:NXM_NX_REG0[]->NXM_NX_TUN_METADATA5[32..63]"},
		{"move:NXM_NX_REG0[0..31]->NXM_NX_TUN_METADATA0[]", "move:NXM_NX_REG0[]->NXM_NX_TUN_METADATA0[]"},
		{"output:NXM_NX_TUN_METADATA5[3]", "output:NXM_NX_TUN_METADATA5[3]"},
		{"write_actions(set_field:0xab->tun_metadata5)", "write_actions(set_field:0xab->tun_metadata5)"},
	} {
		ups, errs := ParseFlows("f", []byte("actions="+c.in), opt)
		if len(errs) != 0 {
			t.Fatalf("%s: %v", c.in, errs)
		}
		u := &ups[0]
		got := FormatFlowTLV(u.Table, &u.Match, u.Priority, 0, 0, 0, 0, u.Instructions, FlowStats{}, splitLayout{})
		_, got, _ = strings.Cut(got, "actions=")
		if got != c.out {
			t.Errorf("%s prints %q, want %q", c.in, got, c.out)
		}
		plain := FormatFlow(u.Table, &u.Match, u.Priority, 0, 0, 0, 0, u.Instructions, FlowStats{})
		if strings.Contains(plain, "tun_metadata") || strings.Contains(plain, "TUN_METADATA") {
			t.Errorf("%s: FormatFlow without a layout names the field: %s", c.in, plain)
		}
	}
}

func TestSetTunMetadataMask(t *testing.T) {
	opt := &ParseOptions{TunMetadata: splitLayout{}}
	for _, c := range []struct {
		in   string
		mask uint64 // of option space word 3 (bytes 24-32: tun_metadata0 at 28-32)
	}{
		{"set_field:0x1/0xff->tun_metadata0", 0xff},
		{"set_field:0x1->tun_metadata0", 0xffffffff},
		{"set_field:0x1/0xffffffff->tun_metadata0", 0xffffffff},
		{"set_field:0x100/0xffff->tun_metadata0", 0xffff},
	} {
		ups, errs := ParseFlows("f", []byte("actions="+c.in), opt)
		if len(errs) != 0 {
			t.Fatalf("%s: %v", c.in, errs)
		}
		as := ups[0].Instructions[0].Actions
		if len(as) != 1 || as[0].Value[0] != c.mask {
			t.Errorf("%s: loads %+v, want one of mask %#x", c.in, as, c.mask)
		}
	}
}

func TestTunMetadataNotMapped(t *testing.T) {
	for _, c := range []struct {
		in       string
		opt      *ParseOptions
		unmapped bool
	}{
		{"tun_metadata0=1,actions=drop", nil, true},
		{"actions=set_field:1->tun_metadata0", nil, true},
		{"actions=load:1->NXM_NX_TUN_METADATA0[0..3]", nil, true},
		{"actions=move:NXM_NX_REG0[0..3]->tun_metadata1[0..3]", &ParseOptions{TunMetadata: splitLayout{}}, true},
		{"tun_metadata0=0x112233445,actions=drop", &ParseOptions{TunMetadata: splitLayout{}}, false},
		{"ip,nw_src=1.2.3.400,actions=drop", nil, false},
	} {
		_, errs := ParseFlows("f", []byte(c.in), c.opt)
		if len(errs) != 1 {
			t.Errorf("%s: %v, want one error", c.in, errs)
			continue
		}
		if errors.Is(errs[0], ErrNotMapped) != c.unmapped || !errors.Is(errs[0], ErrSyntax) {
			t.Errorf("%s: %v: ErrNotMapped %v, want %v", c.in, errs[0], errors.Is(errs[0], ErrNotMapped), c.unmapped)
		}
	}
}

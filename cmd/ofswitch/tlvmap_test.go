package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
)

// tlvPushFlows match and set tunnel metadata fields (tunPushMap maps
// them), and one flow names none.
const tlvPushFlows = `priority=1,actions=output:4
priority=5,tun_metadata0=0xabcd,actions=set_field:0x1234->tun_metadata1,output:1
priority=6,ip,tun_metadata1=0x10/0xf0,actions=load:0x5->tun_metadata0[0..7],output:2
priority=7,tun_metadata0=0x1,tun_metadata1=0x1122334455667788,actions=set_field:0x1/0xff->tun_metadata1,set_field:0xffffffff->tun_metadata0,output:3
`

const tunPushMap = "{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=8}->tun_metadata1"

// TestLintTLVMap lints a file with tun_metadata fields through --tlv-map,
// and without it reports them as not mapped.
func TestLintTLVMap(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tlv.flows")
	if err := os.WriteFile(file, []byte(tlvPushFlows), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "rules", "lint", "--tlv-map", tunPushMap, file); err != nil || !strings.Contains(out, "4 flows ok") {
		t.Errorf("lint --tlv-map: %v\n%s", err, out)
	}
	out, err := run(t, "rules", "lint", file)
	if err == nil || !strings.Contains(out, "tlv.flows:2:") || !strings.Contains(out, "tun_metadata0 is not mapped") {
		t.Errorf("lint without --tlv-map: %v\n%s", err, out)
	}
	// tun_metadata1 at 4 bytes: a value of 8 no longer fits.
	out, err = run(t, "rules", "lint", "--tlv-map", "{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=4}->tun_metadata1", file)
	if err == nil || !strings.Contains(out, "tlv.flows:4:") {
		t.Errorf("lint with tun_metadata1 of 4 bytes: %v\n%s", err, out)
	}
}

func TestParseTLVMaps(t *testing.T) {
	got, err := parseTLVMaps(" {class=0xffff,type=0,len=4}->tun_metadata0, {class=258,type=0x81, len=8}->tun_metadata63")
	want := []openflow.TLVMap{{OptionClass: 0xffff, OptionLen: 4, Index: 0}, {OptionClass: 258, OptionType: 0x81, OptionLen: 8, Index: 63}}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("%+v, %v", got, err)
	}
	for _, bad := range []string{
		"{class=1,type=0,len=4}->tun_metadata64",
		"{class=1,type=0,len=5}->tun_metadata0", // not a multiple of 4
		"{class=1,type=0}->tun_metadata0",
		"{class=1,type=0,len=4,len=4}->tun_metadata0",
		"{class=1,type=256,len=4}->tun_metadata0",
		"{class=1,type=0,len=4}tun_metadata0",
		"{class=1,type=0,len=4->tun_metadata0",
		"class=1,type=0,len=4}->tun_metadata0",
		"{class=1,type=0,len=4}->reg0",
	} {
		if m, err := parseTLVMaps(bad); err == nil {
			t.Errorf("%s: %+v", bad, m)
		}
	}
	if _, err := tlvTableOf("{class=1,type=0,len=124}->tun_metadata0"); err == nil {
		t.Error("124 bytes fit in the option space")
	}
	if _, err := tlvTableOf("{class=1,type=0,len=4}->tun_metadata0,{class=1,type=0,len=4}->tun_metadata1"); err == nil {
		t.Error("an option mapped twice")
	}
}

package controller

import (
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// ofctlOne runs "ovs-ofctl -O ver CMD TARGET REST..." against ofswitch
// (ours, ovs nil) or Open vSwitch and returns what it printed, the time
// stamps of its log lines cut, with the error appended when it failed.
func ofctlOne(t *testing.T, ofctl string, ovs *ovstest.Switch, ours, ver, cmd string, rest ...string) string {
	t.Helper()
	var c *exec.Cmd
	if ovs == nil {
		c = exec.Command(ofctl, append([]string{"-O", ver, cmd, ours}, rest...)...)
	} else {
		c = ovs.Exec("ovs-ofctl", append([]string{"-O", ver, cmd, ovs.Target()}, rest...)...)
	}
	out, err := c.CombinedOutput()
	s := logStamp.ReplaceAllString(string(out), "")
	if err != nil {
		s += "(" + err.Error() + ")\n"
	}
	return s
}

// logStamp is the time stamp and sequence number of an Open vSwitch log
// line.
var logStamp = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT[\d:.]+Z\|\d+\|`)

// ovsSettled runs ofctlOne against Open vSwitch again, for at most 2 s,
// while it answers NXTTMFC_INVALID_TLV_DEL: Open vSwitch releases a
// deleted flow's hold on its mappings only after an RCU grace period, so
// a del-tlv-map right after the del-flows may still find the flow
// (ofswitch's answer does not lag).
func ovsSettled(t *testing.T, ofctl string, ovs *ovstest.Switch, ver, cmd string, rest ...string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		out := ofctlOne(t, ofctl, ovs, "", ver, cmd, rest...)
		if !strings.Contains(out, "NXTTMFC_INVALID_TLV_DEL") || time.Now().After(deadline) {
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ofctlBoth runs ofctlOne against ofswitch and against Open vSwitch.
func ofctlBoth(t *testing.T, ofctl string, ovs *ovstest.Switch, ours, ver, cmd string, rest ...string) (got, want string) {
	t.Helper()
	return ofctlOne(t, ofctl, nil, ours, ver, cmd, rest...), ofctlOne(t, ofctl, ovs, ours, ver, cmd, rest...)
}

// TestTLVMapAsOVS drives ofswitch and Open vSwitch with the same
// add-tlv-map, del-tlv-map and dump-tlv-map commands over OpenFlow 1.3
// and 1.4 and requires the same output from both: the same maps and the
// same errors, but for the option space that dump-tlv-map announces (32
// bytes against 256).
func TestTLVMapAsOVS(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		steps := []struct {
			cmd  string
			args []string
		}{
			{"del-tlv-map", nil},
			{"dump-tlv-map", nil},
			{"add-tlv-map", []string{"{class=0xffff,type=0,len=4}->tun_metadata0"}},
			{"add-tlv-map", []string{"{class=0xffff,type=0,len=4}->tun_metadata0"}},   // ALREADY_MAPPED
			{"add-tlv-map", []string{"{class=0xffff,type=0,len=8}->tun_metadata1"}},   // DUP_ENTRY
			{"add-tlv-map", []string{"{class=0xffff,type=1,len=6}->tun_metadata1"}},   // BAD_OPT_LEN
			{"add-tlv-map", []string{"{class=0xffff,type=1,len=128}->tun_metadata1"}}, // BAD_OPT_LEN
			{"add-tlv-map", []string{"{class=0xffff,type=1,len=4}->tun_metadata64"}},  // BAD_FIELD_IDX
			// All or nothing: tun_metadata2 is not added.
			{"add-tlv-map", []string{"{class=0x1,type=2,len=8}->tun_metadata2,{class=0xffff,type=0,len=4}->tun_metadata3"}},
			{"dump-tlv-map", nil},
			{"del-tlv-map", []string{"{class=0x1,type=2,len=8}->tun_metadata5"}}, // unmapped: ignored
			{"add-tlv-map", []string{"{class=0x0102,type=0x80,len=8}->tun_metadata1,{class=1,type=1,len=12}->tun_metadata63"}},
			{"dump-tlv-map", nil},
			{"del-tlv-map", []string{"{class=0xffff,type=0,len=4}->tun_metadata0"}},
			{"del-tlv-map", []string{"{class=0xffff,type=0,len=4}->tun_metadata64"}}, // BAD_FIELD_IDX
			{"dump-tlv-map", nil},
			{"add-tlv-map", []string{"{class=0xffff,type=0,len=8}->tun_metadata0,{class=0xffff,type=3,len=0}->tun_metadata7"}},
			{"dump-tlv-map", nil},
			{"del-tlv-map", nil},
			{"dump-tlv-map", nil},
		}
		for i, s := range steps {
			got, want := ofctlBoth(t, ofctl, ovs, ours, ver, s.cmd, s.args...)
			want = strings.Replace(want, "max option space=256", "max option space=32", 1)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s step %d: %s %s (-Open vSwitch +ofswitch):\n%s", ver, i, s.cmd, strings.Join(s.args, " "), diff)
			} else if i < 9 {
				t.Logf("%s %s %s:\n%s", ver, s.cmd, strings.Join(s.args, " "), got)
			}
		}
	}
}

// TestTLVMapTableFull fills the option space of each switch, ofswitch's
// 32 bytes and Open vSwitch's 256: one more mapping then ends in the same
// error from both, and the table is left as it was.
func TestTLVMapTableFull(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	maps := func(n, length, from int) string {
		var s []string
		for i := from; i < from+n; i++ {
			s = append(s, fmt.Sprintf("{class=0x10,type=%d,len=%d}->tun_metadata%d", i, length, i))
		}
		return strings.Join(s, ",")
	}
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-tlv-map")
		got := ofctlOne(t, ofctl, nil, ours, ver, "add-tlv-map", maps(4, 8, 0))
		want := ofctlOne(t, ofctl, ovs, ours, ver, "add-tlv-map", maps(2, 124, 10)+","+maps(1, 8, 12))
		if got != "" || want != "" {
			t.Fatalf("filling: ofswitch %q, Open vSwitch %q", got, want)
		}
		got, want = ofctlBoth(t, ofctl, ovs, ours, ver, "add-tlv-map", maps(1, 4, 20))
		if !strings.Contains(got, "NXTTMFC_TABLE_FULL") {
			t.Errorf("%s: ofswitch answers %q", ver, got)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: one more (-Open vSwitch +ofswitch):\n%s", ver, diff)
		}
		got = ofctlOne(t, ofctl, nil, ours, ver, "dump-tlv-map")
		if !strings.Contains(got, "allocated option space=32") || strings.Contains(got, "tun_metadata20") {
			t.Errorf("%s: dump-tlv-map:\n%s", ver, got)
		}
	}
}

// TestTLVTableRawAsOVS sends TLV table messages that ovs-ofctl cannot
// make to ofswitch and Open vSwitch, each followed by a barrier, and
// requires the same answer from both: an unknown command, a body that is
// not a whole number of maps, a mod from a slave (its request is
// answered), and a reply sent to the switch.
func TestTLVTableRawAsOVS(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	mod := func(xid uint32, cmd uint16, maps ...openflow.TLVMap) []byte {
		b, err := (&openflow.TLVTableMod{Header: openflow.Header{Version: openflow.Version13, XID: xid}, Command: cmd, Maps: maps}).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cut := mod(3, openflow.TLVAdd, openflow.TLVMap{OptionLen: 4})
	cut = cut[:len(cut)-4]
	cut[3] = byte(len(cut))
	req, _ := (&openflow.TLVTableRequest{Header: openflow.Header{Version: openflow.Version13, XID: 5}}).MarshalBinary()
	rep, _ := (&openflow.TLVTableReply{Header: openflow.Header{Version: openflow.Version13, XID: 6}, MaxOptionSpace: 32}).MarshalBinary()
	slave, _ := (&openflow.Role{Header: openflow.Header{Version: openflow.Version13, Type: openflow.TypeRoleRequest, XID: 7},
		Role: openflow.RoleSlave}).MarshalBinary()
	barrier := []byte{4, byte(openflow.TypeBarrierRequest), 0, 8, 0, 0, 0, 99}
	// answers sends msg and a barrier and returns what came back before
	// the barrier's reply, each named as ovs-ofctl ofp-print names it.
	answers := func(c net.Conn, r *openflow.Reader, msg []byte) []string {
		t.Helper()
		if _, err := c.Write(append(append([]byte{}, msg...), barrier...)); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if openflow.Type(b[1]) == openflow.TypeBarrierReply {
				return got
			}
			out, err := exec.Command(ofctl, "ofp-print", hex.EncodeToString(b)).Output()
			if err != nil {
				t.Fatalf("ofp-print %x: %v\n%s", b, err, out)
			}
			got = append(got, strings.SplitN(string(out), "\n", 2)[0])
		}
	}
	oursC, oursR := dialOF13(t, func() (net.Conn, error) { return net.Dial("tcp", ours[len("tcp:"):]) })
	theirsC, theirsR := dialOF13(t, func() (net.Conn, error) { return ovs.Dial(fmt.Sprintf("127.0.0.1:%d", ovstest.Port)) })
	for _, c := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"command 3", mod(2, 3), "OFPT_ERROR (OF1.3) (xid=0x2): NXTTMFC_BAD_COMMAND"},
		{"cut map", cut, "OFPT_ERROR (OF1.3) (xid=0x3): OFPBRC_BAD_LEN"},
		{"mapping", mod(4, openflow.TLVAdd, openflow.TLVMap{OptionClass: 9, OptionLen: 4, Index: 4}), ""},
		{"reply to the switch", rep, "OFPT_ERROR (OF1.3) (xid=0x6): OFPBRC_BAD_TYPE"},
		{"slave", slave, "OFPT_ROLE_REPLY (OF1.3) (xid=0x7): role=secondary"},
		{"mod from a slave", mod(8, openflow.TLVClear), "OFPT_ERROR (OF1.3) (xid=0x8): OFPBRC_IS_SECONDARY"},
		{"request from a slave", req, "NXT_TLV_TABLE_REPLY (OF1.3) (xid=0x5):"},
	} {
		theirs := answers(theirsC, theirsR, c.msg)
		got := answers(oursC, oursR, c.msg)
		if diff := cmp.Diff(theirs, got); diff != "" {
			t.Errorf("%s (-Open vSwitch +ofswitch):\n%s", c.name, diff)
		}
		if want := strings.Join(got, "\n"); want != c.want && !strings.HasPrefix(want, c.want+" ") {
			t.Errorf("%s: ofswitch answers %q, want %q", c.name, want, c.want)
		}
	}
}

// TestTunMetadataFlowsAsOVS maps four tunnel metadata fields in
// ofswitch and Open vSwitch and adds the same flows matching them,
// exact and masked, of the mapped length and shorter or longer: dump-flows
// prints the same over OpenFlow 1.3 and 1.4. An unmapped field is
// NXFMFC_INVALID_TLV_FIELD in both, a mapping a flow uses cannot be
// deleted or cleared (NXTTMFC_INVALID_TLV_DEL) until the flow goes, and
// dump-flows selects by a tun_metadata field as Open vSwitch does.
func TestTunMetadataFlowsAsOVS(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	same := func(what, got, want string) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-Open vSwitch +ofswitch):\n%s", what, diff)
		}
	}
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows")
		got, want := ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map"), ovsSettled(t, ofctl, ovs, ver, "del-tlv-map")
		same("del-tlv-map", got, want)
		got, want = ofctlBoth(t, ofctl, ovs, ours, ver, "add-tlv-map",
			"{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=4}->tun_metadata1,"+
				"{class=0xffff,type=2,len=8}->tun_metadata2,{class=0xffff,type=3,len=12}->tun_metadata63")
		same("add-tlv-map", got, want)
		if got != "" {
			t.Fatalf("add-tlv-map: %s", got)
		}
		lines := addFlowsBoth(t, ofctl, ovs, ours, ver, tunMetadataFlows)
		if ver == "OpenFlow13" {
			checkTunMetadataText(t, lines)
		}
		for _, c := range []struct {
			what string
			cmd  string
			args []string
		}{
			{"unmapped field", "add-flow", []string{"priority=19,tun_metadata5=1,actions=drop"}},
			{"delete of a used mapping", "del-tlv-map", []string{"{class=0xffff,type=0,len=4}->tun_metadata0"}},
			{"clear of used mappings", "del-tlv-map", nil},
			{"dump by a field", "dump-flows", []string{"tun_metadata0=0x1234"}},
			{"dump by an unmapped field", "dump-flows", []string{"tun_metadata9=0x1234"}},
		} {
			got, want := ofctlBoth(t, ofctl, ovs, ours, ver, c.cmd, c.args...)
			if c.cmd == "dump-flows" {
				got, want = strings.Join(ovstest.FlowLines(got), "\n"), strings.Join(ovstest.FlowLines(want), "\n")
			}
			same(ver+" "+c.what, got, want)
			t.Logf("%s %s:\n%s", ver, c.what, got)
		}
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows", "tun_metadata0=0x1234")
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows", "tun_metadata0=0xabcdef01,tun_metadata2=0x1122334455667788")
		gotLines, wantLines := dumpBoth(t, ofctl, ovs, ours, ver)
		same(ver+" after del-flows by tun_metadata", strings.Join(gotLines, "\n"), strings.Join(wantLines, "\n"))
		if len(gotLines) != 7 {
			t.Errorf("%s: %d flows left, want 7", ver, len(gotLines))
		}
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows")
		got = ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map", "{class=0xffff,type=0,len=4}->tun_metadata0")
		want = ovsSettled(t, ofctl, ovs, ver, "del-tlv-map", "{class=0xffff,type=0,len=4}->tun_metadata0")
		same(ver+" delete once unused", got, want)
		if got != "" {
			t.Errorf("%s: delete once unused: %s", ver, got)
		}
	}
}

// tunMetadataFlows are the flows of TestTunMetadataFlowsAsOVS; the
// seventh gives a value longer than its field's 4 bytes.
var tunMetadataFlows = []string{
	"table=0,priority=10,tun_metadata0=0x1234,actions=output:1",
	"table=0,priority=11,tun_metadata1=0x1/0xff,actions=drop",
	"table=0,priority=12,tun_metadata0=0xabcdef01,tun_metadata2=0x1122334455667788,actions=output:2",
	"table=0,priority=13,ip,tun_metadata63=0x123456789012345678901234,actions=output:3",
	"table=1,priority=14,tun_metadata63=0x1/0x1,tun_metadata1=0xffffffff,actions=output:4",
	"table=1,priority=15,tun_metadata2=0xff00000000000000/0xff00000000000000,actions=output:5",
	"table=1,priority=16,tun_metadata0=0x112233445566,actions=output:6",
	"table=1,priority=17,tun_metadata0=0,actions=output:7",
	"table=2,priority=18,tun_metadata2=0x1,tun_id=5,reg0=3,actions=output:8",
}

// checkTunMetadataText parses tunMetadataFlows with ofswitch's flow text
// parser, under a TLV table mapping as the test's, and requires that
// FormatMatchTLV prints each match as Open vSwitch's dump-flows printed
// it (dumped, one line a flow in the same order). The value too long
// for its field is an error in ofswitch's text, where Open vSwitch's
// wire decoding keeps its first bytes.
func checkTunMetadataText(t *testing.T, dumped []string) {
	t.Helper()
	var ts ofrules.TLVTables
	err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVAdd, Maps: []openflow.TLVMap{
		{OptionClass: 0xffff, OptionType: 0, OptionLen: 4, Index: 0}, {OptionClass: 0xffff, OptionType: 1, OptionLen: 4, Index: 1},
		{OptionClass: 0xffff, OptionType: 2, OptionLen: 8, Index: 2}, {OptionClass: 0xffff, OptionType: 3, OptionLen: 12, Index: 63}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := &ofctl.ParseOptions{TunMetadata: ts.Load()}
	for i, flow := range tunMetadataFlows {
		ups, errs := ofctl.ParseFlows("f", []byte(flow), opt)
		if i == 6 {
			if len(errs) == 0 {
				t.Errorf("%s: parsed", flow)
			}
			continue
		}
		if len(errs) != 0 || len(ups) != 1 {
			t.Fatalf("%s: %v", flow, errs)
		}
		got := ofctl.FormatMatchTLV(&ups[0].Match, ups[0].Priority, ts.Load())
		_, want, _ := strings.Cut(dumped[i], "table="+strconv.Itoa(int(ups[0].Table))+", ")
		want, _, _ = strings.Cut(want, " actions=")
		if got != want {
			t.Errorf("%s: ofswitch prints %q, Open vSwitch %q", flow, got, want)
		}
	}
	if _, errs := ofctl.ParseFlows("f", []byte("tun_metadata9=1,actions=drop"), opt); len(errs) == 0 ||
		!strings.Contains(errs[0].Error(), "tun_metadata9 is not mapped") {
		t.Errorf("unmapped field: %v", errs)
	}
}

// checkTunMetadataActionsText parses flows with ofswitch's flow text
// parser, under a TLV table mapping as TestTunMetadataSetFieldAsOVS's,
// and requires that ofctl.FormatFlowTLV prints each as Open vSwitch's
// dump-flows did (dumped, one line a flow, in any order): the set_field,
// load, move and output:field of tun_metadata fields by the field's name.
func checkTunMetadataActionsText(t *testing.T, flows, dumped []string) {
	t.Helper()
	var ts ofrules.TLVTables
	err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVAdd, Maps: []openflow.TLVMap{
		{OptionClass: 0xffff, OptionType: 0, OptionLen: 4, Index: 0}, {OptionClass: 0xffff, OptionType: 1, OptionLen: 8, Index: 1},
		{OptionClass: 0xffff, OptionType: 2, OptionLen: 12, Index: 2}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	counters := regexp.MustCompile(`duration=[0-9.]+s, |n_packets=\d+, |n_bytes=\d+, `)
	want := map[string]bool{}
	for _, l := range dumped {
		want[strings.TrimSpace(counters.ReplaceAllString(l, ""))] = true
	}
	checked := 0
	for _, flow := range flows {
		ups, errs := ofctl.ParseFlows("f", []byte(flow), &ofctl.ParseOptions{TunMetadata: ts.Load()})
		if len(errs) != 0 || len(ups) != 1 {
			// A value longer than its field, a bit beyond it: errors
			// in ofswitch's text, where Open vSwitch's wire decoding
			// keeps the first bytes.
			t.Logf("%s: %v", flow, errs)
			continue
		}
		checked++
		u := &ups[0]
		got := ofctl.FormatFlowTLV(u.Table, &u.Match, u.Priority, 0, 0, 0, 0, u.Instructions, ofctl.FlowStats{}, ts.Load())
		got = strings.TrimSpace(counters.ReplaceAllString(got, ""))
		if !want[got] {
			t.Errorf("%s: ofswitch prints %q, not a line of Open vSwitch's dump-flows:\n%s", flow, got, strings.Join(dumped, "\n"))
		}
	}
	if checked != len(flows)-2 {
		t.Errorf("%d flows of %d parsed, want all but 2", checked, len(flows))
	}
}

// TestTunMetadataSetFieldAsOVS adds flows that write tunnel metadata
// fields, as set_field and as load (which ovs-ofctl sends as
// NXAST_REG_LOAD2 of the bytes the value needs), to ofswitch and Open
// vSwitch: dump-flows prints the same over OpenFlow 1.3 and 1.4 (Open
// vSwitch prints every one as a set_field of the mapped length), an
// unmapped field is NXFMFC_INVALID_TLV_FIELD in both, a mapping a flow
// writes cannot be deleted.
func TestTunMetadataSetFieldAsOVS(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	same := func(what, got, want string) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-Open vSwitch +ofswitch):\n%s", what, diff)
		}
	}
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows")
		ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map")
		ovsSettled(t, ofctl, ovs, ver, "del-tlv-map")
		got, want := ofctlBoth(t, ofctl, ovs, ours, ver, "add-tlv-map",
			"{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=8}->tun_metadata1,{class=0xffff,type=2,len=12}->tun_metadata2")
		if got != "" || want != "" {
			t.Fatalf("add-tlv-map: %q, %q", got, want)
		}
		flows := []string{
			"priority=1,actions=set_field:0x1234->tun_metadata0,resubmit(,1)",
			"priority=2,actions=load:0x12->tun_metadata0[0..7],output:1",
			"priority=3,actions=load:0x12->tun_metadata1[8..15],output:1",
			"priority=4,tun_metadata0=0x1,actions=set_field:0x1122334455->tun_metadata1,goto_table:1",
			"priority=5,actions=load:0x1->tun_metadata2[90..95],output:1",
			"priority=6,actions=set_field:0x112233445566->tun_metadata0,output:1",
			"priority=7,actions=load:0x1->tun_metadata0[32],output:1",
			"priority=8,actions=set_field:0x1->tun_metadata2,set_field:0xffffffffffffffffffffffff->tun_metadata2,output:2",
			"table=1,priority=9,actions=write_actions(set_field:0xabcdef->tun_metadata1,output:3)",
			"table=1,priority=10,actions=move:NXM_NX_TUN_METADATA1[0..31]->NXM_NX_REG1[],output:1",
			"table=1,priority=11,actions=move:NXM_NX_REG0[0..15]->NXM_NX_TUN_METADATA0[8..23],output:1",
			"table=1,priority=12,actions=output:NXM_NX_TUN_METADATA0[0..15]",
			"table=1,priority=13,actions=move:NXM_NX_TUN_METADATA2[64..95]->NXM_NX_TUN_METADATA1[32..63],move:NXM_NX_TUN_METADATA2[0..63]->OXM_OF_PKT_REG1[]",
		}
		lines := addFlowsBoth(t, ofctl, ovs, ours, ver, flows)
		if ver == "OpenFlow13" {
			checkTunMetadataActionsText(t, flows, lines)
		}
		for _, c := range []struct {
			what string
			cmd  string
			args []string
		}{
			{"unmapped field", "add-flow", []string{"priority=19,actions=set_field:0x1->tun_metadata5"}},
			{"unmapped field in load", "add-flow", []string{"priority=19,actions=load:0x1->tun_metadata6[0..3]"}},
			{"masked set_field outside the mask", "add-flow", []string{"priority=19,actions=set_field:0x1234/0xff00->tun_metadata0"}},
			{"delete of a written mapping", "del-tlv-map", []string{"{class=0xffff,type=2,len=12}->tun_metadata2"}},
			{"delete of a moved mapping", "del-tlv-map", []string{"{class=0xffff,type=1,len=8}->tun_metadata1"}},
			{"move of an unmapped field", "add-flow", []string{"priority=19,actions=move:NXM_NX_TUN_METADATA9[0..7]->NXM_NX_REG0[0..7]"}},
			{"move beyond the mapped length", "add-flow", []string{"priority=19,actions=move:NXM_NX_TUN_METADATA0[24..39]->NXM_NX_REG0[0..15]"}},
		} {
			// The error lines: ofswitch echoes the first 64 bytes of
			// the request, Open vSwitch all of it.
			got, want := ofctlBoth(t, ofctl, ovs, ours, ver, c.cmd, c.args...)
			errLine := regexp.MustCompile(`(?m)^OFPT_ERROR.*$`)
			same(ver+" "+c.what, errLine.FindString(got), errLine.FindString(want))
			if !strings.Contains(got, "OFPT_ERROR") {
				t.Errorf("%s %s: taken:\n%s", ver, c.what, got)
			}
		}
		// Bits across two option space words: Open vSwitch takes them,
		// ofswitch's subfields cannot hold them.
		if got := ofctlOne(t, ofctl, nil, ours, ver, "add-flow", "priority=20,actions=move:NXM_NX_TUN_METADATA2[32..95]->OXM_OF_PKT_REG1[]"); !strings.Contains(got, "OFPBAC_BAD_SET_ARGUMENT") {
			t.Errorf("%s: move across two words: %s", ver, got)
		}
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows", "--strict", "priority=5")
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows", "--strict", "priority=8")
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows", "--strict", "table=1,priority=13")
		got = ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map", "{class=0xffff,type=2,len=12}->tun_metadata2")
		want = ovsSettled(t, ofctl, ovs, ver, "del-tlv-map", "{class=0xffff,type=2,len=12}->tun_metadata2")
		same(ver+" delete once unwritten", got, want)
		if got != "" {
			t.Errorf("%s: delete once unwritten: %s", ver, got)
		}
	}
}

// TestTunMetadataRegLoadAsOVS sends NXAST_REG_LOAD into bits of
// tunnel metadata fields (which ovs-ofctl never sends: it makes a load
// NXAST_REG_LOAD2) to ofswitch and Open vSwitch: both print them as the
// same set_field under a mask, and refuse the same bad ones.
func TestTunMetadataRegLoadAsOVS(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	for _, target := range []*ovstest.Switch{nil, ovs} {
		if out := ofctlOne(t, ofctl, target, ours, "OpenFlow13", "add-tlv-map",
			"{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=8}->tun_metadata1,{class=0xffff,type=2,len=12}->tun_metadata2"); out != "" {
			t.Fatal(out)
		}
	}
	load := func(field, ofs, n int, v uint64) openflow.NXAction {
		return openflow.NXAction{Subtype: openflow.NXRegLoad, Dst: openflow.OXMHeader(1<<16 | uint32(40+field)<<9 | 4),
			Ofs: uint16(ofs), NBits: uint16(n), Value: v}
	}
	send := func(c net.Conn, r *openflow.Reader, xid uint32, x openflow.NXAction) string {
		t.Helper()
		fm := &openflow.FlowMod{Header: openflow.Header{Version: openflow.Version13, XID: xid}, Priority: uint16(xid), BufferID: openflow.NoBuffer,
			OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, Instructions: []openflow.Instruction{openflow.ApplyActions(x.Action(), openflow.Output(2, 0))}}
		b, err := fm.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(append(b, 4, byte(openflow.TypeBarrierRequest), 0, 8, 0, 0, 0, 99)); err != nil {
			t.Fatal(err)
		}
		answer := ""
		for {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			m, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if openflow.Type(m[1]) == openflow.TypeBarrierReply {
				return answer
			}
			out, _ := exec.Command(ofctl, "ofp-print", hex.EncodeToString(m)).Output()
			answer += strings.SplitN(string(out), "\n", 2)[0]
		}
	}
	oursC, oursR := dialOF13(t, func() (net.Conn, error) { return net.Dial("tcp", ours[len("tcp:"):]) })
	theirsC, theirsR := dialOF13(t, func() (net.Conn, error) { return ovs.Dial(fmt.Sprintf("127.0.0.1:%d", ovstest.Port)) })
	for i, x := range []openflow.NXAction{
		load(0, 0, 8, 0x12),
		load(1, 24, 16, 0x1234),    // across tun_metadata1's two words
		load(0, 0, 32, 0x12345678), // the whole field
		load(2, 90, 6, 0x3f),       // the top of a 12-byte field
		load(0, 24, 16, 1),         // beyond 32 bits: OFPBAC_BAD_SET_LEN
		load(0, 0, 4, 0x10),        // wider than 4 bits: OFPBAC_BAD_ARGUMENT
		load(5, 0, 8, 1),           // unmapped: NXFMFC_INVALID_TLV_FIELD
		load(1, 60, 4, 0xf),        // the top 4 bits of tun_metadata1
	} {
		xid := uint32(100 + i)
		got, want := send(oursC, oursR, xid, x), send(theirsC, theirsR, xid, x)
		if got != want {
			t.Errorf("load %d: ofswitch answers %q, Open vSwitch %q", i, got, want)
		}
	}
	got, want := dumpBoth(t, ofctl, ovs, ours, "OpenFlow13")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dump-flows (-Open vSwitch +ofswitch):\n%s", diff)
	}
	if len(got) != 5 {
		t.Errorf("%d flows, want 5:\n%s", len(got), strings.Join(got, "\n"))
	}
	t.Logf("%s", strings.Join(got, "\n"))
}

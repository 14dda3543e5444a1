package controller

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTunMetadataGroupsAsOVS drives ofswitch and Open vSwitch with the
// same TLV map, groups whose buckets set, load and move tun_metadata
// fields, and PACKET_OUTs with such actions, over OpenFlow 1.3 and 1.4:
// both take them and dump-groups prints the same groups. Where the two
// differ, the test holds ofswitch to its documented answer: a bucket or
// PACKET_OUT naming an unmapped field is NXFMFC_INVALID_TLV_FIELD (Open
// vSwitch takes it and writes nothing), and a mapping a group uses
// cannot be deleted (NXTTMFC_INVALID_TLV_DEL; Open vSwitch deletes it).
func TestTunMetadataGroupsAsOVS(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	same := func(what, got, want string) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-Open vSwitch +ofswitch):\n%s", what, diff)
		}
	}
	taken := func(what, got, want string) {
		t.Helper()
		same(what, got, want)
		if got != "" {
			t.Errorf("%s: refused:\n%s", what, got)
		}
	}
	groupLines := func(out string) string {
		var ls []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, " group_id=") {
				ls = append(ls, strings.TrimSpace(l))
			}
		}
		slices.Sort(ls) // Open vSwitch dumps its groups in hash order
		return strings.Join(ls, "\n")
	}
	errLine := regexp.MustCompile(`(?m)^OFPT_ERROR.*$`)
	refused := func(what, got, code string) {
		t.Helper()
		if l := errLine.FindString(got); !strings.HasSuffix(l, code) {
			t.Errorf("%s: ofswitch answers %q, want %s", what, l, code)
		}
	}
	// An IPv4 frame of 34 bytes.
	const frame = "ffffffffffff000000000001080045000014000000004011000000000000000000000000"
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-groups")
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-flows")
		got, want := ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map"), ovsSettled(t, ofctl, ovs, ver, "del-tlv-map")
		taken(ver+" del-tlv-map", got, want)
		got, want = ofctlBoth(t, ofctl, ovs, ours, ver, "add-tlv-map",
			"{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=8}->tun_metadata1,{class=0xffff,type=2,len=12}->tun_metadata2")
		if got != "" || want != "" {
			t.Fatalf("add-tlv-map: %q, %q", got, want)
		}
		for _, g := range []string{
			"group_id=1,type=all,bucket=set_field:0x1234->tun_metadata0,output:1",
			"group_id=2,type=select,bucket=weight=1,load:0x12->tun_metadata1[8..15],output:1,bucket=weight=2,move:NXM_NX_TUN_METADATA0[0..15]->NXM_NX_REG0[0..15],output:2",
			"group_id=3,type=indirect,bucket=set_field:0x112233445566778899aabbcc->tun_metadata2,output:NXM_NX_TUN_METADATA2[0..15]",
			"group_id=4,type=ff,bucket=watch_port=1,set_field:0x1/0xff->tun_metadata1,move:NXM_NX_REG1[0..7]->NXM_NX_TUN_METADATA0[24..31],output:1",
		} {
			got, want := ofctlBoth(t, ofctl, ovs, ours, ver, "add-group", g)
			taken(ver+" add-group "+g, got, want)
		}
		got, want = ofctlBoth(t, ofctl, ovs, ours, ver, "dump-groups")
		same(ver+" dump-groups", groupLines(got), groupLines(want))
		if n := strings.Count(groupLines(got), "group_id="); n != 4 {
			t.Errorf("%s: %d groups, want 4:\n%s", ver, n, got)
		}
		t.Logf("%s dump-groups:\n%s", ver, groupLines(got))
		for _, acts := range []string{
			"set_field:0x1234->tun_metadata0,move:NXM_NX_TUN_METADATA0[0..15]->NXM_NX_REG0[0..15],output:LOCAL",
			"load:0x12->tun_metadata1[8..15],set_field:0x1/0x1->tun_metadata2,output:LOCAL",
			"group:1",
		} {
			got, want := ofctlBoth(t, ofctl, ovs, ours, ver, "packet-out", "in_port=controller,packet="+frame+",actions="+acts)
			taken(ver+" packet-out "+acts, got, want)
		}
		// Taken by Open vSwitch, refused by ofswitch.
		got = ofctlOne(t, ofctl, nil, ours, ver, "add-group", "group_id=5,type=all,bucket=set_field:0x1->tun_metadata5,output:1")
		refused(ver+" group with an unmapped field", got, "NXFMFC_INVALID_TLV_FIELD")
		got = ofctlOne(t, ofctl, nil, ours, ver, "packet-out", "in_port=controller,packet="+frame+",actions=set_field:0x1->tun_metadata5,output:LOCAL")
		refused(ver+" packet-out with an unmapped field", got, "NXFMFC_INVALID_TLV_FIELD")
		got = ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map", "{class=0xffff,type=2,len=12}->tun_metadata2")
		refused(ver+" delete of a mapping group 3 uses", got, "NXTTMFC_INVALID_TLV_DEL")
		got = ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map")
		refused(ver+" clear of mappings groups use", got, "NXTTMFC_INVALID_TLV_DEL")
		// Group 2 moves tun_metadata0 still, group 4 writes it.
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-groups", "group_id=1")
		got = ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map", "{class=0xffff,type=0,len=4}->tun_metadata0")
		refused(ver+" delete of a mapping groups 2 and 4 use", got, "NXTTMFC_INVALID_TLV_DEL")
		ofctlBoth(t, ofctl, ovs, ours, ver, "del-groups", "group_id=3")
		if got := ofctlOne(t, ofctl, nil, ours, ver, "del-tlv-map", "{class=0xffff,type=2,len=12}->tun_metadata2"); got != "" {
			t.Errorf("%s: delete of a mapping no group uses: %s", ver, got)
		}
	}
}

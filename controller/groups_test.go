package controller

import (
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func groupMod(xid uint32, cmd uint16, typ uint8, id uint32, bs ...openflow.Bucket) *openflow.GroupMod {
	return &openflow.GroupMod{Header: hdr(openflow.TypeGroupMod, xid), Command: cmd, Type: typ, GroupID: id, Buckets: bs}
}

func outBucket(port uint32) openflow.Bucket {
	return openflow.Bucket{WatchPort: openflow.PortAny, WatchGroup: 0xffffffff, Actions: []openflow.Action{openflow.Output(port, 0)}}
}

func groupFlowMod(xid uint32, inPort, group uint32) *openflow.FlowMod {
	return &openflow.FlowMod{Header: hdr(openflow.TypeFlowMod, xid), Command: openflow.FlowAdd, Priority: 10,
		BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: 0xffffffff, Flags: 1, // SEND_FLOW_REM
		Match:        openflow.Match{Fields: []openflow.OXM{openflow.InPort(inPort)}},
		Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Action{Type: openflow.ActionGroup, GroupID: group})}}
}

// TestGroupMessages: GROUP_MOD and its errors (with the request's xid),
// a FLOW_MOD naming a missing group, the group multiparts with ref_count,
// and a group delete that removes its flow with OFPRR_GROUP_DELETE.
func TestGroupMessages(t *testing.T) {
	_, addr := startAgent(t, nil)
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	barrier := func(xid uint32) {
		c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, xid)})
		c.recv(openflow.TypeBarrierReply)
	}
	c.send(groupMod(1, openflow.GroupAdd, openflow.GroupTypeAll, 1, outBucket(2), outBucket(3)))
	barrier(2)
	c.send(groupMod(3, openflow.GroupAdd, openflow.GroupTypeAll, 1, outBucket(2)))
	c.expectError(3, openflow.ErrTypeGroupModFailed, uint16(openflow.GroupModFailedGroupExists))
	c.send(groupMod(4, openflow.GroupModify, openflow.GroupTypeAll, 9, outBucket(2)))
	c.expectError(4, openflow.ErrTypeGroupModFailed, uint16(openflow.GroupModFailedUnknownGroup))
	c.send(groupMod(5, openflow.GroupAdd, openflow.GroupTypeIndirect, 2))
	c.expectError(5, openflow.ErrTypeGroupModFailed, uint16(openflow.GroupModFailedInvalidGroup))
	loop := outBucket(2)
	loop.Actions = []openflow.Action{{Type: openflow.ActionGroup, GroupID: 3}}
	c.send(groupMod(6, openflow.GroupAdd, openflow.GroupTypeAll, 3, loop))
	c.expectError(6, openflow.ErrTypeGroupModFailed, uint16(openflow.GroupModFailedLoop))
	watched := outBucket(2)
	watched.WatchPort = 2
	c.send(groupMod(16, openflow.GroupAdd, openflow.GroupTypeAll, 4, watched))
	c.expectError(16, openflow.ErrTypeGroupModFailed, uint16(openflow.GroupModFailedWatchUnsupported))
	c.send(groupMod(17, openflow.GroupAdd, openflow.GroupTypeFF, 4, outBucket(2)))
	c.expectError(17, openflow.ErrTypeGroupModFailed, uint16(openflow.GroupModFailedInvalidGroup))
	c.send(groupMod(7, openflow.GroupAdd, 9, 4, outBucket(2)))
	c.expectError(7, openflow.ErrTypeGroupModFailed, uint16(openflow.GroupModFailedBadType))
	c.send(groupFlowMod(8, 1, 5))
	c.expectError(8, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadOutGroup))
	c.send(groupFlowMod(9, 1, 1))
	barrier(10)

	var rep openflow.MultipartReply
	c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 11), Part: openflow.MultipartGroup, GroupID: 0xfffffffc})
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil || len(rep.Groups) != 1 ||
		rep.Groups[0].GroupID != 1 || rep.Groups[0].RefCount != 1 || len(rep.Groups[0].BucketStats) != 2 {
		t.Fatalf("GROUP stats %+v, %v", rep.Groups, err)
	}
	c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 12), Part: openflow.MultipartGroupDesc})
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil || len(rep.GroupDescs) != 1 ||
		len(rep.GroupDescs[0].Buckets) != 2 || rep.GroupDescs[0].Buckets[1].Actions[0].Port != 3 {
		t.Fatalf("GROUP_DESC %+v, %v", rep.GroupDescs, err)
	}
	c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 13), Part: openflow.MultipartGroupFeatures})
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil || rep.GroupFeatures.Types != 0xf {
		t.Fatalf("GROUP_FEATURES %+v, %v", rep.GroupFeatures, err)
	}
	c.send(groupMod(14, openflow.GroupDelete, 0, 1))
	var fr openflow.FlowRemoved
	if err := fr.UnmarshalBinary(c.recv(openflow.TypeFlowRemoved)); err != nil || fr.Reason != 3 {
		t.Fatalf("FLOW_REMOVED %+v, %v; want reason OFPRR_GROUP_DELETE", fr, err)
	}
	c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 15), Part: openflow.MultipartFlow,
		Flow: openflow.FlowStatsRequest{TableID: 0xff, OutPort: openflow.PortAny, OutGroup: 0xffffffff}})
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil || len(rep.Flows) != 0 {
		t.Fatalf("flows after the group's delete: %+v, %v", rep.Flows, err)
	}
}

// groupCommands are ovs-ofctl commands that both switches take alike:
// groups of every type, select weights, watches, chaining, modify and
// delete.
var groupCommands = [][]string{
	{"add-group", "group_id=1,type=all,bucket=output:2,bucket=output:3"},
	{"add-group", "group_id=2,type=select,bucket=weight:50,actions=output:1,bucket=weight:25,output:2,bucket=output:3"},
	{"add-group", "group_id=3,type=indirect,bucket=actions=set_field:00:00:00:00:00:01->eth_dst,output:4"},
	{"add-group", "group_id=4,type=fast_failover,bucket=watch_port:1,output:1,bucket=watch_port:2,output:2"},
	{"add-group", "group_id=5,type=all,bucket=actions=group:1,bucket=actions=push_vlan:0x8100,set_field:4196->vlan_vid,output:3"},
	{"add-group", "group_id=6,type=fast_failover,bucket=watch_group:4,actions=group:4,bucket=watch_port:3,actions=output:3"},
	{"mod-group", "group_id=1,type=all,bucket=output:1,bucket=output:2,bucket=output:3"},
	{"add-group", "group_id=7,type=indirect,bucket=output:1"},
	{"del-groups", "group_id=7"},
	{"add-flow", "in_port=1,actions=group:5"},
}

var durationRE = regexp.MustCompile(`duration=[0-9.]+s,`)

// groupDumps runs the group dumps through run and returns them with the
// lines of each sorted (Open vSwitch lists groups in hash order) and
// durations dropped.
func groupDumps(t *testing.T, run func(args ...string) string) map[string][]string {
	out := map[string][]string{}
	for _, cmd := range []string{"dump-groups", "dump-group-stats"} {
		lines := strings.Split(strings.TrimSpace(durationRE.ReplaceAllString(run(cmd), "")), "\n")
		for i := range lines {
			lines[i] = regexp.MustCompile(`xid=0x[0-9a-f]+`).ReplaceAllString(lines[i], "xid")
		}
		slices.Sort(lines)
		out[cmd] = lines
	}
	return out
}

// TestOvsOfctlGroups: ovs-ofctl add-group, mod-group, del-groups and
// add-flow give the same dump-groups and dump-group-stats on ofswitch as
// on Open vSwitch; dump-group-features differs where ofswitch reports what
// it does (see the test's own comments).
func TestOvsOfctlGroups(t *testing.T) {
	ofctlBin := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	_, addr := startAgent(t, nil)
	_, port, _ := net.SplitHostPort(addr)
	target := "tcp:127.0.0.1:" + port
	ours := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(ofctlBin, append([]string{"-O", "OpenFlow13", args[0], target}, args[1:]...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("ovs-ofctl %s (ofswitch): %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	theirs := func(args ...string) string {
		t.Helper()
		out, err := ovs.Ofctl("", args[0], args[1:]...)
		if err != nil {
			t.Fatalf("Open vSwitch: %v", err)
		}
		return out
	}
	for _, cmd := range groupCommands {
		ours(cmd...)
		theirs(cmd...)
	}
	got, want := groupDumps(t, ours), groupDumps(t, theirs)
	for cmd := range want {
		if !slices.Equal(got[cmd], want[cmd]) {
			t.Errorf("%s:\nofswitch:\n%s\nOpen vSwitch:\n%s", cmd, strings.Join(got[cmd], "\n"), strings.Join(want[cmd], "\n"))
		}
	}
	// rules/ofctl reads the same lines and prints the groups as Open
	// vSwitch's dump-groups does.
	printed := map[uint32]string{}
	for _, cmd := range groupCommands {
		switch cmd[0] {
		case "add-group", "mod-group":
			m, err := ofctl.ParseGroup(cmd[1], groups.Add)
			if err != nil {
				t.Fatalf("ofctl.ParseGroup(%q): %v", cmd[1], err)
			}
			printed[m.ID] = " " + ofctl.FormatGroup(m.ID, m.Type, m.Buckets)
		case "del-groups":
			m, err := ofctl.ParseGroup(cmd[1], groups.Delete)
			if err != nil {
				t.Fatalf("ofctl.ParseGroup(%q): %v", cmd[1], err)
			}
			delete(printed, m.ID)
		}
	}
	lines := []string{"OFPST_GROUP_DESC reply (OF1.3) (xid):"}
	for _, l := range printed {
		lines = append(lines, l)
	}
	slices.Sort(lines)
	if !slices.Equal(lines, want["dump-groups"]) {
		t.Errorf("ofctl.FormatGroup:\n%s\nOpen vSwitch:\n%s", strings.Join(lines, "\n"), strings.Join(want["dump-groups"], "\n"))
	}
	// Features: ofswitch also refuses loops (OFPGFC_CHAINING_CHECKS,
	// capabilities 0xf where Open vSwitch says 0x7), holds at most 65536
	// groups of a type, and lists the actions it performs.
	// Its actions are those its FLOW_MODs take (ofrules.GroupFeatures):
	// at least these, and none that Open vSwitch lacks.
	f, of := ours("dump-group-features"), theirs("dump-group-features")
	for _, want := range []string{"Types:  0xf", "Capabilities:  0xf", "max_groups=0x10000"} {
		if !strings.Contains(f, want) {
			t.Errorf("dump-group-features lacks %q:\n%s", want, f)
		}
	}
	actions := func(s string) []string {
		_, list, _ := strings.Cut(s, "actions: ")
		list, _, _ = strings.Cut(list, "\n")
		return strings.Fields(list)
	}
	ourActs, ovsActs := actions(f), actions(of)
	for _, a := range []string{"output", "group", "set_field", "strip_vlan", "push_vlan", "dec_ttl", "set_queue"} {
		if !slices.Contains(ourActs, a) {
			t.Errorf("dump-group-features: no %s in %q", a, ourActs)
		}
	}
	for _, a := range ourActs {
		if !slices.Contains(ovsActs, a) {
			t.Errorf("dump-group-features: %s, which Open vSwitch lacks (%q)", a, ovsActs)
		}
	}
	// Deleting every group removes the flow that used group 5.
	ours("del-groups")
	if flows := ovstest.FlowLines(ovstest.DumpFlows(t, ofctlBin, target)); len(flows) != 0 {
		t.Errorf("flows left after del-groups: %q", flows)
	}
}

package controller

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/openflow"
)

// dumpLines returns the lines of an ovs-ofctl dump without its first (the
// reply's header, with its xid) and without counters, sorted: Open vSwitch
// prints groups in hash order.
func dumpLines(out string) []string {
	var lines []string
	for i, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); i > 0 && l != "" {
			lines = append(lines, regexp.MustCompile(` duration=[0-9.]+s,`).ReplaceAllString(l, ""))
		}
	}
	slices.Sort(lines)
	return lines
}

var ofctlErrorName = regexp.MustCompile(`Error (OF[A-Z_]+)`)

// TestOvsOfctlBundleGroups drives ofswitch and Open vSwitch with the same
// "ovs-ofctl bundle" files of group and flow lines and "ovs-ofctl --bundle
// add-groups", over OpenFlow 1.4 and 1.3 (ONF bundles): the groups and
// flows a good bundle leaves are the same on both, and a bundle whose later
// message fails is answered with the same errors (the message's, then
// OFPBFC_MSG_FAILED) and leaves both unchanged.
func TestOvsOfctlBundleGroups(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// both runs ovs-ofctl on each switch and returns what it printed and
	// whether it failed.
	both := func(args ...string) (o, theirs string, oErr, theirErr bool) {
		t.Helper()
		a, rest := []string{"-O", args[0]}, args[1:]
		for strings.HasPrefix(rest[0], "--") {
			a, rest = append(a, rest[0]), rest[1:]
		}
		at := len(a) + 1
		a = append(append(a, rest[0], ours), rest[1:]...)
		ob, err1 := exec.Command(ofctl, a...).CombinedOutput()
		a[at] = ovs.Target()
		tb, err2 := ovs.Exec("ovs-ofctl", a...).CombinedOutput()
		return string(ob), string(tb), err1 != nil, err2 != nil
	}
	same := func(step string) {
		t.Helper()
		for _, cmd := range []string{"dump-groups", "dump-flows"} {
			o, theirs, e1, e2 := both("OpenFlow13", cmd)
			if e1 || e2 {
				t.Fatalf("%s: %s: ofswitch %s, Open vSwitch %s", step, cmd, o, theirs)
			}
			if got, want := dumpLines(o), dumpLines(theirs); !slices.Equal(got, want) {
				t.Fatalf("after %s, %s:\nofswitch\n%s\nOpen vSwitch\n%s", step, cmd, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	good := file("good.bundle", `group add group_id=1,type=all,bucket=output:1
group add group_id=2,type=indirect,bucket=actions=group:1
flow add table=0,priority=10,in_port=2,actions=group:2
flow add table=0,priority=11,in_port=3,actions=group:1
`)
	for _, v := range []string{"OpenFlow14", "OpenFlow13"} {
		o, theirs, e1, e2 := both(v, "bundle", good)
		if e1 || e2 {
			t.Fatalf("%s bundle: ofswitch %s, Open vSwitch %s", v, o, theirs)
		}
		same(v + " bundle")
		if o, _, e1, _ := both("OpenFlow13", "dump-flows"); e1 || len(dumpLines(o)) != 2 {
			t.Fatalf("%s: flows after the bundle:\n%s", v, o)
		}
		// Deleting the groups in a bundle removes their flows.
		both(v, "bundle", file("del.bundle", "group delete group_id=2\ngroup delete group_id=1\n"))
		same(v + " bundle of deletes")
	}
	both("OpenFlow14", "bundle", good)
	for _, tc := range []struct{ name, text string }{
		{"flow naming a group the bundle deleted", "flow add priority=20,in_port=5,actions=drop\ngroup add group_id=5,type=all,bucket=output:1\ngroup delete group_id=5\nflow add priority=21,in_port=4,actions=group:5\n"},
		{"duplicate group add", "group add group_id=8,type=all,bucket=output:1\ngroup add group_id=8,type=all,bucket=output:2\n"},
		{"add of an existing group", "flow delete in_port=2\ngroup add group_id=1,type=all,bucket=output:2\n"},
		// Flows only, refused by the flow table's state at commit: the
		// flows before it are taken back too.
		{"overlapping flow", "flow delete in_port=3\nflow add priority=5,ip,actions=drop\nflow add priority=5,check_overlap,tcp,actions=drop\n"},
	} {
		for _, v := range []string{"OpenFlow14", "OpenFlow13"} {
			o, theirs, e1, e2 := both(v, "bundle", file("bad.bundle", tc.text))
			if !e1 || !e2 {
				t.Fatalf("%s, %s: taken: ofswitch %s, Open vSwitch %s", tc.name, v, o, theirs)
			}
			got, want := ofctlErrorName.FindAllStringSubmatch(o, -1), ofctlErrorName.FindAllStringSubmatch(theirs, -1)
			if len(got) != 2 || len(want) != 2 || got[0][1] != want[0][1] || got[1][1] != "OFPBFC_MSG_FAILED" || want[1][1] != "OFPBFC_MSG_FAILED" {
				t.Fatalf("%s, %s: ofswitch answered\n%s\nOpen vSwitch\n%s", tc.name, v, o, theirs)
			}
			// ovs-ofctl prints the same, but for the target.
			if strings.ReplaceAll(o, ours, "SWITCH") != strings.ReplaceAll(theirs, ovs.Target(), "SWITCH") {
				t.Errorf("%s, %s: ofswitch answered\n%s\nOpen vSwitch\n%s", tc.name, v, o, theirs)
			}
			same(tc.name + " " + v)
		}
	}
	// A group loop: Open vSwitch 3.1 takes it (its groups then forward to
	// each other); ofswitch refuses it with OFPGMFC_LOOP, as OpenFlow
	// 1.3.5 §6.7 asks, and the bundle changes nothing.
	loop := file("loop.bundle", "group add group_id=6,type=all,bucket=output:1\ngroup add group_id=7,type=all,bucket=group:6\ngroup modify group_id=6,type=all,bucket=group:7\n")
	if out, err := exec.Command(ofctl, "-O", "OpenFlow14", "bundle", ours, loop).CombinedOutput(); err == nil || !strings.Contains(string(out), "OFPGMFC_LOOP") || !strings.Contains(string(out), "OFPBFC_MSG_FAILED") {
		t.Fatalf("group loop: %v\n%s", err, out)
	}
	same("the refused loop on ofswitch")

	// --bundle add-groups: a chain of groups, then one that exists.
	groupsFile := file("g.groups", "group_id=30,type=all,bucket=output:1\ngroup_id=31,type=all,bucket=group:30\n")
	for _, v := range []string{"OpenFlow14", "OpenFlow13"} {
		both("OpenFlow13", "del-groups")
		o, theirs, e1, e2 := both(v, "--bundle", "add-groups", groupsFile)
		if e1 || e2 {
			t.Fatalf("%s --bundle add-groups: ofswitch %s, Open vSwitch %s", v, o, theirs)
		}
		same(v + " --bundle add-groups")
		o, theirs, e1, e2 = both(v, "--bundle", "add-groups", file("g2.groups", "group_id=32,type=all,bucket=output:2\ngroup_id=30,type=all,bucket=output:2\n"))
		got, want := ofctlErrorName.FindAllStringSubmatch(o, -1), ofctlErrorName.FindAllStringSubmatch(theirs, -1)
		if !e1 || !e2 || len(got) != 2 || len(want) != 2 || got[0][1] != "OFPGMFC_GROUP_EXISTS" || want[0][1] != got[0][1] {
			t.Fatalf("%s --bundle add-groups of an existing group: ofswitch\n%s\nOpen vSwitch\n%s", v, o, theirs)
		}
		same(v + " a refused --bundle add-groups")
	}
}

// TestOvsBundleMeterMod: a METER_MOD in a bundle (OpenFlow 1.3's ONF
// form), sent to Open vSwitch and to ofswitch as the same bytes: Open
// vSwitch 3.1 refuses it with OFPBFC_MSG_UNSUP (ONF experimenter error
// 2310); ofswitch takes it, and the COMMIT adds the meter.
func TestOvsBundleMeterMod(t *testing.T) {
	ovs := ovstest.Start(t)
	a, addr := startAgent(t, &Config{Tables: 2})
	mm := openflow.MeterMod{Header: openflow.Header{Version: openflow.Version13, XID: 7}, Command: openflow.MeterAdd,
		Flags: 2 /* OFPMF_PKTPS */, MeterID: 3, Bands: []openflow.MeterBand{{Type: openflow.MeterBandDrop, Rate: 10}}}
	inner, err := mm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	add := openflow.BundleAddMessage{Header: openflow.Header{Version: openflow.Version13, Type: openflow.TypeExperimenter, XID: 7},
		BundleID: 9, Flags: openflow.BundleAtomic, Message: inner}
	commit := openflow.BundleControl{Header: openflow.Header{Version: openflow.Version13, Type: openflow.TypeExperimenter, XID: 8},
		BundleID: 9, Type: openflow.BundleCommitRequest, Flags: openflow.BundleAtomic}
	var msgs []byte
	for _, m := range []openflow.Message{&add, &commit} {
		if msgs, err = m.AppendBinary(msgs); err != nil {
			t.Fatal(err)
		}
	}
	send := func(c net.Conn, r *openflow.Reader) []byte {
		t.Helper()
		if _, err := c.Write(msgs); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		msg, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	theirs, theirR := dialOF13(t, func() (net.Conn, error) { return ovs.Dial(fmt.Sprintf("127.0.0.1:%d", ovstest.Port)) })
	var em openflow.ErrorMsg
	if err := em.UnmarshalBinary(send(theirs, theirR)); err != nil || em.XID != 7 || em.Type != openflow.ErrTypeExperimenter ||
		em.Code != onfBundleErrorsBase+bundleMsgUnsup {
		t.Fatalf("Open vSwitch answered %+v, %v; want OFPBFC_MSG_UNSUP for xid 7", em, err)
	}
	ours, ourR := dialOF13(t, func() (net.Conn, error) { return net.Dial("tcp", addr) })
	var rep openflow.BundleControl
	if err := rep.UnmarshalBinary(send(ours, ourR)); err != nil || rep.XID != 8 || rep.Type != openflow.BundleCommitReply {
		t.Fatalf("ofswitch answered %+v, %v; want the COMMIT reply", rep, err)
	}
	if a.FlowTables().Meters().Lookup(3) == nil {
		t.Fatal("the bundle's meter is not there")
	}
}

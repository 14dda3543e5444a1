package push

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// groupsFile has groups (chained, each type), meters and flows that use
// them, with a modify and a delete of each kind, and two lines that a
// switch refuses: a flow to a group that does not exist (line 12) and a
// modify of a meter that does not exist (line 13). (Open vSwitch's
// userspace datapath has no dscp_remark bands.)
const groupsFile = `group_id=1,type=all,bucket=output:1,bucket=output:2
group_id=2,type=indirect,bucket=actions=group:1
group add group_id=3,type=select,bucket=weight:3,actions=output:1,bucket=weight:1,actions=output:2
group_id=4,type=ff,bucket=watch_port:1,actions=output:1,bucket=watch_port:2,actions=output:2
meter=1,kbps,bands=type=drop,rate=1000
meter add meter=2,pktps,burst,stats,bands=type=drop,rate=100,burst_size=10
priority=10,ip,actions=meter:1,group:2
flow priority=11,udp,actions=group:3
priority=12,tcp,actions=meter:2,group:4
modify group_id=3,type=select,bucket=weight:5,actions=output:2
meter modify meter=1,kbps,bands=type=drop,rate=2000
priority=13,arp,actions=group:9
meter modify meter=7,kbps,bands=type=drop,rate=5
group delete group_id=4
delete meter=2
`

// parseMods parses a mods file and returns its flows and the push.Mods of
// its groups and meters, as ofswitch push makes them.
func parseMods(t *testing.T, name, text string) (*ofctl.Mods, []Mod) {
	t.Helper()
	m, errs := ofctl.ParseMods(name, []byte(text), nil)
	if len(errs) > 0 {
		t.Fatalf("parse: %v", errs)
	}
	var mods []Mod
	flows := 0
	for _, op := range m.Ops() {
		where := name + ":" + strconv.Itoa(op.Line)
		switch op.Kind {
		case ofctl.OpFlow:
			flows++
		case ofctl.OpGroup:
			mods = append(mods, Mod{Before: flows, Group: &m.Groups[op.Index].Mod, Where: where})
		case ofctl.OpMeter:
			mods = append(mods, Mod{Before: flows, Meter: &m.Meters[op.Index].Mod, Where: where})
		}
	}
	return m, mods
}

// TestPushMods: groups and meters go out in file order among the flows,
// counted in the batches; each refusal names its line and message.
func TestPushMods(t *testing.T) {
	for _, batch := range []int{1, 4, 100} {
		t.Run("batch="+strconv.Itoa(batch), func(t *testing.T) {
			a, addr := startAgent(t, &controller.Config{Tables: 2})
			m, mods := parseMods(t, "g.txt", groupsFile)
			res, err := Flows(context.Background(), "tcp:"+addr, m.Flows, &Config{Batch: batch, Lines: m.Where, Mods: mods})
			if err != nil {
				t.Fatal(err)
			}
			if res.Flows != 4 || res.Groups != 6 || res.Meters != 5 || res.Batches != (15+batch-1)/batch || res.NotApplied != 2 {
				t.Errorf("result %+v", res)
			}
			var got []string
			for _, e := range res.Errors {
				got = append(got, e.Error())
			}
			want := []string{
				"g.txt:12: switch refused FLOW_MOD xid=",
				"g.txt:13: switch refused METER_MOD xid=",
			}
			if len(got) != len(want) || !strings.HasPrefix(got[0], want[0]) || !strings.HasPrefix(got[1], want[1]) ||
				!strings.Contains(got[0], "OFPBAC_BAD_OUT_GROUP") || !strings.Contains(got[1], "OFPMMFC_UNKNOWN_METER") {
				t.Fatalf("errors:\n%s\nwant %q", strings.Join(got, "\n"), want)
			}
			if e := res.Errors[1]; e.Type != openflow.TypeMeterMod || e.Index != 8 {
				t.Errorf("meter error: type %v, index %d; want METER_MOD, mod 9", e.Type, e.Index)
			}
			gs := a.FlowTables().Groups().Load()
			if gs.Len() != 3 || gs.Get(4) != nil || len(gs.Get(3).Buckets) != 1 || gs.Get(3).Buckets[0].Weight != 5 {
				t.Errorf("groups: %d, group 3 %+v", gs.Len(), gs.Get(3))
			}
			mt := a.FlowTables().Meters()
			if mt.Len() != 1 || mt.Lookup(1) == nil || mt.Lookup(1).Config().Bands[0].Rate != 2000 {
				t.Errorf("meters: %d, meter 1 %+v", mt.Len(), mt.Lookup(1))
			}
			// Deleting group 4 and meter 2 removed the flow of line 9.
			if n := len(a.FlowTables().Pipeline().Rules(0)); n != 2 {
				t.Errorf("table 0 holds %d flows, want 2 (lines 7 and 8)", n)
			}
		})
	}
}

// TestPushModsChecks: mods out of order, out of range or neither group
// nor meter fail the push before it connects.
func TestPushModsChecks(t *testing.T) {
	m, mods := parseMods(t, "g.txt", groupsFile)
	for _, bad := range [][]Mod{
		{{Before: 1, Group: mods[0].Group}, {Before: 0, Group: mods[1].Group}},
		{{Before: 0, Group: mods[0].Group, Meter: mods[4].Meter}},
		{{Before: 0}},
		{{Before: len(m.Flows) + 1, Group: mods[0].Group}},
		{{Before: -1, Group: mods[0].Group}},
	} {
		if err := checkMods(bad, len(m.Flows)); err == nil {
			t.Errorf("checkMods accepted %+v", bad)
		}
	}
	if err := checkMods(mods, len(m.Flows)); err != nil {
		t.Error(err)
	}
}

// TestPushModsIntoOpenVSwitch pushes the same file of groups, meters and
// flows into ofswitch and into Open vSwitch, then compares their
// dump-groups, dump-meters and dump-flows, and the errors each answered.
func TestPushModsIntoOpenVSwitch(t *testing.T) {
	ofctlTool := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	_, addr := startAgent(t, &controller.Config{Tables: 2})
	m, mods := parseMods(t, "g.txt", groupsFile)
	ours, err := Flows(context.Background(), "tcp:"+addr, m.Flows, &Config{Batch: 5, Lines: m.Where, Mods: mods})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := ovs.Dial("127.0.0.1:16653")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := Flows(context.Background(), "", m.Flows, &Config{Batch: 5, Lines: m.Where, Mods: mods, Conn: nc})
	if err != nil {
		t.Fatal(err)
	}
	errText := func(r *Result) string {
		var s []string
		for _, e := range r.Errors {
			s = append(s, e.Where+" "+e.Err.Error())
		}
		return strings.Join(s, "\n")
	}
	if a, b := errText(ours), errText(theirs); a != b {
		t.Errorf("errors differ:\nofswitch:\n%s\nOpen vSwitch:\n%s", a, b)
	}
	for _, dump := range []string{"dump-groups", "dump-meters", "dump-flows"} {
		out, err := exec.Command(ofctlTool, "-O", "OpenFlow13", dump, "tcp:"+addr).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", dump, err, out)
		}
		want, err := ovs.Ofctl("", dump)
		if err != nil {
			t.Fatal(err)
		}
		got, exp := dumpLines(string(out)), dumpLines(want)
		if got != exp || got == "" {
			t.Errorf("%s after push:\nofswitch:\n%s\nOpen vSwitch:\n%s", dump, got, exp)
		}
	}
}

// dumpLines returns the entries of an ovs-ofctl dump without its header
// line and counters, sorted.
func dumpLines(out string) string {
	var lines []string
	for _, l := range strings.Split(ovstest.StripCounters(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "OFPST_") {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// bundleGroupsFile and bundleMetersFile are good lines: a bundle of
// either commits. Open vSwitch takes no METER_MOD in a bundle
// (OFPBFC_MSG_UNSUP; ovs-ofctl's bundle files have no meter lines), so
// the meters go to ofswitch alone.
const (
	bundleGroupsFile = `group_id=1,type=all,bucket=output:1,bucket=output:2
group_id=2,type=indirect,bucket=actions=group:1
priority=10,ip,actions=group:2
group modify group_id=1,type=all,bucket=output:2
flow priority=11,udp,actions=group:1
`
	bundleMetersFile = `meter=1,kbps,bands=type=drop,rate=1000
priority=20,ip,actions=meter:1,output:1
meter modify meter=1,kbps,bands=type=drop,rate=2000
meter=2,pktps,bands=type=drop,rate=10
flow priority=21,udp,actions=meter:2,group:2
`
)

// TestPushModsBundle: with Bundle, group and meter mods go inside the
// bundles, in order among the flows: a bundle of the groups file commits
// on Open vSwitch and on ofswitch, with the same tables after; a bundle
// with a refused flow (a group that is not there) commits nothing of its
// groups either; and a bundle of meters commits on ofswitch.
func TestPushModsBundle(t *testing.T) {
	ovs := ovstest.Start(t)
	ofctlTool := ovstest.Tool(t, "ovs-ofctl")
	a, addr := startAgent(t, &controller.Config{Tables: 2})
	g, gMods := parseMods(t, "g.txt", bundleGroupsFile)
	bad, badMods := parseMods(t, "bad.txt", "group_id=7,type=all,bucket=output:1\npriority=12,tcp,actions=group:8\n")
	push := func(target string, nc net.Conn, m *ofctl.Mods, mods []Mod) *Result {
		t.Helper()
		res, err := Flows(context.Background(), target, m.Flows, &Config{Batch: 100, Bundle: true, Lines: m.Where, Mods: mods, Conn: nc})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	checkBad := func(who string, res *Result) {
		t.Helper()
		if len(res.Errors) != 2 || !res.Errors[1].Commit || res.Errors[1].Where != "bad.txt:1" || res.Errors[0].Where != "bad.txt:2" ||
			!strings.Contains(res.Errors[0].Error(), "OFPBAC_BAD_OUT_GROUP") {
			t.Errorf("bad bundle into %s: %v", who, res.Errors)
		}
	}
	for _, c := range []struct {
		m    *ofctl.Mods
		mods []Mod
		bad  bool
	}{{g, gMods, false}, {bad, badMods, true}} {
		nc, err := ovs.Dial("127.0.0.1:16653")
		if err != nil {
			t.Fatal(err)
		}
		res := push("", nc, c.m, c.mods)
		if c.bad {
			checkBad("Open vSwitch", res)
		} else if len(res.Errors) != 0 || res.Batches != 1 || res.Groups != 3 {
			t.Fatalf("bundle into Open vSwitch: %+v %v", res, res.Errors)
		}
	}

	ours := push("tcp:"+addr, nil, g, gMods)
	if len(ours.Errors) != 0 {
		t.Fatalf("bundle into ofswitch: %v", ours.Errors)
	}
	checkBad("ofswitch", push("tcp:"+addr, nil, bad, badMods))
	for _, dump := range []string{"dump-groups", "dump-flows"} {
		out, err := exec.Command(ofctlTool, "-O", "OpenFlow13", dump, "tcp:"+addr).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", dump, err, out)
		}
		want, err := ovs.Ofctl("", dump)
		if err != nil {
			t.Fatal(err)
		}
		if got, exp := dumpLines(string(out)), dumpLines(want); got != exp || got == "" {
			t.Errorf("%s after the bundles:\nofswitch:\n%s\nOpen vSwitch:\n%s", dump, got, exp)
		}
	}

	e, eMods := parseMods(t, "e.txt", bundleMetersFile)
	if res := push("tcp:"+addr, nil, e, eMods); len(res.Errors) != 0 || res.Meters != 3 {
		t.Fatalf("bundle of meters into ofswitch: %+v %v", res, res.Errors)
	}
	mt := a.FlowTables().Meters()
	if mt.Len() != 2 || mt.Lookup(1).Config().Bands[0].Rate != 2000 {
		t.Errorf("meters after the bundle: %d, meter 1 %+v", mt.Len(), mt.Lookup(1).Config())
	}
	if n := len(a.FlowTables().Pipeline().Rules(0)); n != 4 {
		t.Errorf("table 0 holds %d flows after the bundles, want 4", n)
	}
}

// errCode is the OpenFlow error code an error names (OFPGMFC_LOOP, ...).
var errCode = regexp.MustCompile(`OFP(BAC|GMFC|MMFC|BIC|BMC|FMFC|BRC)_[A-Z_]+`)

// TestLintAgreesWithSwitch: for files of groups, meters and flows, each
// with lines a switch refuses, rules lint (ofctl.LintFiles) names the same
// lines with the same codes as ofswitch answers when the file is pushed.
func TestLintAgreesWithSwitch(t *testing.T) {
	for _, text := range []string{
		groupsFile,
		"group_id=1,type=all,bucket=output:2\ngroup_id=1,type=all,bucket=output:2\nmodify group_id=7,type=all,bucket=output:2\n" +
			"group_id=0xffffff01,type=all,bucket=output:2\ngroup_id=2,type=all,bucket=watch_port:1,output:1\n" +
			"group_id=3,type=ff,bucket=watch_group:9,output:1\ngroup_id=4,type=indirect,bucket=actions=group:1\n" +
			"modify group_id=1,type=all,bucket=group:4\ngroup_id=5,type=all,bucket=group:5\ndelete group_id=1\n" +
			"group_id=6,type=all,bucket=group:8\ngroup_id=7,type=all,bucket=output:0\npriority=5,ip,actions=group:8\n" +
			"group delete group_id=4\npriority=6,ip,actions=group:4\n",
		"meter=1,kbps,bands=type=drop,rate=10\nmeter=1,kbps,bands=type=drop,rate=20\nmeter modify meter=3,kbps,bands=type=drop,rate=10\n" +
			"meter=2,kbps,pktps,bands=type=drop,rate=10\nmeter=4,kbps,bands=type=dscp_remark,rate=10,prec_level=0\n" +
			"priority=5,ip,actions=meter:2,output:1\nmeter delete meter=1\npriority=6,ip,actions=meter:1,output:1\n" +
			"meter=controller,pktps,bands=type=dscp_remark,rate=10,prec_level=1\n",
	} {
		rep, err := ofctl.LintFiles([]ofctl.LintFile{{Name: "f.txt", Data: []byte(text)}}, nil, &rules.Config{Tables: 2})
		if err != nil {
			t.Fatal(err)
		}
		var lint []string
		for _, e := range rep.Errors {
			var pe *ofctl.ParseError
			errors.As(e, &pe)
			lint = append(lint, fmt.Sprintf("f.txt:%d %s", pe.Line, errCode.FindString(e.Error())))
		}
		_, addr := startAgent(t, &controller.Config{Tables: 2})
		m, mods := parseMods(t, "f.txt", text)
		res, err := Flows(context.Background(), "tcp:"+addr, m.Flows, &Config{Batch: 3, Lines: m.Where, Mods: mods})
		if err != nil {
			t.Fatal(err)
		}
		var sw []string
		for _, e := range res.Errors {
			sw = append(sw, e.Where+" "+errCode.FindString(e.Err.Error()))
		}
		slices.Sort(sw) // the switch answers in its own order within a batch
		slices.Sort(lint)
		if strings.Join(lint, "\n") != strings.Join(sw, "\n") || len(sw) == 0 {
			t.Errorf("lint and ofswitch disagree on\n%s\nlint:\n%s\nofswitch:\n%s", text, strings.Join(lint, "\n"), strings.Join(sw, "\n"))
		}
	}
}

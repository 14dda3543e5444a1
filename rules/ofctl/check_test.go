package ofctl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// fits is the check ofswitch push and rules lint give ParseOptions.Check.
var fits = &ofctl.ModCheck{
	Flow:  func(u *rules.Update) error { return ofrules.CheckFlowMod(u, false) },
	Group: func(m *groups.Mod) error { return ofrules.CheckGroupMod(m, false) },
	Meter: func(m *meters.Mod) error { return ofrules.CheckMeterMod(m, false) },
}

// manyOutputs is the text of n output actions.
func manyOutputs(n int) string {
	return strings.TrimSuffix(strings.Repeat("output:1,", n), ",")
}

// TestParseModsCheck: a flow of 200K actions, and a group whose buckets
// do not fit in one message, are refused by ParseMods and LintFiles with
// ParseOptions.Check, each at its file:line, and the lines around them
// are kept; the longest flow a message holds passes.
func TestParseModsCheck(t *testing.T) {
	buckets := strings.TrimSuffix(strings.Repeat("bucket=output:1,output:2,output:3,", groups.MaxBuckets), ",")
	file := "priority=1,actions=drop\n" +
		"priority=2,actions=" + manyOutputs(200000) + "\n" +
		"group_id=1,type=all," + buckets + "\n" +
		"priority=3,actions=" + manyOutputs(4091) + "\n" +
		"flow modify priority=4,actions=" + manyOutputs(4092) + "\n"
	m, errs := ofctl.ParseMods("big.txt", []byte(file), &ofctl.ParseOptions{Check: fits})
	var got []string
	for _, err := range errs {
		if !errors.Is(err, openflow.ErrTooLong) {
			t.Errorf("%v: does not unwrap to ErrTooLong", err)
		}
		got = append(got, err.Error())
	}
	want := []string{
		"big.txt:2:1: its FLOW_MOD would be 3200064 bytes, more than one OpenFlow message holds (65535): openflow: message longer than allowed",
		"big.txt:3:1: its GROUP_MOD would be 65552 bytes, more than one OpenFlow message holds (65535): openflow: message longer than allowed",
		"big.txt:5:1: its FLOW_MOD would be 65536 bytes, more than one OpenFlow message holds (65535): openflow: message longer than allowed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(m.Flows) != 2 || m.Flows[0].ID != 1 || m.Flows[1].ID != 4 || len(m.Groups) != 0 ||
		len(m.Where) != 2 || m.Where[1] != "big.txt:4" {
		t.Fatalf("kept %d flows (%v), %d groups", len(m.Flows), m.Where, len(m.Groups))
	}
	if _, errs := ofctl.ParseMods("big.txt", []byte(file), nil); len(errs) != 0 {
		t.Fatalf("without Check: %v", errs)
	}
	rep, err := ofctl.LintFiles([]ofctl.LintFile{{Name: "big.txt", Data: []byte(file)}}, &ofctl.ParseOptions{Check: fits}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 3 || rep.Flows != 4 || rep.OK != 2 || rep.Groups != 1 || rep.GroupsOK != 0 ||
		!strings.HasPrefix(rep.Errors[0].Error(), "big.txt:2:1: its FLOW_MOD") {
		t.Fatalf("lint: %+v", rep)
	}
}

package ofctl_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestLint: a good file is all ok; in a bad one every flow that fails is
// an error at its place, whether the parser or the pipeline refused it.
func TestLint(t *testing.T) {
	rep, err := ofctl.Lint("good.flows", []byte("priority=5,ip,nw_src=10.0.0.0/8,actions=output:1\ntable=1,priority=1,actions=drop\n"), nil, &rules.Config{Tables: 254})
	if err != nil || rep.Flows != 2 || rep.OK != 2 || len(rep.Errors) != 0 {
		t.Fatalf("good file: %v %+v", err, rep)
	}
	bad := []byte("priority=5,ip,actions=output:1\nip,nw_src=10.0.0.300,actions=drop\ntp_dst=80,actions=drop\ntable=1,actions=goto_table:1\n")
	rep, err = ofctl.Lint("bad.flows", bad, nil, &rules.Config{Tables: 254})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rep.Errors {
		got = append(got, e.Error())
	}
	want := []string{
		"bad.flows:2:11: expected an IPv4 address",
		"bad.flows:3:1: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ",
		"bad.flows:4:1: rules: OFPET_BAD_INSTRUCTION/OFPBIC_BAD_TABLE_ID",
	}
	if len(got) != len(want) || rep.Flows != 4 || rep.OK != 1 {
		t.Fatalf("bad file: %d flows, %d ok, errors:\n%s", rep.Flows, rep.OK, strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d = %q, want %q...", i, got[i], want[i])
		}
	}
	var pe *ofctl.ParseError
	if !errors.Is(rep.Errors[0], ofctl.ErrSyntax) || !errors.As(rep.Errors[2], &pe) || pe.Line != 4 || !errors.Is(rep.Errors[2], rules.ErrBadGotoTable) {
		t.Errorf("errors do not unwrap: %#v", rep.Errors)
	}

	// FixPrereqs fixes line 3 into two flows; one table makes line 4's
	// table=1 the error.
	rep, err = ofctl.Lint("bad.flows", bad, &ofctl.ParseOptions{FixPrereqs: true}, nil)
	if err != nil || rep.Flows != 5 || rep.OK != 3 || len(rep.Errors) != 2 || !errors.Is(rep.Errors[1], rules.ErrBadTableID) {
		t.Errorf("FixPrereqs, one table: %v %+v", err, rep)
	}
	if _, err := ofctl.Lint("bad.flows", bad, nil, &rules.Config{Tables: 300}); err == nil {
		t.Error("Lint made a pipeline of 300 tables")
	}
}

// TestParseActions: actions as ParseFlow reads them after actions=, and
// its errors.
func TestParseActions(t *testing.T) {
	inst, err := ofctl.ParseActions("mod_vlan_vid:100,output:2")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := ofctl.ParseFlow("actions=mod_vlan_vid:100,output:2")
	if d := cmp.Diff(u.Instructions, inst); d != "" {
		t.Errorf("instructions (-ParseFlow +ParseActions):\n%s", d)
	}
	if inst, err := ofctl.ParseActions("drop"); err != nil || len(inst) != 0 {
		t.Errorf("drop: %v %v", inst, err)
	}
	if _, err := ofctl.ParseActions("output:2,bogus"); !errors.Is(err, ofctl.ErrSyntax) || !strings.HasPrefix(err.Error(), `flow:1:18: unknown action "bogus"`) {
		t.Errorf("bogus action: %v", err)
	}
	// eth_type and ip_proto are written (Open vSwitch refuses them);
	// in_port is not.
	if inst, err := ofctl.ParseActions("set_field:0x86dd->eth_type,set_field:17->ip_proto"); err != nil || len(inst) != 1 ||
		len(inst[0].Actions) != 2 || inst[0].Actions[0].Field != rules.FieldEthType || inst[0].Actions[1].Field != rules.FieldIPProto {
		t.Errorf("set_field eth_type, ip_proto: %v %v", inst, err)
	}
	if _, err := ofctl.ParseActions("set_field:1->in_port"); err == nil {
		t.Error("set_field in_port parsed")
	}
}

// TestWriteFlows: the lines WriteFlows writes parse back to the same
// flows.
func TestWriteFlows(t *testing.T) {
	lines := genFlows(200, 3)
	ups, errs := ofctl.ParseFlows("gen.flows", []byte(strings.Join(lines, "\n")), nil)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	var b bytes.Buffer
	if err := ofctl.WriteFlows(&b, ups); err != nil {
		t.Fatal(err)
	}
	again, errs := ofctl.ParseFlows("written.flows", b.Bytes(), nil)
	if len(errs) > 0 || len(again) != len(ups) || strings.Count(b.String(), "\n") != len(ups) {
		t.Fatalf("%d flows written as %d lines, %d read back, errors %v", len(ups), strings.Count(b.String(), "\n"), len(again), errs)
	}
	for i := range ups {
		if ofctl.FormatUpdate(&again[i]) != ofctl.FormatUpdate(&ups[i]) {
			t.Errorf("flow %d: %q read back as %q", i+1, ofctl.FormatUpdate(&ups[i]), ofctl.FormatUpdate(&again[i]))
		}
	}
	if err := ofctl.WriteFlows(failWriter{}, ups); !errors.Is(err, errWrite) {
		t.Errorf("WriteFlows into a failing writer: %v", err)
	}
}

var errWrite = errors.New("write failed")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestLintActions: lint refuses the actions Open vSwitch refuses against
// the flow's match, as the switch does for the same FLOW_MOD.
func TestLintActions(t *testing.T) {
	flows := "ipv6,actions=mod_nw_ttl:9,set_field:0x5->ipv6_label,set_field:0x7->tun_id\n" +
		"actions=mod_nw_ttl:9\n" +
		"arp,actions=dec_ttl\n" +
		"icmp6,icmp_type=136,actions=set_field:02:00:00:00:00:01->nd_sll\n" +
		"actions=set_field:7->vlan_vid\n" +
		"dl_vlan=7,actions=set_field:7->vlan_pcp\n"
	rep, err := ofctl.Lint("acts.flows", []byte(flows), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Flows != 6 || rep.OK != 2 || len(rep.Errors) != 4 {
		t.Fatalf("%d flows, %d ok, errors %v", rep.Flows, rep.OK, rep.Errors)
	}
	for i, e := range rep.Errors {
		if !strings.Contains(e.Error(), "OFPBAC_MATCH_INCONSISTENT") || !strings.HasPrefix(e.Error(), fmt.Sprintf("acts.flows:%d:1:", i+2)) {
			t.Errorf("error %d: %v", i, e)
		}
	}
}

// TestLintGroupsMeters: lint checks group and meter lines as the switch's
// group and meter tables do, in file order, each refusal at its line with
// the code the switch answers; flows must name groups and meters that the
// files define, when they define any.
func TestLintGroupsMeters(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines string // line 1 is always good: group 1, an ALL group to port 1
		want  string // the error of the last line, "" for none
	}{
		{"good", "group_id=2,type=indirect,bucket=actions=group:1\nmeter=1,kbps,bands=type=drop,rate=10\npriority=5,ip,actions=meter:1,group:2", ""},
		{"group exists", "group_id=1,type=all,bucket=output:2", "OFPGMFC_GROUP_EXISTS"},
		{"unknown group", "modify group_id=7,type=all,bucket=output:2", "OFPGMFC_UNKNOWN_GROUP"},
		{"reserved group", "group_id=0xffffff01,type=all,bucket=output:2", "OFPGMFC_INVALID_GROUP"},
		{"watch on all", "group_id=2,type=all,bucket=watch_port:1,output:1", "OFPGMFC_WATCH_UNSUPPORTED"},
		{"bad watch", "group_id=2,type=ff,bucket=watch_group:9,output:1", "OFPGMFC_BAD_WATCH"},
		{"loop", "group_id=2,type=indirect,bucket=actions=group:1\nmodify group_id=1,type=all,bucket=group:2", "OFPGMFC_LOOP"},
		{"own loop", "group_id=2,type=all,bucket=group:2", "OFPGMFC_LOOP"},
		{"chained delete", "group_id=2,type=indirect,bucket=actions=group:1\ndelete group_id=1", "OFPGMFC_CHAINED_GROUP"},
		{"bucket to missing group", "group_id=2,type=all,bucket=group:3", "OFPBAC_BAD_OUT_GROUP"},
		{"bucket output 0", "group_id=2,type=all,bucket=output:0", "OFPBAC_BAD_OUT_PORT"},
		{"group defined later", "group_id=3,type=all,bucket=output:1\ngroup_id=2,type=all,bucket=output:1\npriority=6,ip,actions=group:4", "OFPBAC_BAD_OUT_GROUP"},
		{"deleted group", "group delete group_id=1\npriority=5,ip,actions=group:1", "OFPBAC_BAD_OUT_GROUP"},
		{"meter exists", "meter=1,kbps,bands=type=drop,rate=10\nmeter=1,kbps,bands=type=drop,rate=20", "OFPMMFC_METER_EXISTS"},
		{"unknown meter", "meter modify meter=3,kbps,bands=type=drop,rate=10", "OFPMMFC_UNKNOWN_METER"},
		{"meter flags", "meter=1,kbps,pktps,bands=type=drop,rate=10", "OFPMMFC_BAD_FLAGS"},
		{"meter band value", "meter=1,kbps,bands=type=dscp_remark,rate=10,prec_level=0", "OFPMMFC_BAD_BAND_VALUE"},
		{"flow to missing meter", "meter=1,kbps,bands=type=drop,rate=10\npriority=5,ip,actions=meter:2,output:1", "OFPMMFC_INVALID_METER"},
		{"flow to deleted meter", "meter=1,kbps,bands=type=drop,rate=10\nmeter delete meter=1\npriority=5,ip,actions=meter:1,output:1", "OFPMMFC_INVALID_METER"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := "group_id=1,type=all,bucket=output:1\n" + c.lines + "\n"
			last := strings.Count(data, "\n")
			rep, err := ofctl.Lint("g.txt", []byte(data), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(rep.Errors) != 0 || rep.GroupsOK != rep.Groups || rep.MetersOK != rep.Meters || rep.OK != rep.Flows {
					t.Errorf("errors %v, report %+v", rep.Errors, rep)
				}
				return
			}
			prefix := fmt.Sprintf("g.txt:%d:1: ", last)
			if len(rep.Errors) != 1 || !strings.HasPrefix(rep.Errors[0].Error(), prefix) || !strings.Contains(rep.Errors[0].Error(), c.want) {
				t.Fatalf("errors %v, want one %s...%s", rep.Errors, prefix, c.want)
			}
			if rep.OK+rep.GroupsOK+rep.MetersOK != rep.Flows+rep.Groups+rep.Meters-1 {
				t.Errorf("report %+v: one line failed", rep)
			}
		})
	}
}

// TestLintFiles: several files are one pipeline, in the order given; a
// flow file alone may name groups and meters that it does not define,
// and one that defines some may not name others.
func TestLintFiles(t *testing.T) {
	gs := ofctl.LintFile{Name: "groups.txt", Data: []byte("group_id=1,type=all,bucket=output:1,bucket=output:2\ngroup_id=2,type=indirect,bucket=actions=group:1\n")}
	ms := ofctl.LintFile{Name: "meters.txt", Data: []byte("meter=1,kbps,bands=type=drop,rate=1000\n")}
	fs := ofctl.LintFile{Name: "flows.txt", Data: []byte("priority=5,ip,actions=meter:1,group:2\npriority=6,udp,actions=group:1\n")}
	rep, err := ofctl.LintFiles([]ofctl.LintFile{gs, ms, fs}, nil, nil)
	if err != nil || len(rep.Errors) != 0 || rep.Flows != 2 || rep.OK != 2 || rep.Groups != 2 || rep.GroupsOK != 2 || rep.Meters != 1 || rep.MetersOK != 1 {
		t.Fatalf("groups, meters, flows: %v %+v", err, rep)
	}
	// Flows first: both name groups and a meter not yet there.
	rep, _ = ofctl.LintFiles([]ofctl.LintFile{fs, gs, ms}, nil, nil)
	var got []string
	for _, e := range rep.Errors {
		got = append(got, e.Error())
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "flows.txt:1:1: rules: OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP") || !strings.HasPrefix(got[1], "flows.txt:2:1: rules: OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP") {
		t.Errorf("flows first: %q", got)
	}
	// The flows alone: groups and meters pushed apart.
	if rep, _ := ofctl.LintFiles([]ofctl.LintFile{fs}, nil, nil); len(rep.Errors) != 0 {
		t.Errorf("flows alone: %v", rep.Errors)
	}
	// Groups given, not meters: meter 1 passes, group 9 does not.
	rep, _ = ofctl.LintFiles([]ofctl.LintFile{gs, {Name: "f2.txt", Data: []byte("priority=5,ip,actions=meter:1,group:9\n")}}, nil, nil)
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Error(), "OFPBAC_BAD_OUT_GROUP") {
		t.Errorf("group 9: %v", rep.Errors)
	}
	// Parse errors count against their kind, in file and line order with
	// the refusals.
	bad := ofctl.LintFile{Name: "bad.txt", Data: []byte("group_id=5,type=bogus\nmeter=1,kbps\nip,actions=group:7\nflow ip,nw_src=300.0.0.1,actions=drop\n")}
	rep, _ = ofctl.LintFiles([]ofctl.LintFile{gs, bad}, nil, nil)
	got = got[:0]
	for _, e := range rep.Errors {
		got = append(got, e.Error()[:strings.Index(e.Error(), ": ")])
	}
	if strings.Join(got, " ") != "bad.txt:1:17 bad.txt:2:13 bad.txt:3:1 bad.txt:4:16" ||
		rep.Groups != 3 || rep.GroupsOK != 2 || rep.Meters != 1 || rep.MetersOK != 0 || rep.Flows != 2 || rep.OK != 0 {
		t.Errorf("errors at %q, report %+v", got, rep)
	}
}

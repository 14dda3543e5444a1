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

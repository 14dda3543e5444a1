package ofctl_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestNiciraActionsText parses flows with the simple Nicira extension
// actions and prints their actions back, against what ovs-ofctl
// parse-flow prints for the same lines over OpenFlow 1.3 (the actions as
// encoded and decoded again: the note's padding, controller(...) with
// reason=action and id 0 as CONTROLLER:N, set_tunnel as set_field).
func TestNiciraActionsText(t *testing.T) {
	actionsLikeOfctl(t, []string{
		"actions=note:01.02,output:2",
		"actions=note:0102030405060708090a0b0c0d0e0f",
		"actions=note:0102..03,exit",
		"actions=note:",
		"actions=exit",
		"actions=output:2,exit,output:3",
		"actions=controller(reason=no_match,max_len=64,id=3)",
		"actions=controller(reason=invalid_ttl)",
		"actions=controller(max_len=100)",
		"actions=controller(reason=action,id=0)",
		"actions=controller(id=7,reason=action)",
		"actions=controller(reason=action_set),controller(reason=group,max_len=0),controller(reason=packet_out)",
		"actions=controller:77",
		"actions=controller(78)",
		"ip,actions=dec_ttl(0),dec_ttl(),dec_ttl(4 5 6),dec_ttl(1,2),output:1",
		"ipv6,actions=write_actions(dec_ttl(1),output:3)",
		"actions=set_tunnel:5,set_tunnel64:0x123456789,set_tunnel:0x10,set_tunnel64:7",
		"tcp,actions=exit,write_actions(output:2),goto_table:2",
		"actions=resubmit:3,resubmit(,2),resubmit(3,2),resubmit(3),resubmit(3,)",
		"actions=resubmit:LOCAL,resubmit(IN_PORT,7),resubmit(in_port,254),resubmit(,0),resubmit(CONTROLLER,9)",
		"actions=resubmit(4294967040,1),resubmit(65279,)",
		"actions=write_actions(resubmit(,1),output:2)",
	})
}

// TestResubmitTextRefused checks that the resubmit lines ovs-ofctl refuses
// are refused here too, with what is wrong in the message; resubmit with
// ct is refused by name (connection tracking is not supported).
func TestResubmitTextRefused(t *testing.T) {
	ovsOfctl, err := exec.LookPath("ovs-ofctl")
	if err != nil {
		testutil.SkipOrFail(t, "ovs-ofctl not installed")
	}
	for _, tt := range []struct{ line, want string }{
		{"actions=resubmit(,)", "at least one"},
		{"actions=resubmit(IN_PORT,255)", "at least one"},
		{"actions=resubmit:in_port", "at least one"},
		{"actions=resubmit(,256)", "unknown table"},
		{"actions=resubmit(70000,1)", "outside the supported range"},
		{"actions=resubmit(1,2,x)", "unknown parameter"},
		{"ip,actions=resubmit(,2,ct)", "connection tracking (resubmit(,,ct)) is not supported"},
	} {
		if out, err := exec.Command(ovsOfctl, "-O", "OpenFlow13", "parse-flow", tt.line).CombinedOutput(); err == nil {
			t.Errorf("ovs-ofctl parse-flow %q took it:\n%s", tt.line, out)
		}
		_, errs := ofctl.ParseFlows("flow", []byte(tt.line), nil)
		if len(errs) == 0 {
			t.Errorf("%q: no error", tt.line)
			continue
		}
		if !strings.Contains(errs[0].Error(), tt.want) {
			t.Errorf("%q: %v, want it to say %q", tt.line, errs[0], tt.want)
		}
	}
}

// actionsLikeOfctl parses each flow line and requires that its actions
// print as ovs-ofctl parse-flow prints them over OpenFlow 1.3 (the actions
// encoded and decoded again); it returns ovs-ofctl's path, for more checks.
func actionsLikeOfctl(t *testing.T, flows []string) string {
	t.Helper()
	ovsOfctl, err := exec.LookPath("ovs-ofctl")
	if err != nil {
		testutil.SkipOrFail(t, "ovs-ofctl not installed")
	}
	for _, line := range flows {
		out, err := exec.Command(ovsOfctl, "-O", "OpenFlow13", "parse-flow", line).CombinedOutput()
		if err != nil {
			t.Fatalf("ovs-ofctl parse-flow %q: %v\n%s", line, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		_, want, ok := strings.Cut(lines[len(lines)-1], " actions=")
		if !ok {
			t.Fatalf("ovs-ofctl parse-flow %q printed no actions:\n%s", line, out)
		}
		ups, errs := ofctl.ParseFlows("flow", []byte(line), nil)
		if len(errs) > 0 {
			t.Errorf("%q: %v", line, errs)
			continue
		}
		_, got, _ := strings.Cut(ofctl.FormatUpdate(&ups[0]), "actions=")
		if got != want {
			t.Errorf("%q:\n got %s\nwant %s", line, got, want)
		}
	}
	return ovsOfctl
}

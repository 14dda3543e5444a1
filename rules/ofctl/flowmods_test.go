package ofctl_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestParseFlowMods: the command words of a flow file, and the tables a
// delete applies to, as ovs-ofctl --bundle reads them.
func TestParseFlowMods(t *testing.T) {
	data := []byte(`priority=10,tcp,actions=drop
add priority=20,udp,actions=drop
modify priority=10,tcp,actions=output:2
delete tcp,tp_dst=22
delete table=1,udp

delete
  delete   
`)
	type got struct {
		Command rules.Command
		Table   uint8
		Line    string
		Proto   uint64 // ip_proto, 0 if not matched
	}
	want := []got{
		{rules.CmdAdd, 0, "f:1", 6},
		{rules.CmdAdd, 0, "f:2", 17},
		{rules.CmdModify, 0, "f:3", 6},
		{rules.CmdDelete, rules.TableAll, "f:4", 6},
		{rules.CmdDelete, 1, "f:5", 17},
		{rules.CmdDelete, rules.TableAll, "f:7", 0},
		{rules.CmdDelete, rules.TableAll, "f:8", 0},
	}
	for _, strict := range []bool{false, true} {
		ups, where, err := ofctl.ParseFlowMods("f", data, &ofctl.ParseOptions{Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		var have []got
		for i, u := range ups {
			have = append(have, got{u.Command, u.Table, where[i], u.Match.Key.Get(rules.FieldIPProto) & u.Match.Mask.Get(rules.FieldIPProto)})
			isDel := u.Command == rules.CmdDelete || u.Command == rules.CmdDeleteStrict
			if isDel && u.Instructions != nil {
				t.Errorf("%s: a delete with instructions", where[i])
			}
			// A modify sets the actions its line gives: output:2 on line 3.
			if u.Command == rules.CmdModify || u.Command == rules.CmdModifyStrict {
				if s := ofctl.FormatActions(u.Instructions); s != "output:2" {
					t.Errorf("%s: modify with actions %q, want output:2", where[i], s)
				}
			}
		}
		w := append([]got(nil), want...)
		if strict {
			for i := range w {
				switch w[i].Command {
				case rules.CmdModify:
					w[i].Command = rules.CmdModifyStrict
				case rules.CmdDelete:
					w[i].Command = rules.CmdDeleteStrict
				}
			}
		}
		if d := cmp.Diff(w, have); d != "" {
			t.Errorf("strict=%v: updates (-want +got):\n%s", strict, d)
		}
	}
}

// TestParseFlowModsImportance: importance=N is read on add lines and
// refused, with its place, on modify and delete lines (a modify keeps the
// flow's importance; ovs-ofctl: "unknown keyword importance").
func TestParseFlowModsImportance(t *testing.T) {
	ups, _, err := ofctl.ParseFlowMods("f", []byte("importance=7,priority=5,ip,actions=drop\nadd importance=8,priority=6,ip,actions=drop\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 2 || ups[0].Importance != 7 || ups[1].Importance != 8 {
		t.Fatalf("importance of the adds: %+v", ups)
	}
	for _, c := range []struct{ data, want string }{
		{"priority=5,ip,actions=drop\nmodify ip,importance=3,actions=drop\n", "f:2:11: importance is for add lines only"},
		{"delete importance=3,ip\n", "f:1:8: importance is for add lines only"},
	} {
		if _, _, err := ofctl.ParseFlowMods("f", []byte(c.data), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
}

// TestParseFlowModsErrors: every bad line is reported at its column in the
// line as written, command word included, and FixPrereqs reaches the
// lines of every command.
func TestParseFlowModsErrors(t *testing.T) {
	data := []byte("priority=5,tcp,tp_dstx=22,actions=drop\nmodify tp_dst=80,actions=drop\ndelete  ip,nw_src=10.0.0.300\n")
	_, _, err := ofctl.ParseFlowMods("f", data, nil)
	for _, want := range []string{"f:1:16: unknown field", "f:2:8: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ", "f:3:19: expected an IPv4 address"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	ups, _, err := ofctl.ParseFlowMods("f", []byte("modify tp_dst=80,actions=drop\ndelete tp_src=7\n"), &ofctl.ParseOptions{FixPrereqs: true})
	if err != nil || len(ups) != 4 || ups[0].Command != rules.CmdModify || ups[3].Command != rules.CmdDelete {
		t.Fatalf("FixPrereqs: %v, %d updates %+v", err, len(ups), ups)
	}
}

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/rules"
)

// TestParsePushFile: the command words of a push file, and the tables a
// delete applies to, as ovs-ofctl --bundle reads them.
func TestParsePushFile(t *testing.T) {
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
		ups, where, err := parsePushFile("f", data, strict, false)
		if err != nil {
			t.Fatal(err)
		}
		var have []got
		for i, u := range ups {
			have = append(have, got{u.Command, u.Table, where[i], u.Match.Key.Get(rules.FieldIPProto) & u.Match.Mask.Get(rules.FieldIPProto)})
			if u.Command != rules.CmdAdd && u.Command != rules.CmdModify && u.Command != rules.CmdModifyStrict && u.Instructions != nil {
				t.Errorf("%s: a delete with instructions", where[i])
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

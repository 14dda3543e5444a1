package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
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

// TestParsePushImportance: importance=N is read on add lines and refused,
// with its place, on modify and delete lines (a modify keeps the flow's
// importance; ovs-ofctl: "unknown keyword importance").
func TestParsePushImportance(t *testing.T) {
	ups, _, err := parsePushFile("f", []byte("importance=7,priority=5,ip,actions=drop\nadd importance=8,priority=6,ip,actions=drop\n"), false, false)
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
		if _, _, err := parsePushFile("f", []byte(c.data), false, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
}

// TestPushImportanceWarns: push offers OpenFlow 1.4 for a file with
// importance and says so when the switch speaks only 1.3, which has no
// field for it; a switch that speaks 1.4 gets no warning.
func TestPushImportanceWarns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "imp.flows")
	os.WriteFile(file, []byte("importance=7,priority=5,ip,actions=drop\n"), 0o644)
	for _, c := range []struct {
		versions []uint8
		warn     bool
	}{{[]uint8{openflow.Version13}, true}, {[]uint8{openflow.Version13, openflow.Version14}, false}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				nc, err := ln.Accept()
				if err != nil {
					return
				}
				go serveFloor(nc, c.versions...)
			}
		}()
		cmd := newRootCmd()
		var out, errb bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&errb)
		cmd.SetArgs([]string{"push", "--switch", "tcp:" + ln.Addr().String(), file})
		err = cmd.Execute()
		ln.Close()
		if err != nil || !strings.Contains(out.String(), "pushed 1 flows") {
			t.Fatalf("versions %v: %v\n%s%s", c.versions, err, out.String(), errb.String())
		}
		if got := strings.Contains(errb.String(), "warning: the switch speaks OpenFlow 1.3"); got != c.warn {
			t.Errorf("switch offering %v: warning %v, want %v\n%s", c.versions, got, c.warn, errb.String())
		}
	}
}

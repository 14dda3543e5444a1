package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ofpeer"
	"github.com/ofswitch/ofswitch/openflow"
)

// TestPushFlags: --strict and --fix-prereqs reach the parser of the flow
// file (ofctl.ParseFlowMods, whose tests cover the file's syntax): the
// switch receives strict or plain commands, and a flow without its
// prerequisites is refused before any is sent, or fixed.
func TestPushFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mods.flows")
	os.WriteFile(file, []byte("modify tcp,actions=drop\ndelete udp\n"), 0o644)
	for _, c := range []struct {
		flags []string
		want  []openflow.FlowModCommand
	}{
		{nil, []openflow.FlowModCommand{openflow.FlowModify, openflow.FlowDelete}},
		{[]string{"--strict"}, []openflow.FlowModCommand{openflow.FlowModifyStrict, openflow.FlowDeleteStrict}},
	} {
		addr, got := recordFlowMods(t)
		if out, err := run(t, append(append([]string{"push", "--switch", "tcp:" + addr}, c.flags...), file)...); err != nil {
			t.Fatalf("push %v: %v\n%s", c.flags, err, out)
		}
		if d := cmp.Diff(c.want, got()); d != "" {
			t.Errorf("push %v: commands (-want +got):\n%s", c.flags, d)
		}
	}

	os.WriteFile(file, []byte("priority=5,tp_dst=80,actions=drop\n"), 0o644)
	addr, got := recordFlowMods(t)
	if _, err := run(t, "push", "--switch", "tcp:"+addr, file); err == nil || !strings.Contains(err.Error(), file+":1:12: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ") {
		t.Errorf("push of a flow without its prerequisites: %v", err)
	}
	if out, err := run(t, "push", "--fix-prereqs", "--switch", "tcp:"+addr, file); err != nil || !strings.Contains(out, "pushed 2 flows") {
		t.Errorf("push --fix-prereqs: %v\n%s", err, out)
	}
	if n := len(got()); n != 2 {
		t.Errorf("the switch received %d FLOW_MODs, want the 2 of --fix-prereqs", n)
	}
}

// recordFlowMods serves a peer that speaks OpenFlow 1.3, answers every
// barrier and records the command of every FLOW_MOD it reads; got returns
// the commands so far.
func recordFlowMods(t *testing.T) (addr string, got func() []openflow.FlowModCommand) {
	t.Helper()
	return recordPeer(t, func(msg []byte) openflow.FlowModCommand { return openflow.FlowModView(msg).Command() })
}

// recordPeer serves a peer that speaks OpenFlow 1.3 and answers every
// barrier (ofpeer.Serve), and records what fn makes of every FLOW_MOD it
// reads; got returns the records so far.
func recordPeer[T any](t *testing.T, fn func(msg []byte) T) (addr string, got func() []T) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var (
		mu   sync.Mutex
		recs []T
	)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go ofpeer.Serve(nc, func(msg []byte) {
				if openflow.Type(msg[1]) != openflow.TypeFlowMod {
					return
				}
				v := fn(msg)
				mu.Lock()
				recs = append(recs, v)
				mu.Unlock()
			}, openflow.Version13)
		}
	}()
	return ln.Addr().String(), func() []T {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(recs)
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
				go ofpeer.ServeBarriers(nc, c.versions...)
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

// TestPushRecords checks push's --cpuprofile and --trace: after a push,
// a gzipped profile, and a trace with events beyond its header.
func TestPushRecords(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mods.flows")
	var flows strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&flows, "priority=100,tcp,nw_src=10.0.%d.%d,tp_dst=80,actions=output:2\n", i>>8, i&0xff)
	}
	os.WriteFile(file, []byte(flows.String()), 0o644)
	profile, tracePath := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "push.trace")
	addr, got := recordFlowMods(t)
	if out, err := run(t, "push", "--switch", "tcp:"+addr, "--cpuprofile", profile, "--trace", tracePath, file); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	if n := len(got()); n != 2000 {
		t.Errorf("the switch received %d FLOW_MODs, want 2000", n)
	}
	checkRecordings(t, profile, tracePath)
	// A file that cannot be written is an error before anything is sent.
	if _, err := run(t, "push", "--switch", "tcp:"+addr, "--cpuprofile", filepath.Join(dir, "no", "such"), file); err == nil || !strings.Contains(err.Error(), "--cpuprofile") {
		t.Errorf("push --cpuprofile into a missing directory: %v", err)
	}
}

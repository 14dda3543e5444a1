package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// runStderr runs the command as run does and returns its standard error
// as well.
func runStderr(t *testing.T, args ...string) (out, errOut string, err error) {
	t.Helper()
	cmd := newRootCmd()
	var o, e bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(&e)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return o.String(), e.String(), err
}

// TestPushGroupsMeters: ofswitch push sends the groups, meters and flows
// of one file, in ovs-ofctl's add-groups, add-meter and bundle syntax, to
// ofswitch run in file order; the switch's refusals are printed with
// their lines; ovs-ofctl dumps what the file made. A line that does not
// parse stops the push before it sends anything.
func TestPushGroupsMeters(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	var log testutil.LockedBuffer
	sw := startRun(t, &log, "--tables", "2", "--log-level", "warn")
	defer sw.stop(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "pipeline.txt")
	os.WriteFile(file, []byte(`# flood through a group, rate-limited to the controller
group_id=1,type=all,bucket=output:1,bucket=output:2
meter=1,pktps,bands=type=drop,rate=100
group add group_id=2,type=indirect,bucket=actions=group:1
priority=10,ip,actions=group:2
flow priority=5,actions=meter:1,CONTROLLER:128
meter add meter=2,kbps,burst,bands=type=drop,rate=1000,burst_size=100
priority=11,udp,actions=meter:2,group:9
flow modify priority=10,ip,actions=group:1
`), 0o644)
	out, errOut, err := runStderr(t, "push", "--switch", "tcp:"+sw.addr, "--batch", "3", file)
	if err == nil || !strings.Contains(err.Error(), "refused 1 of 8 mods") {
		t.Fatalf("push: %v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(out, "pushed 4 flows, 2 groups and 2 meters in 3 batches") {
		t.Errorf("push output:\n%s", out)
	}
	if want := file + ":8: switch refused FLOW_MOD"; !strings.Contains(errOut, want) || !strings.Contains(errOut, "OFPBAC_BAD_OUT_GROUP") {
		t.Errorf("errors lack %q with OFPBAC_BAD_OUT_GROUP:\n%s", want, errOut)
	}
	dump := func(what string) string {
		out, err := exec.Command(ofctl, "-O", "OpenFlow13", what, "tcp:"+sw.addr).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return string(out)
	}
	for what, want := range map[string][]string{
		"dump-groups": {"group_id=1,type=all,bucket=actions=output:1,bucket=actions=output:2", "group_id=2,type=indirect,bucket=actions=group:1"},
		"dump-meters": {"meter=1 pktps bands=\ntype=drop rate=100", "meter=2 kbps burst bands=\ntype=drop rate=1000 burst_size=100"},
		"dump-flows":  {"priority=10,ip actions=group:1", "priority=5 actions=meter:1,CONTROLLER:128"},
	} {
		got := dump(what)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", what, w, got)
			}
		}
	}

	// A group command OpenFlow 1.3 lacks and a packet-out: errors at their
	// place, and nothing sent.
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("group_id=5,type=all,bucket=output:1\ngroup add_or_mod group_id=1,type=all,bucket=output:2\npacket-out in_port=1,packet=00,actions=drop\n"), 0o644)
	_, _, err = runStderr(t, "push", "--switch", "tcp:"+sw.addr, bad)
	if err == nil || !strings.Contains(err.Error(), bad+":2:7: group command add_or_mod is not supported") ||
		!strings.Contains(err.Error(), bad+":3:1: packet-out lines are not supported") {
		t.Errorf("push of unsupported lines: %v", err)
	}
	if strings.Contains(dump("dump-groups"), "group_id=5") {
		t.Error("group 5 was sent from a file that does not parse")
	}
}

// TestPushGroupsMetersBundle: with --bundle the groups and meters go
// inside the bundle, with the flows that use them, committed at once.
func TestPushGroupsMetersBundle(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	var log testutil.LockedBuffer
	sw := startRun(t, &log, "--tables", "2", "--log-level", "warn")
	defer sw.stop(t)
	bundled := filepath.Join(t.TempDir(), "bundled.txt")
	os.WriteFile(bundled, []byte("group_id=3,type=all,bucket=output:2\nmeter=3,kbps,bands=type=drop,rate=10\npriority=12,tcp,actions=meter:3,group:3\n"), 0o644)
	out, errOut, err := runStderr(t, "push", "--switch", "tcp:"+sw.addr, "--bundle", "--batch", "0", bundled)
	if err != nil || !strings.Contains(out, "pushed 1 flows, 1 groups and 1 meters in 1 batches") {
		t.Fatalf("push --bundle: %v\n%s%s", err, out, errOut)
	}
	if got, err := exec.Command(ofctl, "-O", "OpenFlow13", "dump-flows", "tcp:"+sw.addr).CombinedOutput(); err != nil ||
		!strings.Contains(string(got), "priority=12,tcp actions=meter:3,group:3") {
		t.Errorf("the bundle's flow is not in the table: %v\n%s", err, got)
	}
}

// recordMods serves a proxy to the switch at target that records every
// GROUP_MOD and METER_MOD a client sends through it, xid zeroed; got
// returns them so far.
func recordMods(t *testing.T, target string) (addr string, got func() [][]byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var (
		mu   sync.Mutex
		msgs [][]byte
	)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			sw, err := net.Dial("tcp", target)
			if err != nil {
				nc.Close()
				return
			}
			go func() {
				defer sw.Close()
				io.Copy(nc, sw)
			}()
			go func() {
				defer nc.Close()
				defer sw.Close()
				r := openflow.NewReader(nc, 0)
				for {
					msg, err := r.Next()
					if err != nil {
						return
					}
					if typ := openflow.Type(msg[1]); typ == openflow.TypeGroupMod || typ == openflow.TypeMeterMod {
						m := bytes.Clone(msg)
						binary.BigEndian.PutUint32(m[4:], 0)
						mu.Lock()
						msgs = append(msgs, m)
						mu.Unlock()
					}
					if _, err := sw.Write(msg); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(msgs)
	}
}

// TestPushModsWire: the GROUP_MODs and METER_MODs push sends are byte for
// byte those ovs-ofctl -O OpenFlow13 add-group, mod-group, del-groups,
// add-meter, mod-meter and del-meters send for the same lines, each
// recorded on its way to an ofswitch run.
func TestPushModsWire(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	dir := t.TempDir()
	type line struct{ cmd, text string }
	lines := []line{
		{"add-group", "group_id=1,type=all,bucket=output:1,bucket=output:2"},
		{"add-group", "group_id=2,type=select,bucket=weight:3,actions=output:1,bucket=weight:1,actions=mod_vlan_vid:7,output:2"},
		{"add-group", "group_id=3,type=indirect,bucket=actions=group:1"},
		{"add-group", "group_id=4,type=ff,bucket=watch_port:1,actions=output:1,bucket=watch_group:3,actions=group:3"},
		{"mod-group", "group_id=1,type=all,bucket=set_field:00:00:00:00:00:01->eth_dst,output:2"},
		{"del-groups", "group_id=4"},
		{"add-meter", "meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100"},
		{"add-meter", "meter=2,pktps,bands=type=dscp_remark,rate=10,prec_level=1,type=drop,rate=20"},
		{"mod-meter", "meter=1,kbps,bands=type=drop,rate=5"},
		{"del-meters", "meter=2"},
	}
	word := map[string]string{"add-group": "add", "mod-group": "modify", "del-groups": "delete",
		"add-meter": "add", "mod-meter": "modify", "del-meters": "delete"}
	var log testutil.LockedBuffer
	swTheirs := startRun(t, &log, "--tables", "2", "--log-level", "warn")
	defer swTheirs.stop(t)
	swOurs := startRun(t, &log, "--tables", "2", "--log-level", "warn")
	defer swOurs.stop(t)
	theirsAddr, theirs := recordMods(t, swTheirs.addr)
	var file strings.Builder
	for _, l := range lines {
		if out, err := exec.Command(ofctl, "-t", "10", "-O", "OpenFlow13", l.cmd, "tcp:"+theirsAddr, l.text).CombinedOutput(); err != nil {
			t.Fatalf("ovs-ofctl %s %s: %v\n%s", l.cmd, l.text, err, out)
		}
		file.WriteString(word[l.cmd] + " " + l.text + "\n")
	}
	path := filepath.Join(dir, "mods.txt")
	os.WriteFile(path, []byte(file.String()), 0o644)
	oursAddr, ours := recordMods(t, swOurs.addr)
	if out, errOut, err := runStderr(t, "push", "--switch", "tcp:"+oursAddr, path); err != nil {
		t.Fatalf("push: %v\n%s%s", err, out, errOut)
	}
	got, want := ours(), theirs()
	if len(got) != len(lines) || len(want) != len(lines) {
		t.Fatalf("push sent %d mods, ovs-ofctl %d; want %d", len(got), len(want), len(lines))
	}
	for i := range lines {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s %s:\npush     %x\novs-ofctl %x", lines[i].cmd, lines[i].text, got[i], want[i])
		}
	}
}

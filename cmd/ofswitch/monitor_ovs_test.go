//go:build linux

package main

import (
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// TestOvsOfctlFlowMonitor: ovs-ofctl monitor SWITCH watch: prints the same
// flow monitor events against ofswitch run as against Open vSwitch for the
// same flow changes, over OpenFlow 1.3 (Open vSwitch's ONF extension) and
// 1.4 (OFPMP_FLOW_MONITOR): the initial entry, adds (again for an
// identical add), a modify (none for one that changes nothing), adds in
// another table, a delete, the two adds of one add-flows (a reply each,
// as Open vSwitch sends one per FLOW_MOD), a hard timeout. A second monitor, watch:!own,
// makes a change itself over its own connection (ovs-appctl ofctl/send),
// which it sees abbreviated to the FLOW_MOD's xid while the first sees
// it in full, and then cancels its monitor, after which it sees nothing.
func TestOvsOfctlFlowMonitor(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	appctl := ovstest.Tool(t, "ovs-appctl")
	ovs := ovstest.Start(t)
	sw := startRun(t, io.Discard)
	defer sw.stop(t)
	for _, v := range []struct {
		flag string
		ver  uint8
	}{{"OpenFlow13", openflow.Version13}, {"OpenFlow14", openflow.Version14}} {
		t.Run(v.flag, func(t *testing.T) {
			oursAll, oursOwn := monitorSide(t, v.flag, v.ver, ofctl, appctl, "tcp:"+sw.addr, exec.Command)
			ovsAll, ovsOwn := monitorSide(t, v.flag, v.ver, ofctl, appctl, ovs.Target(), ovs.Exec)
			if diff := cmp.Diff(ovsAll, oursAll); diff != "" {
				t.Errorf("watch: (-Open vSwitch +ofswitch):\n%s", diff)
			}
			if diff := cmp.Diff(ovsOwn, oursOwn); diff != "" {
				t.Errorf("watch:!own (-Open vSwitch +ofswitch):\n%s", diff)
			}
			// And what both print is what the test means to show.
			all := strings.Join(oursAll, "\n") + "\n"
			for _, want := range []string{
				"event=ADDED table=0 cookie=0 tcp,tp_dst=80 actions=output:2",
				"event=MODIFIED table=0 cookie=0 tcp,tp_dst=80 actions=output:3",
				"event=DELETED reason=delete table=0 cookie=0 tcp,tp_dst=80 actions=output:3",
				"event=ADDED table=0 cookie=0 udp\n", // no actions: drop
				"event=DELETED reason=hard table=0 hard_timeout=1 cookie=0 arp",
				"event=ADDED table=0 cookie=0 pkt_mark=0x5/0xff,ip,tun_flags=+oam,nw_ttl=1,nw_frag=first actions=CONTROLLER:64",
			} {
				if !strings.Contains(all, want) {
					t.Errorf("watch: lacks %q:\n%s", want, all)
				}
			}
			if own := strings.Join(oursOwn, "\n"); !strings.Contains(own, "event=ABBREV xid=0x77") ||
				strings.Contains(own, "reason=hard") {
				t.Errorf("watch:!own: want its own change abbreviated and nothing after its cancel:\n%s", own)
			}
		})
	}
}

// monitorSide runs the sequence against target, with ovs-ofctl started by
// run (in the switch's namespace for Open vSwitch), and returns what its
// two monitors printed, without echo requests.
func monitorSide(t *testing.T, flag string, ver uint8, ofctl, appctl, target string, run func(string, ...string) *exec.Cmd) (all, own []string) {
	t.Helper()
	do := func(args ...string) {
		t.Helper()
		a := append([]string{"-O", "OpenFlow13", args[0], target}, args[1:]...)
		if out, err := run(ofctl, a...).CombinedOutput(); err != nil {
			t.Fatalf("ovs-ofctl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	do("del-flows")
	do("add-flow", "priority=5,ip,nw_dst=10.0.0.1,actions=output:1")
	dir := t.TempDir()
	monitor := func(spec, ctl string) (*testutil.LockedBuffer, func()) {
		var out testutil.LockedBuffer
		cmd := run(ofctl, "-O", flag, "monitor", target, spec, "--unixctl="+ctl)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := func() {
			cmd.Process.Kill()
			cmd.Wait()
		}
		t.Cleanup(stop)
		return &out, stop
	}
	ctlAll, ctlOwn := filepath.Join(dir, "all.ctl"), filepath.Join(dir, "own.ctl")
	outAll, stopAll := monitor("watch:", ctlAll)
	outOwn, stopOwn := monitor("watch:!own", ctlOwn)
	wait := func(out *testutil.LockedBuffer, what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), what); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q from ovs-ofctl monitor on %s within 10 s:\n%s", what, target, out.String())
			}
		}
	}
	// Each monitor has its initial reply before anything changes.
	wait(outAll, "nw_dst=10.0.0.1")
	wait(outOwn, "nw_dst=10.0.0.1")
	send := func(m openflow.Message) {
		t.Helper()
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(appctl, "-t", ctlOwn, "ofctl/send", hex.EncodeToString(b)).CombinedOutput(); err != nil {
			t.Fatalf("ovs-appctl ofctl/send: %v\n%s", err, out)
		}
	}

	do("add-flow", "priority=10,tcp,tp_dst=80,actions=output:2")
	do("mod-flows", "tcp,tp_dst=80,actions=output:3")
	do("mod-flows", "tcp,tp_dst=80,actions=output:3") // changes nothing
	do("add-flow", "table=1,priority=7,cookie=0x12,udp,actions=drop")
	do("add-flow", "table=1,priority=7,cookie=0x12,udp,actions=drop") // the same again
	do("del-flows", "tcp")
	// Nicira match fields, sent and reported as NXM entries.
	do("add-flow", "priority=11,ip,nw_ttl=1,nw_frag=first,pkt_mark=0x5/0xff,tun_flags=+oam,actions=CONTROLLER:64")
	// Several FLOW_MODs in one burst: a reply each, as Open vSwitch
	// sends one per FLOW_MOD.
	file := filepath.Join(dir, "two.flows")
	if err := os.WriteFile(file, []byte("priority=30,icmp,actions=output:4\ntable=1,priority=31,arp,actions=output:5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	do("add-flows", file)
	// The watch:!own monitor's own change, then its cancel.
	send(&openflow.FlowMod{Header: openflow.Header{Version: ver, XID: 0x77}, Command: openflow.FlowAdd, Priority: 20,
		BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
		Match:        openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPProto(17)}},
		Instructions: []openflow.Instruction{openflow.ApplyActions()}})
	wait(outOwn, "event=ABBREV")
	if ver == openflow.Version13 {
		send(&openflow.FlowMonitorCancel{Header: openflow.Header{Version: ver, XID: 0x78}})
	} else {
		send(&openflow.FlowMonitorRequest{Header: openflow.Header{Version: ver, XID: 0x78},
			Monitors: []openflow.FlowMonitor{{Command: openflow.FlowMonitorDelete, OutPort: openflow.PortAny,
				OutGroup: openflow.GroupAny, TableID: openflow.TableAll}}})
	}
	do("add-flow", "priority=3,hard_timeout=1,arp,actions=drop")
	wait(outAll, "reason=hard")
	// A barrier over the cancelled monitor's connection: whatever it
	// was still to be sent has arrived when its reply shows.
	send(&openflow.Empty{Header: openflow.Header{Version: ver, Type: openflow.TypeBarrierRequest, XID: 0x79}})
	wait(outOwn, "BARRIER_REPLY")
	stopAll()
	stopOwn()
	return monitorLines(outAll.String()), monitorLines(outOwn.String())
}

// monitorLines are the lines of ovs-ofctl monitor's output but for echo
// requests and its own log lines.
func monitorLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l == "" || strings.Contains(l, "ECHO_") || strings.Contains(l, "|fatal_signal|") {
			continue
		}
		out = append(out, l)
	}
	return out
}

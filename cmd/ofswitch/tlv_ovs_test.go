//go:build linux

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
)

// TestOvsOfctlTLVMapRun drives ofswitch run and Open vSwitch with the
// same ovs-ofctl add-tlv-map, add-flow, dump-tlv-map, dump-flows,
// del-tlv-map, add-group and dump-groups (buckets that set and load
// tun_metadata7) and packet-out (the same) commands, over OpenFlow 1.3 and
// 1.4, and requires the same
// output from both but for the option space dump-tlv-map announces (32
// bytes against 256).
func TestOvsOfctlTLVMapRun(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	sw := startRun(t, io.Discard)
	defer sw.stop(t)
	stamp := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT[\d:.]+Z\|\d+\|`)
	counters := regexp.MustCompile(`duration=[0-9.]+s, |n_packets=\d+, |n_bytes=\d+, `)
	run := func(c *exec.Cmd) string {
		out, err := c.CombinedOutput()
		s := counters.ReplaceAllString(stamp.ReplaceAllString(string(out), ""), "")
		if err != nil {
			s += "(" + err.Error() + ")\n"
		}
		return s
	}
	for _, ver := range []string{"OpenFlow13", "OpenFlow14"} {
		for i, step := range [][]string{
			{"del-flows"},
			{"del-tlv-map"},
			{"add-tlv-map", "{class=0x102,type=0x80,len=4}->tun_metadata0,{class=0x102,type=0x81,len=8}->tun_metadata7"},
			{"add-tlv-map", "{class=0x102,type=0x80,len=8}->tun_metadata1"}, // NXTTMFC_DUP_ENTRY
			{"dump-tlv-map"},
			{"add-flow", "priority=5,tun_metadata0=0xabcd,tun_metadata7=0x10/0xf0,actions=output:1"},
			// (drop: a FLOW_MOD of at most 64 bytes, which ofswitch echoes
			// whole in the error as Open vSwitch does; a longer one it cuts
			// at 64.)
			{"add-flow", "priority=6,tun_metadata3=1,actions=drop"}, // NXFMFC_INVALID_TLV_FIELD
			{"dump-flows"},
			{"del-tlv-map", "{class=0x102,type=0x80,len=4}->tun_metadata0"}, // NXTTMFC_INVALID_TLV_DEL
			{"del-flows", "tun_metadata7=0x10/0xf0"},
			{"dump-flows"},
			{"del-tlv-map", "{class=0x102,type=0x80,len=4}->tun_metadata0"},
			{"dump-tlv-map"},
			{"add-group", "group_id=1,type=all,bucket=set_field:0x1234->tun_metadata7,output:1,bucket=load:0x5->tun_metadata7[8..15],output:2"},
			{"dump-groups"},
			{"packet-out", "in_port=controller,packet=ffffffffffff000000000001080045000014000000004011000000000000000000000000,actions=set_field:0x12->tun_metadata7,load:0x1->tun_metadata7[63],output:LOCAL"},
			{"del-groups"},
		} {
			args := func(target string) []string {
				return append([]string{"-O", ver, step[0], target}, step[1:]...)
			}
			got := run(exec.Command(ofctl, args("tcp:"+sw.addr)...))
			want := run(ovs.Exec("ovs-ofctl", args(ovs.Target())...))
			// Open vSwitch releases a deleted flow's hold on its
			// mappings only after an RCU grace period: a del-tlv-map
			// right after the del-flows may still find the flow.
			for try := 0; (i == 1 || i == 11) && try < 40 && strings.Contains(want, "NXTTMFC_INVALID_TLV_DEL"); try++ {
				time.Sleep(50 * time.Millisecond)
				want = run(ovs.Exec("ovs-ofctl", args(ovs.Target())...))
			}
			want = strings.Replace(want, "max option space=256", "max option space=32", 1)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s (-Open vSwitch +ofswitch):\n%s", ver, strings.Join(step, " "), diff)
			}
			if i == 7 && !strings.Contains(got, "priority=5,tun_metadata0=0xabcd,tun_metadata7=0x10/0xf0 actions=output:1") {
				t.Errorf("%s: dump-flows:\n%s", ver, got)
			}
		}
	}
}

// TestPushTLVMap pushes a file that matches and sets tun_metadata fields
// with ofswitch push into ofswitch run and into Open vSwitch after
// ovs-ofctl add-tlv-map: push learns each switch's TLV table, and
// dump-flows prints what ovs-ofctl add-flows of the file gives. A bad
// line among them sends nothing; without the mapping, push refuses the
// lines as not mapped and sends nothing, not even the line that names no
// field.
func TestPushTLVMap(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	sw := startRun(t, io.Discard)
	defer sw.stop(t)
	bin := ofswitchBinary(t)
	file := filepath.Join(t.TempDir(), "tlv.flows")
	if err := os.WriteFile(file, []byte(tlvPushFlows), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.flows")
	if err := os.WriteFile(bad, []byte(tlvPushFlows+"ip,nw_src=1.2.3.400,actions=drop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var pushed [2][]string
	for i, target := range []string{ovs.Target(), "tcp:" + sw.addr} {
		run := ovs.Exec
		if i == 1 {
			run = plainCommand
		}
		must := func(c *exec.Cmd) string {
			t.Helper()
			out, err := c.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(c.Args, " "), err, out)
			}
			return string(out)
		}
		dump := func() []string {
			t.Helper()
			return ovstest.FlowLines(must(run(ofctl, "-O", "OpenFlow13", "dump-flows", target, "--no-stats")))
		}
		must(run(ofctl, "-O", "OpenFlow13", "del-flows", target))
		must(run(ofctl, "-O", "OpenFlow13", "del-tlv-map", target))
		must(run(ofctl, "-O", "OpenFlow13", "add-tlv-map", target, tunPushMap))
		must(run(ofctl, "-O", "OpenFlow13", "add-flows", target, file))
		want := dump()
		if len(want) != 4 {
			t.Fatalf("%s: add-flows gives %d flows:\n%s", target, len(want), strings.Join(want, "\n"))
		}
		must(run(ofctl, "-O", "OpenFlow13", "del-flows", target))
		must(run(bin, "push", "--switch", target, file))
		pushed[i] = dump()
		if diff := cmp.Diff(want, pushed[i]); diff != "" {
			t.Errorf("%s: dump-flows after push (-add-flows +push):\n%s", target, diff)
		}

		// A bad line among mapped ones: nothing goes out.
		must(run(ofctl, "-O", "OpenFlow13", "del-flows", target))
		if out, err := run(bin, "push", "--switch", target, bad).CombinedOutput(); err == nil || !strings.Contains(string(out), "bad.flows:5:") {
			t.Errorf("%s: push of a bad line: %v\n%s", target, err, out)
		}
		if got := dump(); len(got) != 0 {
			t.Errorf("%s: push of a bad line added:\n%s", target, strings.Join(got, "\n"))
		}

		// No mapping: nothing goes out.
		for try := 0; ; try++ {
			out, err := run(ofctl, "-O", "OpenFlow13", "del-tlv-map", target).CombinedOutput()
			if err == nil {
				break
			}
			// Open vSwitch frees a deleted flow's mappings after an RCU
			// grace period.
			if try == 40 || !strings.Contains(string(out), "NXTTMFC_INVALID_TLV_DEL") {
				t.Fatalf("del-tlv-map %s: %v\n%s", target, err, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
		out, err := run(bin, "push", "--switch", target, file).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "tlv.flows:2:") ||
			!strings.Contains(string(out), "match field tun_metadata0 is not mapped") {
			t.Errorf("%s: push without the mapping: %v\n%s", target, err, out)
		}
		if got := dump(); len(got) != 0 {
			t.Errorf("%s: push without the mapping added:\n%s", target, strings.Join(got, "\n"))
		}
	}
	if diff := cmp.Diff(pushed[0], pushed[1]); diff != "" {
		t.Errorf("dump-flows after push (-Open vSwitch +ofswitch):\n%s", diff)
	}
}

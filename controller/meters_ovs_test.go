package controller

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
)

// meterDuration matches what differs between two switches holding the
// same meters: how long each has existed.
var meterDuration = regexp.MustCompile(`duration:[0-9.]+s`)

// meterBlocks returns what ovs-ofctl dump-meters or meter-stats printed:
// the header line, then one block per meter, durations stripped, sorted
// (Open vSwitch lists its meters in hash order, ofswitch by id).
//
// Of an OFPT_ERROR only the first line counts: Open vSwitch echoes the
// whole request, ofswitch its first 64 bytes (OpenFlow 1.3.5 §7.4.4).
func meterBlocks(out string) []string {
	if strings.HasPrefix(out, "OFPT_ERROR") {
		out, _, _ = strings.Cut(out, "\n")
	}
	out = meterDuration.ReplaceAllString(out, "duration:-")
	head, body, _ := strings.Cut(out, "\n")
	var blocks []string
	for _, b := range strings.Split(body, "\n\n") {
		if b = strings.TrimSpace(b); b != "" {
			blocks = append(blocks, b)
		}
	}
	slices.Sort(blocks)
	return append([]string{head}, blocks...)
}

// TestOvsOfctlMeters drives ofswitch and Open vSwitch with the same
// ovs-ofctl meter commands (add-meter, mod-meter, del-meter(s),
// dump-meters, meter-stats, with flows that use the meters) and compares
// what they print, errors included.
func TestOvsOfctlMeters(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	run := func(target string, inNS bool, args ...string) string {
		a := append([]string{"-O", "OpenFlow13", args[0], target}, args[1:]...)
		var out []byte
		if inNS {
			out, _ = ovs.Exec("ovs-ofctl", a...).CombinedOutput()
		} else {
			out, _ = exec.Command(ofctl, a...).CombinedOutput()
		}
		return string(out)
	}
	both := func(args ...string) (string, string) {
		t.Helper()
		return run(ours, false, args...), run(ovs.Target(), true, args...)
	}
	same := func(args ...string) {
		t.Helper()
		o, theirs := both(args...)
		if diff := cmp.Diff(meterBlocks(theirs), meterBlocks(o)); diff != "" {
			t.Fatalf("ovs-ofctl %s (-Open vSwitch +ofswitch):\n%s", strings.Join(args, " "), diff)
		}
	}
	sameFlows := func(step string) {
		t.Helper()
		o, theirs := both("dump-flows")
		if diff := cmp.Diff(ovstest.FlowLines(theirs), ovstest.FlowLines(o)); diff != "" {
			t.Fatalf("after %s: dump-flows (-Open vSwitch +ofswitch):\n%s", step, diff)
		}
	}

	for _, m := range []string{
		"meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100",
		"meter=2,pktps,bands=type=drop,rate=10",
		"meter=5,kbps,bands=type=drop,rate=5,type=drop,rate=6",
		"meter=4294901760,pktps,stats,bands=type=drop,rate=7",
		"meter=1,kbps,bands=type=drop,rate=5",              // METER_EXISTS
		"meter=4294901761,kbps,bands=type=drop,rate=5",     // ovs-ofctl refuses it
		"meter=all,kbps,bands=type=drop,rate=5",            // INVALID_METER
		"meter=9,kbps,pktps,bands=type=drop,rate=5",        // BAD_FLAGS
		"meter=9,kbps,bands=type=drop,rate=5,burst_size=7", // ovs-ofctl refuses it
		"meter=9,pktps,burst,bands=type=drop,rate=5,burst_size=3",
	} {
		same("add-meter", m)
	}
	for _, f := range []string{
		"priority=5,in_port=1,actions=meter:2,output:2",
		"priority=6,in_port=1,actions=meter:2,output:3",
		"priority=7,actions=meter:1,goto_table:1",
		"table=1,priority=8,ip,actions=meter:5,write_actions(output:4)",
		"priority=9,in_port=1,actions=meter:77,output:2", // INVALID_METER
	} {
		same("add-flow", f)
	}
	sameFlows("add-flow")
	same("dump-meters")
	same("meter-stats")
	if o := run(ours, false, "meter-stats", "meter=2"); !strings.Contains(o, "meter:2 flow_count:2 ") {
		t.Fatalf("meter-stats meter=2:\n%s", o)
	}
	same("dump-meters", "meter=5")
	same("meter-stats", "meter=2")
	same("dump-meters", "meter=3") // UNKNOWN_METER
	same("meter-stats", "meter=3")
	same("mod-meter", "meter=1,pktps,bands=type=drop,rate=3")
	same("mod-meter", "meter=3,pktps,bands=type=drop,rate=3") // UNKNOWN_METER
	same("dump-meters")
	same("meter-stats")
	same("del-meter", "meter=2")
	same("del-meter", "meter=2") // gone already: no error
	sameFlows("del-meter meter=2")
	same("meter-stats")
	same("del-meters")
	sameFlows("del-meters")
	same("dump-meters")

	// Where ofswitch differs, for a reason: Open vSwitch's userspace
	// datapath has no DSCP_REMARK band (it answers OFPMMFC_BAD_BAND) and
	// allows 2^18 meters; ofswitch remarks, and holds up to 65536.
	dscp := "meter=3,kbps,stats,bands=type=dscp_remark,rate=100,prec_level=1"
	o, theirs := both("add-meter", dscp)
	if o != "" || !strings.Contains(theirs, "OFPMMFC_BAD_BAND") {
		t.Errorf("add-meter %s: ofswitch %q, Open vSwitch %q", dscp, o, theirs)
	}
	o = run(ours, false, "dump-meters")
	if want := "OFPST_METER_CONFIG reply (OF1.3) (xid=0x2):\nmeter=3 kbps stats bands=\ntype=dscp_remark rate=100 prec_level=1\n"; o != want {
		t.Errorf("dump-meters:\n%s\nwant\n%s", o, want)
	}
	o, theirs = both("meter-features")
	wantOurs := "OFPST_METER_FEATURES reply (OF1.3) (xid=0x2):\nmax_meter:65536 max_bands:8 max_color:0\n" +
		"band_types: drop dscp_remark\ncapabilities: kbps pktps burst stats\n"
	wantTheirs := strings.Replace(strings.Replace(wantOurs, "65536", "262144", 1), " dscp_remark", "", 1)
	if o != wantOurs || theirs != wantTheirs {
		t.Errorf("meter-features: ofswitch\n%s\nwant\n%s\nOpen vSwitch\n%s\nwant\n%s", o, wantOurs, theirs, wantTheirs)
	}
}

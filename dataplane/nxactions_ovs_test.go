package dataplane

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// TestNiciraActionsAgainstOVS puts each of nxCases into Open vSwitch 3.1
// and traces its frame (ovs-appctl ofproto/trace): the datapath actions
// must be nxCases' ports, in order, and its packet-ins to controller id 0,
// and the trace must report a resubmit limit exactly for the cases with
// xerr, which TestNiciraActions checks ofswitch against. Open vSwitch's reasons
// beyond invalid_ttl (action_set, group, packet_out) are compared as
// OpenFlow 1.3 carries them: OFPR_ACTION.
func TestNiciraActionsAgainstOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 3)
	ofPort := ovs.DatapathPorts(t, 3)
	ctl := regexp.MustCompile(`^userspace\(.*controller\(reason=(\d+),.*controller_id=(\d+),max_len=(\d+)\)\)$`)
	for i := range nxCases {
		c := &nxCases[i]
		t.Run(c.name, func(t *testing.T) {
			if _, err := ovs.Ofctl("", "del-flows"); err != nil {
				t.Fatal(err)
			}
			if _, err := ovs.Ofctl("", "del-groups"); err != nil {
				t.Fatal(err)
			}
			for _, g := range c.groups {
				if out, err := ovs.Ofctl("", "add-group", g); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
			}
			for _, f := range c.flows {
				if out, err := ovs.Ofctl("", "add-flow", f); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
			}
			out := ovsTrace(t, ovs, nxFrame(t, c.ttl))
			_, acts, ok := strings.Cut(string(out), "Datapath actions: ")
			if !ok {
				t.Fatalf("no datapath actions:\n%s", out)
			}
			acts, _, _ = strings.Cut(acts, "\n")
			var ports []uint32
			var pins []pinRec
			var sets []string
			for _, a := range splitTopLevel(acts) {
				if a == "drop" {
					continue
				}
				if p, ok := ofPort[a]; ok {
					ports = append(ports, p)
					continue
				}
				if m := ctl.FindStringSubmatch(a); m != nil {
					if m[2] != "0" {
						continue
					}
					r, _ := strconv.Atoi(m[1])
					ml, _ := strconv.Atoi(m[3])
					if r > PacketInInvalidTTL {
						r = PacketInAction
					}
					pins = append(pins, pinRec{uint8(r), uint16(ml)})
					continue
				}
				sets = append(sets, a)
			}
			if xerr := translationFailed.Find(out); (xerr != nil) != c.xerr {
				t.Errorf("Open vSwitch translation error %q, want one: %v\n%s", xerr, c.xerr, tail(out))
			}
			if !slices.Equal(ports, c.ports) {
				t.Errorf("Open vSwitch sends on ports %v, want %v\n%s", ports, c.ports, out)
			}
			if !slices.Equal(pins, c.pins) {
				t.Errorf("Open vSwitch packet-ins %v, want %v\n%s", pins, c.pins, out)
			}
			if c.outTTL != 0 && !strings.Contains(strings.Join(sets, ","), fmt.Sprintf("ttl=%d", c.outTTL)) {
				t.Errorf("Open vSwitch does not set TTL %d: %v", c.outTTL, sets)
			}
		})
	}
}

// translationFailed is how ofproto/trace reports a translation that hit a
// resubmit limit (xlate_report_error).
var translationFailed = regexp.MustCompile(`over max translation depth 64|over 4096 resubmit actions`)

// tail returns the last lines of a long trace.
func tail(out []byte) string {
	lines := strings.Split(string(out), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

// splitTopLevel splits s at the commas outside parentheses.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

package dataplane

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// bucketCases are groups whose buckets' actions run differently as an
// action set than as a list, as OpenFlow 1.3.5 §5.6 and Open vSwitch run
// them, each with the ports a frame from port 1 leaves on (in Open
// vSwitch's datapath order) and the destination MAC it leaves with.
var bucketCases = []struct {
	name   string
	groups []string
	ports  []uint32
	dst    string // eth_dst of every frame out, "" for the frame's own
}{
	{"last output wins", []string{"group_id=1,type=all,bucket=output:2,output:3"}, []uint32{3}, ""},
	{"set before output", []string{"group_id=1,type=all,bucket=output:2,mod_dl_dst:02:00:00:00:00:99"}, []uint32{2}, "02:00:00:00:00:99"},
	{"no output, nothing", []string{"group_id=1,type=all,bucket=mod_dl_dst:02:00:00:00:00:99"}, nil, ""},
	{"note and exit do nothing", []string{"group_id=1,type=all,bucket=note:01.02,exit,output:2,bucket=output:3"}, []uint32{2, 3}, ""},
	{"group over output", []string{"group_id=2,type=indirect,bucket=output:4",
		"group_id=1,type=all,bucket=output:2,group:2,bucket=output:3"}, []uint32{4, 3}, ""},
	{"list semantics agree", []string{"group_id=1,type=all,bucket=mod_dl_dst:02:00:00:00:00:99,output:2,bucket=mod_dl_dst:02:00:00:00:00:99,output:3"},
		[]uint32{2, 3}, "02:00:00:00:00:99"},
}

func bucketFrame(t testing.TB) []byte {
	return build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), gopacket.Payload("hello, a payload long enough"))
}

// TestBucketActionSet: ofswitch runs each of bucketCases' groups as the
// case says.
func TestBucketActionSet(t *testing.T) {
	for _, c := range bucketCases {
		t.Run(c.name, func(t *testing.T) {
			tbl := groups.New(nil)
			for _, g := range c.groups {
				m, err := ofctl.ParseGroup(g, groups.Add)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tbl.Apply(&m); err != nil {
					t.Fatalf("%s: %v", g, err)
				}
			}
			sw, ports := groupSwitch(t, 1, "in_port=1,actions=group:1", tbl)
			sendOne(sw.Worker(0), bucketFrame(t), 1)
			var got []uint32
			for n := uint32(1); n <= 4; n++ {
				for _, f := range ports[n].frames {
					got = append(got, n)
					p := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.Default)
					e := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
					want := c.dst
					if want == "" {
						want = eth(layers.EthernetTypeIPv4).DstMAC.String()
					}
					if e.DstMAC.String() != want {
						t.Errorf("port %d: eth_dst %s, want %s", n, e.DstMAC, want)
					}
				}
			}
			want := slices.Clone(c.ports)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("out on %v, want %v", got, want)
			}
		})
	}
}

// TestBucketActionSetAgainstOVS: Open vSwitch 3.1 runs bucketCases' groups
// as the cases say (ofproto/trace's datapath actions).
func TestBucketActionSetAgainstOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 4)
	ofPort := ovs.DatapathPorts(t, 4)
	for _, c := range bucketCases {
		t.Run(c.name, func(t *testing.T) {
			for _, cmd := range []string{"del-flows", "del-groups"} {
				if out, err := ovs.Ofctl("", cmd); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
			}
			for _, g := range c.groups {
				if out, err := ovs.Ofctl("", "add-group", g); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
			}
			ovsReplaceFlows(t, ovs, "in_port=1,actions=group:1")
			trace := ovsTrace(t, ovs, bucketFrame(t))
			_, acts, ok := strings.Cut(string(trace), "Datapath actions: ")
			if !ok {
				t.Fatalf("no datapath actions:\n%s", trace)
			}
			acts, _, _ = strings.Cut(acts, "\n")
			var ports []uint32
			dst := ""
			for _, a := range splitTopLevel(acts) {
				if p, ok := ofPort[a]; ok {
					ports = append(ports, p)
				} else if m := regexp.MustCompile(`^set\(eth\(dst=([0-9a-f:]+)\)\)$`).FindStringSubmatch(a); m != nil {
					dst = m[1]
				} else if a != "drop" {
					t.Errorf("datapath action %q", a)
				}
			}
			if !slices.Equal(ports, c.ports) || dst != c.dst {
				t.Errorf("Open vSwitch: out on %v with eth_dst %q, want %v and %q\n%s", ports, dst, c.ports, c.dst, fmt.Sprint(acts))
			}
		})
	}
}

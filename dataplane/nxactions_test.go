package dataplane

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// pinRec is what a test keeps of a packet-in.
type pinRec struct {
	Reason uint8
	MaxLen uint16
}

// nxCase is a pipeline of flows (ovs-ofctl syntax, the frame comes in on
// port 1), an IPv4 TCP frame's TTL, and what Open vSwitch 3.1 does with
// it (ovs-appctl ofproto/trace): the ports it leaves on, in order, and the
// packet-ins to controller id 0 (the one every ofswitch connection has).
type nxCase struct {
	name  string
	flows []string
	ttl   uint8
	ports []uint32
	pins  []pinRec
	// outTTL, if not 0, is the TTL of the frame that leaves.
	outTTL uint8
	// xerr says that the translation fails on a resubmit limit: Open
	// vSwitch drops the packet, ofswitch counts Counters.XlateErrors.
	xerr bool
	// groups, in ovs-ofctl add-group syntax.
	groups []string
}

// groupChain returns flows and groups in which the frame goes through n
// groups, each of whose one bucket resubmits it to table 0 with the next
// in_port (100+i), whose entry runs the next group, and the last entry
// outputs to 2: each level is a group and a resubmit to the same table,
// two levels of Open vSwitch's translation depth.
func groupChain(n int) (flows, grps []string) {
	flows = []string{"in_port=1,actions=group:1"}
	for i := 1; i <= n; i++ {
		grps = append(grps, fmt.Sprintf("group_id=%d,type=all,bucket=resubmit(%d,0)", i, 100+i))
		if i < n {
			flows = append(flows, fmt.Sprintf("in_port=%d,actions=group:%d", 100+i, i+1))
		}
	}
	return append(flows, fmt.Sprintf("in_port=%d,actions=output:2", 100+n)), grps
}

// resubmits returns n resubmits to table t, comma-separated.
func resubmits(n int, t string) string {
	return strings.TrimSuffix(strings.Repeat("resubmit(,"+t+"),", n), ",")
}

var nxCases = append([]nxCase{
	{name: "exit before output", flows: []string{"in_port=1,actions=output:2,exit,output:3"}, ttl: 64, ports: []uint32{2}},
	{name: "exit ends write and goto", flows: []string{"in_port=1,actions=exit,write_actions(output:3),goto_table:1", "table=1,actions=output:2"}, ttl: 64},
	// Open vSwitch starts the action set after exit, but runs none of it.
	{name: "exit then the action set", flows: []string{
		"in_port=1,actions=write_actions(output:3),goto_table:1",
		"table=1,actions=output:2,exit,write_actions(output:1),goto_table:2",
		"table=2,actions=output:1"}, ttl: 64, ports: []uint32{2}},
	{name: "note", flows: []string{"in_port=1,actions=note:01.02,output:2,note:ff"}, ttl: 64, ports: []uint32{2}},
	{name: "dec_ttl ids expiry", flows: []string{"in_port=1,ip,actions=dec_ttl(0,0,3),output:2"}, ttl: 1,
		pins: []pinRec{{PacketInInvalidTTL, rules.ControllerMaxLenNoBuffer}, {PacketInInvalidTTL, rules.ControllerMaxLenNoBuffer}}},
	{name: "dec_ttl other ids expiry", flows: []string{"in_port=1,ip,actions=dec_ttl(3),output:2"}, ttl: 1},
	{name: "dec_ttl(0) expiry then the action set", flows: []string{
		"in_port=1,ip,actions=write_actions(output:3),goto_table:1",
		"table=1,ip,actions=dec_ttl(0),output:2"}, ttl: 1, ports: []uint32{3},
		pins: []pinRec{{PacketInInvalidTTL, rules.ControllerMaxLenNoBuffer}}},
	{name: "dec_ttl ids", flows: []string{"in_port=1,ip,actions=dec_ttl(1,2),output:2"}, ttl: 5, ports: []uint32{2}, outTTL: 4},
	{name: "controller", flows: []string{"in_port=1,ip,actions=controller(reason=no_match,max_len=64),controller(id=3),controller(reason=group,max_len=10),controller(reason=invalid_ttl),output:2"},
		ttl: 64, ports: []uint32{2}, pins: []pinRec{{PacketInNoMatch, 64}, {PacketInAction, 10}, {PacketInInvalidTTL, rules.ControllerMaxLenNoBuffer}}},

	// resubmit
	{name: "resubmit to an earlier table", flows: []string{"in_port=1,actions=goto_table:2", "table=2,actions=resubmit(,1),output:2",
		"table=1,actions=output:3"}, ttl: 64, ports: []uint32{3, 2}},
	{name: "resubmit to the same table with another in_port", flows: []string{"priority=2,in_port=1,actions=resubmit:3,output:in_port",
		"in_port=3,actions=output:2"}, ttl: 64, ports: []uint32{2, 1}},
	{name: "resubmit with in_port changed, then restored", flows: []string{"in_port=1,actions=resubmit(3,1),output:2",
		"table=1,in_port=3,actions=output:3,output:in_port", "table=1,in_port=1,actions=output:2"}, ttl: 64, ports: []uint32{3, 1, 2}},
	{name: "resubmit miss does nothing", flows: []string{"in_port=1,actions=resubmit(,1),resubmit(,200),output:2",
		"table=1,in_port=2,actions=output:3"}, ttl: 64, ports: []uint32{2}},
	{name: "resubmit then goto inside it", flows: []string{"in_port=1,actions=resubmit(,1),output:3",
		"table=1,actions=goto_table:2", "table=2,actions=output:2"}, ttl: 64, ports: []uint32{2, 3}},
	{name: "resubmit sees and makes rewrites", flows: []string{"in_port=1,ip,actions=set_field:02:00:00:00:00:07->eth_dst,resubmit(,1),output:2",
		"table=1,ip,dl_dst=02:00:00:00:00:07,actions=dec_ttl", "table=1,priority=0,actions=output:3"}, ttl: 64, ports: []uint32{2}, outTTL: 63},
	{name: "exit inside a resubmit", flows: []string{"in_port=1,actions=resubmit(,1),output:3",
		"table=1,actions=output:2,exit,output:1"}, ttl: 64, ports: []uint32{2}},
	{name: "dec_ttl expiry inside a resubmit", flows: []string{"in_port=1,ip,actions=resubmit(,1),output:3",
		"table=1,ip,actions=dec_ttl,output:2"}, ttl: 1, ports: []uint32{3},
		pins: []pinRec{{PacketInInvalidTTL, rules.ControllerMaxLenNoBuffer}}},
	{name: "resubmit writes the action set", flows: []string{"in_port=1,actions=resubmit(,2),goto_table:1",
		"table=1,actions=output:3", "table=2,actions=write_actions(output:2)"}, ttl: 64, ports: []uint32{3, 2}},
	{name: "resubmit in the action set", flows: []string{"in_port=1,actions=write_actions(resubmit(,2)),goto_table:1",
		"table=1,actions=note:00", "table=2,actions=output:2"}, ttl: 64, ports: []uint32{2}},
	{name: "resubmit in the action set after output", flows: []string{"in_port=1,actions=write_actions(resubmit(,2),output:3)",
		"table=2,actions=output:2"}, ttl: 64, ports: []uint32{3}},
	{name: "resubmit loop", flows: []string{"in_port=1,ip,actions=resubmit(,1)", "table=1,ip,actions=resubmit(,0)"},
		ttl: 64, xerr: true},
	// Open vSwitch clears a failed translation's datapath actions: the
	// outputs and packet-ins before the limit do not go out either.
	{name: "resubmit loop after output", flows: []string{"in_port=1,ip,actions=output:2,controller,resubmit(,1),write_actions(output:3)",
		"table=1,ip,actions=output:3,resubmit(,0)"}, ttl: 64, xerr: true},
	{name: "resubmit loop in one table", flows: []string{"in_port=1,ip,actions=resubmit:1"}, ttl: 64, xerr: true},
	{name: "resubmit loop then the action set", flows: []string{"in_port=1,ip,actions=write_actions(output:2),goto_table:1",
		"table=1,ip,actions=resubmit(,2)", "table=2,ip,actions=resubmit(,1)"}, ttl: 64, xerr: true},
	// 16 + 16*255 = 4096 resubmits that find an entry, none deeper than
	// the first: the limit is not reached.
	{name: "4096 resubmits", flows: []string{"in_port=1,actions=" + resubmits(16, "1") + ",output:2",
		"table=1,actions=" + resubmits(255, "2"), "table=2,actions=note:00"}, ttl: 64, ports: []uint32{2}},
	// One more, even to a table that misses, is over: the limit is
	// checked before the lookup.
	{name: "4097 resubmits", flows: []string{"in_port=1,actions=" + resubmits(16, "1") + ",resubmit(,3),output:2",
		"table=1,actions=" + resubmits(255, "2"), "table=2,actions=note:00"}, ttl: 64, xerr: true},
}, groupCases()...)

// groupCases: a group deepens the translation as a resubmit to the same
// table does (Open vSwitch's xlate_group_bucket): 32 levels of group and
// resubmit reach depth 64 only at the last entry, 33 go over.
//
// A chain of groups alone (a bucket's group action) goes as deep: 64
// groups from an entry of table 0 run (the last at depth 63), and behind
// one resubmit to the same table the 64th is over. (A chain of 65, which Open vSwitch
// takes and fails to translate, is refused at its GROUP_MOD:
// groups.MaxDepth.)
func groupCases() []nxCase {
	f32, g32 := groupChain(32)
	f33, g33 := groupChain(33)
	g64 := directChain(64)
	return []nxCase{
		{name: "32 groups with resubmits", flows: f32, groups: g32, ttl: 64, ports: []uint32{2}},
		{name: "33 groups with resubmits", flows: f33, groups: g33, ttl: 64, xerr: true},
		{name: "a chain of 64 groups", flows: []string{"in_port=1,actions=group:1"}, groups: g64, ttl: 64, ports: []uint32{2}},
		{name: "a chain of 9 groups", flows: []string{"in_port=1,actions=group:56"}, groups: g64, ttl: 64, ports: []uint32{2}},
		// A resubmit to the same table deepens (one to a later one
		// does not).
		{name: "a chain of 64 groups behind a resubmit", flows: []string{"in_port=1,actions=resubmit(2,0)", "in_port=2,actions=group:1"},
			groups: g64, ttl: 64, xerr: true},
		{name: "a chain of 63 groups behind a resubmit", flows: []string{"in_port=1,actions=resubmit(2,0)", "in_port=2,actions=group:2"},
			groups: g64, ttl: 64, ports: []uint32{2}},
		{name: "a chain of 64 groups behind a resubmit to a later table", flows: []string{"in_port=1,actions=resubmit(,1)", "table=1,actions=group:1"},
			groups: g64, ttl: 64, ports: []uint32{2}},
	}
}

// directChain returns n groups, in the order they can be added, where
// group i's one bucket runs group i+1 and group n's outputs to 2.
func directChain(n int) []string {
	var grps []string
	for i := n; i >= 1; i-- {
		act := fmt.Sprintf("group:%d", i+1)
		if i == n {
			act = "output:2"
		}
		grps = append(grps, fmt.Sprintf("group_id=%d,type=all,bucket=%s", i, act))
	}
	return grps
}

// run sends c's frame through ofswitch and returns the ports it left on,
// in order, the frames, and the packet-ins; it checks c.xerr against the
// translation errors counted.
func (c *nxCase) run(t *testing.T, in []byte) ([]uint32, [][]byte, []pinRec) {
	t.Helper()
	pipe := testPipeline(t, 4, rules.FilterBloomCuckoo, strings.Join(c.flows, "\n"))
	var tbl *groups.Table
	if len(c.groups) > 0 {
		tbl = groups.New(nil)
		for _, g := range c.groups {
			m, err := ofctl.ParseGroup(g, groups.Add)
			if err != nil {
				t.Fatalf("%s: %v", g, err)
			}
			if _, err := tbl.Apply(&m); err != nil {
				t.Fatalf("%s: %v", g, err)
			}
		}
	}
	var ports []uint32
	var frames [][]byte
	devs := map[uint32]Port{}
	for _, n := range []uint32{1, 2, 3} {
		devs[n] = portFunc(func(f []byte) {
			ports = append(ports, n)
			frames = append(frames, slices.Clone(f))
		})
	}
	var pins []pinRec
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Devices: devs, Groups: tbl,
		PacketIn: func(p *PacketIn) { pins = append(pins, pinRec{p.Reason, p.MaxLen}) }})
	vec := &Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = slices.Clone(in), layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	if st := sw.Stats(); (st.XlateErrors == 1) != c.xerr || st.XlateErrors > 1 {
		t.Errorf("%d translation errors, want %v", st.XlateErrors, c.xerr)
	}
	return ports, frames, pins
}

func nxFrame(t *testing.T, ttl uint8) []byte {
	ip := ipv4(layers.IPProtocolTCP)
	ip.TTL = ttl
	return build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), payload)
}

// TestNiciraActions runs note, exit, controller(...), dec_ttl(ids) and
// resubmit through the data plane: nxCases' results are Open vSwitch's,
// which TestNiciraActionsAgainstOVS checks, translation errors included.
func TestNiciraActions(t *testing.T) {
	for i := range nxCases {
		c := &nxCases[i]
		t.Run(c.name, func(t *testing.T) {
			ports, frames, pins := c.run(t, nxFrame(t, c.ttl))
			if !slices.Equal(ports, c.ports) {
				t.Errorf("sent on ports %v, want %v", ports, c.ports)
			}
			if !slices.Equal(pins, c.pins) {
				t.Errorf("packet-ins %v, want %v", pins, c.pins)
			}
			if c.outTTL != 0 && len(frames) > 0 && frames[0][14+8] != c.outTTL {
				t.Errorf("TTL %d leaves, want %d", frames[0][14+8], c.outTTL)
			}
		})
	}
}

// portFunc is a Port that calls itself with each frame.
type portFunc func([]byte)

func (f portFunc) Transmit(b []byte) { f(b) }

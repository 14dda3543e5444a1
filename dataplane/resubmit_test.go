package dataplane

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

// TestResubmitLimitAfterOutput: in a loop whose entry outputs and sends
// packet-ins, nothing goes out, as in Open vSwitch, which clears a failed
// translation's datapath actions (nxCases "resubmit loop after output"
// checks the same flows against ofproto/trace): neither the 65 outputs
// to port 2 and packet-ins made before the depth limit was reached (the
// first entry and the 64 resubmits back to table 0), nor what comes
// after, the action set's output to 3. The next frame, which reaches no
// limit, is sent.
func TestResubmitLimitAfterOutput(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, strings.Join([]string{
		"in_port=1,ip,actions=output:2,controller,resubmit(,1),write_actions(output:3)",
		"table=1,ip,actions=resubmit(,0)",
		"in_port=2,ip,actions=output:3,controller",
	}, "\n"))
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}}
	devs := map[uint32]Port{1: ports[1], 2: ports[2], 3: ports[3]}
	pins := 0
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Devices: devs, PacketIn: func(*PacketIn) { pins++ }})
	vec := &Vector{N: 2}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = nxFrame(t, 64), layers.LinkTypeEthernet, 1
	vec.Frames[1], vec.Link[1], vec.InPort[1] = nxFrame(t, 64), layers.LinkTypeEthernet, 2
	sw.Worker(0).Process(vec)
	c := sw.Stats()
	if n := len(ports[2].frames); n != 0 {
		t.Errorf("%d frames out of port 2, want 0", n)
	}
	if n := len(ports[3].frames); n != 1 {
		t.Errorf("%d frames out of port 3, want 1 (the second frame's)", n)
	}
	if pins != 1 || c.PacketIns != 1 {
		t.Errorf("%d packet-ins (%d counted), want 1 (the second frame's)", pins, c.PacketIns)
	}
	if c.Outputs != 1 || c.Drops != 1 {
		t.Errorf("Outputs %d, Drops %d; want 1, 1", c.Outputs, c.Drops)
	}
	if ps := sw.PortStats()[1]; ps.TxPackets != 0 {
		t.Errorf("port 2 counts %d packets out, want 0", ps.TxPackets)
	}
	// 64 resubmits to table 1 and 64 back found their entry.
	if c.XlateErrors != 1 || c.Resubmits != 2*MaxResubmitDepth {
		t.Errorf("XlateErrors %d, Resubmits %d; want 1, %d", c.XlateErrors, c.Resubmits, 2*MaxResubmitDepth)
	}
	// The live counters (ofswitch_xlate_errors_total) carry it too.
	sw.Worker(0).publish()
	if n := sw.LiveStats().XlateErrors; n != 1 {
		t.Errorf("LiveStats().XlateErrors %d, want 1", n)
	}
}

// TestDeferredOutputBytes: outputs deferred because the pipeline holds a
// resubmit carry the frame as it was when each ran, through rewrites
// before and after, inside a resubmit and in group buckets (which work
// on copies), and a PACKET_OUT's too; without resubmits the same
// outputs go out alike, sent at once.
func TestDeferredOutputBytes(t *testing.T) {
	dst := func(f []byte) byte { return f[5] }
	for _, resub := range []bool{true, false} {
		tbl := groups.New(nil)
		setDst := func(b byte) rules.Action {
			return rules.Action{Kind: rules.ActionSetField, Field: rules.FieldEthDst, Value: [2]uint64{0, 0x020000000000 | uint64(b)}}
		}
		addGroup(t, tbl, groups.TypeAll, 1, bucket(setDst(0x11), out(4)), bucket(out(4)))
		second := "table=1,ip,actions=set_field:02:00:00:00:00:08->eth_dst,output:2"
		call := "resubmit(,1)"
		if !resub {
			call = "goto_table:1"
			second = "table=1,ip,actions=output:3,set_field:02:00:00:00:00:08->eth_dst,output:2"
		}
		sw, ports := groupSwitch(t, 2, strings.Join([]string{
			"in_port=1,ip,actions=output:2,set_field:02:00:00:00:00:07->eth_dst,output:3,group:1,output:4," + call,
			second,
		}, "\n"), tbl)
		if w := sw.Worker(0); w.mayResubmit() != resub {
			t.Fatalf("resubmits %v: mayResubmit %v", resub, w.mayResubmit())
		}
		vec := &Vector{N: 1}
		in := nxFrame(t, 64)
		vec.Frames[0], vec.Link[0], vec.InPort[0] = in, layers.LinkTypeEthernet, 1
		sw.Worker(0).Process(vec)
		var got [][]byte
		for _, p := range []uint32{2, 3, 4} {
			for _, f := range ports[p].frames {
				got = append(got, []byte{byte(p), dst(f)})
			}
		}
		want := [][]byte{{2, dst(in)}, {2, 8}, {3, 7}, {4, 0x11}, {4, 7}, {4, 7}}
		if !resub {
			want = [][]byte{{2, dst(in)}, {2, 8}, {3, 7}, {3, 7}, {4, 0x11}, {4, 7}, {4, 7}}
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("resubmits %v: (port, last byte of eth_dst) sent %v, want %v", resub, got, want)
		}
		if resub {
			for _, f := range ports[2].frames[:1] {
				if !slices.Equal(f, in) {
					t.Errorf("first output changed:\n% x\nwant\n% x", f, in)
				}
			}
		}
	}
}

// TestResubmitGroupAndPacketOut: a resubmit in a group bucket and in a
// PACKET_OUT runs as in an entry's actions, and a translation error in a
// bucket ends the whole frame's translation, later buckets included.
func TestResubmitGroupAndPacketOut(t *testing.T) {
	tbl := groups.New(nil)
	resub := func(table uint8) rules.Action {
		return rules.Action{Kind: rules.ActionResubmit, Port: rules.PortInPort, Table: table}
	}
	addGroup(t, tbl, groups.TypeAll, 1, bucket(resub(1)), bucket(out(3)))
	addGroup(t, tbl, groups.TypeAll, 2, bucket(resub(2)), bucket(out(3)))
	sw, ports := groupSwitch(t, 3, strings.Join([]string{
		"in_port=1,actions=group:1",
		"in_port=2,actions=group:2",
		"table=1,actions=output:4",
		"table=2,actions=resubmit(,2)", // loops
	}, "\n"), tbl)
	for _, in := range []uint32{1, 2} {
		vec := &Vector{N: 1}
		vec.Frames[0], vec.Link[0], vec.InPort[0] = nxFrame(t, 64), layers.LinkTypeEthernet, in
		sw.Worker(0).Process(vec)
	}
	got := []int{len(ports[1].frames), len(ports[2].frames), len(ports[3].frames), len(ports[4].frames)}
	if want := []int{0, 0, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("frames out of ports 1-4: %v, want %v", got, want)
	}
	if c := sw.Stats(); c.XlateErrors != 1 {
		t.Errorf("XlateErrors %d, want 1", c.XlateErrors)
	}
	if err := sw.PacketOut(1, []rules.Action{resub(1), out(2)}, nxFrame(t, 64)); err != nil {
		t.Fatal(err)
	}
	if got := []int{len(ports[2].frames), len(ports[4].frames)}; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("PACKET_OUT resubmit(,1),output:2: frames out of ports 2, 4: %v, want [1 2]", got)
	}
	// A PACKET_OUT whose translation fails sends nothing, not even the
	// output before the loop, and is answered with ErrTranslation
	// (Open vSwitch: OFPFMFC_UNKNOWN).
	if err := sw.PacketOut(1, []rules.Action{out(2), resub(2)}, nxFrame(t, 64)); !errors.Is(err, ErrTranslation) {
		t.Fatalf("PACKET_OUT output:2,resubmit(,2) into a loop: %v, want ErrTranslation", err)
	}
	if n := len(ports[2].frames); n != 1 {
		t.Errorf("PACKET_OUT output:2,resubmit(,2) into a loop: %d frames out of port 2, want 1 (the one before)", n)
	}
	if c := sw.Stats(); c.XlateErrors != 2 {
		t.Errorf("XlateErrors %d, want 2", c.XlateErrors)
	}
	// Through output:TABLE: the pipeline's run is part of the
	// translation. in_port 2's group runs into the loop: nothing goes,
	// the output to 2 before included; in_port 1's runs: all goes.
	if err := sw.PacketOut(2, []rules.Action{out(3), out(rules.PortTable), out(1)}, nxFrame(t, 64)); !errors.Is(err, ErrTranslation) {
		t.Fatalf("PACKET_OUT output:3,output:TABLE into a loop: %v, want ErrTranslation", err)
	}
	if got := []int{len(ports[1].frames), len(ports[3].frames)}; !slices.Equal(got, []int{0, 1}) {
		t.Errorf("PACKET_OUT output:3,output:TABLE into a loop,output:1: frames out of ports 1, 3: %v, want [0 1] (as before)", got)
	}
	if err := sw.PacketOut(1, []rules.Action{out(3), out(rules.PortTable), out(2)}, nxFrame(t, 64)); err != nil {
		t.Fatal(err)
	}
	if got := []int{len(ports[2].frames), len(ports[3].frames), len(ports[4].frames)}; !slices.Equal(got, []int{2, 3, 3}) {
		t.Errorf("PACKET_OUT output:3,output:TABLE,output:2: frames out of ports 2, 3, 4: %v, want [2 3 3]", got)
	}
}

// TestResubmitAllocs: a vector through resubmits, a loop that hits the
// limit included, allocates nothing.
func TestResubmitAllocs(t *testing.T) {
	sw, _ := groupSwitch(t, 3, strings.Join([]string{
		"priority=2,in_port=1,ip,actions=resubmit(,2),resubmit(3,1),output:2",
		"priority=1,ip,actions=resubmit(,1)",
		"table=1,in_port=3,actions=set_field:02:00:00:00:00:01->eth_dst,output:in_port",
		"table=1,priority=0,actions=resubmit(,0)",
		"table=2,actions=write_actions(output:3)",
	}, "\n"), nil)
	w := sw.Worker(0)
	for i := range w.devs {
		w.devs[i] = nil
	}
	vec := &Vector{N: 32}
	for i := range 32 {
		vec.Frames[i], vec.Link[i], vec.InPort[i] = nxFrame(t, 64), layers.LinkTypeEthernet, uint32(1+i%2)
	}
	w.Process(vec)
	if n := testing.AllocsPerRun(20, func() { w.Process(vec) }); n != 0 {
		t.Errorf("a vector through resubmits: %v allocs, want 0", n)
	}
	if c := sw.Stats(); c.XlateErrors == 0 || c.Resubmits == 0 {
		t.Errorf("counters %+v: want resubmits and translation errors", c)
	}
}

// FuzzResubmit builds a pipeline of four tables whose entries resubmit to
// each other (and output, exit, dec_ttl, goto) from the input bytes and
// sends a frame through it: nothing panics, a frame counts at most one
// translation error, and no frame makes more resubmits than the limit.
func FuzzResubmit(f *testing.F) {
	f.Add([]byte{0x01, 0x10, 0x20, 0x30})
	f.Add([]byte{0x11, 0x01, 0x11, 0x01})
	f.Add([]byte{0x03, 0x13, 0x23, 0x33, 0x81, 0x92})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 16 {
			b = b[:16]
		}
		var flows []string
		for i, c := range b {
			table := i % 4
			var acts []string
			for k := 0; k < 1+int(c>>6); k++ {
				acts = append(acts, fmt.Sprintf("resubmit(,%d)", (int(c)+k)%5))
			}
			switch c >> 4 & 3 {
			case 1:
				acts = append(acts, "output:2")
			case 2:
				acts = append([]string{"dec_ttl"}, acts...)
			case 3:
				acts = append(acts, "exit")
			}
			if table < 3 && c&8 != 0 {
				acts = append(acts, fmt.Sprintf("goto_table:%d", table+1))
			}
			flows = append(flows, fmt.Sprintf("table=%d,priority=%d,ip,actions=%s", table, i, strings.Join(acts, ",")))
		}
		sw, _ := groupSwitch(t, 4, strings.Join(flows, "\n"), nil)
		vec := &Vector{N: 1}
		vec.Frames[0], vec.Link[0], vec.InPort[0] = nxFrame(t, 2), layers.LinkTypeEthernet, 1
		sw.Worker(0).Process(vec)
		c := sw.Stats()
		if c.Panics != 0 || c.XlateErrors > 1 || c.Resubmits > MaxResubmits {
			t.Fatalf("%v: panics %d, translation errors %d, resubmits %d", flows, c.Panics, c.XlateErrors, c.Resubmits)
		}
	})
}

// TestGroupInResubmitInGroup: a group reached through a resubmit in
// another group's bucket keeps its own copy of the frame: the outer
// group's next bucket and the actions after it see the frame as the
// outer group found it.
func TestGroupInResubmitInGroup(t *testing.T) {
	setDst := func(b byte) rules.Action {
		return rules.Action{Kind: rules.ActionSetField, Field: rules.FieldEthDst, Value: [2]uint64{0, 0x020000000000 | uint64(b)}}
	}
	tbl := groups.New(nil)
	addGroup(t, tbl, groups.TypeAll, 1, bucket(setDst(0x11), rules.Action{Kind: rules.ActionResubmit, Port: rules.PortInPort, Table: 1}), bucket(out(4)))
	addGroup(t, tbl, groups.TypeAll, 2, bucket(setDst(0x22), out(3)))
	sw, ports := groupSwitch(t, 2, strings.Join([]string{
		"in_port=1,ip,actions=set_field:02:00:00:00:00:07->eth_dst,group:1,output:2",
		"table=1,ip,actions=group:2",
	}, "\n"), tbl)
	vec := &Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = nxFrame(t, 64), layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	var got []byte
	for _, p := range []uint32{2, 3, 4} {
		for _, f := range ports[p].frames {
			got = append(got, byte(p), f[5])
		}
	}
	if want := []byte{2, 7, 3, 0x22, 4, 7}; !slices.Equal(got, want) {
		t.Errorf("(port, last byte of eth_dst) sent: % x, want % x", got, want)
	}
}

// TestPacketOutTranslationErrorAsOVS: Open vSwitch 3.1 answers a
// PACKET_OUT whose translation runs into a resubmit loop, in its actions
// or in the pipeline an output:TABLE runs, with OFPFMFC_UNKNOWN, the
// error PacketOut's ErrTranslation is sent as (bridge).
func TestPacketOutTranslationErrorAsOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 3)
	ovsReplaceFlows(t, ovs, "table=0,in_port=1,actions=resubmit(,3)\ntable=3,actions=resubmit(,3)")
	frame := hex.EncodeToString(nxFrame(t, 64))
	for _, c := range []struct{ in, acts string }{
		{"controller", "output:2,resubmit(,3)"},
		{"1", "output:2,output:table"},
	} {
		out, err := ovs.Ofctl("", "packet-out", "in_port="+c.in+" packet="+frame+" actions="+c.acts)
		if err == nil || !strings.Contains(out, "OFPT_ERROR") || !strings.Contains(out, "OFPFMFC_UNKNOWN") {
			t.Errorf("Open vSwitch answers PACKET_OUT in_port=%s actions=%s with %v:\n%s", c.in, c.acts, err, out)
		}
	}
}

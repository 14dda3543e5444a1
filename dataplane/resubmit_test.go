package dataplane

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

// TestResubmitLimitAfterOutput pins down the one way a resubmit differs
// from Open vSwitch (see the package doc): in a loop whose entry outputs,
// the outputs made before the depth limit was reached have gone (65 here:
// the first entry and the 64 resubmits back to table 0), where Open
// vSwitch drops them all with the failed translation. What comes after the
// limit, the action set's output to 3 included, does not run.
func TestResubmitLimitAfterOutput(t *testing.T) {
	sw, ports := groupSwitch(t, 2, strings.Join([]string{
		"in_port=1,ip,actions=output:2,resubmit(,1),write_actions(output:3)",
		"table=1,ip,actions=resubmit(,0)",
	}, "\n"), nil)
	vec := &Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = nxFrame(t, 64), layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	c := sw.Stats()
	if n := len(ports[2].frames); n != MaxResubmitDepth+1 {
		t.Errorf("%d frames out of port 2, want %d", n, MaxResubmitDepth+1)
	}
	if n := len(ports[3].frames); n != 0 {
		t.Errorf("%d frames out of port 3 (the action set), want 0", n)
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

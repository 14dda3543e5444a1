package controller

import (
	"encoding/hex"
	"maps"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/tables"
)

// Frames of TestTableStats: TCP, UDP (10.0.0.1 -> 10.0.0.2) and an ARP
// request, 60 bytes each, as sent to Open vSwitch to check its counts.
const (
	tableTCPFrame = "00000000000200000000000108004500002800000000400666ce0a0000010a00000203e800500000000000000000500203e800000000000000000000"
	tableUDPFrame = "00000000000200000000000108004500001c00000000401166cf0a0000010a00000203e8003500080000000000000000000000000000000000000000"
	tableARPFrame = "000000000002000000000001080600010800060400010000000000010a0000010000000000000a000002000000000000000000000000000000000000"
)

// startDataPlaneAgent serves an agent over a pipeline of n tables with a
// data plane (no devices) behind it, as ofswitch run wires one: PACKET_OUT
// runs through it and OFPMP_TABLE reads its table counters.
func startDataPlaneAgent(t *testing.T, n int) string {
	t.Helper()
	pipe, err := rules.New(&rules.Config{Tables: n})
	if err != nil {
		t.Fatal(err)
	}
	sw := dataplane.NewSwitch(pipe, &dataplane.Config{Ports: []uint32{1, 2}})
	_, addr := startAgent(t, &Config{
		FlowTables: tables.New(pipe, nil),
		PacketOut:  sw.PacketOut,
		TableCounters: func(table uint8) (uint64, uint64) {
			c := sw.TableCount(table)
			return c.Lookups, c.Matched
		},
	})
	return addr
}

// TestTableStats runs frames through a data plane behind the agent with
// PACKET_OUT to TABLE and checks the OFPMP_TABLE reply: the lookups and
// matches the data plane counted (Open vSwitch 3.1 answers the same
// flows and packet-outs with the same figures) and the active entries.
func TestTableStats(t *testing.T) {
	addr := startDataPlaneAgent(t, 4)
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	xid := uint32(0)
	flow := func(cmd openflow.FlowModCommand, table uint8, prio uint16, m []openflow.OXM, ins ...openflow.Instruction) {
		xid++
		c.send(&openflow.FlowMod{Header: hdr(openflow.TypeFlowMod, xid), Command: cmd, TableID: table, Priority: prio,
			BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
			Match: openflow.Match{Fields: m}, Instructions: ins})
	}
	barrier := func() {
		xid++
		c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, xid)})
		c.recv(openflow.TypeBarrierReply)
	}
	stats := func() []openflow.TableStats {
		t.Helper()
		xid++
		c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, xid), Part: openflow.MultipartTable})
		var r openflow.MultipartReply
		if err := r.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
			t.Fatal(err)
		}
		if r.Part != openflow.MultipartTable || r.XID != xid || len(r.Tables) != 4 {
			t.Fatalf("OFPMP_TABLE reply %v xid %d with %d tables", r.Part, r.XID, len(r.Tables))
		}
		return r.Tables
	}
	if got := stats(); got[0] != (openflow.TableStats{}) || got[3] != (openflow.TableStats{TableID: 3}) {
		t.Fatalf("before any flow: %+v", got)
	}

	ip := []openflow.OXM{openflow.EthType(0x0800)}
	tcp := []openflow.OXM{openflow.EthType(0x0800), openflow.IPProto(6)}
	drop := openflow.ApplyActions()
	flow(openflow.FlowAdd, 0, 10, ip, openflow.GotoTable(1))
	flow(openflow.FlowAdd, 0, 0, nil, drop) // table-miss entry
	flow(openflow.FlowAdd, 1, 5, tcp, drop)
	flow(openflow.FlowAdd, 1, 0, nil, openflow.GotoTable(2))
	barrier()
	for _, f := range []string{tableTCPFrame, tableUDPFrame, tableARPFrame} {
		frame, err := hex.DecodeString(f)
		if err != nil {
			t.Fatal(err)
		}
		xid++
		c.send(&openflow.PacketOut{Header: hdr(openflow.TypePacketOut, xid), BufferID: openflow.NoBuffer,
			InPort: openflow.PortController, Actions: []openflow.Action{openflow.Output(openflow.PortTable, 0)}, Data: frame})
	}
	barrier()
	want := []openflow.TableStats{
		{TableID: 0, ActiveCount: 2, LookupCount: 3, MatchedCount: 3},
		{TableID: 1, ActiveCount: 2, LookupCount: 2, MatchedCount: 2},
		{TableID: 2, ActiveCount: 0, LookupCount: 1, MatchedCount: 0},
		{TableID: 3},
	}
	if got := stats(); !slices.Equal(got, want) {
		t.Errorf("OFPMP_TABLE after 3 packet-outs:\n got %+v\nwant %+v", got, want)
	}
	// A deleted entry leaves active_count; the counters stay.
	flow(openflow.FlowDeleteStrict, 1, 0, nil)
	barrier()
	want[1].ActiveCount = 1
	if got := stats(); !slices.Equal(got, want) {
		t.Errorf("OFPMP_TABLE after a delete:\n got %+v\nwant %+v", got, want)
	}
}

// TestTableFeatures checks the TABLE_FEATURES reply against
// ofrules.SupportedFeatures, as a controller decodes it and as ovs-ofctl
// dump-table-features prints it: the match fields with the mask bit on
// those that take an arbitrary mask, every field in the wildcards,
// goto_table and next tables on all tables but the last.
func TestTableFeatures(t *testing.T) {
	_, addr := startAgent(t, &Config{Tables: 3})
	sup := ofrules.SupportedFeatures(&ofrules.Options{Tables: 3})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 1), Part: openflow.MultipartTableFeatures})
	var r openflow.MultipartReply
	if err := r.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
		t.Fatal(err)
	}
	if len(r.TableFeatures) != 3 {
		t.Fatalf("%d tables described, want 3", len(r.TableFeatures))
	}
	for id, tf := range r.TableFeatures {
		props := map[openflow.TableFeaturePropType]openflow.TableFeatureProp{}
		for _, p := range tf.Properties {
			props[p.Type] = p
		}
		var ins []openflow.InstructionType
		for _, x := range props[openflow.TFPInstructions].IDs {
			ins = append(ins, openflow.InstructionType(x.Type))
		}
		if hasGoto := slices.Contains(ins, openflow.InstructionGotoTable); hasGoto != (id < 2) {
			t.Errorf("table %d: instructions %v", id, ins)
		}
		if next := props[openflow.TFPNextTables].TableIDs; len(next) != 2-id {
			t.Errorf("table %d: next tables %v", id, next)
		}
		var acts []openflow.ActionType
		for _, x := range props[openflow.TFPApplyActions].IDs {
			acts = append(acts, openflow.ActionType(x.Type))
		}
		if !slices.Equal(acts, sup.Actions) {
			t.Errorf("table %d: apply actions %v, want %v", id, acts, sup.Actions)
		}
		match, wild := props[openflow.TFPMatch].OXMIDs, props[openflow.TFPWildcards].OXMIDs
		if len(match) != len(sup.Match)+1 || len(wild) != len(match) {
			t.Fatalf("table %d: %d match and %d wildcard fields, want %d", id, len(match), len(wild), len(sup.Match)+1)
		}
		for i, f := range sup.Match {
			h, w := uint32(match[i]>>32), uint32(wild[i]>>32)
			masked := slices.Contains(sup.Maskable, f)
			size := uint32(f.Size())
			if masked {
				size *= 2
			}
			if openflow.OXMField(h>>9&0x7f) != f || h>>8&1 == 1 != masked || h&0xff != size || w != h&^0x1ff|uint32(f.Size()) {
				t.Errorf("table %d: match id %#x, wildcard id %#x for %v (maskable %v)", id, h, w, f, masked)
			}
		}
		if len(props[openflow.TFPApplySetField].OXMIDs) != len(sup.SetFields) {
			t.Errorf("table %d: %d set_field fields, want %d", id, len(props[openflow.TFPApplySetField].OXMIDs), len(sup.SetFields))
		}
	}

	ofctl := ovstest.Tool(t, "ovs-ofctl")
	_, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command(ofctl, "-O", "OpenFlow13", "dump-table-features", "tcp:127.0.0.1:"+port).CombinedOutput()
	if err != nil {
		t.Fatalf("ovs-ofctl dump-table-features: %v\n%s", err, out)
	}
	for _, want := range []string{
		`table 0 ("table0"):`, "next tables: 1-2", "instructions: meter apply_actions clear_actions write_actions write_metadata goto_table\n",
		"instructions: meter apply_actions clear_actions write_actions write_metadata\n",
		"actions: output", "push_vlan", "supported on Set-Field: ",
		"arbitrary mask: tun_id metadata eth_{src,dst} vlan_vid ip_{src,dst} ipv6_{src,dst,label} arp_{spa,tpa,sha,tha} tcp_{src,dst,flags}",
		"exact match or wildcard: in_port_oxm eth_type vlan_pcp mpls_{label,tc,bos} nw_proto ip_dscp nw_ecn arp_op",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("ovs-ofctl dump-table-features lacks %q:\n%s", want, out)
		}
	}
}

// TestTableStatsAgainstOVS sends the same flows and packet-outs (to
// TABLE) to Open vSwitch 3.1 and to an agent with a data plane, with
// ovs-ofctl, and requires the same growth of every table's lookup and
// matched counts in dump-tables, and the same active counts.
func TestTableStatsAgainstOVS(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	addr := startDataPlaneAgent(t, 8)
	ours := "tcp:" + addr
	run := func(target, cmd string, args ...string) string {
		t.Helper()
		var out []byte
		var err error
		if target == "" {
			var s string
			s, err = ovs.Ofctl("", cmd, args...)
			out = []byte(s)
		} else {
			out, err = exec.Command(ofctl, append([]string{"-O", "OpenFlow13", cmd, target}, args...)...).CombinedOutput()
		}
		if err != nil {
			t.Fatalf("ovs-ofctl %s %s: %v\n%s", cmd, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	const (
		icmpFrame = "00000000000200000000000108004500001c00000000400166df0a0000010a0000020800f7fd00010001000000000000000000000000000000000000"
		ip6Frame  = "00000000000200000000000186dd600000000008114020010db800000000000000000000000120010db800000000000000000000000203e800350008a04c"
	)
	frames := []string{tableTCPFrame, tableUDPFrame, tableARPFrame, icmpFrame, ip6Frame, tableTCPFrame}
	for _, sc := range []struct {
		name  string
		flows []string
	}{{
		name: "no table-miss entries",
		flows: []string{
			"table=0,priority=10,ip,actions=goto_table:1",
			"table=0,priority=5,arp,actions=drop",
			"table=1,priority=5,tcp,actions=write_metadata:0x1/0x1,goto_table:2",
			"table=1,priority=4,icmp,actions=goto_table:3",
			"table=2,priority=1,metadata=0x1/0x1,actions=drop",
		},
	}, {
		name: "table-miss entries",
		flows: []string{
			"table=0,priority=10,ip,actions=goto_table:1",
			"table=0,priority=0,actions=goto_table:2",
			"table=1,priority=5,udp,actions=drop",
			"table=1,priority=0,actions=goto_table:2",
			"table=2,priority=3,tcp,actions=drop",
			"table=2,priority=0,actions=goto_table:7",
			"table=7,priority=0,actions=drop",
		},
	}} {
		t.Run(sc.name, func(t *testing.T) {
			before := map[string]map[int]ovstest.TableLine{}
			for _, target := range []string{"", ours} {
				run(target, "del-flows")
				for _, f := range sc.flows {
					run(target, "add-flow", f)
				}
				before[target] = ovstest.Tables(run(target, "dump-tables"))
				for _, f := range frames {
					run(target, "packet-out", "in_port=controller packet="+f+" actions=table")
				}
			}
			delta := func(target string) (map[int]ovstest.TableLine, string) {
				out := run(target, "dump-tables")
				now := ovstest.Tables(out)
				d := map[int]ovstest.TableLine{}
				for id := range 8 {
					b, a := before[target][id], now[id]
					d[id] = ovstest.TableLine{Active: a.Active, Lookup: a.Lookup - b.Lookup, Matched: a.Matched - b.Matched}
				}
				return d, out
			}
			// Open vSwitch may credit its table counters a little
			// later: wait for them.
			var got, want map[int]ovstest.TableLine
			var gotOut, wantOut string
			deadline := time.Now().Add(5 * time.Second)
			for {
				got, gotOut = delta(ours)
				want, wantOut = delta("")
				if maps.Equal(got, want) || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if !maps.Equal(got, want) {
				t.Errorf("table counts after %d packet-outs: ofswitch %+v, Open vSwitch %+v\nofswitch:\n%s\nOpen vSwitch:\n%s", len(frames), got, want, gotOut, wantOut)
			}
			if got[0].Lookup != uint64(len(frames)) {
				t.Errorf("table 0: %d lookups, want %d", got[0].Lookup, len(frames))
			}
		})
	}
}

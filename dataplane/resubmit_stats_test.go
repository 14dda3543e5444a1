package dataplane

import (
	"encoding/hex"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

// resubmitStatsCases: flows (one entry a table) through which a TCP, a
// UDP and an ARP frame (tableFrames) go from table 0, each table's
// lookups and matches after the three, and each table's entry's packets,
// as Open vSwitch 3.1 counts them (TestResubmitTableCountsAgainstOVS): a
// resubmit's lookup counts in its table, a match or not, and its hit in
// the entry; a goto_table stopped at the resubmit limit looks nothing up.
var resubmitStatsCases = []struct {
	name   string
	flows  []string
	tables []TableCount
	pkts   []uint64
	// xerr: the IP frames' translations fail. Open vSwitch credits
	// tables and flows during the translation of a received packet
	// (upcall_xlate sets resubmit_stats for a miss upcall), so what came
	// before the failure counts, as here; but a packet-out whose
	// translation fails is answered OFPFMFC_UNKNOWN and credits nothing,
	// so TestResubmitTableCountsAgainstOVS, which sends packet-outs,
	// leaves these cases out.
	xerr bool
}{{
	name: "resubmits and goto",
	flows: []string{
		"table=0,priority=10,ip,actions=resubmit(,1),resubmit(,2),goto_table:1",
		"table=1,priority=5,tcp,actions=resubmit(,2)",
		"table=2,priority=5,udp,actions=drop",
	},
	// TCP: table 1 twice (matched), table 2 three times (missed); UDP:
	// table 1 twice (missed), table 2 once (matched); ARP: table 0 only.
	tables: []TableCount{{Lookups: 3, Matched: 2}, {Lookups: 4, Matched: 2}, {Lookups: 4, Matched: 1}, {}},
	pkts:   []uint64{2, 2, 1},
}, {
	name: "goto_table after 4096 resubmits",
	flows: []string{
		"table=0,ip,actions=" + resubmits(16, "1") + ",goto_table:3",
		"table=1,actions=" + resubmits(255, "2"),
		"table=2,actions=note:00",
		"table=3,actions=output:2",
	},
	tables: []TableCount{{Lookups: 3, Matched: 2}, {Lookups: 32, Matched: 32}, {Lookups: 2 * 16 * 255, Matched: 2 * 16 * 255}, {}},
	pkts:   []uint64{2, 32, 2 * 16 * 255, 0},
	xerr:   true,
}}

// TestResubmitTableCounts sends resubmitStatsCases' frames as a vector
// and as PACKET_OUTs to TABLE: each table's counts and each entry's
// packets are twice the cases' (a PACKET_OUT whose translation fails is
// answered ErrTranslation and credits what it looked up, where Open
// vSwitch credits nothing).
func TestResubmitTableCounts(t *testing.T) {
	tcpF, udpF, arpF := tableFrames(t)
	for _, c := range resubmitStatsCases {
		t.Run(c.name, func(t *testing.T) {
			pipe := testPipeline(t, 4, rules.FilterBloomCuckoo, strings.Join(c.flows, "\n"))
			sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2}})
			sendVector(sw.Worker(0), new(Vector), tcpF, udpF, arpF)
			if st := sw.Stats(); c.xerr != (st.XlateErrors == 2) {
				t.Errorf("%d translation errors, want 2: %v", st.XlateErrors, c.xerr)
			}
			for i, f := range [][]byte{tcpF, udpF, arpF} {
				// The IP frames' translations fail: ErrTranslation.
				err := sw.PacketOut(1, []rules.Action{{Kind: rules.ActionOutput, Port: rules.PortTable}}, f)
				if want := c.xerr && i < 2; (err != nil) != want || err != nil && !errors.Is(err, ErrTranslation) {
					t.Fatalf("PACKET_OUT of frame %d: %v, want ErrTranslation: %v", i, err, want)
				}
			}
			var want []TableCount
			for _, tc := range c.tables {
				want = append(want, TableCount{Lookups: 2 * tc.Lookups, Matched: 2 * tc.Matched})
			}
			if got := sw.TableCounts(); !slices.Equal(got, want) {
				t.Errorf("TableCounts = %v, want %v", got, want)
			}
			for tb, n := range c.pkts {
				rs := pipe.Rules(uint8(tb))
				if len(rs) != 1 || rs[0].Packets() != 2*n {
					t.Errorf("table %d: %d entries, want 1 with %d packets", tb, len(rs), 2*n)
					for _, r := range rs {
						t.Logf("%d packets", r.Packets())
					}
				}
			}
		})
	}
}

// flowPackets finds each flow's table and n_packets in ovs-ofctl
// dump-flows output.
var flowPackets = regexp.MustCompile(`(?:table=(\d+), )?n_packets=(\d+)`)

// TestResubmitTableCountsAgainstOVS puts resubmitStatsCases' flows into
// Open vSwitch 3.1, sends the frames through them (packet-out ...
// actions=table, which credits tables and flows as received packets
// do) and reads ovs-ofctl dump-tables and dump-flows: the differences
// must be the cases' counts. The cases whose translation fails are left
// out (see xerr).
func TestResubmitTableCountsAgainstOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 2)
	tcpF, udpF, arpF := tableFrames(t)
	tables := func() map[int]ovstest.TableLine {
		out, err := ovs.Ofctl("", "dump-tables")
		if err != nil {
			t.Fatal(err)
		}
		return ovstest.Tables(out)
	}
	for _, c := range resubmitStatsCases {
		if c.xerr {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			ovsReplaceFlows(t, ovs, strings.Join(c.flows, "\n"))
			before := tables()
			for _, f := range [][]byte{tcpF, udpF, arpF} {
				if out, err := ovs.Ofctl("", "packet-out", "in_port=1 packet="+hex.EncodeToString(f)+" actions=table"); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
			}
			after := tables()
			for tb, w := range c.tables {
				got := TableCount{Lookups: after[tb].Lookup - before[tb].Lookup, Matched: after[tb].Matched - before[tb].Matched}
				if got != w {
					t.Errorf("Open vSwitch table %d: %+v, want %+v", tb, got, w)
				}
			}
			out, err := ovs.Ofctl("", "dump-flows")
			if err != nil {
				t.Fatal(err)
			}
			pkts := make([]uint64, len(c.pkts))
			for _, m := range flowPackets.FindAllStringSubmatch(out, -1) {
				tb, _ := strconv.Atoi(m[1])
				n, _ := strconv.ParseUint(m[2], 10, 64)
				if tb < len(pkts) {
					pkts[tb] += n
				}
			}
			if !slices.Equal(pkts, c.pkts) {
				t.Errorf("Open vSwitch flows' packets by table %v, want %v\n%s", pkts, c.pkts, out)
			}
		})
	}
}

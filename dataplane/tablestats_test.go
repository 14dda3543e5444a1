package dataplane

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// tableFrames returns a TCP, a UDP and an ARP frame.
func tableFrames(t testing.TB) (tcpF, udpF, arpF []byte) {
	arp := &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
		Operation: 1, SourceHwAddress: macA, SourceProtAddress: ip4A.To4(), DstHwAddress: make([]byte, 6), DstProtAddress: ip4B.To4()}
	return build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp()),
		build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), udp()),
		build(t, eth(layers.EthernetTypeARP), arp)
}

// sendVector processes frames, received on port 1, as one vector in v.
func sendVector(w *Worker, v *Vector, frames ...[]byte) {
	for i, f := range frames {
		v.Frames[i], v.Link[i], v.InPort[i] = f, layers.LinkTypeEthernet, 1
	}
	v.N = len(frames)
	w.Process(v)
}

// TestTableCounts sends frames through a two-table pipeline, with and
// without table-miss entries, and checks each table's lookups and
// matches: the figures Open vSwitch 3.1 reports for the same flows and
// packets (ovs-ofctl dump-tables after packet-out ... actions=table): a
// table-miss entry is a match, a frame that finds no entry is a lookup
// only.
func TestTableCounts(t *testing.T) {
	tcpF, udpF, arpF := tableFrames(t)
	for _, tt := range []struct {
		name  string
		flows []string
		want  []TableCount // after one TCP, one UDP and one ARP frame
	}{{
		name: "no table-miss entries",
		flows: []string{
			"table=0,priority=10,ip,actions=goto_table:1",
			"table=1,priority=5,tcp,actions=drop",
		},
		want: []TableCount{{Lookups: 3, Matched: 2}, {Lookups: 2, Matched: 1}, {}},
	}, {
		name: "table-miss entries",
		flows: []string{
			"table=0,priority=10,ip,actions=goto_table:1",
			"table=0,priority=0,actions=drop",
			"table=1,priority=5,tcp,actions=drop",
			"table=1,priority=0,actions=goto_table:2",
		},
		want: []TableCount{{Lookups: 3, Matched: 3}, {Lookups: 2, Matched: 2}, {Lookups: 1}},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			pipe := testPipeline(t, 3, rules.FilterBloomCuckoo, strings.Join(tt.flows, "\n"))
			sw := NewSwitch(pipe, &Config{Workers: 2, Ports: []uint32{1, 2}})
			if got := sw.TableCounts(); !slices.Equal(got, make([]TableCount, 3)) {
				t.Fatalf("before traffic: %v, want zeros", got)
			}
			// One vector on worker 0, then the same frames one at a
			// time on worker 1 and once more through PACKET_OUT to
			// TABLE: three times the counts of one pass.
			sendVector(sw.Worker(0), new(Vector), tcpF, udpF, arpF)
			for _, f := range [][]byte{tcpF, udpF, arpF} {
				sendVector(sw.Worker(1), new(Vector), f)
				if err := sw.PacketOut(1, []rules.Action{{Kind: rules.ActionOutput, Port: rules.PortTable}}, f); err != nil {
					t.Fatal(err)
				}
			}
			want := make([]TableCount, len(tt.want))
			for i, c := range tt.want {
				want[i] = TableCount{Lookups: 3 * c.Lookups, Matched: 3 * c.Matched}
			}
			if got := sw.TableCounts(); !slices.Equal(got, want) {
				t.Errorf("TableCounts = %v, want %v", got, want)
			}
			if got := sw.TableCount(3); got != (TableCount{}) {
				t.Errorf("TableCount(3) of a 3-table pipeline = %v, want zero", got)
			}
			st := sw.Stats()
			var lookups, matched uint64
			for _, c := range want {
				lookups += c.Lookups
				matched += c.Matched
			}
			if st.Hits != matched || st.Hits+st.Misses != lookups {
				t.Errorf("Stats: hits %d misses %d; table counts: %d matched of %d lookups", st.Hits, st.Misses, matched, lookups)
			}
		})
	}
}

// TestTableCountsOracle replays the committed captures against the demo
// rule set (two tables) on two workers and requires each table's matches
// to equal the oracle's hits in it, and its lookups its hits and misses.
func TestTableCountsOracle(t *testing.T) {
	ups, errs := ofctl.ParseFlows("demo.flows", demoFlows(t), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, c := range []*Capture{mustLoad(t, "mix.pcap"), mustLoad(t, "vlan-2if.pcapng"), mustLoad(t, "malformed.pcap"), demoCapture(t)} {
		hits, misses := oracleHits(t, c, 2, ups)
		var matched [2]uint64
		for k, n := range hits {
			matched[k[0]] += n
		}
		pipe, err := rules.New(&rules.Config{Tables: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res := pipe.ApplyBurst(ups, true); slices.ContainsFunc(res.Errs, func(e error) bool { return e != nil }) {
			t.Fatal(res.Errs)
		}
		sw := NewSwitch(pipe, &Config{Workers: 2, Ports: []uint32{1, 2}})
		if err := sw.Replay(t.Context(), []*Capture{c}, nil); err != nil {
			t.Fatal(err)
		}
		// Table 0 looks up every parsed frame; the frames it did not
		// match are its misses, the rest of the oracle's are table 1's.
		parsed := sw.Stats().Packets
		miss0 := parsed - matched[0]
		want := []TableCount{{Lookups: parsed, Matched: matched[0]}, {Lookups: matched[1] + misses - miss0, Matched: matched[1]}}
		if got := sw.TableCounts(); !slices.Equal(got, want) {
			t.Errorf("%s: TableCounts = %v, oracle %v", c.Name, got, want)
		}
		if want[1].Lookups == 0 {
			t.Errorf("%s: no lookup in table 1: the rule set does not exercise it", c.Name)
		}
	}
}

// TestTableCountsConcurrent runs workers on their goroutines while a
// reader sums their table counters (go test -race checks the sharing),
// and checks that a reader never sees more matches than lookups and that
// the final sums are exact.
func TestTableCountsConcurrent(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, strings.Join([]string{
		"table=0,priority=10,ip,actions=goto_table:1",
		"table=1,priority=5,tcp,actions=drop",
	}, "\n"))
	const workers, rounds = 3, 200
	sw := NewSwitch(pipe, &Config{Workers: workers, Ports: []uint32{1, 2}})
	tcpF, udpF, arpF := tableFrames(t)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			w, v := sw.Worker(i), new(Vector)
			for range rounds {
				sendVector(w, v, tcpF, udpF, arpF, tcpF)
			}
			w.Quiesce()
		})
	}
	done := make(chan struct{})
	var rd sync.WaitGroup
	rd.Go(func() {
		for {
			for tb, c := range sw.TableCounts() {
				if c.Matched > c.Lookups {
					t.Errorf("table %d: %d matched of %d lookups", tb, c.Matched, c.Lookups)
					return
				}
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Wait()
	close(done)
	rd.Wait()
	n := uint64(workers * rounds)
	want := []TableCount{{Lookups: 4 * n, Matched: 3 * n}, {Lookups: 3 * n, Matched: 2 * n}}
	if got := sw.TableCounts(); !slices.Equal(got, want) {
		t.Errorf("TableCounts = %v, want %v", got, want)
	}
}

// TestTableCountsNoAllocs checks that counting adds no allocation to
// Process.
func TestTableCountsNoAllocs(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, "table=0,priority=10,ip,actions=goto_table:1\ntable=1,priority=5,tcp,actions=drop")
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2}})
	tcpF, udpF, arpF := tableFrames(t)
	w, v := sw.Worker(0), new(Vector)
	if n := testing.AllocsPerRun(100, func() { sendVector(w, v, tcpF, udpF, arpF) }); n != 0 {
		t.Errorf("Process: %v allocs per vector, want 0", n)
	}
	if got := sw.TableCount(1); got.Lookups != 202 || got.Matched != 101 {
		t.Errorf("TableCount(1) = %+v after 101 vectors", got)
	}
}

package classbench_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

// oracleSets are every shared ClassBench set (all families and both
// generators) and the hand-written ones in testdata.
var oracleSets = []string{
	"testdata/ports_any_proto",
	"testdata/flags_widths",
	"lyxocs-ruleSet/acl1_1k",
	"lyxocs-ruleSet/fw1_1k",
	"lyxocs-ruleSet/ipc1_1k",
	"lyxocs-ruleSet/acl1_10k",
	"lyxocs-ruleSet/fw1_10k",
	"lyxocs-ruleSet/ipc1_10k",
	"vpp-acl-partitionsort/acl1_seed_1_8k.rules",
	"vpp-acl-partitionsort/fw1_seed_1_1k.rules",
}

func readSet(t *testing.T, name string) []byte {
	t.Helper()
	p := filepath.FromSlash(name)
	if filepath.Dir(p) != "testdata" {
		p = testutil.SharedData(t, "classbench", p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cornerHeader draws a header from the corners of r: each address at its
// prefix's first or last address, one beyond either, or anywhere inside;
// each port at a range end, one beyond either, or inside; the protocol r's,
// one bit off, one of those with and without ports in OpenFlow, or any.
func cornerHeader(rng *rand.Rand, r *classbench.Rule) classbench.Header {
	addr := func(a uint32, l int) uint32 {
		size := uint32(1)<<(32-l) - 1 // the host bits: all ones when l == 0
		lo, hi := a, a|size
		switch rng.IntN(5) {
		case 0:
			return lo
		case 1:
			return hi
		case 2:
			return lo - 1
		case 3:
			return hi + 1
		}
		return lo | rng.Uint32()&size
	}
	port := func(lo, hi uint16) uint16 {
		switch rng.IntN(5) {
		case 0:
			return lo
		case 1:
			return hi
		case 2:
			return lo - 1
		case 3:
			return hi + 1
		}
		return lo + uint16(rng.IntN(int(hi-lo)+1))
	}
	protos := []uint8{r.Proto, r.Proto, r.Proto ^ 1, 1, 6, 17, 47, 132, uint8(rng.IntN(256))}
	return classbench.Header{
		Src: addr(r.Src, r.SrcLen), Dst: addr(r.Dst, r.DstLen),
		Sport: port(r.SportLo, r.SportHi), Dport: port(r.DportLo, r.DportHi),
		Proto: protos[rng.IntN(len(protos))], Label: r.Index,
	}
}

// TestOracleCorners: on every set, headers drawn from rule corners classify
// as the linear scans say: the five-field entries (TupleUpdates, with
// NoPrereqs) as First, the OpenFlow flows (Updates, in a pipeline that
// checks prerequisites) as FirstPacket. Per set, 4 headers per rule but
// at least 2000 and at most 20000 (4000, and no set above 2000 rules,
// under -short or -race), for at most 20 s.
func TestOracleCorners(t *testing.T) {
	perSet := 20000
	if testing.Short() || raceEnabled {
		perSet = 4000
	}
	for _, name := range oracleSets {
		t.Run(filepath.Base(name), func(t *testing.T) {
			rs, err := classbench.Parse(name, readSet(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if (testing.Short() || raceEnabled) && len(rs) > 2000 {
				t.Skip("sets above 2000 rules run without -short and -race")
			}
			checkCorners(t, rs, perSet)
		})
	}
}

// TestOracleMutated is TestOracleCorners on fw1_1k and acl1_1k with the
// protocols rewritten so that ports fall under ICMP, GRE, every protocol
// and partial masks on many rules, as other generators' sets may have
// them: rule i gets ICMP if i%4 == 0, any protocol if i%4 == 1, GRE if
// i%8 == 2 and 0x06/0xFE if i%8 == 6.
func TestOracleMutated(t *testing.T) {
	for _, name := range []string{"lyxocs-ruleSet/fw1_1k", "lyxocs-ruleSet/acl1_1k"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			rs, err := classbench.Parse(name, readSet(t, name))
			if err != nil {
				t.Fatal(err)
			}
			noted := 0
			for i := range rs {
				r := &rs[i]
				switch {
				case i%4 == 0:
					r.Proto, r.ProtoMask = 1, 0xff
				case i%4 == 1:
					r.Proto, r.ProtoMask = 0, 0
				case i%8 == 2:
					r.Proto, r.ProtoMask = 47, 0xff
				case i%8 == 6:
					r.Proto, r.ProtoMask = 6, 0xfe
				}
				if _, n := r.Flows(); n != "" {
					noted++
				}
			}
			if noted < len(rs)/4 {
				t.Fatalf("only %d of %d rules noted", noted, len(rs))
			}
			checkCorners(t, rs, 4000)
		})
	}
}

// checkCorners classifies headers drawn from rs's corners, 4 per rule but
// at least 2000 and at most n, for at most 20 s.
func checkCorners(t *testing.T, rs []classbench.Rule, n int) {
	t.Helper()
	// Each form twice: port ranges in the entries, and expanded into
	// prefixes.
	var tuple, flows [2]*rules.Table
	for i, ports := range []classbench.Ports{classbench.PortRanges, classbench.PortPrefixes} {
		tuple[i] = load(t, rs, true, ports)
		flows[i] = load(t, rs, false, ports)
	}
	rng := rand.New(rand.NewPCG(uint64(len(rs)), 24))
	n = min(n, max(4*len(rs), 2000))
	deadline := time.Now().Add(20 * time.Second)
	var differ, checked int
	for i := 0; i < n && time.Now().Before(deadline); i++ {
		h := cornerHeader(rng, &rs[rng.IntN(len(rs))])
		k := h.Key()
		want, wantPkt := classbench.First(rs, &h), classbench.FirstPacket(rs, &h)
		for j := range tuple {
			if got := answer(tuple[j], &k); got != want {
				t.Fatalf("%+v: five-field entries (%v) answer %d, First %d", h, classbench.Ports(j), got, want)
			}
			if got := answer(flows[j], &k); got != wantPkt {
				t.Fatalf("%+v: OpenFlow flows (%v) answer %d, FirstPacket %d", h, classbench.Ports(j), got, wantPkt)
			}
		}
		if want != wantPkt {
			differ++
		}
		checked++
	}
	if checked < min(n, 1000) {
		t.Fatalf("only %d headers checked in time", checked)
	}
	t.Logf("%d rules, %d headers, %d where OpenFlow's answer differs from ClassBench's", len(rs), checked, differ)
	if len(classbench.Notes(rs)) > 0 && differ == 0 {
		t.Error("no header where ports under ICMP or any protocol make a difference")
	}
}

// load puts rs in a pipeline: over the five fields (TupleUpdatesWith, with
// NoPrereqs) or as OpenFlow flows (UpdatesWith, prerequisites checked),
// with the ports as ports says.
func load(t *testing.T, rs []classbench.Rule, tuple bool, ports classbench.Ports) *rules.Table {
	t.Helper()
	p, err := rules.New(&rules.Config{NoPrereqs: tuple, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ups, _ := classbench.UpdatesWith(rs, 0, nil, ports)
	if tuple {
		ups, _ = classbench.TupleUpdatesWith(rs, 0, nil, ports)
	}
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatalf("tuple %v, %v, rule %d: %v", tuple, ports, ups[i].ID, err)
		}
	}
	return p.Table(0)
}

func answer(tbl *rules.Table, k *rules.Key) int {
	if r := tbl.Lookup(k); r != nil {
		return r.ID
	}
	return -1
}

// TestPortsAnyProto: the hand-written sets pass Check with their traces
// (answers over the five fields, labels), and their OpenFlow flows say
// what they do with the rules OpenFlow cannot express.
func TestPortsAnyProto(t *testing.T) {
	for _, c := range []struct {
		name    string
		ex      classbench.Expansion // Updates'
		entries int                  // TupleUpdates', ports as ranges
		differ  int                  // headers the flows answer otherwise
		notes   []string
	}{
		{"ports_any_proto", classbench.Expansion{Rules: 8, Entries: 55, MaxPer: 27, Noted: 5}, 9, 5, []string{
			"rule 0 (line 1): protocol 1 (icmp): no ports in OpenFlow, so none of its packets meets source port 21 : 21: no flow for it; the rule matches no packet",
			"rule 1 (line 2): any protocol with destination port 1000 : 2000: one copy per tcp, udp and sctp; packets of other protocols have no ports in OpenFlow and match none",
			"rule 2 (line 3): protocol 47 (gre): no ports in OpenFlow, so none of its packets meets source port 1024 : 65535 and destination port 53 : 53: no flow for it; the rule matches no packet",
			"rule 3 (line 4): protocol 0x06/0xFE: ip_proto takes no mask in OpenFlow, so one copy per protocol 6 (tcp), 7; protocol 7: no ports in OpenFlow, so none of its packets meets destination port 0 : 1023: no flow for it",
			"rule 5 (line 6): any protocol with source port 5000 : 5999: one copy per tcp, udp and sctp; packets of other protocols have no ports in OpenFlow and match none",
		}},
		{"flags_widths", classbench.Expansion{Rules: 4, Entries: 3, MaxPer: 1, Noted: 1}, 4, 1, []string{
			"rule 1 (line 2): protocol 1 (icmp): no ports in OpenFlow, so none of its packets meets source port 0 : 1023: no flow for it; the rule matches no packet",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := classbench.Parse(c.name, readSet(t, "testdata/"+c.name))
			if err != nil {
				t.Fatal(err)
			}
			trace, err := classbench.ParseTrace(c.name+"_trace", readSet(t, "testdata/"+c.name+"_trace"))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := classbench.Check(rs, trace, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Mismatches) != 0 || rep.Checked != len(trace) || rep.Expansion.Entries != c.entries || rep.FlowsDiffer != c.differ {
				t.Errorf("Check: %d of %d fail (%+v), %d entries, flows differ on %d", len(rep.Mismatches), rep.Checked, rep.Mismatches, rep.Expansion.Entries, rep.FlowsDiffer)
			}
			var got []string
			for _, n := range rep.Notes {
				got = append(got, n.String())
			}
			if d := cmp.Diff(c.notes, got); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
			if _, ex := classbench.Updates(rs, 0, nil); ex != c.ex {
				t.Errorf("Updates: %+v, want %+v", ex, c.ex)
			}
		})
	}
	// ICMP from 10/8 with source port 21: rule 0 over the five fields,
	// the catch-all for OpenFlow, which has no ICMP ports.
	rs, _ := classbench.Parse("p", readSet(t, "testdata/ports_any_proto"))
	h := classbench.Header{Src: 10 << 24, Dst: 1, Sport: 21, Proto: 1}
	if a, b := classbench.First(rs, &h), classbench.FirstPacket(rs, &h); a != 0 || b != 7 {
		t.Errorf("ICMP with port 21: First %d, FirstPacket %d; want 0, 7", a, b)
	}
}

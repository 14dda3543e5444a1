package dataplane

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/ofswitch/ofswitch/internal/pcapgen"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

var pcapgenStart = pcapgen.Start

var outPort2 = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}

// randomFlow returns a random IPv4 TCP 5-tuple outside the captures'
// 10.0.0.0/8 space (the flows the replay laboratory's synthetic controller
// adds, drawn in the same order).
func randomFlow(rng *rand.Rand) rules.Match {
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	m.SetExact(rules.FieldIPv4Src, 0xac100000|uint64(rng.Uint32()&0xfffff))
	m.SetExact(rules.FieldIPv4Dst, 0xc0a80000|uint64(rng.Uint32()&0xffff))
	m.SetExact(rules.FieldL4Src, uint64(1024+rng.IntN(60000)))
	m.SetExact(rules.FieldL4Dst, uint64(1+rng.IntN(1023)))
	return m
}

// exactTable returns a pipeline of n exact 5-tuple rules (every IPv4 and
// IPv6 TCP/UDP flow of c first, then random flows) and 10 wildcard rules.
func exactTable(b *testing.B, kind rules.FilterKind, c *Capture, n int) *rules.Pipeline {
	b.Helper()
	p, err := rules.New(&rules.Config{Filter: kind})
	if err != nil {
		b.Fatal(err)
	}
	var ups []rules.Update
	seen := map[rules.Match]bool{}
	ps := NewParser()
	var k rules.Key
	for i := 0; i < c.Len() && len(ups) < n; i++ {
		if h, ok := ps.Parse(c.Frame(i), c.Link(i), uint32(c.Iface[i])+1); ok {
			h.Key(&k)
			if m, ok := FlowMatch(&k); ok && !seen[m] {
				seen[m] = true
				ups = append(ups, rules.Update{Match: m, Priority: 100, Instructions: outPort2})
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for len(ups) < n {
		ups = append(ups, rules.Update{Match: randomFlow(rng), Priority: 100, Instructions: outPort2})
	}
	wild, errs := ofctl.ParseFlows("wild", []byte(`priority=50,ip,nw_dst=10.0.0.0/16,actions=output:1
priority=50,ip,nw_dst=10.1.0.0/16,actions=output:1
priority=40,ip,nw_src=10.2.0.0/16,actions=output:1
priority=30,tcp,tp_dst=80,actions=output:1
priority=30,tcp,tp_dst=443,actions=output:1
priority=20,udp,actions=output:1
priority=20,ipv6,actions=output:1
priority=10,arp,actions=flood
priority=5,ip,actions=output:1
priority=0,actions=drop`), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ups = append(ups, wild...)
	if err := p.Reserve(0, len(ups), 0.8); err != nil {
		b.Fatal(err)
	}
	for _, e := range p.ApplyBurst(ups, true).Errs {
		if e != nil {
			b.Fatal(e)
		}
	}
	return p
}

// classBenchTraffic loads a ClassBench filter set into a pipeline and
// builds a capture of IPv4 frames whose headers each fall inside one
// randomly chosen rule (the way ClassBench traces are made).
func classBenchTraffic(b *testing.B, kind rules.FilterKind, file string, frames int) (*rules.Pipeline, *Capture) {
	b.Helper()
	data, err := os.ReadFile(testutil.SharedData(b, "classbench", file))
	if err != nil {
		b.Fatal(err)
	}
	rs, err := classbench.Parse(file, data)
	if err != nil {
		b.Fatal(err)
	}
	ups, _ := classbench.Updates(rs, 0, outPort2)
	p, err := rules.New(&rules.Config{Filter: kind})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Reserve(0, len(ups), 0.8); err != nil {
		b.Fatal(err)
	}
	for _, e := range p.ApplyBurst(ups, true).Errs {
		if e != nil {
			b.Fatal(e)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(v uint32, l int) net.IP {
		x := v
		if l < 32 {
			x = v&^(1<<(32-l)-1) | rng.Uint32()&(1<<(32-l)-1)
		}
		return net.IP{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
	}
	port := func(lo, hi uint16) uint16 { return lo + uint16(rng.IntN(int(hi-lo)+1)) }
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriter(&buf, layers.LinkTypeEthernet)
	if err != nil {
		b.Fatal(err)
	}
	sb := gopacket.NewSerializeBuffer()
	const distinct = 4096
	var made [][]byte
	for len(made) < distinct {
		r := &rs[rng.IntN(len(rs))]
		proto := r.Proto & r.ProtoMask
		if r.ProtoMask == 0 {
			proto = 6
		}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocol(proto), SrcIP: pick(r.Src, r.SrcLen), DstIP: pick(r.Dst, r.DstLen)}
		ls := []gopacket.SerializableLayer{&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, ip}
		switch proto {
		case 6:
			t := &layers.TCP{SrcPort: layers.TCPPort(port(r.SportLo, r.SportHi)), DstPort: layers.TCPPort(port(r.DportLo, r.DportHi)), DataOffset: 5, ACK: true}
			_ = t.SetNetworkLayerForChecksum(ip)
			ls = append(ls, t)
		case 17:
			u := &layers.UDP{SrcPort: layers.UDPPort(port(r.SportLo, r.SportHi)), DstPort: layers.UDPPort(port(r.DportLo, r.DportHi))}
			_ = u.SetNetworkLayerForChecksum(ip)
			ls = append(ls, u)
		default:
			continue
		}
		ls = append(ls, gopacket.Payload(make([]byte, 18)))
		if err := gopacket.SerializeLayers(sb, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
			b.Fatal(err)
		}
		made = append(made, append([]byte(nil), sb.Bytes()...))
	}
	for i := range frames {
		f := made[rng.IntN(len(made))]
		ci := gopacket.CaptureInfo{Timestamp: pcapgenStart.Add(time.Duration(i) * time.Microsecond), CaptureLength: len(f), Length: len(f), InterfaceIndex: 0}
		if err := w.WritePacket(ci, f); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	c, err := Load(file+".pcapng", buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	return p, c
}

// benchSwitch replays c from memory through sw's workers, one persistent
// goroutine per worker, and reports Mpps in total and per worker, and the
// CPU time per frame.
func benchSwitch(b *testing.B, sw *Switch, c *Capture) {
	nw := sw.Workers()
	shards := c.Shard(nw)
	start := make([]chan struct{}, nw)
	done := make(chan struct{}, nw)
	for i := range nw {
		start[i] = make(chan struct{})
		go func() {
			w := sw.Worker(i)
			for range start[i] {
				_ = w.ReplayShard(b.Context(), c, shards[i], nil, timeZero)
				done <- struct{}{}
			}
		}()
	}
	defer func() {
		for _, ch := range start {
			close(ch)
		}
	}()
	b.ReportAllocs()
	frames := 0
	cpu0 := cpuTime()
	for b.Loop() {
		for _, ch := range start {
			ch <- struct{}{}
		}
		for range nw {
			<-done
		}
		frames += c.Len()
	}
	mpps := float64(frames) / b.Elapsed().Seconds() / 1e6
	b.ReportMetric(mpps, "Mpps")
	b.ReportMetric(mpps/float64(nw), "Mpps/worker")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/pkt")
	// CPU time of the process per frame, all workers together: unlike
	// ns/pkt it does not count time the workers spent descheduled on a
	// machine shared with other work.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(frames), "cpu-ns/pkt")
	st := sw.Stats()
	if st.Hits == 0 {
		b.Fatalf("no packet matched: %+v", st)
	}
	if tc := sw.TableCount(0); tc.Lookups != st.Packets || tc.Matched != st.Packets-st.MissTable0 {
		b.Fatalf("table 0 counted %+v; %d frames classified, %d table-0 misses", tc, st.Packets, st.MissTable0)
	}
	b.ReportMetric(float64(st.MissTable0)/float64(max(st.Packets, 1)), "miss-rate")
	b.ReportMetric(FalsePositiveRate(&st.Lookup), "fpr")
	// The largest worker's share of the frames bounds the speed-up of
	// nw workers at 1/share.
	most := 0
	for _, s := range shards {
		most = max(most, len(s))
	}
	b.ReportMetric(float64(most)/float64(max(c.Len(), 1)), "max-share")
}

var benchKinds = []rules.FilterKind{rules.FilterBloomCuckoo, rules.FilterCuckoo, rules.FilterNone}

// BenchmarkSwitchExact replays a generated 64K-frame mix (1,000 Zipf
// flows, IPv4/IPv6, VLAN, ARP, ICMP, fragments, 2% malformed) from memory
// through parse, classify and actions against 100K exact 5-tuple rules plus
// 10 wildcard rules, per filter kind, on 1 and 2 workers.
func BenchmarkSwitchExact(b *testing.B) {
	c := benchMix(b, 1<<16)
	for _, kind := range benchKinds {
		var pipe *rules.Pipeline
		for _, nw := range []int{1, 2} {
			b.Run(fmt.Sprintf("filter=%v/workers=%d", kind, nw), func(b *testing.B) {
				if pipe == nil {
					pipe = exactTable(b, kind, c, 100_000)
				}
				benchSwitch(b, NewSwitch(pipe, &Config{Workers: nw, Ports: []uint32{1, 2}}), c)
			})
		}
	}
}

// BenchmarkSwitchDeferred is BenchmarkSwitchExact (filter=bcf) with one
// more entry, which no frame of the mix matches, holding a resubmit (its
// mask is a wildcard entry's: no more subtables to visit): the
// switch then defers every output until the vector's translations end
// (deferOut). Beside BenchmarkSwitchExact/filter=bcf it is the cost of
// deferring for a pipeline that may resubmit.
func BenchmarkSwitchDeferred(b *testing.B) {
	c := benchMix(b, 1<<16)
	pipe := exactTable(b, rules.FilterBloomCuckoo, c, 100_000)
	ups, errs := ofctl.ParseFlows("resubmit", []byte("priority=30,tcp,tp_dst=9,actions=resubmit(,0)"), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	if res := pipe.ApplyBurst(ups, true); res.Errs[0] != nil {
		b.Fatal(res.Errs[0])
	}
	for _, nw := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", nw), func(b *testing.B) {
			sw := NewSwitch(pipe, &Config{Workers: nw, Ports: []uint32{1, 2}})
			benchSwitch(b, sw, c)
			if st := sw.Stats(); st.Resubmits != 0 {
				b.Fatalf("%d resubmits: the entry should match no frame", st.Resubmits)
			}
		})
	}
}

// BenchmarkSwitchClassBench replays 64K frames whose headers fall inside
// rules of ClassBench acl1 10K (from ../shared/data/classbench) against
// that rule set, per filter kind, on 1 and 2 workers.
func BenchmarkSwitchClassBench(b *testing.B) {
	for _, kind := range benchKinds {
		var pipe *rules.Pipeline
		var c *Capture
		for _, nw := range []int{1, 2} {
			b.Run(fmt.Sprintf("acl1_10k/filter=%v/workers=%d", kind, nw), func(b *testing.B) {
				if pipe == nil {
					pipe, c = classBenchTraffic(b, kind, "lyxocs-ruleSet/acl1_10k", 1<<16)
				}
				benchSwitch(b, NewSwitch(pipe, &Config{Workers: nw, Ports: []uint32{1, 2}}), c)
			})
		}
	}
}

package dataplane

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// allowedPorts is the set of ports the oracle test may learn mac on.
func allowedPorts(mac uint64) [2]int { return [2]int{int(mac % 7), int(mac%7) + 1} }

func TestMACTableConcurrentOracle(t *testing.T) {
	const writers, macsPer, rounds = 4, 300, 20
	tab := newMACTable(1<<15, time.Hour)
	var wg sync.WaitGroup
	var stop atomic.Bool
	var wrong atomic.Int64
	oracles := make([]map[uint64]int, writers)
	for g := range writers {
		oracles[g] = make(map[uint64]int)
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			o := oracles[g]
			for range rounds {
				for i := range macsPer {
					mac := uint64(g)<<40 | uint64(i)<<8 | 0x02
					p := allowedPorts(mac)[r.IntN(2)]
					tab.learn(mac, p, 1)
					o[mac] = p
					if got := tab.lookup(mac, 1); got != p && got != -1 {
						wrong.Add(1) // only this goroutine writes mac
					}
				}
			}
		})
	}
	// Readers look up every writer's addresses while they change: a port
	// must always be one the address was learned on (no torn entries).
	for g := range 2 {
		wg.Go(func() {
			for n := 0; n < 200 && !stop.Load(); n++ {
				for w := range writers {
					for i := range macsPer {
						mac := uint64(w)<<40 | uint64(i)<<8 | 0x02
						if got := tab.lookup(mac, 1); got != -1 {
							if a := allowedPorts(mac); got != a[0] && got != a[1] {
								t.Errorf("reader %d: mac %#x on port %d, never learned there", g, mac, got)
								return
							}
						}
					}
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	if n := wrong.Load(); n != 0 {
		t.Errorf("%d lookups right after learn returned another port", n)
	}
	found, total := 0, 0
	for _, o := range oracles {
		for mac, p := range o {
			total++
			switch got := tab.lookup(mac, 1); got {
			case p:
				found++
			case -1: // evicted from a full bucket: allowed, counted below
			default:
				t.Errorf("mac %#x: port %d, oracle %d", mac, got, p)
			}
		}
	}
	// 1200 addresses in 8192 buckets of 4: a bucket overflows rarely.
	if found < total*99/100 {
		t.Errorf("found %d of %d learned addresses", found, total)
	}
}

func TestMACTableAgingAndOverwrite(t *testing.T) {
	tab := newMACTable(1, 10*time.Second) // one bucket of macWays entries
	if len(tab.ent) != macWays {
		t.Fatalf("%d entries, want %d", len(tab.ent), macWays)
	}
	for i := range macWays {
		tab.learn(uint64(0x100+i), i, uint32(i))
	}
	tab.learn(0x200, 9, 5) // full: replaces the oldest (0x100, seen at 0)
	if got := tab.lookup(0x100, 5); got != -1 {
		t.Errorf("oldest station still found on port %d", got)
	}
	for i := 1; i < macWays; i++ {
		if got := tab.lookup(uint64(0x100+i), 5); got != i {
			t.Errorf("mac %#x: port %d, want %d", 0x100+i, got, i)
		}
	}
	if got := tab.lookup(0x200, 5); got != 9 {
		t.Errorf("new station: port %d, want 9", got)
	}
	// Station move.
	tab.learn(0x200, 3, 6)
	if got := tab.lookup(0x200, 6); got != 3 {
		t.Errorf("moved station: port %d, want 3", got)
	}
	// Aging: 0x101 was seen at 1; at 12 it is older than 10 s.
	if got := tab.lookup(0x101, 12); got != -1 {
		t.Errorf("aged station found on port %d", got)
	}
	if got := tab.lookup(0x200, 12); got != 3 {
		t.Errorf("fresh station: port %d, want 3", got)
	}
	// An aged entry is reused before any live one.
	tab.learn(0x300, 4, 12)
	if got := tab.lookup(0x200, 12); got != 3 {
		t.Errorf("live station evicted while an aged entry was free")
	}
}

// countPort counts transmitted frames without allocating.
type countPort struct {
	n    atomic.Int64
	last [64]byte
}

func (p *countPort) Transmit(f []byte) { p.n.Add(1); copy(p.last[:], f) }

func l2frame(t testing.TB, dst, src [6]byte) []byte {
	return build(t, &layers.Ethernet{DstMAC: dst[:], SrcMAC: src[:], EthernetType: layers.EthernetTypeIPv4},
		ipv4(layers.IPProtocolUDP), udp(), gopacket.Payload(make([]byte, 16)))
}

func newTestSwitch(t testing.TB, flows string, nports int) (*Switch, []*countPort) {
	p := testPipeline(t, 1, rules.FilterBloomCuckoo, flows)
	cfg := &Config{Devices: map[uint32]Port{}}
	var ports []*countPort
	for i := 1; i <= nports; i++ {
		cp := &countPort{}
		ports = append(ports, cp)
		cfg.Ports = append(cfg.Ports, uint32(i))
		cfg.Devices[uint32(i)] = cp
	}
	return NewSwitch(p, cfg), ports
}

func sendOne(w *Worker, frame []byte, in uint32) {
	var vec Vector
	vec.N = 1
	vec.Frames[0], vec.Link[0], vec.InPort[0] = frame, layers.LinkTypeEthernet, in
	w.Process(&vec)
}

func counts(ps []*countPort) []int64 {
	var out []int64
	for _, p := range ps {
		out = append(out, p.n.Swap(0))
	}
	return out
}

func eq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestNormalLearns(t *testing.T) {
	a, b, c := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}, [6]byte{2, 0, 0, 0, 0, 0xc}
	bcast := [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	s, ports := newTestSwitch(t, "actions=NORMAL\n", 3)
	w := s.Worker(0)
	for _, step := range []struct {
		name     string
		dst, src [6]byte
		in       uint32
		want     []int64
	}{
		{"unknown dst floods", b, a, 1, []int64{0, 1, 1}},
		{"learned dst unicast", a, b, 2, []int64{1, 0, 0}},
		{"both learned", b, a, 1, []int64{0, 1, 0}},
		{"broadcast floods", bcast, c, 3, []int64{1, 1, 0}},
		{"dst on ingress port filtered", a, c, 1, []int64{0, 0, 0}},
		{"station moved", c, a, 3, []int64{1, 0, 0}}, // c was last seen on 1
		{"follows the move", a, b, 2, []int64{0, 0, 1}},
	} {
		sendOne(w, l2frame(t, step.dst, step.src), step.in)
		if got := counts(ports); !eq(got, step.want) {
			t.Errorf("%s: transmitted per port %v, want %v", step.name, got, step.want)
		}
	}
	if st := w.Stats(); st.Drops != 0 {
		t.Errorf("Drops = %d, want 0 (filtered frames are not drops)", st.Drops)
	}
}

func TestFailOpen(t *testing.T) {
	a, b := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}
	s, ports := newTestSwitch(t, "priority=10,in_port=9,actions=drop\n", 2)
	w := s.Worker(0)
	sendOne(w, l2frame(t, b, a), 1)
	if got := counts(ports); !eq(got, []int64{0, 0}) {
		t.Fatalf("fail-secure miss transmitted %v", got)
	}
	s.SetFailOpen(true)
	if !s.FailOpen() {
		t.Fatal("FailOpen() = false after SetFailOpen(true)")
	}
	sendOne(w, l2frame(t, b, a), 1)
	sendOne(w, l2frame(t, a, b), 2)
	if got := counts(ports); !eq(got, []int64{1, 1}) {
		t.Errorf("fail-open: transmitted %v, want [1 1] (flood, then learned unicast)", got)
	}
	s.SetFailOpen(false)
	sendOne(w, l2frame(t, b, a), 1)
	if got := counts(ports); !eq(got, []int64{0, 0}) {
		t.Errorf("after fail-open ended: transmitted %v", got)
	}
	if st := w.Stats(); st.Misses != 4 {
		t.Errorf("Misses = %d, want 4", st.Misses)
	}
}

func TestNormalAllocs(t *testing.T) {
	s, _ := newTestSwitch(t, "actions=NORMAL\n", 4)
	w := s.Worker(0)
	var vec Vector
	for i := range VectorSize {
		src := [6]byte{2, 0, 0, 0, 1, byte(i)}
		dst := [6]byte{2, 0, 0, 0, 1, byte(i ^ 1)}
		vec.Frames[i], vec.Link[i], vec.InPort[i] = l2frame(t, dst, src), layers.LinkTypeEthernet, uint32(1+i%4)
	}
	vec.N = VectorSize
	w.Process(&vec)
	if n := testing.AllocsPerRun(100, func() { w.Process(&vec) }); n != 0 {
		t.Errorf("Process with NORMAL: %v allocations per vector, want 0", n)
	}
	if s.MACLearned() < VectorSize {
		t.Errorf("MACLearned = %d, want ≥ %d", s.MACLearned(), VectorSize)
	}
}

func BenchmarkNormal(b *testing.B) {
	s, _ := newTestSwitch(b, "actions=NORMAL\n", 4)
	w := s.Worker(0)
	var vec Vector
	for i := range VectorSize {
		src := [6]byte{2, 0, 0, 0, 1, byte(i)}
		dst := [6]byte{2, 0, 0, 0, 1, byte(i ^ 1)}
		vec.Frames[i], vec.Link[i], vec.InPort[i] = l2frame(b, dst, src), layers.LinkTypeEthernet, uint32(1+i%4)
	}
	vec.N = VectorSize
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		w.Process(&vec)
		n += VectorSize
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mpps")
}

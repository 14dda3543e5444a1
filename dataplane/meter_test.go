package dataplane

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// meterSwitch makes a switch with ports 1-3 over flows that may use the
// meters of mt, whose clock is clk (nanoseconds).
func meterSwitch(t testing.TB, clk *atomic.Int64, ms []meters.Config, flows string, cfg *Config) (*Switch, *meters.Table) {
	t.Helper()
	mt := meters.NewTable(&meters.TableConfig{Clock: clk.Load})
	for i := range ms {
		if _, err := mt.Apply(&meters.Mod{Command: meters.Add, Config: ms[i]}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := rules.New(&rules.Config{Tables: 2})
	if err != nil {
		t.Fatal(err)
	}
	p.SetMeterCheck(func(id uint32) bool { return mt.Lookup(id) != nil })
	ups, errs := ofctl.ParseFlows("test.flows", []byte(flows), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			t.Fatalf("flow %d: %v", i, err)
		}
	}
	if cfg == nil {
		cfg = &Config{}
	}
	cfg.Ports, cfg.Meters = []uint32{1, 2, 3}, mt
	return NewSwitch(p, cfg), mt
}

// frames returns a vector of n copies of frame received on port 1.
func frames(n int, frame []byte) *Vector {
	v := &Vector{N: n}
	for i := range n {
		v.Frames[i], v.Link[i], v.InPort[i] = frame, layers.LinkTypeEthernet, 1
	}
	return v
}

func tcp4Frame(t testing.TB, tos uint8, size int) []byte {
	ip := ipv4(layers.IPProtocolTCP)
	ip.TOS = tos
	f := build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), gopacket.Payload(make([]byte, size-54)))
	if len(f) != size {
		t.Fatalf("frame of %d bytes, want %d", len(f), size)
	}
	return f
}

// TestMeterPktpsDrop sends 1000 frames a second for 2 s into a 100 pps
// drop band with a burst of 10: exactly 10 + 100*2 pass.
func TestMeterPktpsDrop(t *testing.T) {
	var clk atomic.Int64
	port := &recPort{}
	sw, mt := meterSwitch(t, &clk, []meters.Config{{ID: 1, Flags: meters.FlagPKTPS | meters.FlagBurst | meters.FlagStats,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 100, BurstSize: 10}}}},
		"in_port=1,actions=meter:1,output:2", &Config{Devices: map[uint32]Port{2: port}})
	w := sw.Worker(0)
	v := frames(10, tcp4Frame(t, 0, 100))
	for range 201 { // vectors of 10 frames every 10 ms: 0 .. 2 s
		w.Process(v)
		clk.Add(10e6)
	}
	st := w.Stats()
	if len(port.frames) != 210 || st.Outputs != 210 || st.MeterDrops != 2010-210 {
		t.Errorf("passed %d (outputs %d, meter drops %d), want 210", len(port.frames), st.Outputs, st.MeterDrops)
	}
	ms := mt.Lookup(1).Stats(clk.Load())
	if ms.PacketInCount != 2010 || ms.ByteInCount != 201000 || ms.Bands[0].Packets != 1800 {
		t.Errorf("meter stats %+v", ms)
	}
}

// TestMeterKbpsDrop sends 1000-byte frames at 16 Mbps into an 8 Mbps
// drop band with a burst of 80 kbits for 1 s: 10 + 1000 frames pass.
func TestMeterKbpsDrop(t *testing.T) {
	var clk atomic.Int64
	sw, _ := meterSwitch(t, &clk, []meters.Config{{ID: 3, Flags: meters.FlagKBPS | meters.FlagBurst,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 8000, BurstSize: 80}}}},
		"in_port=1,actions=meter:3,output:2", nil)
	w := sw.Worker(0)
	v := frames(2, tcp4Frame(t, 0, 1000))
	for range 1001 { // 2 frames every ms: 2000 frames/s, 16 Mbps
		w.Process(v)
		clk.Add(1e6)
	}
	if st := w.Stats(); st.Outputs != 1010 {
		t.Errorf("passed %d, want 1010 (drops %d)", st.Outputs, st.MeterDrops)
	}
}

// TestMeterDSCPRemark sends an IPv4 and an IPv6 frame of DSCP 18 (AF21)
// through a 1 pps dscp_remark band with prec_level 1 twice: the second
// leaves with DSCP 20 (AF22) and a correct checksum; ARP passes
// unchanged.
func TestMeterDSCPRemark(t *testing.T) {
	var clk atomic.Int64
	port := &recPort{}
	sw, _ := meterSwitch(t, &clk, []meters.Config{{ID: 1, Flags: meters.FlagPKTPS | meters.FlagBurst,
		Bands: []meters.Band{{Type: meters.BandDSCPRemark, Rate: 1, BurstSize: 1, PrecLevel: 1}}}},
		"in_port=1,actions=meter:1,output:2", &Config{Devices: map[uint32]Port{2: port}})
	ip6 := func(tc uint8) []byte {
		ip := ipv6(layers.IPProtocolTCP)
		ip.TrafficClass = tc
		return build(t, eth(layers.EthernetTypeIPv6), ip, tcp(), gopacket.Payload("a payload"))
	}
	arp := build(t, eth(layers.EthernetTypeARP), &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
		HwAddressSize: 6, ProtAddressSize: 4, Operation: 1, SourceHwAddress: make([]byte, 6), SourceProtAddress: make([]byte, 4),
		DstHwAddress: make([]byte, 6), DstProtAddress: make([]byte, 4)})
	w := sw.Worker(0)
	for _, tt := range []struct {
		name    string
		in, out []byte
	}{
		{"ipv4", tcp4Frame(t, 18<<2|1, 100), tcp4Frame(t, 20<<2|1, 100)},
		{"ipv6", ip6(18 << 2), ip6(20 << 2)},
		{"arp", arp, arp},
	} {
		port.frames = nil
		clk.Add(2e9) // the bucket refills
		w.Process(frames(2, tt.in))
		if len(port.frames) != 2 || !bytes.Equal(port.frames[0], tt.in) || !bytes.Equal(port.frames[1], tt.out) {
			t.Errorf("%s: sent %x, want %x then %x", tt.name, port.frames, tt.in, tt.out)
		}
	}
	if st := w.Stats(); st.Rewrites != 2 || st.MeterDrops != 0 {
		t.Errorf("rewrites %d meter drops %d", st.Rewrites, st.MeterDrops)
	}
}

// TestMeterController meters packet-ins with the Controller meter: 2 of
// a vector of 10 go to the controller, every frame still goes to port 2.
func TestMeterController(t *testing.T) {
	var clk atomic.Int64
	pins := 0
	sw, _ := meterSwitch(t, &clk, []meters.Config{{ID: meters.Controller, Flags: meters.FlagPKTPS | meters.FlagBurst,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 1, BurstSize: 2}}}},
		"in_port=1,actions=controller,output:2", &Config{PacketIn: func(*PacketIn) { pins++ }})
	w := sw.Worker(0)
	w.Process(frames(10, tcp4Frame(t, 0, 100)))
	if st := w.Stats(); pins != 2 || st.PacketIns != 2 || st.MeterDrops != 8 || st.Outputs != 10 {
		t.Errorf("packet-ins %d, stats %+v", pins, st)
	}
}

// TestMeterGone drops the frames of a flow whose meter was deleted (the
// flow tables' owner removes such flows with the meter).
func TestMeterGone(t *testing.T) {
	var clk atomic.Int64
	sw, mt := meterSwitch(t, &clk, []meters.Config{{ID: 1, Flags: meters.FlagPKTPS,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 100}}}}, "in_port=1,actions=meter:1,output:2", nil)
	mt.Apply(&meters.Mod{Command: meters.Delete, Config: meters.Config{ID: 1}})
	w := sw.Worker(0)
	w.Process(frames(3, tcp4Frame(t, 0, 100)))
	if st := w.Stats(); st.Outputs != 0 || st.MeterDrops != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestMeterConcurrentWorkers charges one meter from several workers at
// once (run with -race): what passes stays within burst + rate*time.
func TestMeterConcurrentWorkers(t *testing.T) {
	var clk atomic.Int64
	sw, _ := meterSwitch(t, &clk, []meters.Config{{ID: 1, Flags: meters.FlagPKTPS | meters.FlagBurst,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 1000, BurstSize: 20}}}}, "in_port=1,actions=meter:1,output:2",
		&Config{Workers: 4})
	f := tcp4Frame(t, 0, 100)
	var wg sync.WaitGroup
	for i := range sw.Workers() {
		w := sw.Worker(i)
		wg.Go(func() {
			v := frames(VectorSize, f)
			for k := range 200 {
				if i == 0 && k%4 == 0 {
					clk.Add(1e6)
				}
				w.Process(v)
			}
		})
	}
	wg.Wait()
	st := sw.Stats()
	max := 20 + 1000*uint64(clk.Load())/1e9
	if st.Outputs > max || st.Outputs < 20 || st.Outputs+st.MeterDrops != 4*200*VectorSize {
		t.Errorf("passed %d, drops %d; want 20..%d", st.Outputs, st.MeterDrops, max)
	}
}

func TestMeterNoAllocs(t *testing.T) {
	var clk atomic.Int64
	sw, _ := meterSwitch(t, &clk, []meters.Config{{ID: 1, Flags: meters.FlagKBPS,
		Bands: []meters.Band{{Type: meters.BandDSCPRemark, Rate: 100, PrecLevel: 1}, {Type: meters.BandDrop, Rate: 1000}}}},
		"in_port=1,actions=meter:1,output:2", nil)
	w := sw.Worker(0)
	v := frames(VectorSize, tcp4Frame(t, 18<<2, 200))
	if n := testing.AllocsPerRun(100, func() { w.Process(v); clk.Add(1e5) }); n != 0 {
		t.Errorf("Process with a meter: %v allocs, want 0", n)
	}
	if st := w.Stats(); st.Rewrites == 0 || st.Outputs == 0 {
		t.Errorf("no remark or output: %+v", st)
	}
}

// BenchmarkMeter runs vectors through one flow, without a meter and with
// one whose band never applies, and one that drops most frames.
func BenchmarkMeter(b *testing.B) {
	for _, bc := range []struct{ name, flow string }{
		{"none", "in_port=1,actions=output:2"},
		{"pass", "in_port=1,actions=meter:1,output:2"},
		{"drop", "in_port=1,actions=meter:2,output:2"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var clk atomic.Int64
			sw, _ := meterSwitch(b, &clk, []meters.Config{
				{ID: 1, Flags: meters.FlagPKTPS, Bands: []meters.Band{{Type: meters.BandDrop, Rate: 4e9}}},
				{ID: 2, Flags: meters.FlagPKTPS, Bands: []meters.Band{{Type: meters.BandDrop, Rate: 1}}}}, bc.flow, nil)
			w := sw.Worker(0)
			v := frames(VectorSize, tcp4Frame(b, 0, 100))
			b.ReportAllocs()
			for b.Loop() {
				w.Process(v)
				clk.Add(1000)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*VectorSize), "ns/frame")
		})
	}
}

// TestMeterChangesWhileProcessing modifies, deletes and adds the meter a
// flow uses while two workers meter through it (run with -race): every
// frame is either output or dropped by the meter.
func TestMeterChangesWhileProcessing(t *testing.T) {
	var clk atomic.Int64
	cfg := meters.Config{ID: 1, Flags: meters.FlagPKTPS, Bands: []meters.Band{{Type: meters.BandDrop, Rate: 1000}}}
	sw, mt := meterSwitch(t, &clk, []meters.Config{cfg}, "in_port=1,actions=meter:1,output:2", &Config{Workers: 2})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			c := cfg
			c.Bands = []meters.Band{{Type: meters.BandDrop, Rate: uint32(1 + i%2000)}}
			mt.Apply(&meters.Mod{Command: meters.Command(i % 3), Config: c})
			mt.Apply(&meters.Mod{Command: meters.Add, Config: meters.Config{ID: uint32(2 + i%50), Flags: meters.FlagKBPS,
				Bands: []meters.Band{{Type: meters.BandDrop, Rate: 5}}}})
			clk.Add(1e5)
		}
	})
	f := tcp4Frame(t, 0, 100)
	var workers sync.WaitGroup
	for i := range sw.Workers() {
		w := sw.Worker(i)
		workers.Go(func() {
			v := frames(VectorSize, f)
			for range 300 {
				w.Process(v)
			}
		})
	}
	workers.Wait()
	close(stop)
	wg.Wait()
	if st := sw.Stats(); st.Outputs+st.MeterDrops != 2*300*VectorSize || st.Panics != 0 {
		t.Errorf("outputs %d + meter drops %d != %d frames", st.Outputs, st.MeterDrops, 2*300*VectorSize)
	}
}

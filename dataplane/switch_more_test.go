package dataplane

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestSharedCapturesThroughSwitch replays every capture of
// ../shared/data/pcaps (real traffic, some malformed) through the switch
// with the demo rules on two workers: nothing panics and the counts add
// up.
func TestSharedCapturesThroughSwitch(t *testing.T) {
	ups, errs := ofctl.ParseFlows("demo.flows", demoFlows(t), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, path := range sharedCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			c, _ := LoadFile(path) // partial captures replay what was read
			if c == nil || c.Len() == 0 {
				t.Skip("no frames")
			}
			pipe, err := rules.New(&rules.Config{Tables: 2})
			if err != nil {
				t.Fatal(err)
			}
			pipe.ApplyBurst(ups, true)
			sw := NewSwitch(pipe, &Config{Workers: 2, Ports: []uint32{1, 2, 3}})
			if err := sw.Replay(t.Context(), []*Capture{c}, nil); err != nil {
				t.Fatal(err)
			}
			st := sw.Stats()
			if st.Parse.Read != uint64(c.Len()) || st.Parse.Parsed+st.Parse.MalformedTotal() != st.Parse.Read ||
				st.Packets != st.Parse.Parsed || st.Panics != 0 || st.Parse.Malformed[ReasonPanic] != 0 {
				t.Errorf("counts do not add up: %+v", st)
			}
			if st.Hits+st.Misses != st.Lookup.Lookups || st.MissTable0 > st.Packets {
				t.Errorf("hits %d + misses %d != lookups %d", st.Hits, st.Misses, st.Lookup.Lookups)
			}
		})
	}
}

// TestPanicCostsOnlyItsPacket makes the packet-in callback panic on one
// frame of a vector: that packet is counted, the others are all handled.
func TestPanicCostsOnlyItsPacket(t *testing.T) {
	pipe := testPipeline(t, 1, rules.FilterBloomCuckoo, "tcp,actions=controller,output:2\n")
	var seen []int
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2}, PacketIn: func(p *PacketIn) {
		id := int(p.Frame[len(p.Frame)-1])
		seen = append(seen, id)
		if id == 7 {
			panic("callback bug")
		}
	}})
	vec := &Vector{N: VectorSize}
	for i := range VectorSize {
		e, ip, tc := eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp()
		vec.Frames[i] = build(t, e, ip, tc, gopacket.Payload(fmt.Sprintf("payload long enough %c", byte(i))))
		vec.Link[i], vec.InPort[i] = layers.LinkTypeEthernet, 1
	}
	w := sw.Worker(0)
	w.Process(vec)
	st := w.Stats()
	if st.Panics != 1 || st.PacketIns != VectorSize || len(seen) != VectorSize {
		t.Errorf("panics %d packet-ins %d seen %d", st.Panics, st.PacketIns, len(seen))
	}
	// Every frame but the one that panicked went on to output:2.
	if st.Outputs != VectorSize-1 || !slices.Contains(seen, 31) {
		t.Errorf("outputs %d, want %d", st.Outputs, VectorSize-1)
	}
}

// TestSwitchReplayPaced replays at 2x on a fake clock: the worker sleeps
// until each frame is due, so the total sleep is half the capture's span.
func TestSwitchReplayPaced(t *testing.T) {
	frames := testFrames(t, 50)
	c, err := Load("p.pcap", writePcap(t, frames, 10*time.Millisecond)) // 490 ms
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{now: time.Unix(1000, 0)}
	sw := NewSwitch(testPipeline(t, 1, rules.FilterCuckoo, "actions=output:2"), &Config{Ports: []uint32{1, 2}})
	if err := sw.Replay(t.Context(), []*Capture{c}, &ReplayConfig{Speed: 2, Now: clk.Now, Sleep: clk.Sleep}); err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for _, d := range clk.sleeps {
		total += d
	}
	if total != 245*time.Millisecond || len(clk.sleeps) != 49 {
		t.Errorf("slept %v in %d sleeps, want 245ms in 49", total, len(clk.sleeps))
	}
	if st := sw.Stats(); st.Parse.Read != 50 {
		t.Errorf("read %d frames", st.Parse.Read)
	}
}

// TestPcapWriter records a replay's outputs and reads them back: frames
// appear on the interface of the port they were sent to, rewritten.
func TestPcapWriter(t *testing.T) {
	var buf bytes.Buffer
	pw, err := NewPcapWriter(&buf, []uint32{1, 2, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pipe := testPipeline(t, 1, rules.FilterBloomCuckoo, "priority=2,arp,actions=flood\npriority=1,ip,actions=set_field:7->ip_dscp,output:2\n")
	sw := NewSwitch(pipe, &Config{Workers: 2, Ports: []uint32{1, 2}, Devices: pw.Devices()})
	c := mustLoad(t, "mix.pcap")
	if err := sw.Replay(t.Context(), []*Capture{c}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pw.Flush(); err != nil {
		t.Fatal(err)
	}
	st := sw.Stats()
	if pw.Frames() != int(st.Outputs) || st.Outputs == 0 {
		t.Fatalf("wrote %d frames, switch output %d", pw.Frames(), st.Outputs)
	}
	out, err := Load("out.pcapng", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() != pw.Frames() || len(out.Ifaces) != 2 || out.Ifaces[1].Name != "port2" {
		t.Fatalf("read back %d frames on %v", out.Len(), out.Ifaces)
	}
	p := NewParser()
	for i := range out.Len() {
		h, ok := p.Parse(out.Frame(i), out.Link(i), uint32(out.Iface[i])+1)
		if !ok {
			t.Fatalf("frame %d does not parse", i)
		}
		if h.EthType == EtherTypeIPv4 && (h.InPort != 2 || h.IPDSCP != 7) {
			t.Fatalf("frame %d: port %d dscp %d", i, h.InPort, h.IPDSCP)
		}
	}
}

//go:build linux

package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/afpacket"
	"github.com/vishvananda/netlink"

	"github.com/ofswitch/ofswitch/internal/netnstest"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

// fakeSource hands out frames, then times out once and stops the worker.
type fakeSource struct {
	frames [][]byte
	i      int
	stop   *atomic.Bool
	err    error // returned once instead of the frame at errAt
	errAt  int
}

func (f *fakeSource) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	if f.err != nil && f.i == f.errAt {
		err := f.err
		f.err = nil
		return nil, gopacket.CaptureInfo{}, err
	}
	if f.i < len(f.frames) {
		d := f.frames[f.i]
		f.i++
		return d, gopacket.CaptureInfo{CaptureLength: len(d), Length: len(d)}, nil
	}
	f.stop.Store(true)
	return nil, gopacket.CaptureInfo{}, afpacket.ErrTimeout
}

func TestRunQueueVectors(t *testing.T) {
	a, b := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}
	s, ports := newTestSwitch(t, "in_port=1,actions=output:2\n", 2)
	w := s.Worker(0)
	var stop atomic.Bool
	frames := make([][]byte, 70)
	for i := range frames {
		frames[i] = l2frame(t, b, a)
	}
	frames[5] = make([]byte, liveArena+1) // too large: counted, skipped
	src := &fakeSource{frames: frames, stop: &stop, err: afpacket.ErrPoll, errAt: 40}
	if err := w.runQueue(src, 1, time.Millisecond, &stop); err != nil {
		t.Fatal(err)
	}
	if got := counts(ports); !eq(got, []int64{0, 69}) {
		t.Errorf("transmitted %v, want [0 69]", got)
	}
	st := w.Stats()
	if st.RxErrors != 2 || st.Packets != 69 {
		t.Errorf("RxErrors = %d, Packets = %d; want 2, 69", st.RxErrors, st.Packets)
	}
	// A read error other than timeout and POLLERR ends the queue.
	stop.Store(false)
	boom := errors.New("boom")
	src = &fakeSource{stop: &stop, err: boom}
	if err := w.runQueue(src, 1, time.Millisecond, &stop); !errors.Is(err, boom) {
		t.Errorf("runQueue: err = %v, want boom", err)
	}
}

func TestRunQueueAllocs(t *testing.T) {
	a, b := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}
	s, _ := newTestSwitch(t, "in_port=1,actions=output:2\nin_port=2,actions=NORMAL\n", 2)
	w := s.Worker(0)
	var stop atomic.Bool
	frames := make([][]byte, 3*VectorSize+5)
	for i := range frames {
		frames[i] = l2frame(t, b, a)
	}
	src := &fakeSource{frames: frames, stop: &stop}
	run := func() {
		src.i = 0
		stop.Store(false)
		if err := w.runQueue(src, 1, time.Millisecond, &stop); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if n := testing.AllocsPerRun(50, run); n != 0 {
		t.Errorf("runQueue: %v allocations per %d frames, want 0", n, len(frames))
	}
}

// liveNet is the topology of the live tests: namespace sw holds the
// switch ends p1 and p2 of two veth pairs whose other ends are eth0 in h1
// (10.0.0.1/24) and h2 (10.0.0.2/24).
type liveNet struct {
	sw, h1, h2 *netnstest.NS
	ports      []*LivePort
}

func newLiveNet(t testing.TB, queues int) *liveNet {
	return newLiveNetIn(t, netnstest.New(t, "ofsw"), queues)
}

// newLiveNetIn is newLiveNet with the switch ends in namespace sw.
func newLiveNetIn(t testing.TB, sw *netnstest.NS, queues int) *liveNet {
	n := &liveNet{sw: sw, h1: netnstest.New(t, "ofh1"), h2: netnstest.New(t, "ofh2")}
	netnstest.Veth(t, n.sw, "p1", n.h1, "eth0")
	netnstest.Veth(t, n.sw, "p2", n.h2, "eth0")
	n.h1.IP(t, "addr", "add", "10.0.0.1/24", "dev", "eth0")
	n.h2.IP(t, "addr", "add", "10.0.0.2/24", "dev", "eth0")
	for _, h := range []*netnstest.NS{n.h1, n.h2} {
		// Frames leave with complete checksums and no larger than the MTU.
		if _, err := exec.LookPath("ethtool"); err == nil {
			if out, err := h.Exec("ethtool", "-K", "eth0", "tx", "off", "tso", "off", "gso", "off"); err != nil {
				t.Logf("ethtool (offloads stay on): %v %s", err, out)
			}
		}
	}
	if queues == 0 { // no switch ports: the caller joins p1 and p2 otherwise
		return n
	}
	err := n.sw.Do(func() (err error) {
		n.ports, err = OpenLivePorts([]string{"p1", "p2"}, &LiveConfig{Queues: queues})
		return err
	})
	t.Cleanup(func() {
		for _, p := range n.ports {
			p.Close()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// run starts a switch with flows on the ports and returns it and a
// function that stops it.
func (n *liveNet) run(t testing.TB, flows string, failOpen bool) (*Switch, func()) {
	cfg := LiveSwitchConfig(n.ports)
	s := NewSwitch(testPipeline(t, 1, rules.FilterBloomCuckoo, flows), &cfg)
	s.SetFailOpen(failOpen)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var err error
	wg.Go(func() { err = s.RunLive(ctx, n.ports) })
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			if err != nil {
				t.Errorf("RunLive: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return s, stop
}

// watch runs WatchPorts on p1 and p2 of n's switch namespace, calling fn
// for every event, and returns the function that stops it and checks that
// it stopped because it was told to.
func (n *liveNet) watch(t *testing.T, fn func(PortEvent)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := n.sw.Handle()
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() {
		werr = WatchPorts(ctx, &WatchConfig{Ports: map[string]uint32{"p1": 1, "p2": 2}, Namespace: &h}, fn)
	})
	return func() {
		cancel()
		wg.Wait()
		if !errors.Is(werr, context.Canceled) {
			t.Errorf("WatchPorts: %v, want context.Canceled", werr)
		}
	}
}

// awaitWatch waits until a port watcher delivering to events has
// subscribed: it starts asynchronously, so p1's MTU is changed until the
// change is reported (bounded); every later change is then seen.
func (n *liveNet) awaitWatch(t *testing.T, events <-chan PortEvent) {
	t.Helper()
	for i := range 50 {
		n.sw.IP(t, "link", "set", "p1", "mtu", fmt.Sprint(1400+i))
		select {
		case e := <-events:
			if e.Reason == PortModified && e.Info.MTU == 1400+i {
				return
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("no PortModified event for MTU changes")
}

func (n *liveNet) ping(count int) error {
	out, err := n.h1.Exec("ping", "-c", fmt.Sprint(count), "-i", "0.2", "-W", "1", "10.0.0.2")
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

func TestLiveForwarding(t *testing.T) {
	n := newLiveNet(t, 2)
	for _, tt := range []struct {
		name     string
		flows    string
		failOpen bool
		reach    bool
	}{
		{name: "port flows", flows: "in_port=1,actions=output:2\nin_port=2,actions=output:1\n", reach: true},
		{name: "no flows", reach: false},
		{name: "NORMAL", flows: "actions=NORMAL\n", reach: true},
		{name: "fail-open", failOpen: true, reach: true},
		{name: "one way only", flows: "in_port=1,actions=output:2\n", reach: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The hosts forget each other, so every case starts with ARP.
			n.h1.IP(t, "neigh", "flush", "dev", "eth0")
			n.h2.IP(t, "neigh", "flush", "dev", "eth0")
			s, stop := n.run(t, tt.flows, tt.failOpen)
			count := 3
			if !tt.reach {
				count = 2
			}
			// Counters are read while the workers run (checked by -race).
			done := make(chan struct{})
			var polls sync.WaitGroup
			polls.Go(func() {
				for {
					select {
					case <-done:
						return
					case <-time.After(20 * time.Millisecond):
						_ = s.LiveStats()
						_ = s.LivePortStats()
					}
				}
			})
			err := n.ping(count)
			close(done)
			polls.Wait()
			stop()
			st := s.Stats()
			live := s.LiveStats()
			if live.Packets != st.Packets || live.Outputs != st.Outputs || live.Drops != st.Drops || live.Misses != st.Misses {
				t.Errorf("LiveStats after stop %+v disagrees with Stats %+v", live, st)
			}
			if lp, ps := s.LivePortStats(), s.PortStats(); !cmp.Equal(lp, ps) {
				t.Errorf("LivePortStats %v, PortStats %v", lp, ps)
			}
			switch {
			case tt.reach && err != nil:
				t.Errorf("ping failed: %v\nswitch: %+v", err, st)
			case !tt.reach && err == nil:
				t.Errorf("ping succeeded through a switch that should drop")
			}
			if tt.reach && st.Outputs < 2 {
				t.Errorf("switch counted %d outputs, want ≥ 2 (an echo request and its reply)", st.Outputs)
			}
			if !tt.reach && tt.flows == "" && st.Outputs != 0 {
				t.Errorf("switch with no flows output %d frames", st.Outputs)
			}
			for _, p := range n.ports {
				if e := p.TxErrors(); e != 0 {
					t.Errorf("port %d: %d transmit errors", p.Info().No, e)
				}
			}
		})
	}
}

// rxPackets returns the received-packet counter of eth0 in ns.
func rxPackets(t testing.TB, ns *netnstest.NS) uint64 {
	var n uint64
	if err := ns.Do(func() error {
		l, err := netlink.LinkByName("eth0")
		if err == nil {
			n = l.Attrs().Statistics.RxPackets
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLivePacketOut(t *testing.T) {
	n := newLiveNet(t, 1)
	goroutines := runtime.NumGoroutine()
	// A frame the switch sent and saw again would go out of port 1.
	s, stop := n.run(t, "dl_src=02:00:00:00:00:11,actions=output:1\n", false)
	frame := l2frame(t, [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, [6]byte{2, 0, 0, 0, 0, 0x11})
	before := rxPackets(t, n.h2)
	const sent = 5
	for range sent {
		if err := s.PacketOut(rules.PortController, []rules.Action{out(2)}, frame); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	g := runtime.NumGoroutine() // rxPackets' goroutines may still be exiting
	for i := 0; i < 100 && g > goroutines; i++ {
		time.Sleep(10 * time.Millisecond)
		g = runtime.NumGoroutine()
	}
	if g > goroutines {
		t.Errorf("%d goroutines after RunLive returned, %d before it started", g, goroutines)
	}
	if got := rxPackets(t, n.h2) - before; got < sent {
		t.Errorf("h2 received %d frames, want ≥ %d", got, sent)
	}
	if tx := s.PortStats()[1].TxPackets; tx != sent {
		t.Errorf("port 2 tx %d, want %d", tx, sent)
	}
	if tx := s.PortStats()[0].TxPackets; tx != 0 {
		t.Errorf("port 1 tx %d: the switch saw its own transmissions", tx)
	}
}

// TestLiveIgnoresOutgoing checks that what the switch's namespace itself
// sends on a port (PACKET_OUTGOING) is not taken as received there.
func TestLiveIgnoresOutgoing(t *testing.T) {
	n := newLiveNet(t, 2)
	n.sw.IP(t, "addr", "add", "10.0.0.9/24", "dev", "p1")
	mac := n.ports[0].Info().HWAddr
	s, stop := n.run(t, fmt.Sprintf("in_port=1,dl_src=%s,actions=output:2\nin_port=1,actions=drop\n", net.HardwareAddr(mac[:])), false)
	if out, err := n.sw.Exec("ping", "-c", "2", "-i", "0.2", "-W", "1", "10.0.0.1"); err != nil {
		t.Errorf("ping from the switch's namespace: %v\n%s", err, out)
	}
	stop()
	if tx := s.PortStats()[1].TxPackets; tx != 0 {
		t.Errorf("port 2 tx %d: frames sent by the namespace on p1 were switched", tx)
	}
	if rx := s.PortStats()[0].RxPackets; rx < 2 {
		t.Errorf("port 1 rx %d, want ≥ 2 (the echo replies)", rx)
	}
}

func TestLivePortEvents(t *testing.T) {
	n := newLiveNet(t, 1)
	_, stop := n.run(t, "in_port=1,actions=output:2\nin_port=2,actions=output:1\n", false)
	events := make(chan PortEvent, 64)
	defer n.watch(t, func(e PortEvent) { events <- e })()
	// wait returns the first event on port 1 that satisfies ok, or fails.
	wait := func(what string, ok func(PortEvent) bool) PortEvent {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case e := <-events:
				if e.Info.No == 1 && ok(e) {
					return e
				}
			case <-timeout:
				t.Fatalf("no event: %s", what)
			}
		}
	}
	n.awaitWatch(t, events)
	n.sw.IP(t, "link", "set", "p1", "down")
	e := wait("admin down", func(e PortEvent) bool { return !e.Info.AdminUp })
	if e.Reason != PortModified || e.Info.Name != "p1" || e.Info.LinkUp {
		t.Errorf("link down: %+v", e)
	}
	n.sw.IP(t, "link", "set", "p1", "up")
	wait("admin and link up", func(e PortEvent) bool { return e.Info.AdminUp && e.Info.LinkUp })
	// The switch survived the socket errors of the link going down.
	n.h1.IP(t, "neigh", "flush", "dev", "eth0")
	if err := n.ping(2); err != nil {
		t.Errorf("ping after link down/up: %v", err)
	}
	stop()
	// A veth that is deleted is reported.
	n.sw.IP(t, "link", "del", "p2")
	e = func() PortEvent {
		timeout := time.After(10 * time.Second)
		for {
			select {
			case e := <-events:
				if e.Reason == PortDeleted {
					return e
				}
			case <-timeout:
				t.Fatal("no PortDeleted event")
			}
		}
	}()
	if e.Info.No != 2 || e.Info.Name != "p2" {
		t.Errorf("deleted: %+v", e)
	}
}

// BenchmarkLiveForward measures forwarding between the veth pairs of
// liveNet: an AF_PACKET sender in h1 writes b.N UDP frames as fast as it
// can, and the frames h2's interface received are counted. It reports
// delivered frames per second ("pps") and the share lost ("loss"), for
// ofswitch (flows in_port=1→2, 1 and 2 queues per port) and, as the
// references on the same setup, a Linux bridge in the switch namespace
// and Open vSwitch's userspace datapath with the same flows (skipped
// without Open vSwitch).
func BenchmarkLiveForward(b *testing.B) {
	for _, c := range []struct {
		name   string
		queues int
	}{{"ofswitch/queues=1", 1}, {"ofswitch/queues=2", 2}, {"linux-bridge", 0}, {"ovs-userspace", -1}} {
		b.Run(c.name, func(b *testing.B) {
			var n *liveNet
			if c.queues < 0 {
				if err := ovstest.Available(testutil.RepoRoot(b)); err != nil {
					b.Skip(err)
				}
				ovs := ovstest.Start(b)
				n = newLiveNetIn(b, netnstest.Attach(b, ovs.NS), 0)
				for i, p := range []string{"p1", "p2"} {
					if out, err := ovs.Exec("ovs-vsctl", "add-port", "br0", p, "--", "set", "interface", p,
						fmt.Sprintf("ofport_request=%d", i+1)).CombinedOutput(); err != nil {
						b.Fatalf("ovs-vsctl add-port %s: %v\n%s", p, err, out)
					}
				}
				for _, f := range []string{"in_port=1,actions=output:2", "in_port=2,actions=output:1"} {
					if out, err := ovs.Ofctl("", "add-flow", f); err != nil {
						b.Fatalf("%v\n%s", err, out)
					}
				}
			} else {
				n = newLiveNet(b, c.queues)
			}
			if c.queues == 0 {
				n.sw.IP(b, "link", "add", "br0", "type", "bridge")
				n.sw.IP(b, "link", "set", "p1", "master", "br0")
				n.sw.IP(b, "link", "set", "p2", "master", "br0")
				n.sw.IP(b, "link", "set", "br0", "up")
			} else if c.queues > 0 {
				_, stop := n.run(b, "in_port=1,actions=output:2\nin_port=2,actions=output:1\n", false)
				defer stop()
			}
			var tx *afpacket.TPacket
			if err := n.h1.Do(func() (err error) {
				tx, err = afpacket.NewTPacket(afpacket.OptInterface("eth0"), afpacket.OptBlockSize(1<<16), afpacket.OptNumBlocks(1))
				return err
			}); err != nil {
				b.Fatal(err)
			}
			defer tx.Close()
			// To h2's address, so that the bridge forwards rather than floods
			// once it learned it (h2 sends a frame first).
			if out, err := n.h2.Exec("ping", "-c", "1", "-W", "1", "10.0.0.1"); err != nil && c.queues <= 0 {
				b.Fatalf("ping: %v\n%s", err, out)
			}
			var dst [6]byte
			if err := n.h2.Do(func() error {
				l, err := netlink.LinkByName("eth0")
				if err == nil {
					copy(dst[:], l.Attrs().HardwareAddr)
				}
				return err
			}); err != nil {
				b.Fatal(err)
			}
			frame := l2frame(b, dst, [6]byte{2, 0, 0, 0, 0, 0x42})
			before := rxPackets(b, n.h2)
			b.ResetTimer()
			start := time.Now()
			sent := 0
			for b.Loop() {
				if tx.WritePacketData(frame) == nil {
					sent++
				}
			}
			// Wait (bounded) until h2's counter stops moving.
			got, last := rxPackets(b, n.h2)-before, time.Now()
			for i := 0; i < 200; i++ {
				time.Sleep(10 * time.Millisecond)
				now := rxPackets(b, n.h2) - before
				if now == got && i > 2 {
					break
				}
				if now != got {
					got, last = now, time.Now()
				}
			}
			elapsed := last.Sub(start)
			b.StopTimer()
			b.ReportMetric(float64(got)/elapsed.Seconds(), "pps")
			if sent > 0 {
				b.ReportMetric(1-float64(min(got, uint64(sent)))/float64(sent), "loss")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestLivePortReattach: a running switch loses port 2's interface, which
// the port watcher reports; the port detaches (its workers idle, frames
// output to it are dropped and counted) while port 1 goes on; a new
// interface of the same name appears, the port attaches to it without a
// restart, and the hosts ping each other again through the same flows.
func TestLivePortReattach(t *testing.T) {
	n := newLiveNet(t, 2) // two queues per port: the new sockets form a fanout group again
	s, stop := n.run(t, "in_port=1,actions=output:2\nin_port=2,actions=output:1\n", false)
	if err := n.ping(2); err != nil {
		t.Fatalf("ping before the interface goes: %v", err)
	}
	p2 := n.ports[1]
	oldIndex := p2.Info().Index

	events := make(chan PortEvent, 64)
	attachErrs := make(chan error, 4)
	defer n.watch(t, func(e PortEvent) {
		// What ofswitch run does (cmd/ofswitch): follow the interface.
		// Sockets belong to the namespace of the thread that opens them.
		p := n.ports[e.Info.No-1]
		if err := n.sw.Do(func() error { _, err := p.Follow(e); return err }); err != nil {
			attachErrs <- err
		}
		events <- e
	})()
	wait := func(what string, ok func(PortEvent) bool) PortEvent {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case e := <-events:
				if ok(e) {
					return e
				}
			case err := <-attachErrs:
				t.Fatalf("Attach: %v", err)
			case <-timeout:
				t.Fatalf("no event: %s", what)
			}
		}
	}
	n.awaitWatch(t, events)

	n.sw.IP(t, "link", "del", "p2") // h2's eth0 goes with it
	e := wait("p2 deleted", func(e PortEvent) bool { return e.Reason == PortDeleted })
	if e.Info.No != 2 || e.Info.Name != "p2" || e.Info.Index != oldIndex {
		t.Errorf("deleted: %+v, want port 2 p2 ifindex %d", e, oldIndex)
	}
	if p2.Attached() {
		t.Error("port 2 still attached after its interface was deleted")
	}
	// Frames that the flows send to port 2 are dropped and counted.
	n.h1.IP(t, "neigh", "flush", "dev", "eth0")
	if err := n.ping(1); err == nil {
		t.Error("ping succeeded without h2")
	}
	if p2.TxDropped() == 0 {
		t.Error("port 2 detached: TxDropped = 0, want the ARP requests of the ping")
	}
	if s.Processed() == 0 {
		t.Error("port 1's worker took nothing in")
	}

	// The same name comes back, in the same place, with a new ifindex.
	netnstest.Veth(t, n.sw, "p2", n.h2, "eth0")
	n.h2.IP(t, "addr", "add", "10.0.0.2/24", "dev", "eth0")
	if out, err := n.h2.Exec("ethtool", "-K", "eth0", "tx", "off", "tso", "off", "gso", "off"); err != nil {
		t.Logf("ethtool (offloads stay on): %v %s", err, out)
	}
	e = wait("p2 added", func(e PortEvent) bool { return e.Reason == PortAdded })
	if e.Info.No != 2 || e.Info.Name != "p2" || e.Info.Index == oldIndex {
		t.Errorf("added: %+v, want port 2 p2 with an ifindex other than %d", e, oldIndex)
	}
	if !p2.Attached() || p2.Attaches() < 2 || p2.Info().Index != e.Info.Index {
		t.Errorf("port 2 after the interface came back: attached %v, %d attaches, info %v", p2.Attached(), p2.Attaches(), p2.Info())
	}
	n.h1.IP(t, "neigh", "flush", "dev", "eth0")
	// The new interface may need a moment to come up (carrier): retry a
	// bounded number of times.
	var err error
	for range 5 {
		if err = n.ping(2); err == nil {
			break
		}
	}
	if err != nil {
		t.Errorf("ping after the interface came back: %v", err)
	}
	before := s.LivePortStats()
	stop()
	if rx := before[1].RxPackets; rx < 2 {
		t.Errorf("port 2 received %d frames in all, want ≥ 2", rx)
	}
	for _, p := range n.ports {
		if e := p.TxErrors(); e != 0 {
			t.Errorf("port %d: %d transmit errors", p.Info().No, e)
		}
	}
}

// BenchmarkLiveQueueFlush measures a worker's transmit queue on a live
// port: a vector of 60-byte frames queued and sent with one sendmmsg on
// a Unix datagram socket standing in for the packet socket, then read.

//go:build linux

package dataplane

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/afpacket"
	"golang.org/x/sys/unix"

	"github.com/ofswitch/ofswitch/rules"
)

func TestRunLiveChecksPorts(t *testing.T) {
	p := &LivePort{no: 1, name: "p1"}
	s := NewSwitch(testPipeline(t, 1, rules.FilterBloomCuckoo, ""), &Config{Ports: []uint32{1}, Workers: 1})
	if err := s.RunLive(context.Background(), []*LivePort{p}); !errors.Is(err, ErrWorkers) {
		t.Errorf("port not a device: err = %v, want ErrWorkers", err)
	}
	s = NewSwitch(testPipeline(t, 1, rules.FilterBloomCuckoo, ""), &Config{Ports: []uint32{1}, Workers: 2, Devices: map[uint32]Port{1: p}})
	if err := s.RunLive(context.Background(), []*LivePort{p}); !errors.Is(err, ErrWorkers) {
		t.Errorf("2 workers, 0 queues: err = %v, want ErrWorkers", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = NewSwitch(testPipeline(t, 1, rules.FilterBloomCuckoo, ""), &Config{})
	if err := s.RunLive(ctx, nil); err != nil {
		t.Errorf("no ports, context ended: err = %v, want nil", err)
	}
}

// datagramPair returns a pair of connected Unix datagram sockets, closed
// when the test ends, the second with a 1 MiB receive buffer: a stand-in
// for a packet socket and the wire.
func datagramPair(tb testing.TB) [2]int {
	tb.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		unix.Close(fds[0])
		unix.Close(fds[1])
	})
	if err := unix.SetsockoptInt(fds[1], unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20); err != nil {
		tb.Fatal(err)
	}
	return fds
}

// TestLiveQueuePadsShortFrames: a frame shorter than the Ethernet minimum
// (a 56-byte frame left by popping an MPLS label off a padded 60-byte one)
// leaves padded with zeros to 60 bytes, as a NIC would put it on the wire;
// the queued copy is padded, not the worker's frame.
func TestLiveQueuePadsShortFrames(t *testing.T) {
	fds := datagramPair(t)
	p := &LivePort{}
	p.install(fakeConn(p, fds[0]))
	q := p.txQueue(0).(*liveQueue)
	short := make([]byte, 56)
	for i := range short {
		short[i] = 0xaa
	}
	q.Transmit(short[:56])
	q.Transmit(short[:14])
	q.Flush()
	buf := make([]byte, 200)
	for _, n := range []int{56, 14} {
		m, _, err := unix.Recvfrom(fds[1], buf, unix.MSG_DONTWAIT)
		if err != nil {
			t.Fatal(err)
		}
		if m != minFrame {
			t.Fatalf("a %d-byte frame left as %d bytes, want %d", n, m, minFrame)
		}
		for i := range m {
			if want := byte(0xaa) * byte(min(1, max(0, n-i))); buf[i] != want {
				t.Fatalf("a %d-byte frame: byte %d is %#x, want %#x", n, i, buf[i], want)
			}
		}
	}
	if len(short) != 56 || short[55] != 0xaa {
		t.Error("the frame handed to Transmit changed")
	}
}

func TestLiveQueueSendsVectors(t *testing.T) {
	fds := datagramPair(t)
	p := &LivePort{}
	p.install(fakeConn(p, fds[0]))
	q := p.txQueue(0).(*liveQueue)
	const n = VectorSize + 7 // one flush when the queue is full, one at Flush
	frame := make([]byte, 100)
	for i := range n {
		frame[0], frame[99] = byte(i), byte(i)
		q.Transmit(frame)
		frame[0] = 0xee // queued frames are copies
	}
	q.Transmit(nil) // refused, counted
	q.Flush()
	if p.TxErrors() != 1 {
		t.Errorf("TxErrors = %d, want 1", p.TxErrors())
	}
	buf := make([]byte, 200)
	for i := range n {
		m, _, err := unix.Recvfrom(fds[1], buf, unix.MSG_DONTWAIT)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if m != 100 || buf[0] != byte(i) || buf[99] != byte(i) {
			t.Fatalf("frame %d: %d bytes, first %#x last %#x", i, m, buf[0], buf[99])
		}
	}
	if _, _, err := unix.Recvfrom(fds[1], buf, unix.MSG_DONTWAIT); err == nil {
		t.Error("more frames than were queued")
	}
	allocs := testing.AllocsPerRun(20, func() {
		for range VectorSize {
			q.Transmit(frame)
		}
		q.Flush()
		for range VectorSize {
			unix.Read(fds[1], buf)
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations per vector queued and flushed, want 0", allocs)
	}
}

func TestOpenLivePortsMissing(t *testing.T) {
	if _, err := OpenLivePorts([]string{"lo", "nonexistent0"}, nil); !errors.Is(err, ErrNoInterface) {
		t.Errorf("err = %v, want ErrNoInterface", err)
	}
}

func TestLiveSwitchConfig(t *testing.T) {
	ports := []*LivePort{{no: 1, cfg: LiveConfig{Queues: 2}}, {no: 2, cfg: LiveConfig{Queues: 2}}}
	cfg := LiveSwitchConfig(ports)
	if cfg.Workers != 4 || !cmp.Equal(cfg.Ports, []uint32{1, 2}) || cfg.Devices[2] != Port(ports[1]) {
		t.Errorf("LiveSwitchConfig = %+v", cfg)
	}
}

// BenchmarkRunQueue measures a live worker's receive loop without the
// kernel: frames from a fake ring, copied into vectors and forwarded by
// in_port flows to a counting port.
func BenchmarkRunQueue(b *testing.B) {
	a, d := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}
	s, _ := newTestSwitch(b, "in_port=1,actions=output:2\n", 2)
	w := s.Worker(0)
	var stop atomic.Bool
	frames := make([][]byte, 1024)
	for i := range frames {
		frames[i] = l2frame(b, d, a)
	}
	src := &fakeSource{frames: frames, stop: &stop}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		src.i = 0
		stop.Store(false)
		if err := w.runQueue(src, 1, time.Millisecond, &stop); err != nil {
			b.Fatal(err)
		}
		n += len(frames)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mpps")
}

// fakeConn is a socket set of p whose only socket is descriptor fd (not
// an afpacket one: only transmit queues can use it). Releasing it closes
// nothing; the caller owns fd.
func fakeConn(p *LivePort, fd int) *liveConn {
	c := &liveConn{port: p, fds: []int{fd}}
	c.refs.Store(1)
	return c
}

// recvAll reads what is queued on fd and returns the first byte of each
// datagram.
func recvAll(t *testing.T, fd int) []byte {
	t.Helper()
	var got []byte
	buf := make([]byte, 200)
	for range 1000 {
		n, _, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
		if err != nil {
			break
		}
		if n > 0 {
			got = append(got, buf[0])
		}
	}
	return got
}

// TestLiveQueueFollowsSwap: a port's transmit queues send on the sockets
// the port has at each flush; while it is detached they drop and count;
// sockets in use when they are swapped out are closed by their last user.
func TestLiveQueueFollowsSwap(t *testing.T) {
	var pairs [2][2]int
	for i := range pairs {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		pairs[i] = fds
		t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	}
	p := &LivePort{no: 1, name: "p1"}
	a := fakeConn(p, pairs[0][0])
	p.install(a)
	q := p.txQueue(0).(*liveQueue)
	send := func(first byte, n int) {
		frame := make([]byte, 60)
		for i := range n {
			frame[0] = first + byte(i)
			q.Transmit(frame)
		}
		q.Flush()
	}
	send(1, 3)
	if got := recvAll(t, pairs[0][1]); !cmp.Equal(got, []byte{1, 2, 3}) {
		t.Errorf("attached to a: a got %v, want [1 2 3]", got)
	}

	// A worker holds a while the port is detached.
	held := p.acquire()
	if held != a {
		t.Fatalf("acquire = %p, want a %p", held, a)
	}
	p.Detach()
	if p.Attached() {
		t.Error("Attached after Detach")
	}
	if a.closed.Load() {
		t.Error("a closed while a worker still holds it")
	}
	send(10, 2)
	p.Transmit(make([]byte, 60))
	if got := recvAll(t, pairs[0][1]); len(got) != 0 {
		t.Errorf("detached: a got %v", got)
	}
	if p.TxDropped() != 3 || p.TxErrors() != 0 {
		t.Errorf("detached: TxDropped %d, TxErrors %d; want 3, 0", p.TxDropped(), p.TxErrors())
	}
	held.release()
	if !a.closed.Load() {
		t.Error("a not closed when its last user let go")
	}

	// Attached to b: frames go there, not to a.
	p.install(fakeConn(p, pairs[1][0]))
	send(20, 4)
	if got := recvAll(t, pairs[1][1]); !cmp.Equal(got, []byte{20, 21, 22, 23}) {
		t.Errorf("attached to b: b got %v, want [20 21 22 23]", got)
	}
	if got := recvAll(t, pairs[0][1]); len(got) != 0 {
		t.Errorf("attached to b: a got %v", got)
	}
	frame := make([]byte, 60)
	buf := make([]byte, 200)
	for _, attached := range []bool{true, false} {
		if !attached {
			p.Detach()
		}
		allocs := testing.AllocsPerRun(20, func() {
			for range VectorSize {
				q.Transmit(frame)
			}
			q.Flush()
			for range VectorSize * b2i(attached) {
				unix.Read(pairs[1][1], buf)
			}
		})
		if allocs > 0 {
			t.Errorf("attached %v: %v allocations per vector, want 0", attached, allocs)
		}
	}
}

// TestLiveConnRefs: whatever the interleaving of swaps and users, a
// socket set that acquire returns is open until released, and every set
// swapped out is closed exactly once when its last user lets go.
func TestLiveConnRefs(t *testing.T) {
	p := &LivePort{no: 1, name: "p1"}
	const users, uses, swaps = 4, 2000, 300
	conns := make([]*liveConn, swaps)
	for i := range conns {
		conns[i] = fakeConn(p, -1)
	}
	var bad atomic.Int64
	var wg sync.WaitGroup
	for range users {
		wg.Go(func() {
			for range uses {
				if c := p.acquire(); c != nil {
					if c.closed.Load() {
						bad.Add(1)
					}
					runtime.Gosched()
					if c.closed.Load() {
						bad.Add(1)
					}
					c.release()
				}
			}
		})
	}
	wg.Go(func() {
		for i, c := range conns {
			p.mu.Lock()
			if i%3 == 2 {
				p.install(nil) // detached a while
			} else {
				p.install(c)
			}
			p.mu.Unlock()
			runtime.Gosched()
		}
	})
	wg.Wait()
	p.Close()
	if n := bad.Load(); n != 0 {
		t.Errorf("%d uses of a closed socket set", n)
	}
	for i, c := range conns {
		if i%3 != 2 && (!c.closed.Load() || c.refs.Load() != 0) {
			t.Errorf("set %d: closed %v, refs %d after Close", i, c.closed.Load(), c.refs.Load())
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func BenchmarkLiveQueueFlush(b *testing.B) {
	fds := datagramPair(b)
	q := benchLivePort(fds[0]).txQueue(0).(*liveQueue)
	frame := make([]byte, 60)
	buf := make([]byte, 200)
	b.ReportAllocs()
	for b.Loop() {
		for range VectorSize {
			q.Transmit(frame)
		}
		q.Flush()
		for range VectorSize {
			unix.Read(fds[1], buf)
		}
	}
}

// benchLivePort is a port attached to socket fd (see fakeConn).
func benchLivePort(fd int) *LivePort {
	p := &LivePort{}
	p.install(fakeConn(p, fd))
	return p
}

// TestLivePortFollow: which port events make a port open sockets.
func TestLivePortFollow(t *testing.T) {
	p := &LivePort{no: 1, name: "nonexistent0", cfg: LiveConfig{Queues: 1}}
	up := PortInfo{No: 1, Name: "nonexistent0", AdminUp: true, LinkUp: true}
	// Attached while up: a change is only a change.
	p.info = up
	p.install(fakeConn(p, -1))
	if ok, err := p.Follow(PortEvent{Reason: PortModified, Info: up}); ok || err != nil {
		t.Errorf("modified, attached while up: Follow = %v, %v; want no attach", ok, err)
	}
	// Gone: detached, without an error.
	if ok, err := p.Follow(PortEvent{Reason: PortDeleted, Info: up}); ok || err != nil || p.Attached() {
		t.Errorf("deleted: Follow = %v, %v, attached %v", ok, err, p.Attached())
	}
	// Back (or still detached, or attached while down and now up): an
	// attach, which fails here as there is no such interface.
	for _, tt := range []struct {
		name    string
		reason  PortReason
		install bool
	}{{"added", PortAdded, false}, {"modified while detached", PortModified, false}, {"up after attached down", PortModified, true}} {
		if tt.install {
			p.info = PortInfo{No: 1, Name: "nonexistent0"}
			p.install(fakeConn(p, -1))
		}
		if ok, err := p.Follow(PortEvent{Reason: tt.reason, Info: up}); ok || !errors.Is(err, ErrNoInterface) {
			t.Errorf("%s: Follow = %v, %v; want an attach failing with ErrNoInterface", tt.name, ok, err)
		}
	}
	p.Close()
	if _, err := p.Follow(PortEvent{Reason: PortAdded, Info: up}); !errors.Is(err, ErrPortClosed) {
		t.Errorf("after Close: err = %v, want ErrPortClosed", err)
	}
}

// TestLiveSkipsFramesBeforeFilter: a port's source skips the frames its
// socket captured before its filter was in place (here: made to look so by
// moving the filter's time after some frames), and returns the first one
// captured after.
func TestLiveSkipsFramesBeforeFilter(t *testing.T) {
	n := newLiveNet(t, 1)
	p := n.ports[0]
	c := p.acquire()
	if c == nil {
		t.Fatal("port 1 has no sockets")
	}
	defer c.release()
	// Frames from h1 before the pretended filter time...
	if out, err := n.h1.Exec("ping", "-c", "3", "-i", "0.2", "-W", "1", "10.0.0.2"); err == nil {
		t.Fatalf("h1 reached h2 without a switch:\n%s", out)
	}
	c.since[0] = time.Now()
	// ...and after it.
	go n.h1.Exec("ping", "-c", "2", "-i", "0.2", "-W", "1", "10.0.0.2")
	s := &liveSource{p: p}
	defer s.release()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, ci, err := s.ZeroCopyReadPacketData()
		if err == afpacket.ErrTimeout {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if ci.Timestamp.Before(c.since[0]) {
			t.Fatalf("a frame captured at %v, before the filter at %v, was returned", ci.Timestamp, c.since[0])
		}
		return
	}
	t.Fatal("no frame captured after the filter was returned within 10 s")
}

// TestLiveTxFailureCounts checks how a frame the kernel refuses is
// counted: dropped when the interface is down or gone (the port watcher
// may not have told the port yet), a transmit error otherwise.
func TestLiveTxFailureCounts(t *testing.T) {
	for _, c := range []struct {
		err              error
		dropped, errored uint64
	}{
		{unix.ENETDOWN, 1, 0},
		{unix.ENXIO, 1, 0},
		{unix.ENODEV, 1, 0},
		{fmt.Errorf("send: %w", unix.ENETDOWN), 1, 0},
		{unix.EMSGSIZE, 0, 1},
		{unix.ENOBUFS, 0, 1},
	} {
		p := &LivePort{}
		p.countTxFailure(c.err)
		if p.TxDropped() != c.dropped || p.TxErrors() != c.errored {
			t.Errorf("%v: TxDropped %d, TxErrors %d; want %d, %d", c.err, p.TxDropped(), p.TxErrors(), c.dropped, c.errored)
		}
	}
}

// TestLivePortDownDrops checks that frames output to a port whose
// interface is down, one by one and in a worker's vector, are counted as
// dropped, not as transmit errors, and that the port sends again once the
// interface is up.
func TestLivePortDownDrops(t *testing.T) {
	n := newLiveNet(t, 1)
	p := n.ports[1]
	frame := make([]byte, 60)
	copy(frame, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x88, 0xb5})
	n.sw.IP(t, "link", "set", "p2", "down")
	p.Transmit(frame)
	q := p.txQueue(0)
	for range 3 {
		q.Transmit(frame)
	}
	q.Flush()
	if p.TxDropped() != 4 || p.TxErrors() != 0 {
		t.Fatalf("interface down: TxDropped %d, TxErrors %d; want 4, 0", p.TxDropped(), p.TxErrors())
	}
	// Up again: once the link is (a veth takes a moment), a vector goes
	// out without a drop.
	n.sw.IP(t, "link", "set", "p2", "up")
	sent := false
	for range 100 {
		d := p.TxDropped()
		q.Transmit(frame)
		q.Flush()
		if p.TxDropped() == d {
			sent = true
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !sent || p.TxErrors() != 0 {
		t.Errorf("interface up again: sent %v, TxErrors %d; want a frame sent and no error", sent, p.TxErrors())
	}
}

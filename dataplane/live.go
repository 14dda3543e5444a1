//go:build linux

package dataplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/afpacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Defaults of LiveConfig.
const (
	DefaultLiveBlockSize    = 1 << 18 // bytes per ring block (256 KiB)
	DefaultLiveNumBlocks    = 16      // blocks per ring: 4 MiB per socket
	DefaultLiveBlockTimeout = time.Millisecond
	DefaultLivePollTimeout  = time.Millisecond
)

// ErrWorkers is returned by RunLive when the switch's workers do not match
// the ports' receive queues.
var ErrWorkers = errors.New("dataplane: workers do not match the live ports' queues")

// LiveConfig sets up a LivePort. The zero value is usable.
type LiveConfig struct {
	// Queues is the number of AF_PACKET sockets of the port, joined in one
	// hash fanout group, each read by a worker of its own; zero means 1.
	Queues int
	// BlockSize and NumBlocks size each socket's TPACKET_V3 ring; zero
	// means DefaultLiveBlockSize and DefaultLiveNumBlocks. BlockSize must be
	// a multiple of the page size.
	BlockSize, NumBlocks int
	// BlockTimeout is how long the kernel fills a ring block before it
	// hands it over partly filled: the added latency at low rates. Zero
	// means DefaultLiveBlockTimeout (the kernel counts milliseconds).
	BlockTimeout time.Duration
	// PollTimeout is how long a worker waits for the next block before it
	// processes a partial vector and checks for shutdown. Zero means
	// DefaultLivePollTimeout.
	PollTimeout time.Duration
	// NoPromiscuous leaves the interface's promiscuous mode alone; by
	// default every socket asks for it, as a switch port must receive
	// frames addressed to other stations.
	NoPromiscuous bool
}

// LivePort is a switch port on a network interface through AF_PACKET
// TPACKET_V3 rings (github.com/gopacket/gopacket/afpacket).
//
// # Receive
//
// The port has Queues sockets, one per worker, in a PACKET_FANOUT_HASH
// group, so the kernel keeps each flow (per direction) on one worker. A
// classic BPF filter on every socket drops frames of type PACKET_OUTGOING:
// the switch does not see its own transmissions nor what the host sends on
// the interface. A worker copies the frames of a ring block into a buffer
// of its own (one memcpy per frame, no allocation), up to VectorSize, and
// processes them as one vector. Frames that the kernel stripped a VLAN tag
// from get it back (afpacket.OptAddVLANHeader); afpacket allocates one
// ancillary record for each such frame, the only allocation on the path.
//
// # Transmit
//
// Each worker (and PacketOut) has a transmit queue of its own on the
// port: frames output while the worker processes a vector are copied into
// it and sent at the end of the vector with one sendmmsg(2) on the port's
// first socket.
// Transmit, for callers outside the switch, is one write(2) on it. The
// kernel serialises concurrent sends on a packet socket, so the queues
// and Transmit share it without a lock. A frame sent through a fanout member
// is not looped back to the group. Frames the kernel refuses for their
// own sake (larger than the MTU: disable GSO/TSO on peers that send large
// frames) are counted by TxErrors; those sent while the interface is down
// or gone, before the port watcher has told the port, by TxDropped.
//
// # Interfaces that go and come back
//
// When the interface is deleted, Detach closes the port's sockets and
// keeps the port (its number, its workers); Attach opens sockets on a new
// interface of the same name and the workers and queues move to them.
// The sockets in use are one atomic pointer, reference counted: a worker
// loads it once per read and a queue once per flush (no lock, no
// allocation), and replaced sockets are closed by their last user, so no
// read or send ever reaches a closed descriptor. WatchPorts reports when
// to call them (PortDeleted, PortAdded).
//
// # Namespaces
//
// Sockets belong to the network namespace of the thread that opens them:
// to switch between interfaces of another namespace, call OpenLivePort
// (and Attach) on a goroutine locked to an OS thread that entered it.
type LivePort struct {
	no   uint32 // OpenFlow port number: kept while the interface is away
	name string // interface name
	cfg  LiveConfig
	conn atomic.Pointer[liveConn] // the sockets; nil while detached or closed

	// mu serialises Attach, Detach and Close and guards the fields below.
	mu     sync.Mutex
	info   PortInfo // as read when the interface was (last) attached
	closed bool

	txErrs     atomic.Uint64
	txDropped  atomic.Uint64 // frames to send while detached
	rxDropsOld atomic.Uint64 // ring drops of sockets already closed
	attaches   atomic.Uint64 // successful Attach calls
}

// liveConn is the set of sockets of one attachment of a LivePort to its
// interface, shared by the port's workers and transmit queues under a
// reference count: the port holds one reference while the sockets are
// its current ones, and each reader or sender one while it uses them. The
// last reference released closes the sockets, so none is closed (and its
// descriptor number reused) while a worker polls or sends on it.
type liveConn struct {
	rx     []*afpacket.TPacket
	fds    []int       // socket of each rx (-1 if afpacket's fd could not be read)
	since  []time.Time // when each rx's filter was in place; see liveSource
	refs   atomic.Int64
	closed atomic.Bool
	port   *LivePort
}

// acquire returns the port's current sockets with a reference taken, or
// nil while the port is detached. Lock-free and allocation-free: a swap
// in between is noticed by the second load, and retried a bounded number
// of times (each retry means that the sockets were swapped again).
func (p *LivePort) acquire() *liveConn {
	for range 4 {
		c := p.conn.Load()
		if c == nil {
			return nil
		}
		c.refs.Add(1)
		if p.conn.Load() == c {
			return c
		}
		c.release()
	}
	return nil
}

// release drops a reference; the last one closes the sockets.
func (c *liveConn) release() {
	if c.refs.Add(-1) == 0 && c.closed.CompareAndSwap(false, true) {
		var drops uint64
		for _, tp := range c.rx {
			if _, s3, err := tp.SocketStats(); err == nil {
				drops += uint64(s3.Drops())
			}
			tp.Close()
		}
		c.port.rxDropsOld.Add(drops)
	}
}

var fanoutSeq atomic.Uint32

// OpenLivePort opens interface name as switch port number no, in the
// network namespace of the calling thread.
func OpenLivePort(name string, no uint32, cfg *LiveConfig) (*LivePort, error) {
	p := &LivePort{no: no, name: name}
	if cfg != nil {
		p.cfg = *cfg
	}
	c := &p.cfg
	if c.Queues <= 0 {
		c.Queues = 1
	}
	if c.BlockSize <= 0 {
		c.BlockSize = DefaultLiveBlockSize
	}
	if c.NumBlocks <= 0 {
		c.NumBlocks = DefaultLiveNumBlocks
	}
	if c.BlockTimeout <= 0 {
		c.BlockTimeout = DefaultLiveBlockTimeout
	}
	if c.PollTimeout <= 0 {
		c.PollTimeout = DefaultLivePollTimeout
	}
	if _, err := p.Attach(); err != nil {
		return nil, err
	}
	return p, nil
}

// ErrPortClosed is returned by Attach on a port that was closed.
var ErrPortClosed = errors.New("dataplane: live port closed")

// Attach opens new sockets on the interface of the port's name, in the
// network namespace of the calling thread, and makes them the port's:
// the port's workers (RunLive) and transmit queues move to them at their
// next read or send, without a pause of the other ports' workers, and the
// sockets it had before, if any, are closed once the last of them has
// moved. It returns the interface's description, numbered as the port.
// The new sockets have the same number of queues, fanout mode, BPF filter
// and promiscuous mode as the first ones. When the interface cannot be
// opened (the error unwraps to ErrNoInterface if it does not exist), the
// port keeps the sockets it had.
//
// Use it when an interface of the port's name appears again after it was
// deleted (a new ifindex): Open vSwitch re-attaches such a port the same
// way, under the same OpenFlow port number.
func (p *LivePort) Attach() (PortInfo, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return PortInfo{}, fmt.Errorf("port %q: %w", p.name, ErrPortClosed)
	}
	info, err := PortInfoByName(p.name)
	if err != nil {
		return PortInfo{}, err
	}
	info.No = p.no
	c := &p.cfg
	// Fanout ids are shared by the whole namespace: mix in the pid.
	group := uint16(os.Getpid()*131 + info.Index*7 + int(fanoutSeq.Add(1)))
	nc := &liveConn{port: p}
	nc.refs.Store(1)
	for q := range c.Queues {
		tp, err := afpacket.NewTPacket(afpacket.OptInterface(p.name), afpacket.TPacketVersion3,
			afpacket.OptFrameSize(2048), afpacket.OptBlockSize(c.BlockSize), afpacket.OptNumBlocks(c.NumBlocks),
			afpacket.OptBlockTimeout(c.BlockTimeout), afpacket.OptPollTimeout(c.PollTimeout),
			afpacket.OptAddVLANHeader(true))
		var since time.Time
		if err == nil {
			err = tp.SetBPF(noOutgoing)
			since = time.Now()
			if err == nil && c.Queues > 1 {
				err = tp.SetFanout(afpacket.FanoutHash, group)
			}
			if err == nil && !c.NoPromiscuous {
				err = tp.SetPromiscuous(true)
			}
			if err != nil {
				tp.Close()
			}
		}
		if err != nil {
			nc.release()
			return PortInfo{}, fmt.Errorf("port %q queue %d: afpacket: %w", p.name, q, err)
		}
		nc.rx = append(nc.rx, tp)
		nc.fds = append(nc.fds, socketFD(tp))
		nc.since = append(nc.since, since)
	}
	p.info = info
	p.install(nc)
	p.attaches.Add(1)
	return info, nil
}

// install makes c the port's sockets (nil: none) and drops the port's
// reference to those it had. Call it with mu held.
func (p *LivePort) install(c *liveConn) {
	if old := p.conn.Swap(c); old != nil {
		old.release()
	}
}

// Detach closes the port's sockets, as when its interface was deleted,
// and keeps the port: its number, its place in the switch and its
// workers, which wait (polling every PollTimeout) until Attach gives them
// sockets again; frames output to it meanwhile are dropped and counted by
// TxDropped. A socket still in use by a worker or a send is closed by it
// when it lets go, at the latest after its current vector or poll.
// Detaching a detached port does nothing.
func (p *LivePort) Detach() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.install(nil)
}

// Follow keeps the port on its interface as WatchPorts reports it (ev is
// an event of this port): PortDeleted detaches it; PortAdded attaches it
// to the new interface, and so does any later event while it is detached
// (an earlier Attach failed). A PortModified that finds the interface
// administratively up when it was down at the last attachment attaches it
// again too: a packet socket bound to an interface that is down should
// start receiving when the interface comes up, and does when the two
// happen one after the other, but in about one run in ten of the
// re-attach test (`ip link add` of a veth pair, then `ip link set up`,
// while the switch attaches on the first notification) the socket stayed
// unregistered (R 0 in /proc/net/packet) on Linux 6.18, cause not found;
// sockets opened once the interface is up receive.
// It returns whether it opened new sockets, and Attach's error. Call it
// from the network namespace of the interface (see Attach).
func (p *LivePort) Follow(ev PortEvent) (attached bool, err error) {
	switch {
	case ev.Reason == PortDeleted:
		p.Detach()
		return false, nil
	case ev.Reason == PortAdded || !p.Attached() || (ev.Info.AdminUp && !p.Info().AdminUp):
		if _, err := p.Attach(); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// Attached reports whether the port has sockets on an interface.
func (p *LivePort) Attached() bool { return p.conn.Load() != nil }

// Attaches returns how many times the port's sockets were opened: 1 after
// OpenLivePort, plus one for each successful Attach.
func (p *LivePort) Attaches() uint64 { return p.attaches.Load() }

// OpenLivePorts opens the interfaces names as ports 1..len(names), in
// order, each with cfg; on an error it closes those it opened.
func OpenLivePorts(names []string, cfg *LiveConfig) ([]*LivePort, error) {
	var ports []*LivePort
	for i, name := range names {
		p, err := OpenLivePort(name, uint32(i+1), cfg)
		if err != nil {
			for _, q := range ports {
				q.Close()
			}
			return nil, err
		}
		ports = append(ports, p)
	}
	return ports, nil
}

// LiveSwitchConfig returns a Config for a switch over ports: one worker
// per receive queue, the ports' numbers and the ports as their devices,
// as RunLive requires. The caller adds PacketIn and MAC table settings.
func LiveSwitchConfig(ports []*LivePort) Config {
	cfg := Config{Devices: make(map[uint32]Port, len(ports))}
	for _, p := range ports {
		cfg.Workers += p.Queues()
		cfg.Ports = append(cfg.Ports, p.no)
		cfg.Devices[p.no] = p
	}
	return cfg
}

// noOutgoing is a classic BPF program that drops frames of packet type
// PACKET_OUTGOING and accepts the others whole.
var noOutgoing = func() []bpf.RawInstruction {
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadExtension{Num: bpf.ExtType},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.PACKET_OUTGOING, SkipFalse: 1},
		bpf.RetConstant{Val: 0},
		bpf.RetConstant{Val: 0xffffffff},
	})
	if err != nil {
		panic(err) // a constant program
	}
	return prog
}()

// socketFD reads afpacket's socket descriptor, which it does not export,
// to clear a pending socket error (see clearError). -1 if it cannot.
func socketFD(tp *afpacket.TPacket) int {
	f := reflect.ValueOf(tp).Elem().FieldByName("fd")
	if !f.IsValid() || !f.CanInt() {
		return -1
	}
	return int(f.Int())
}

// Info returns the port's description as read when its interface was
// (last) attached.
func (p *LivePort) Info() PortInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info
}

// Queues returns the number of receive sockets (one per worker).
func (p *LivePort) Queues() int { return p.cfg.Queues }

// Transmit sends frame out of the interface, padded with zeros to
// minFrame bytes. Safe from any goroutine.
// While the port is detached, or its interface down, the frame is dropped
// and counted by TxDropped.
func (p *LivePort) Transmit(frame []byte) {
	c := p.acquire()
	if c == nil {
		p.txDropped.Add(1)
		return
	}
	if len(frame) < minFrame {
		var padded [minFrame]byte
		copy(padded[:], frame)
		frame = padded[:]
	}
	if err := c.rx[0].WritePacketData(frame); err != nil {
		p.countTxFailure(err)
	}
	c.release()
}

// countTxFailure counts a frame the kernel refused: as dropped when the
// port's interface is down (ENETDOWN) or gone (ENXIO, ENODEV), as while the
// port is detached, since the port watcher may not have heard of it yet;
// as a transmit error otherwise.
func (p *LivePort) countTxFailure(err error) {
	var e unix.Errno
	errors.As(err, &e) // 0, a transmit error, if err carries no errno
	p.countTxErrno(e)
}

// countTxErrno is countTxFailure for a system call's errno: a worker's
// flush of a vector counts its failures without making an error of each.
func (p *LivePort) countTxErrno(e unix.Errno) {
	switch e {
	case unix.ENETDOWN, unix.ENXIO, unix.ENODEV:
		p.txDropped.Add(1)
	default:
		p.txErrs.Add(1)
	}
}

// txQueue returns worker i's transmit queue on the port (queuedPort).
func (p *LivePort) txQueue(int) txQueue {
	return &liveQueue{p: p, buf: make([]byte, liveArena)}
}

// liveQueue is one worker's transmit queue on a LivePort: frames are
// copied into its buffer while the worker processes a vector and sent with
// one sendmmsg(2) at Flush, on the socket the port has then. Owned by the
// worker's goroutine; allocates nothing.
type liveQueue struct {
	p    *LivePort
	n    int // frames queued
	off  int // bytes of buf in use
	buf  []byte
	iov  [VectorSize]unix.Iovec
	msgs [VectorSize]unix.Mmsghdr
}

// minFrame is the shortest Ethernet frame without its FCS (IEEE 802.3):
// a NIC pads a shorter one with zeros before it goes on the wire, and a
// veth does not, so the live ports do it. A pop of a VLAN tag, MPLS label
// or PBB I-TAG makes a minimum-size frame shorter than this.
const minFrame = 60

// Transmit queues a copy of frame, padded with zeros to minFrame bytes.
func (q *liveQueue) Transmit(frame []byte) {
	n := max(len(frame), minFrame)
	if q.n == len(q.msgs) || n > len(q.buf)-q.off {
		q.Flush()
	}
	if len(frame) == 0 || n > len(q.buf) {
		q.p.txErrs.Add(1)
		return
	}
	c := copy(q.buf[q.off:], frame)
	if c < n {
		clear(q.buf[q.off+c : q.off+n])
		c = n
	}
	q.iov[q.n].Base = &q.buf[q.off]
	q.iov[q.n].SetLen(c)
	q.msgs[q.n].Hdr = unix.Msghdr{Iov: &q.iov[q.n], Iovlen: 1}
	q.n++
	q.off += c
}

// Flush sends the queued frames; a frame the kernel refuses is counted
// (countTxFailure) and the rest are still sent. While the port is
// detached they are dropped and counted by TxDropped.
func (q *liveQueue) Flush() {
	if q.n == 0 {
		return
	}
	c := q.p.acquire()
	switch {
	case c == nil:
		q.p.txDropped.Add(uint64(q.n))
	case c.fds[0] < 0: // afpacket's descriptor unknown: one write each
		for i := range q.n {
			if err := c.rx[0].WritePacketData(unsafe.Slice(q.iov[i].Base, q.iov[i].Len)); err != nil {
				q.p.countTxFailure(err)
			}
		}
	default:
		for sent := 0; sent < q.n; {
			r, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(c.fds[0]), uintptr(unsafe.Pointer(&q.msgs[sent])), uintptr(q.n-sent), 0, 0, 0)
			switch {
			case errno == unix.EINTR:
			case errno != 0:
				q.p.countTxErrno(errno)
				sent++
			default:
				sent += int(r)
			}
		}
	}
	if c != nil {
		c.release()
	}
	q.n, q.off = 0, 0
}

// TxErrors returns the number of frames Transmit failed to send.
func (p *LivePort) TxErrors() uint64 { return p.txErrs.Load() }

// TxDropped returns the number of frames output to the port while it
// was detached (its interface away) or its interface was down, which it
// dropped.
func (p *LivePort) TxDropped() uint64 { return p.txDropped.Load() }

// RxDrops returns the frames the kernel dropped because the rings were
// full, summed over the sockets, since the port was opened (sockets of
// earlier attachments included).
func (p *LivePort) RxDrops() uint64 {
	n := p.rxDropsOld.Load()
	c := p.acquire()
	if c == nil {
		return n
	}
	for _, tp := range c.rx {
		if _, s3, err := tp.SocketStats(); err == nil {
			n += uint64(s3.Drops())
		}
	}
	c.release()
	return n
}

// Close closes the port's sockets for good (Attach fails afterwards).
// Call it after RunLive returned.
func (p *LivePort) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.install(nil)
	return nil
}

// frameSource is what a worker reads frames from: a live port's queue,
// or a fake in tests. A source whose reads fail with afpacket.ErrPoll
// (a pending socket error, e.g. ENETDOWN when the link went down) may
// implement pollErrorClearer; the worker then clears the error instead of
// sleeping for a poll timeout.
type frameSource interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// pollErrorClearer clears the pending error of a source's socket.
type pollErrorClearer interface {
	clearPollError() error
}

// liveSource is queue q of a LivePort as a worker reads it: it follows
// the port's sockets across Attach and Detach, holding a reference to
// the set it reads so that the set stays open while the worker polls its
// ring. One atomic load per read notices a swap. Owned by one worker.
type liveSource struct {
	p    *LivePort
	q    int
	held *liveConn // nil while the port is detached
	// since, until a frame captured after it is read, is when the held
	// socket's filter was attached: afpacket binds a socket before the
	// filter can be set, and a frame the host sent on the interface in
	// between (an IPv6 router solicitation, say) would reach the ring
	// unfiltered.
	since time.Time
}

// ZeroCopyReadPacketData reads the next frame of the queue's current
// socket, skipping those captured before its filter was in place. While
// the port is detached it waits PollTimeout and returns
// afpacket.ErrTimeout.
func (s *liveSource) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	if s.p.conn.Load() != s.held {
		s.release()
		s.held = s.p.acquire()
		if s.held != nil {
			s.since = s.held.since[s.q]
		}
	}
	if s.held == nil {
		time.Sleep(s.p.cfg.PollTimeout)
		return nil, gopacket.CaptureInfo{}, afpacket.ErrTimeout
	}
	for {
		data, ci, err := s.held.rx[s.q].ZeroCopyReadPacketData()
		if err != nil || s.since.IsZero() {
			return data, ci, err
		}
		if !ci.Timestamp.Before(s.since) {
			s.since = time.Time{}
			return data, ci, err
		}
	}
}

// clearPollError clears the pending error of the socket read last.
func (s *liveSource) clearPollError() error {
	if s.held == nil {
		return nil
	}
	if fd := s.held.fds[s.q]; fd >= 0 {
		return clearError(fd)
	}
	return errNoFD
}

var errNoFD = errors.New("socket descriptor unknown")

// release lets go of the sockets read last (closing them if they are no
// longer the port's).
func (s *liveSource) release() {
	if s.held != nil {
		s.held.release()
		s.held = nil
	}
}

// liveArena is the buffer a worker copies one vector of frames into: room
// for a vector of full-size frames at the MTUs in use, and for any single
// frame a ring can hold (GSO frames up to 64 KiB).
const liveArena = 1 << 18

// RunLive runs the switch's workers on live ports until ctx ends, then
// waits for them and returns nil; it returns early with an error if a
// socket fails. Worker k reads queue q of port i, numbered in order
// (port 0's queues first), so the switch needs exactly as many workers as
// the ports have queues in total (ErrWorkers otherwise), and each port's
// number must be one of Config.Ports with the port as its Device. With no
// ports it just waits for ctx (PacketOut still works). Shutdown is
// noticed within the ports' PollTimeout. A port may be detached and
// attached again while RunLive runs (LivePort.Attach): its workers move
// to the new sockets, the other ports' workers go on undisturbed.
// RunLive starts no goroutine that outlives it; it must not run twice at
// once, nor with Replay.
func (s *Switch) RunLive(ctx context.Context, ports []*LivePort) error {
	total := 0
	for _, p := range ports {
		total += p.Queues()
		if i := s.index(p.no); i < 0 || s.devs[i] != Port(p) {
			return fmt.Errorf("run live: port %d (%s): not a device of the switch: %w", p.no, p.name, ErrWorkers)
		}
	}
	if len(ports) == 0 { // a switch with no ports: nothing to read
		<-ctx.Done()
		return nil
	}
	if total != len(s.workers) {
		return fmt.Errorf("run live: %d queues, %d workers: %w", total, len(s.workers), ErrWorkers)
	}
	var stop atomic.Bool
	halt := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer halt()
	errs := make([]error, total)
	var wg sync.WaitGroup
	k := 0
	for _, p := range ports {
		for q := range p.Queues() {
			w, i := s.workers[k], k
			wg.Go(func() {
				src := &liveSource{p: p, q: q}
				defer src.release()
				if err := w.runQueue(src, p.no, p.cfg.PollTimeout, &stop); err != nil {
					errs[i] = fmt.Errorf("port %d (%s) queue %d: %w", p.no, p.name, q, err)
					stop.Store(true)
				}
			})
			k++
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runQueue reads frames from src in vectors and processes them until stop.
func (w *Worker) runQueue(src frameSource, inPort uint32, poll time.Duration, stop *atomic.Bool) error {
	if w.arena == nil {
		w.arena = make([]byte, liveArena)
	}
	clearer, _ := src.(pollErrorClearer)
	v := &w.vec
	for !stop.Load() {
		off := 0
		v.N = 0
		for v.N < VectorSize {
			data, _, err := src.ZeroCopyReadPacketData()
			if err != nil {
				if err == afpacket.ErrTimeout {
					break
				}
				if err == afpacket.ErrPoll { // e.g. ENETDOWN when the link went down
					w.stats.RxErrors++
					if clearer == nil || clearer.clearPollError() != nil {
						time.Sleep(poll)
					}
					break
				}
				return err
			}
			if len(data) > len(w.arena)-off {
				if len(data) > len(w.arena) {
					w.stats.RxErrors++
					continue
				}
				w.Process(v)
				w.publish()
				off, v.N = 0, 0
			}
			n := copy(w.arena[off:], data)
			v.Frames[v.N] = w.arena[off : off+n : off+n]
			v.Link[v.N] = layers.LinkTypeEthernet
			v.InPort[v.N] = inPort
			v.N++
			off += n
		}
		if v.N > 0 {
			w.Process(v)
			w.publish()
		}
		// The next read may wait a poll timeout for frames.
		w.Quiesce()
	}
	for i := range v.Frames {
		v.Frames[i] = nil
	}
	return nil
}

// clearError reads and so clears the pending error of socket fd, which
// otherwise makes every poll return POLLERR.
func clearError(fd int) error {
	_, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	return err
}

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
	// processes a partial burst and checks for shutdown. Zero means
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
// of its own (one memcpy per frame, no allocation), up to BurstSize, and
// processes them as one burst. Frames that the kernel stripped a VLAN tag
// from get it back (afpacket.OptAddVLANHeader); afpacket allocates one
// ancillary record for each such frame, the only allocation on the path.
//
// # Transmit
//
// Each worker (and PacketOut) has a transmit queue of its own on the
// port: frames output during a burst are copied into it and sent at the
// end of the burst with one sendmmsg(2) on the port's first socket.
// Transmit, for callers outside the switch, is one write(2) on it. The
// kernel serialises concurrent sends on a packet socket, so the queues
// and Transmit share it without a lock. A frame sent through a fanout member
// is not looped back to the group. Failed sends (interface down, frame
// larger than the MTU: disable GSO/TSO on peers that send large frames)
// are counted by TxErrors.
//
// # Namespaces
//
// Sockets belong to the network namespace of the thread that opens them:
// to switch between interfaces of another namespace, call OpenLivePort
// on a goroutine locked to an OS thread that entered it.
type LivePort struct {
	info   PortInfo
	cfg    LiveConfig
	rx     []*afpacket.TPacket
	fds    []int // socket of each rx (-1 if afpacket's fd could not be read)
	txErrs atomic.Uint64
	once   sync.Once
}

var fanoutSeq atomic.Uint32

// OpenLivePort opens interface name as switch port number no.
func OpenLivePort(name string, no uint32, cfg *LiveConfig) (*LivePort, error) {
	p := &LivePort{}
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
	info, err := PortInfoByName(name)
	if err != nil {
		return nil, err
	}
	info.No = no
	p.info = info
	// Fanout ids are shared by the whole namespace: mix in the pid.
	group := uint16(os.Getpid()*131 + info.Index*7 + int(fanoutSeq.Add(1)))
	for q := range c.Queues {
		tp, err := afpacket.NewTPacket(afpacket.OptInterface(name), afpacket.TPacketVersion3,
			afpacket.OptFrameSize(2048), afpacket.OptBlockSize(c.BlockSize), afpacket.OptNumBlocks(c.NumBlocks),
			afpacket.OptBlockTimeout(c.BlockTimeout), afpacket.OptPollTimeout(c.PollTimeout),
			afpacket.OptAddVLANHeader(true))
		if err == nil {
			err = tp.SetBPF(noOutgoing)
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
			p.Close()
			return nil, fmt.Errorf("port %q queue %d: afpacket: %w", name, q, err)
		}
		p.rx = append(p.rx, tp)
		p.fds = append(p.fds, socketFD(tp))
	}
	return p, nil
}

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
		cfg.Ports = append(cfg.Ports, p.info.No)
		cfg.Devices[p.info.No] = p
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

// Info returns the port's description as read when it was opened.
func (p *LivePort) Info() PortInfo { return p.info }

// Queues returns the number of receive sockets (one per worker).
func (p *LivePort) Queues() int { return len(p.rx) }

// Transmit sends frame out of the interface. Safe from any goroutine.
func (p *LivePort) Transmit(frame []byte) {
	if len(p.rx) == 0 {
		p.txErrs.Add(1)
		return
	}
	if err := p.rx[0].WritePacketData(frame); err != nil {
		p.txErrs.Add(1)
	}
}

// txQueue returns worker i's transmit queue on the port (queuedPort).
func (p *LivePort) txQueue(int) txQueue {
	q := &liveQueue{p: p, fd: -1}
	if len(p.fds) > 0 && p.fds[0] >= 0 {
		q.fd, q.buf = p.fds[0], make([]byte, liveArena)
	}
	return q
}

// liveQueue is one worker's transmit queue on a LivePort: frames are
// copied into its buffer during a burst and sent with one sendmmsg(2) at
// Flush. Owned by the worker's goroutine; allocates nothing.
type liveQueue struct {
	p    *LivePort
	fd   int // the port's first socket; -1: send each frame with Transmit
	n    int // frames queued
	off  int // bytes of buf in use
	buf  []byte
	iov  [BurstSize]unix.Iovec
	msgs [BurstSize]unix.Mmsghdr
}

// Transmit queues a copy of frame.
func (q *liveQueue) Transmit(frame []byte) {
	if q.fd < 0 {
		q.p.Transmit(frame)
		return
	}
	if q.n == len(q.msgs) || len(frame) > len(q.buf)-q.off {
		q.Flush()
	}
	if len(frame) == 0 || len(frame) > len(q.buf) {
		q.p.txErrs.Add(1)
		return
	}
	c := copy(q.buf[q.off:], frame)
	q.iov[q.n].Base = &q.buf[q.off]
	q.iov[q.n].SetLen(c)
	q.msgs[q.n].Hdr = unix.Msghdr{Iov: &q.iov[q.n], Iovlen: 1}
	q.n++
	q.off += c
}

// Flush sends the queued frames; a frame the kernel refuses is counted
// in TxErrors and the rest are still sent.
func (q *liveQueue) Flush() {
	for sent := 0; sent < q.n; {
		r, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(q.fd), uintptr(unsafe.Pointer(&q.msgs[sent])), uintptr(q.n-sent), 0, 0, 0)
		switch {
		case errno == unix.EINTR:
		case errno != 0:
			q.p.txErrs.Add(1)
			sent++
		default:
			sent += int(r)
		}
	}
	q.n, q.off = 0, 0
}

// TxErrors returns the number of frames Transmit failed to send.
func (p *LivePort) TxErrors() uint64 { return p.txErrs.Load() }

// RxDrops returns the frames the kernel dropped because the rings were
// full, summed over the sockets, since the port was opened.
func (p *LivePort) RxDrops() uint64 {
	var n uint64
	for _, tp := range p.rx {
		if _, s3, err := tp.SocketStats(); err == nil {
			n += uint64(s3.Drops())
		}
	}
	return n
}

// Close closes the port's sockets. Call it after RunLive returned.
func (p *LivePort) Close() error {
	p.once.Do(func() {
		for _, tp := range p.rx {
			tp.Close()
		}
	})
	return nil
}

// frameSource is what a worker reads frames from: an afpacket socket, or
// a fake in tests.
type frameSource interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// liveArena is the buffer a worker copies one burst of frames into: room
// for a burst of full-size frames at the MTUs in use, and for any single
// frame a ring can hold (GSO frames up to 64 KiB).
const liveArena = 1 << 18

// RunLive runs the switch's workers on live ports until ctx ends, then
// waits for them and returns nil; it returns early with an error if a
// socket fails. Worker k reads queue q of port i, numbered in order
// (port 0's queues first), so the switch needs exactly as many workers as
// the ports have queues in total (ErrWorkers otherwise), and each port's
// number must be one of Config.Ports with the port as its Device. With no
// ports it just waits for ctx (PacketOut still works). Shutdown is noticed within the ports' PollTimeout. RunLive starts no
// goroutine that outlives it; it must not run twice at once, nor with
// Replay.
func (s *Switch) RunLive(ctx context.Context, ports []*LivePort) error {
	total := 0
	for _, p := range ports {
		total += p.Queues()
		if i := s.index(p.info.No); i < 0 || s.devs[i] != Port(p) {
			return fmt.Errorf("run live: port %d (%s): not a device of the switch: %w", p.info.No, p.info.Name, ErrWorkers)
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
				if err := w.runQueue(p.rx[q], p.fds[q], p.info.No, p.cfg.PollTimeout, &stop); err != nil {
					errs[i] = fmt.Errorf("port %d (%s) queue %d: %w", p.info.No, p.info.Name, q, err)
					stop.Store(true)
				}
			})
			k++
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runQueue reads frames from src in bursts and processes them until stop.
// fd is src's socket (for clearing errors), or -1.
func (w *Worker) runQueue(src frameSource, fd int, inPort uint32, poll time.Duration, stop *atomic.Bool) error {
	if w.arena == nil {
		w.arena = make([]byte, liveArena)
	}
	b := &w.burst
	for !stop.Load() {
		off := 0
		b.N = 0
		for b.N < BurstSize {
			data, _, err := src.ZeroCopyReadPacketData()
			if err != nil {
				if err == afpacket.ErrTimeout {
					break
				}
				if err == afpacket.ErrPoll { // e.g. ENETDOWN when the link went down
					w.stats.RxErrors++
					if fd < 0 || clearError(fd) != nil {
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
				w.Process(b)
				w.publish()
				off, b.N = 0, 0
			}
			n := copy(w.arena[off:], data)
			b.Frames[b.N] = w.arena[off : off+n : off+n]
			b.Link[b.N] = layers.LinkTypeEthernet
			b.InPort[b.N] = inPort
			b.N++
			off += n
		}
		if b.N > 0 {
			w.Process(b)
			w.publish()
		}
	}
	for i := range b.Frames {
		b.Frames[i] = nil
	}
	return nil
}

// clearError reads and so clears the pending error of socket fd, which
// otherwise makes every poll return POLLERR.
func clearError(fd int) error {
	_, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	return err
}

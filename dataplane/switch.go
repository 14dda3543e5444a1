package dataplane

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// Port is a switch port that can transmit frames. Replay needs none: the
// workers then only count what they would have sent.
type Port interface {
	// Transmit sends frame. frame is valid only during the call and must
	// not be retained; Transmit is called from worker goroutines.
	Transmit(frame []byte)
}

// queuedPort is a Port that gives each worker a transmit queue of its
// own: the worker hands it the frames output while it processes a vector
// and flushes it once at the end, so a port can send a vector's frames in
// one system call.
type queuedPort interface {
	Port
	// txQueue returns worker i's queue (i = Workers() for PacketOut's).
	txQueue(i int) txQueue
}

// txQueue is one worker's transmit queue; Transmit copies the frame.
type txQueue interface {
	Transmit(frame []byte)
	Flush()
}

// Packet-in reasons (enum ofp_packet_in_reason).
const (
	PacketInNoMatch    = 0 // OFPR_NO_MATCH: output to CONTROLLER by a table-miss entry
	PacketInAction     = 1 // OFPR_ACTION: output to CONTROLLER by any other entry
	PacketInInvalidTTL = 2 // OFPR_INVALID_TTL: dec_ttl or dec_mpls_ttl found TTL 0 or 1
)

// PacketIn is a frame a worker sends to the controller.
type PacketIn struct {
	Worker int
	InPort uint32
	Reason uint8
	Table  uint8  // table of the entry whose actions sent it; 0xff for the action set and PACKET_OUT
	Cookie uint64 // cookie of that entry (0xffffffffffffffff for the action set and PACKET_OUT, §7.4.1)
	MaxLen uint16 // OFPCML_NO_BUFFER or the number of bytes asked for (OFPCML_NO_BUFFER for PacketInInvalidTTL)
	Frame  []byte // valid only during the callback
	// Metadata and TunnelID are the packet's pipeline fields when it was
	// sent (OpenFlow 1.3.5 §7.4.1: context fields the frame cannot tell).
	Metadata, TunnelID uint64
}

// Config sets up a Switch. The zero value is usable: one worker, no
// ports, packet-ins counted but not delivered.
type Config struct {
	// Workers is the number of worker goroutines; zero means 1.
	Workers int
	// Ports lists the switch's port numbers, the targets of FLOOD and ALL
	// and the ports counted by PortStats. Outputs to other ports are
	// counted as Stats.NoPort.
	Ports []uint32
	// Devices optionally maps port numbers to real ports.
	Devices map[uint32]Port
	// PacketIn, if set, receives every packet-in, on the worker's
	// goroutine. It must not block for long nor keep the frame.
	PacketIn func(*PacketIn)
	// MACTableSize bounds the NORMAL action's learning table (entries);
	// zero means DefaultMACTableSize.
	MACTableSize int
	// MACAging is how long a learned address stays valid without being
	// seen again; zero means DefaultMACAging.
	MACAging time.Duration
	// Meters is the meter table the flow entries' meter instructions
	// name (see meter.go); its Controller meter, if any, meters the
	// packet-ins. Nil: no meters (the flow tables then refuse meter
	// instructions; see rules.Pipeline.SetMeterCheck).
	Meters *meters.Table
	// Groups is the group table that group actions use; nil means none
	// (a group action then drops, counted as Counters.GroupDrops). Bucket
	// liveness reads the ports' state (SetPortLive).
	Groups *groups.Table
}

// Switch classifies frames against a rules.Pipeline and applies the
// actions of the entries they match, on a fixed set of workers.
//
// # Concurrency
//
// Each Worker belongs to one goroutine at a time; the pipeline may be
// updated by its writer meanwhile (lookups never block on it). Stats and
// PortStats merge the workers' plain counters and must be called when no
// worker is running; Processed may be called at any time.
type Switch struct {
	pipe    *rules.Pipeline
	cfg     Config
	ports   []uint32
	portIdx []int32 // port number → index in ports, for numbers < len
	devs    []Port  // by port index (nil: count only)
	workers []*Worker

	portCfg  []atomic.Uint32 // by port index: PortNoRecv, PortNoFwd, PortNoPacketIn (SetPortConfig)
	portDown []atomic.Bool   // by port index: down for group liveness (SetPortLive)
	groups   *groups.Table

	start    time.Time // origin of the MAC table's clock
	macs     *macTable // NORMAL's learning table, shared by the workers
	meters   *meters.Table
	failOpen atomic.Bool // table misses go to NORMAL

	// pktMu guards the fields below.
	pktMu  sync.Mutex
	pktout *Worker // runs PACKET_OUT actions
	pktBuf []byte  // frame copy for output:TABLE
}

// NewSwitch returns a switch over p. It panics if p is nil.
func NewSwitch(p *rules.Pipeline, cfg *Config) *Switch {
	if p == nil {
		panic("dataplane: NewSwitch with nil pipeline")
	}
	s := &Switch{pipe: p, start: time.Now()}
	if cfg != nil {
		s.cfg = *cfg
	}
	s.macs = newMACTable(s.cfg.MACTableSize, s.cfg.MACAging)
	s.meters = s.cfg.Meters
	if s.cfg.Workers <= 0 {
		s.cfg.Workers = 1
	}
	maxPort := uint32(0)
	for _, pn := range s.cfg.Ports {
		if pn < 1<<16 {
			maxPort = max(maxPort, pn)
		}
	}
	s.portIdx = make([]int32, maxPort+1)
	for i := range s.portIdx {
		s.portIdx[i] = -1
	}
	for _, pn := range s.cfg.Ports {
		if s.index(pn) >= 0 {
			continue // duplicate
		}
		if pn < uint32(len(s.portIdx)) {
			s.portIdx[pn] = int32(len(s.ports))
		}
		s.ports = append(s.ports, pn)
		s.devs = append(s.devs, s.cfg.Devices[pn])
	}
	s.portCfg = make([]atomic.Uint32, len(s.ports))
	s.portDown = make([]atomic.Bool, len(s.ports))
	s.groups = s.cfg.Groups
	for i := range s.cfg.Workers {
		s.workers = append(s.workers, newWorker(s, i))
	}
	s.pktout = newWorker(s, len(s.workers))
	return s
}

// Port config bits (OpenFlow 1.3.5 §7.2.1, enum ofp_port_config, as
// OFPT_PORT_MOD sets them) that SetPortConfig takes.
const (
	PortNoRecv     uint32 = 1 << 2 // OFPPC_NO_RECV: drop every frame received on the port
	PortNoFwd      uint32 = 1 << 5 // OFPPC_NO_FWD: drop every frame output to the port
	PortNoPacketIn uint32 = 1 << 6 // OFPPC_NO_PACKET_IN: no packet-in for frames received on the port
)

// SetPortConfig sets the config bits of port number pn (other bits are
// ignored) and reports whether the switch has that port. It may be called
// at any time, from any goroutine: workers see the bits from their next
// frame on. Frames a port's config drops are counted as Counters.PortDrops
// (and still as received, for NO_RECV).
func (s *Switch) SetPortConfig(pn uint32, bits uint32) bool {
	i := s.index(pn)
	if i < 0 {
		return false
	}
	s.portCfg[i].Store(bits & (PortNoRecv | PortNoFwd | PortNoPacketIn))
	return true
}

// PortConfig returns the config bits of port number pn (0 for a port the
// switch lacks).
func (s *Switch) PortConfig(pn uint32) uint32 {
	if i := s.index(pn); i >= 0 {
		return s.portCfg[i].Load()
	}
	return 0
}

// index returns the index of port number pn in s.ports, or -1.
func (s *Switch) index(pn uint32) int {
	if pn < uint32(len(s.portIdx)) {
		return int(s.portIdx[pn])
	}
	for i, q := range s.ports {
		if q == pn {
			return i
		}
	}
	return -1
}

// all returns the workers and the PACKET_OUT worker.
func (s *Switch) all() []*Worker {
	return append(s.workers[:len(s.workers):len(s.workers)], s.pktout)
}

// Pipeline returns the pipeline the switch classifies against.
func (s *Switch) Pipeline() *rules.Pipeline { return s.pipe }

// Workers returns the number of workers.
func (s *Switch) Workers() int { return len(s.workers) }

// Worker returns worker i.
func (s *Switch) Worker(i int) *Worker { return s.workers[i] }

// Ports returns the switch's port numbers.
func (s *Switch) Ports() []uint32 { return s.ports }

// Processed returns the number of frames the workers have taken in so far.
// Safe to call while they run.
func (s *Switch) Processed() uint64 {
	var n uint64
	for _, w := range s.workers {
		n += w.processed.Load()
	}
	return n
}

// Stats returns the sum of the workers' counters.
func (s *Switch) Stats() Counters {
	var t Counters
	for _, w := range s.all() {
		t.Add(&w.stats)
		t.Parse.Add(&w.parser.Stats)
	}
	return t
}

// PortStats returns per-port counters summed over the workers, in the
// order of Ports.
func (s *Switch) PortStats() []PortStats {
	out := make([]PortStats, len(s.ports))
	for i, pn := range s.ports {
		out[i].Port = pn
		for _, w := range s.all() {
			c := &w.portc[i]
			out[i].RxPackets += c.RxPackets
			out[i].RxBytes += c.RxBytes
			out[i].TxPackets += c.TxPackets
			out[i].TxBytes += c.TxBytes
		}
	}
	return out
}

// PortStats are the counters of one port.
type PortStats struct {
	Port               uint32
	RxPackets, RxBytes uint64
	TxPackets, TxBytes uint64
}

// String formats c on one line.
func (c PortStats) String() string {
	return fmt.Sprintf("port %d: rx %d pkts %d bytes, tx %d pkts %d bytes", c.Port, c.RxPackets, c.RxBytes, c.TxPackets, c.TxBytes)
}

// Counters are a worker's counters of classification and actions (the
// parser's own counters are in Parse). Plain integers owned by one worker;
// Add merges them.
type Counters struct {
	Parse      Stats          // parser counters
	Lookup     rules.Counters // classifier counters (all tables)
	Packets    uint64         // frames parsed and classified
	Bytes      uint64         // their bytes (captured length)
	Misses     uint64         // lookups that found no entry (dropped, OpenFlow 1.3 default)
	MissTable0 uint64         // of which in table 0
	Hits       uint64         // lookups that found an entry
	Drops      uint64         // packets that left the pipeline with no output (or whose translation failed: XlateErrors)
	Outputs    uint64         // frames output to a port (FLOOD and ALL count each copy)
	NoPort     uint64         // outputs to a port number the switch does not have
	PacketIns  uint64         // frames sent to the controller
	TTLExpired uint64         // dec_ttl or dec_mpls_ttl at TTL ≤ 1: an OFPR_INVALID_TTL packet-in, the entry's actions stop
	Rewrites   uint64         // set_field, push/pop VLAN, MPLS and PBB, TTL actions applied
	Skipped    uint64         // actions that did not apply to the frame (e.g. pop_vlan without tag)
	Panics     uint64         // packets whose actions panicked (a bug; skipped)
	RxErrors   uint64         // live ports: socket errors (e.g. link down) and frames too large to take
	PortDrops  uint64         // frames a port's config dropped: received with NO_RECV, output to NO_FWD, packet-ins of NO_PACKET_IN
	MeterDrops uint64         // frames a meter's DROP band dropped (packet-ins too, by the Controller meter)
	GroupDrops uint64         // group actions that ran no bucket: no such group, no live bucket, chain too deep
	Resubmits  uint64         // resubmit actions that found an entry and ran it (and goto_table inside them)
	// XlateErrors counts the frames whose translation hit Open
	// vSwitch's resubmit limits (MaxResubmitDepth, MaxResubmits): the
	// translation stops there and the frame is dropped (counted in Drops
	// too), its outputs and packet-ins before the limit included.
	XlateErrors uint64
}

// Add adds o to s.
func (s *Counters) Add(o *Counters) {
	s.Parse.Add(&o.Parse)
	s.Lookup.Add(&o.Lookup)
	s.Packets += o.Packets
	s.Bytes += o.Bytes
	s.Misses += o.Misses
	s.MissTable0 += o.MissTable0
	s.Hits += o.Hits
	s.Drops += o.Drops
	s.Outputs += o.Outputs
	s.NoPort += o.NoPort
	s.PacketIns += o.PacketIns
	s.TTLExpired += o.TTLExpired
	s.Rewrites += o.Rewrites
	s.Skipped += o.Skipped
	s.Panics += o.Panics
	s.RxErrors += o.RxErrors
	s.PortDrops += o.PortDrops
	s.MeterDrops += o.MeterDrops
	s.GroupDrops += o.GroupDrops
	s.Resubmits += o.Resubmits
	s.XlateErrors += o.XlateErrors
}

// FalsePositiveRate returns the measured filter false-positive rate: false
// positives over the filter queries whose key was absent (negatives plus
// false positives); 0 if there were none.
func FalsePositiveRate(c *rules.Counters) float64 {
	n := c.FilterNegatives + c.FalsePositives
	if n == 0 {
		return 0
	}
	return float64(c.FalsePositives) / float64(n)
}

type portCounters struct {
	RxPackets, RxBytes uint64
	TxPackets, TxBytes uint64
}

// Worker parses, classifies and acts on vectors of frames. It is owned by
// one goroutine at a time and allocates nothing per frame.
type Worker struct {
	_ [64]byte // keep the counters off the previous allocation's line

	stats     Counters
	processed atomic.Uint64 // frames taken in; read by Switch.Processed

	_ [64]byte

	id     int
	sw     *Switch
	rd     *rules.Reader // the worker's lookups, announced to the pipeline
	parser *Parser
	portc  []portCounters // by port index; padded: see newWorker
	tables []tableCount   // by table; padded, read while the worker runs (TableCount)

	n       int                          // parsed frames of the current vector
	idx     [VectorSize]uint8            // vector slot of each parsed frame
	keys    [VectorSize]rules.Key        // key of each parsed frame (modified by actions)
	batch   [VectorSize]rules.Key        // keys looked up in one table
	bout    [VectorSize]*rules.Rule      // answers of one table
	bidx    [VectorSize]uint8            // parsed-frame index of each batch entry
	hits    [VectorSize]*rules.Rule      // table 0 answers, for Verdicts
	next    [VectorSize]uint8            // table to look up next (0xff: done)
	set     [VectorSize]actionSet        // write-actions
	pkt     [VectorSize]frameState       // frame bytes and offsets
	bufs    [VectorSize][]byte           // copy-on-write buffers
	version uint64                       // version of the last table-0 lookup
	vec     Vector                       // ReplayShard's vector
	pin     PacketIn                     // handed to Config.PacketIn
	rehdr   Headers                      // a frame re-parsed after an MPLS or PBB push or pop
	obs     LookupObserver               // told of each table-0 lookup, or nil (SetLookupObserver)
	obsc    rules.Counters               // counters of the observed lookup: a field, so that they do not escape per vector
	now     uint32                       // seconds since the switch started, read once per vector by NORMAL
	clock   bool                         // now is set for this vector
	mnow    int64                        // the meter table's clock, read once per vector by the first meter
	mclock  bool                         // mnow is set for this vector
	mact    rules.Action                 // a DSCP_REMARK band's rewrite, as a set_field
	open    bool                         // fail-open, read once per vector
	arena   []byte                       // live ports: the current vector's frames, copied out of the ring
	pub     published                    // counters readable while the worker runs
	devs    []Port                       // by port index: the switch's, or this worker's queue on it
	queues  []txQueue                    // queues to flush after each vector
	gsave   [MaxResubmitDepth]savedFrame // frames as the group actions at each translation depth found them; see group.go
	skips   uint64                       // frames stopped at a resubmit limit before a table's lookup (instrRun)
	dfr     bool                         // outputs and packet-ins are deferred (deferOut)
	dq      []deferred                   // the deferred ones, in the order their actions ran
	darena  []byte                       // frames' bytes as deferred outputs found them (frameState.snap)
}

func newWorker(s *Switch, id int) *Worker {
	w := &Worker{id: id, sw: s, rd: s.pipe.NewReader(), parser: NewParser()}
	// One extra cache line of counters on each side keeps neighbouring
	// workers' port counters apart.
	pc := make([]portCounters, len(s.ports)+4)
	w.portc = pc[2 : 2+len(s.ports)]
	w.tables = newTableCounts(s.pipe.NumTables())
	w.pub.port = make([]pubPort, len(s.ports))
	w.devs = make([]Port, len(s.devs))
	for i, d := range s.devs {
		w.devs[i] = d
		if qp, ok := d.(queuedPort); ok {
			q := qp.txQueue(id)
			w.devs[i] = q
			w.queues = append(w.queues, q)
		}
	}
	for i := range w.bufs {
		w.bufs[i] = make([]byte, 0, 2048)
	}
	if s.groups != nil {
		for i := range w.gsave {
			w.gsave[i].buf = make([]byte, 0, 2048)
		}
	}
	return w
}

// LookupObserver watches a worker's table-0 lookups: the replay
// laboratory (package replay) records their latency around bursts of rule
// updates through it.
//
// A worker without an observer pays for it a nil check before each
// LookupBatch. A worker with one reads the clock around its table-0
// LookupBatch and makes one interface call per vector; nothing is
// allocated either way.
type LookupObserver interface {
	// ObserveLookup is called on the worker's goroutine once per vector
	// with a frame to classify, right after its table-0 LookupBatch: the
	// lookup began at start and took d, for keys keys; c holds the
	// classifier counters of that lookup alone (they are added to the
	// worker's as well) and is valid only during the call. It must not
	// block.
	ObserveLookup(start time.Time, d time.Duration, keys int, c *rules.Counters)
}

// SetLookupObserver makes o the worker's lookup observer; nil removes it.
// Call it from the goroutine that owns the worker, not while it processes.
func (w *Worker) SetLookupObserver(o LookupObserver) { w.obs = o }

// Quiesce tells the pipeline that the worker holds none of the rules its
// lookups found (see rules.Reader), until its next Process: a pipeline
// that recycles the memory of removed rules may then reuse what was
// removed while the worker held it. Call it from the goroutine that owns
// the worker whenever it stops processing for a while: after each vector
// when frames may not come back at once, and before it returns. A worker
// that does not costs memory, not correctness.
func (w *Worker) Quiesce() { w.rd.Leave() }

// ID returns the worker's index.
func (w *Worker) ID() int { return w.id }

// Stats returns the worker's counters, its parser's included. Call it from
// the goroutine that owns the worker, or after it stopped.
func (w *Worker) Stats() Counters {
	c := w.stats
	c.Parse = w.parser.Stats
	return c
}

// Verdicts returns, for the last vector given to Process, the table-0
// answer of each parsed frame (nil: table miss), the vector slot of each,
// and the pipeline version those answers belong to. The slices and the
// rules are valid until the next Process or Quiesce.
func (w *Worker) Verdicts() (hits []*rules.Rule, slots []uint8, version uint64) {
	return w.hits[:w.n], w.idx[:w.n], w.version
}

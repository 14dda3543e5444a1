package controller

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ofswitch/ofswitch/internal/quietconn"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/tables"
)

// Config sets up an Agent. The zero value of every field means its default.
type Config struct {
	// DatapathID is reported in FEATURES_REPLY.
	DatapathID uint64
	// Tables is n_tables in FEATURES_REPLY; default 1.
	Tables uint8
	// EchoInterval is the inactivity probe: after this long without a
	// message the switch sends ECHO_REQUEST, and closes the connection
	// after as long again. Default 5 s.
	EchoInterval time.Duration
	// MaxBackoff bounds the reconnection delay of outgoing connections;
	// default 8 s (the delay starts at 100 ms and doubles).
	MaxBackoff time.Duration
	// Logger receives connection events; default slog.Default().
	Logger *slog.Logger
	// Ports are the switch's ports; nil for a switch without ports.
	Ports Ports
	// FlowTables holds the flow tables and is their only writer; nil
	// means a new one of Tables tables, the default (Bloom-Cuckoo) filter,
	// memory made ahead for a burst of BatchMax adds (at most
	// rules.MaxPrefaultRules; rules.Config.PrefaultRules) and the memory of removed rules reused
	// (rules.Config.Recycle: look rules up in it only through a
	// rules.Reader). Run runs its background work (tables.Owner.Run) and
	// sends the FLOW_REMOVED records of the flows it expires. The agent
	// reads the rules of the tables only inside tables.Owner.Read, so a
	// pipeline that recycles works. The tables the agent makes have a
	// meter table (meters.NewTable's defaults); a caller's FlowTables
	// meter if it was given one (tables.Owner.SetMeters).
	FlowTables *tables.Owner
	// StrictPorts refuses masked TCP/UDP/SCTP ports with OFPBMC_BAD_MASK,
	// as strict OpenFlow 1.3 requires; by default they are accepted, as
	// Open vSwitch accepts them. The flow tables check matches when a
	// burst is applied: the pipeline of a caller's FlowTables should have the
	// same StrictPorts in its rules.Config.
	StrictPorts bool
	// BatchMax is the most FLOW_MODs applied as one burst; default 1024.
	BatchMax int
	// BatchWait is how long the first queued FLOW_MOD may wait for more
	// before the burst is applied; default 1 ms.
	BatchWait time.Duration
	// OverlapBursts hands the burst of a client that has its next batch on
	// the way (one that pipelines, as ofswitch push does) to a goroutine
	// of the connection's own, which applies it while the connection
	// reads and translates the next batch. That pays where a processor is
	// to spare and waking a goroutine is cheap; where processors are few,
	// the two goroutine wake-ups of each hand-over cost more than the
	// overlap gains. Off by default: each burst is applied where it is
	// read.
	OverlapBursts bool
	// TableCounters, if set, returns the lookups and matches the data
	// plane counted for a table, for OFPMP_TABLE replies.
	TableCounters func(table uint8) (lookups, matched uint64)
	// TLS configures ssl: and pssl: targets: the switch's certificate and
	// the CA that controllers' certificates must chain to (mutual
	// authentication). It must be set to use them; the minimum version is
	// raised to TLS 1.3 whatever it says.
	TLS *tls.Config
	// BundleIdleTimeout discards a bundle that has seen no message for
	// this long, answering OFPBFC_TIMEOUT, as Open vSwitch does; default
	// 10 s, Open vSwitch's.
	BundleIdleTimeout time.Duration
	// BundleMaxMsgs bounds the messages of a connection's open bundles
	// together: one more is refused with OFPBFC_MSG_TOO_MANY and fails
	// its bundle. Default 262144 (a bundle of 100K flows fits).
	BundleMaxMsgs int
	// BundleMaxBytes bounds the messages of the open bundles of all
	// connections together, in bytes as they came: one more is refused
	// with OFPBFC_MSG_TOO_MANY and fails its bundle. A bundle holds its
	// messages about as large as they came (a FLOW_MOD may be 64 KB, so
	// BundleMaxMsgs alone does not bound memory). Default 32 MiB: a
	// bundle of 262,144 5-tuple flows is about 29 MB. Connections share
	// it: one may keep others' bundles out until its own are committed,
	// discarded or idle for BundleIdleTimeout.
	BundleMaxBytes int
	// WriteTimeout is how long a write may wait for the peer to take any
	// of it: a controller that stops reading is disconnected after it,
	// with a log line. Default 10 s (twice the default EchoInterval).
	WriteTimeout time.Duration
	// HandshakeTimeout bounds the TLS handshake of a connection accepted
	// on a pssl: target: a peer that has not completed it by then is
	// closed, so that connections that never speak cannot hold the
	// switch's descriptors. Default 10 s.
	HandshakeTimeout time.Duration
	// MaxConns bounds the connections accepted on the network passive
	// targets (ptcp:, pssl:, and any TCP listener given to Serve)
	// together: one more is accepted and closed at once, so that a flood
	// of connections cannot fill the listen backlog and keep a legitimate
	// client out for longer than the flood's own connections last; the
	// refusals are logged at most once a second, each line counting those
	// since the last. The limit protects the process, not other network
	// clients' access: peers that keep their connections alive (answering
	// the echo requests) keep their slots. A punix: socket is not counted:
	// only the switch's own user can connect to it, and it stays the way
	// in (ovs-ofctl unix:PATH) while a flood holds the network slots, as
	// Open vSwitch's management socket is.
	// Connections to active targets (tcp:, ssl:, unix:) are not counted:
	// there is one per target, as many as the configuration gives, and
	// ServeConn's are the caller's. Default 1024: far more than the
	// controllers and ovs-ofctl sessions a switch serves at once, and few
	// enough that idle connections hold about 50 MB at the most (48 KB
	// each, heap and stack: TestMaxConnsMemory) and leave the process
	// descriptors to spare (Go raises the soft limit to the hard one,
	// usually 524288 or more).
	MaxConns int
	// ReplyLimitTotal bounds the multipart replies (flow dumps and the
	// like) being written to all connections together, in bytes. A
	// connection writes one reply at a time, whose peer may take up to
	// WriteTimeout to read any of it: when the replies in flight pass the
	// limit, the connection whose peer has taken nothing of its reply for
	// the longest time (100 ms at least: a peer that reads is not
	// disconnected) is disconnected; never the one whose reply is
	// starting, so a single reply of any size goes out. Default 32 MiB: a
	// dump of about 300,000 5-tuple flows.
	ReplyLimitTotal int
	// AsyncLimit is the backlog of asynchronous messages (bytes) a
	// controller may leave unread before it is disconnected; default
	// 32 MiB (the FLOW_REMOVEDs of about 200,000 flows).
	AsyncLimit int
	// AsyncLimitTotal bounds the asynchronous backlog of all connections
	// together: when it is passed, the connection with the largest
	// backlog is disconnected. Default 64 MiB: a backlog holds about
	// twice its bytes (the queue and each message's buffer), and the
	// collector's headroom comes on top.
	AsyncLimitTotal int
	// PacketOut, if set, executes a PACKET_OUT: actions on frame as if it
	// had been received on inPort (openflow.PortController when the
	// message names none). Actions come translated to rules.Action
	// (output:TABLE = rules.PortTable runs the frame through the flow
	// tables). It is called on the connection's goroutine; an error is
	// answered as the OFPT_ERROR that openflow.ErrorFor derives. actions
	// and frame are the callee's: the agent does not reuse them. Without
	// it the switch behaves as one without ports: see packet.go.
	PacketOut func(inPort uint32, actions []rules.Action, frame []byte) error
	// FailMode is what happens when no controller of Run's active
	// (tcp:/ssl:) targets is connected: FailSecure (default) keeps the
	// flows and drops table misses, FailStandalone acts as a learning
	// switch. See the package documentation.
	FailMode FailMode
	// OnFailOpen, if set, is called with true when the switch enters
	// standalone fail-open operation (FailStandalone and no controller
	// connected for 3 x EchoInterval, as Open vSwitch does; also at start
	// when Run has no active targets) and with false when a controller
	// connects again. It is called from one goroutine of Run at a time.
	OnFailOpen func(open bool)
}

func (c *Config) withDefaults() Config {
	out := Config{}
	if c != nil {
		out = *c
	}
	if out.Tables == 0 {
		out.Tables = 1
	}
	if out.EchoInterval == 0 {
		out.EchoInterval = 5 * time.Second
	}
	if out.MaxBackoff == 0 {
		out.MaxBackoff = 8 * time.Second
	}
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	if out.BatchMax <= 0 {
		out.BatchMax = 1024
	}
	if out.BatchWait <= 0 {
		out.BatchWait = time.Millisecond
	}
	if out.BundleIdleTimeout <= 0 {
		out.BundleIdleTimeout = 10 * time.Second
	}
	if out.ReplyLimitTotal <= 0 {
		out.ReplyLimitTotal = 32 << 20
	}
	if out.BundleMaxBytes <= 0 {
		out.BundleMaxBytes = 32 << 20
	}
	if out.BundleMaxMsgs <= 0 {
		out.BundleMaxMsgs = 1 << 18
	}
	if out.WriteTimeout <= 0 {
		out.WriteTimeout = 10 * time.Second
	}
	if out.HandshakeTimeout <= 0 {
		out.HandshakeTimeout = 10 * time.Second
	}
	if out.MaxConns <= 0 {
		out.MaxConns = 1024
	}
	if out.AsyncLimit <= 0 {
		out.AsyncLimit = 32 << 20
	}
	if out.AsyncLimitTotal <= 0 {
		out.AsyncLimitTotal = 64 << 20
	}
	return out
}

// versions are what the agent offers in its HELLO: OpenFlow 1.3, and 1.4
// for bundles.
var versions = []uint8{openflow.Version13, openflow.Version14}

// Agent is the switch side of the OpenFlow channel.
//
// # Concurrency
//
// An Agent serves any number of connections at once, each on its own
// goroutine; its methods are safe for concurrent use.
type Agent struct {
	cfg Config
	// monMu guards nmon, the number of flow monitors of all connections
	// (and requests adding some): the flow tables record their changes
	// while it is not 0 (see monitor.go).
	monMu  sync.Mutex
	nmon   int
	tables *tables.Owner
	pipe   *rules.Pipeline // tables.Pipeline(), for its number of tables
	ofopt  ofrules.Options // the flow tables', for translating FLOW_MODs
	// tlv is the TLV table of the switch, shared by every connection
	// (ofopt.TLV points to it); see tlv.go.
	tlv ofrules.TLVTables

	// bufs holds what closed connections leave for new ones (see
	// connBufs).
	bufs sync.Pool // of *connBufs
	// handOffs counts the bursts connections gave their appliers.
	handOffs atomic.Uint64
	// queued is the asynchronous backlog of all connections, in bytes
	// (the sum of their qbytes).
	queued atomic.Int64
	// replies are the large replies being written (ReplyLimitTotal).
	replies replies
	// bundleBytes is the size of the open bundles' messages, all
	// connections together (Config.BundleMaxBytes).
	bundleBytes atomic.Int64

	// accepted counts the connections Serve serves on network
	// listeners, for MaxConns;
	// refused those it closed at once since the last log line, and
	// refusedLog is when that was (UnixNano).
	accepted   atomic.Int64
	refused    atomic.Uint64
	refusedLog atomic.Int64

	// live is a snapshot of conns for the asynchronous senders
	// (PacketIn, PortStatus), replaced whenever conns changes.
	live atomic.Pointer[[]*conn]
	// fail tracks the controllers of active targets; see failmode.go.
	fail failState

	// mu guards the fields below.
	mu          sync.Mutex
	conns       map[*conn]struct{}
	generation  uint64 // last generation_id seen in a master/slave request
	genDefined  bool
	configFlags uint16
}

// New returns an Agent; cfg may be nil for defaults.
func New(cfg *Config) (*Agent, error) {
	a := &Agent{
		cfg:   cfg.withDefaults(),
		conns: map[*conn]struct{}{},
	}
	if a.cfg.FailMode > FailStandalone {
		return nil, fmt.Errorf("controller: unknown fail mode %d", a.cfg.FailMode)
	}
	a.fail.init()
	a.tables = a.cfg.FlowTables
	if a.tables == nil {
		p, err := rules.New(&rules.Config{Tables: int(a.cfg.Tables), StrictPorts: a.cfg.StrictPorts, PrefaultRules: min(a.cfg.BatchMax, rules.MaxPrefaultRules), Recycle: true})
		if err != nil {
			return nil, fmt.Errorf("controller: %w", err)
		}
		a.tables = tables.New(p, nil)
		a.tables.SetMeters(defaultMeters())
	}
	a.pipe = a.tables.Pipeline()
	a.cfg.Tables = uint8(a.pipe.NumTables())
	a.ofopt = ofrules.Options{Tables: a.pipe.NumTables(), StrictPorts: a.cfg.StrictPorts, TLV: &a.tlv}
	return a, nil
}

// tlsConfig returns the TLS configuration for ssl: and pssl: targets:
// TLS 1.3, and the peer must present a certificate that the CA signed.
func (a *Agent) tlsConfig() *tls.Config {
	if a.cfg.TLS == nil {
		return nil
	}
	c := a.cfg.TLS.Clone()
	c.MinVersion = tls.VersionTLS13
	if c.ClientCAs != nil {
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return c
}

// FlowTables returns the flow tables the agent updates.
func (a *Agent) FlowTables() *tables.Owner { return a.tables }

// Conns returns the number of connections that completed the handshake.
func (a *Agent) Conns() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.conns)
}

// Overlapped returns the number of bursts connections handed to their
// appliers so far (Config.OverlapBursts). It may be called from any
// goroutine.
func (a *Agent) Overlapped() uint64 { return a.handOffs.Load() }

// Run serves every target until ctx is done: it listens on the passive ones
// and keeps a connection to each active one, reconnecting with backoff. It
// returns the first listen error, or nil after ctx is done and every
// connection has closed. The socket file of a punix: target is made
// owner-only (0600) before anyone can connect, replaces a dead process's
// socket but no other file, and is removed before Run returns.
func (a *Agent) Run(ctx context.Context, targets []Target) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { a.tables.Run(ctx, a.flowsRemoved) })
	active := 0
	for _, t := range targets {
		if !t.Passive {
			active++
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.failMonitor(ctx, active)
	}()
	errc := make(chan error, len(targets))
	for _, t := range targets {
		if t.TLS && a.tlsConfig() == nil {
			cancel()
			wg.Wait()
			return fmt.Errorf("%v: TLS target without a certificate, key and CA", t)
		}
		if t.Passive {
			l, err := listen(t)
			if err != nil {
				cancel()
				wg.Wait()
				return fmt.Errorf("listen %v: %w", t, err)
			}
			if t.TLS {
				l = tls.NewListener(l, a.tlsConfig())
			}
			a.cfg.Logger.Info("listening", "target", t.String(), "addr", l.Addr().String())
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer l.Close() // Serve leaves it open when it fails
				if err := a.Serve(ctx, l); err != nil {
					errc <- err
				}
			}()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.dialLoop(ctx, t)
		}()
	}
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// Accept's backoff after a transient error: it doubles from the first
// to the last, as net/http's Server does.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// Serve accepts connections on l until ctx is done, serving each on its own
// goroutine; it closes l and waits for the connections before it returns.
// Transient accept errors (out of descriptors, memory or buffers, a
// connection aborted before it was accepted, a timeout) are logged and
// retried after a backoff, so that a flood of connections cannot leave
// the switch without a listener; any other error ends Serve. A connection
// over Config.MaxConns (counted over every Serve of the Agent on a
// network listener; a Unix socket's are not counted) is closed as soon as
// it is accepted.
func (a *Agent) Serve(ctx context.Context, l net.Listener) error {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	defer wg.Wait()
	var backoff time.Duration
	counted := l.Addr().Network() != "unix"
	for {
		nc, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !transientAccept(err) {
				return fmt.Errorf("accept on %v: %w", l.Addr(), err)
			}
			backoff = min(max(2*backoff, acceptBackoffMin), acceptBackoffMax)
			a.cfg.Logger.Warn("accept failed", "addr", l.Addr().String(), "err", err, "retry_in", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if counted && a.accepted.Add(1) > int64(a.cfg.MaxConns) {
			a.accepted.Add(-1)
			nc.Close()
			a.logRefused(l)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if counted {
				defer a.accepted.Add(-1)
			}
			a.serveLogged(ctx, nc, false)
		}()
	}
}

// logRefused counts a connection closed for MaxConns and logs the ones
// not yet logged, at most once a second (a flood must not become one log
// line per connection).
func (a *Agent) logRefused(l net.Listener) {
	a.refused.Add(1)
	now := time.Now().UnixNano()
	last := a.refusedLog.Load()
	if now-last < int64(time.Second) || !a.refusedLog.CompareAndSwap(last, now) {
		return
	}
	a.cfg.Logger.Warn("connection refused: too many connections", "addr", l.Addr().String(),
		"max_conns", a.cfg.MaxConns, "refused", a.refused.Swap(0))
}

// transientAccept reports whether an Accept error may pass: a timeout, or
// a shortage of descriptors, memory or buffers, or a connection that
// went before it was accepted.
func transientAccept(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (a *Agent) serveLogged(ctx context.Context, nc net.Conn, active bool) {
	peer := nc.RemoteAddr().String()
	err := a.serveConn(ctx, nc, active)
	if err != nil && ctx.Err() == nil {
		a.cfg.Logger.Info("connection closed", "peer", peer, "err", err)
	}
}

// dialLoop keeps one connection to t until ctx is done.
func (a *Agent) dialLoop(ctx context.Context, t Target) {
	backoff := 100 * time.Millisecond
	var d net.Dialer
	for ctx.Err() == nil {
		var nc net.Conn
		var err error
		if t.TLS {
			td := tls.Dialer{NetDialer: &d, Config: a.tlsConfig()}
			nc, err = td.DialContext(ctx, "tcp", t.Addr())
		} else {
			nc, err = d.DialContext(ctx, t.Network(), t.Addr())
		}
		if err == nil {
			start := time.Now()
			a.serveLogged(ctx, nc, true)
			if time.Since(start) > a.cfg.MaxBackoff {
				backoff = 100 * time.Millisecond // it was up for a while
			}
		} else if ctx.Err() == nil {
			a.cfg.Logger.Debug("connect failed", "target", t.String(), "err", err, "retry_in", backoff)
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, a.cfg.MaxBackoff)
	}
}

// ServeConn runs the OpenFlow channel on nc until the peer closes it, a
// framing error or a dead peer ends it, or ctx is done. It closes nc.
func (a *Agent) ServeConn(ctx context.Context, nc net.Conn) error {
	return a.serveConn(ctx, nc, false)
}

// serveConn is ServeConn; active marks a connection to an active target,
// which counts for the fail mode.
func (a *Agent) serveConn(ctx context.Context, nc net.Conn, active bool) error {
	if tc, ok := nc.(*tls.Conn); ok {
		hctx, cancel := context.WithTimeout(ctx, a.cfg.HandshakeTimeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			nc.Close()
			return fmt.Errorf("TLS handshake: %w", err)
		}
	}
	c := newConn(a, quietconn.Wrap(nc))
	c.active = active
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	defer nc.Close()
	defer a.forget(c)
	defer c.dropBundles()
	err := c.serve()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func (a *Agent) register(c *conn) {
	a.mu.Lock()
	a.conns[c] = struct{}{}
	a.publishConns()
	a.mu.Unlock()
	if c.active {
		a.fail.connected(1)
	}
}

func (a *Agent) forget(c *conn) {
	c.dropQueue()
	c.dropMonitors()
	a.mu.Lock()
	_, was := a.conns[c]
	delete(a.conns, c)
	a.publishConns()
	a.mu.Unlock()
	if was && c.active {
		a.fail.connected(-1)
	}
}

// publishConns replaces the snapshot of conns; a.mu must be held.
func (a *Agent) publishConns() {
	cs := make([]*conn, 0, len(a.conns))
	for c := range a.conns {
		cs = append(cs, c)
	}
	a.live.Store(&cs)
}

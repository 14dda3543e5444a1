package controller

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// errDeadPeer ends a connection whose peer did not answer an echo request.
var errDeadPeer = errors.New("controller: peer did not answer echo request")

// conn is one OpenFlow connection. Its serve goroutine owns everything but
// the writer, which asynchronous messages (PACKET_IN, PORT_STATUS) share.
type conn struct {
	a       *Agent
	nc      net.Conn
	r       *openflow.Reader
	version uint8
	echoOut bool // an echo request of ours is unanswered

	// FLOW_MODs waiting to be applied as one burst; see flows.go.
	fm         openflow.FlowMod // a bundle's FLOW_MODs are decoded into it
	dec        *ofrules.Decoder // translates the FLOW_MODs read
	batch      []rules.Update
	batchReq   []pendingMod
	batchStart time.Time
	batchDue   time.Time // batchStart plus the batch wait: the burst is due then
	batchLks   uint64    // the data plane's lookup count at batchStart
	// res is the result of the connection's last burst, reused by the
	// next (by the connection or its applier, never both at once).
	res     rules.BurstResult
	bundles map[uint32]*bundle // open bundles by id; see bundle.go
	// bundleMsgs counts the messages of the open bundles (at most
	// Config.BundleMaxMsgs); readAt is when the serve loop last read from
	// the socket, a bundle's clock.
	bundleMsgs int
	// bundleUp is where a bundled FLOW_MOD is translated, to check it
	// (the bundle keeps the message).
	bundleUp rules.Update
	readAt   time.Time
	mp       []mpPartial // multipart requests in several parts; see multipart.go
	mon      monitors    // flow monitors; see monitor.go

	// The applier and the burst it has; see flows.go. job is the spare
	// applyJob, holding the queue of the applier's last burst.
	jobs      chan *applyJob
	jobDone   chan *applyJob
	job       *applyJob
	applying  bool
	applierWG sync.WaitGroup

	// a.mu guards role and async: other connections demote a master and
	// send FLOW_REMOVED according to async.
	role  uint32
	async openflow.AsyncConfig
	am    asyncMasks // role and async for PacketIn and PortStatus; see async.go

	active bool // a connection to an active target; see failmode.go

	// wmu guards the fields below.
	wmu sync.Mutex
	out progressWriter // every write goes through it
	w   *openflow.Writer
	xid uint32 // last xid of a switch-originated message

	// Asynchronous messages (FLOW_REMOVED, and later PACKET_IN and
	// PORT_STATUS) are queued for a writer goroutine, so that a controller
	// that reads slowly delays nobody but itself; one whose backlog passes
	// Config.AsyncLimit bytes is disconnected, as is the one with the
	// largest backlog when all of them pass Config.AsyncLimitTotal.
	qmu    sync.Mutex // guards q, qbytes, qmon and cut
	q      []queued
	qbytes int
	qmon   int           // bytes of flow monitor updates in q (see monitor.go's pause)
	cut    bool          // the backlog passed the limit: the connection is closing
	kick   chan struct{} // wakes the writer; capacity 1
	done   chan struct{} // closed when serve returns
}

// queued is an asynchronous message in a connection's queue; mon marks
// flow monitor updates, whose backlog pauses the connection's monitors.
type queued struct {
	b   []byte
	mon bool
}

// xidOf returns the xid of a message whose header has been read.
func xidOf(msg []byte) uint32 { return binary.BigEndian.Uint32(msg[4:]) }

// handler handles one message of a type; a returned error is answered with
// the OFPT_ERROR that openflow.ErrorFor derives from it.
type handler func(c *conn, msg []byte) error

// handlers is the dispatch table, indexed by message type. Types without a
// handler are answered with OFPBRC_BAD_TYPE.
var handlers = [256]handler{
	openflow.TypeHello:                 func(*conn, []byte) error { return nil }, // a late HELLO changes nothing
	openflow.TypeError:                 (*conn).onError,
	openflow.TypeEchoRequest:           (*conn).onEchoRequest,
	openflow.TypeEchoReply:             func(*conn, []byte) error { return nil },
	openflow.TypeExperimenter:          (*conn).onExperimenter,
	openflow.TypeFeaturesRequest:       (*conn).onFeaturesRequest,
	openflow.TypeGetConfigRequest:      (*conn).onGetConfigRequest,
	openflow.TypeSetConfig:             (*conn).onSetConfig,
	openflow.TypeBarrierRequest:        (*conn).onBarrierRequest,
	openflow.TypeRoleRequest:           (*conn).onRoleRequest,
	openflow.TypeGetAsyncRequest:       (*conn).onGetAsyncRequest,
	openflow.TypeSetAsync:              (*conn).onSetAsync,
	openflow.TypeMultipartRequest:      (*conn).onMultipartRequest,
	openflow.TypeQueueGetConfigRequest: (*conn).onQueueGetConfigRequest,
	openflow.TypeFlowMod:               (*conn).onFlowMod,
	openflow.TypePacketOut:             (*conn).onPacketOut,
	openflow.TypeBundleControl:         (*conn).onBundleControl,
	openflow.TypeBundleAddMessage:      (*conn).onBundleAdd,
	openflow.TypeTableMod:              (*conn).onTableMod,
	openflow.TypePortMod:               (*conn).onPortMod,
	openflow.TypeMeterMod:              (*conn).onMeterMod,
	openflow.TypeGroupMod:              (*conn).onGroupMod,
}

// stateChanging lists the types a slave may not send (OpenFlow 1.3.5
// §6.3.5): they are refused with OFPBRC_IS_SLAVE.
var stateChanging = [256]bool{
	openflow.TypePacketOut: true, openflow.TypeFlowMod: true, openflow.TypeGroupMod: true,
	openflow.TypePortMod: true, openflow.TypeTableMod: true, openflow.TypeMeterMod: true,
	openflow.TypeBundleControl: true, openflow.TypeBundleAddMessage: true,
}

func newConn(a *Agent, nc net.Conn) *conn {
	c := &conn{
		a:    a,
		nc:   nc,
		out:  progressWriter{nc: nc, timeout: a.cfg.WriteTimeout},
		role: openflow.RoleEqual,

		kick: make(chan struct{}, 1),
		done: make(chan struct{}),
		dec:  ofrules.NewDecoder(&a.ofopt),
	}
	c.w = openflow.NewWriter(&c.out)
	c.takeBufs(nc)
	// Default asynchronous configuration (OpenFlow 1.3.5 §7.3.10): for
	// master and equal, packet-in on no-match and action, every port
	// status and flow-removed reason; for a slave only port status.
	c.async.PacketInMask = [2]uint32{0b11, 0}
	c.async.PortStatusMask = [2]uint32{0b111, 0b111}
	c.async.FlowRemovedMask = [2]uint32{0b1111, 0}
	// OpenFlow 1.4 adds role status (every reason, every role).
	c.async.RoleStatusMask = [2]uint32{0b111, 0b111}
	c.syncAsync()
	c.am.missSendLen.Store(128) // OFP_DEFAULT_MISS_SEND_LEN
	return c
}

// send writes one message now.
func (c *conn) send(m openflow.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.w.WriteMessage(m); err != nil {
		return fmt.Errorf("send %v: %w", m.MsgHeader().Type, err)
	}
	return nil
}

// sendAsync queues an asynchronous message and reports whether it was
// queued. A backlog past the limit means the controller stopped reading:
// the connection is closed, which ends its serve loop.
func (c *conn) sendAsync(m openflow.Message) bool {
	b, err := m.AppendBinary(nil)
	if err != nil {
		c.a.cfg.Logger.Error("encode asynchronous message", "type", m.MsgHeader().Type, "err", err)
		return false
	}
	return c.enqueue(b)
}

// enqueue queues an encoded asynchronous message, which the writer only
// reads (several connections may share b), as sendAsync does.
func (c *conn) enqueue(b []byte) bool { return c.enqueueKind(b, false) }

// enqueueKind is enqueue of a flow monitor update when mon is set.
func (c *conn) enqueueKind(b []byte, mon bool) bool {
	c.qmu.Lock()
	if c.cut {
		c.qmu.Unlock()
		return false // disconnected already
	}
	over := c.qbytes+len(b) > c.a.cfg.AsyncLimit
	var total int64
	if !over {
		c.q = append(c.q, queued{b, mon})
		c.qbytes += len(b)
		if mon {
			c.qmon += len(b)
		}
		total = c.a.queued.Add(int64(len(b)))
	}
	c.qmu.Unlock()
	if over {
		c.disconnect("controller too slow: asynchronous backlog over the limit, disconnecting", "limit", c.a.cfg.AsyncLimit)
		return false
	}
	if total > int64(c.a.cfg.AsyncLimitTotal) {
		c.a.shed()
	}
	select {
	case c.kick <- struct{}{}:
	default: // the writer is already awake
	}
	return true
}

// dropQueue forgets c's asynchronous backlog and refuses any more, and
// reports whether it was the one to do so.
func (c *conn) dropQueue() bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if c.cut {
		return false
	}
	c.cut = true
	c.a.queued.Add(-int64(c.qbytes))
	clear(c.q)
	c.q, c.qbytes, c.qmon = nil, 0, 0
	return true
}

// monitorBacklog returns the bytes of flow monitor updates that c has
// queued and not yet written.
func (c *conn) monitorBacklog() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.qmon
}

// disconnect drops c's backlog and closes it, logging msg with the peer
// and args, unless it was dropped already.
func (c *conn) disconnect(msg string, args ...any) {
	if !c.dropQueue() {
		return
	}
	c.a.cfg.Logger.Warn(msg, append([]any{"peer", c.nc.RemoteAddr().String()}, args...)...)
	c.nc.Close()
}

// backlog returns c's asynchronous backlog in bytes.
func (c *conn) backlog() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.qbytes
}

// shed disconnects the connection with the largest asynchronous backlog,
// once the backlog of all of them passes Config.AsyncLimitTotal: the
// slowest controller goes, not the one that happened to be queued last.
func (a *Agent) shed() {
	cs := a.live.Load()
	if cs == nil {
		return
	}
	var worst *conn
	most := 0
	for _, c := range *cs {
		if n := c.backlog(); n > most {
			worst, most = c, n
		}
	}
	if worst != nil && a.queued.Load() > int64(a.cfg.AsyncLimitTotal) {
		worst.disconnect("controller too slow: asynchronous backlog of all controllers over the limit, disconnecting the largest",
			"backlog", most, "limit", a.cfg.AsyncLimitTotal)
	}
}

// asyncWriter writes queued asynchronous messages until serve returns.
func (c *conn) asyncWriter() {
	var batch []queued
	for {
		select {
		case <-c.done:
			return
		case <-c.kick:
		}
		c.qmu.Lock()
		batch, c.q = c.q, batch[:0]
		c.qmu.Unlock()
		for i, m := range batch {
			c.wmu.Lock()
			err := c.w.Flush()
			if err == nil {
				_, err = c.out.Write(m.b)
			}
			c.wmu.Unlock()
			c.qmu.Lock()
			drained := false
			if !c.cut { // dropQueue counted it out already
				c.qbytes -= len(m.b)
				c.a.queued.Add(-int64(len(m.b)))
				if m.mon {
					c.qmon -= len(m.b)
					drained = c.qmon == 0
				}
			}
			c.qmu.Unlock()
			batch[i] = queued{}
			if err != nil {
				c.nc.Close()
				return
			}
			if drained && c.mon.paused.Load() {
				c.resumeMonitors()
			}
		}
	}
}

// nextXID returns an xid for a message the switch starts.
func (c *conn) nextXID() uint32 {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.xid++
	return c.xid
}

// reply stamps m with the version and xid of the request it answers.
func (c *conn) reply(req []byte, m openflow.Message, t openflow.Type) error {
	h := m.MsgHeader()
	h.Version, h.Type, h.XID = c.version, t, binary.BigEndian.Uint32(req[4:])
	return c.send(m)
}

// sendError answers req with the OFPT_ERROR for err.
func (c *conn) sendError(req []byte, err error) error {
	var ct *ofrules.ConnTrackError
	if errors.As(err, &ct) {
		c.a.cfg.Logger.Warn("flow refused: connection tracking is not supported", "use", ct.What, "xid", xidOf(req))
	}
	var uf *ofrules.UnsupportedFieldError
	if errors.As(err, &uf) {
		c.a.cfg.Logger.Warn("flow refused: match field not supported", "field", uf.Field, "xid", xidOf(req))
	}
	em := openflow.ErrorFor(err, req)
	var src openflow.ErrorMsg
	if errors.As(err, &src) && src.Type == openflow.ErrTypeExperimenter {
		em.Experimenter = src.Experimenter
	}
	if c.version != 0 {
		em.Version = c.version
	}
	return c.send(&em)
}

// serve runs the handshake and then the message loop.
func (c *conn) serve() error {
	// Last of all, when no goroutine of the connection reads or applies
	// any more.
	defer c.releaseBufs()
	hello := openflow.NewHello(c.nextXID(), versions...)
	if err := c.send(&hello); err != nil {
		return err
	}
	c.nc.SetReadDeadline(time.Now().Add(2 * c.a.cfg.EchoInterval))
	msg, err := c.r.Next()
	if err != nil {
		return fmt.Errorf("read hello: %w", err)
	}
	if err := c.handshake(msg); err != nil {
		return err
	}
	c.a.register(c)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.asyncWriter()
	}()
	defer wg.Wait()
	defer close(c.done)
	defer c.stopApplier()
	// FLOW_MODs read before the connection ended still take effect, as
	// they would have had the controller sent a barrier; their errors
	// have nobody to go to.
	defer c.flush()
	// The read deadline is the earlier of the inactivity probe's (a
	// message, or an echo request of ours, restarts it) and the pending
	// burst's, the latter only when the next message is not buffered
	// whole: only a read from the socket can wait, and a batch that
	// arrives with its barrier in one read is applied before any. Re-arming
	// the deadline costs a timer update, and one that comes sooner may wake
	// a thread that waits in the network poller, so it is moved only when
	// it must come sooner; when it fires early, the loop finds nothing due
	// and arms it again.
	lastRead := time.Now()
	var (
		armed   time.Time
		reads   uint64 // c.r.Reads() when lastRead was taken
		probeAt = lastRead.Add(c.a.cfg.EchoInterval)
	)
	for {
		due := probeAt
		if len(c.batch) > 0 && c.batchDue.Before(due) && !c.r.Ready() {
			due = c.batchDue
		}
		if armed.IsZero() || due.Before(armed) {
			c.nc.SetReadDeadline(due)
			armed = due
		}
		msg, err := c.r.Next()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				armed = time.Time{}
				now := time.Now()
				if len(c.batch) > 0 && !now.Before(c.batchDue) {
					if err := c.flush(); err != nil {
						return err
					}
					continue
				}
				if err := c.expireBundles(now); err != nil {
					return err
				}
				if now.Sub(lastRead) < c.a.cfg.EchoInterval {
					continue // armed for something no longer due
				}
				if c.echoOut {
					return errDeadPeer
				}
				c.echoOut = true
				echo := openflow.EchoRequest{Header: openflow.Header{Version: c.version, XID: c.nextXID()}}
				if err := c.send(&echo); err != nil {
					return err
				}
				lastRead = now // the peer has as long again to answer
				probeAt = lastRead.Add(c.a.cfg.EchoInterval)
				continue
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			var de *openflow.DecodeError
			if errors.As(err, &de) {
				// The length field cannot be trusted: answer, then
				// close, since the stream cannot be resynchronised.
				c.sendError(nil, err)
				return fmt.Errorf("at stream offset %d: %w", c.r.Offset(), err)
			}
			return err
		}
		c.echoOut = false
		// The clock is read once per read from the socket, not once per
		// message: a read of a burst brings hundreds, and the inactivity
		// probe needs no finer time than that.
		if n := c.r.Reads(); n != reads {
			reads, lastRead = n, time.Now()
			probeAt = lastRead.Add(c.a.cfg.EchoInterval)
			c.readAt = lastRead
			if len(c.bundles) > 0 {
				if err := c.expireBundles(lastRead); err != nil {
					return err
				}
			}
		}
		if err := c.handle(msg); err != nil {
			return err
		}
	}
}

// handshake checks the peer's HELLO and settles the version.
func (c *conn) handshake(msg []byte) error {
	var peer openflow.Hello
	if openflow.Type(msg[1]) != openflow.TypeHello {
		err := openflow.ErrorMsg{Type: openflow.ErrTypeHelloFailed, Code: uint16(openflow.HelloFailedEPerm)}
		c.version = min(msg[0], versions[len(versions)-1])
		c.sendError(msg, err)
		return fmt.Errorf("handshake: first message is %v, not OFPT_HELLO", openflow.Type(msg[1]))
	}
	err := peer.UnmarshalBinary(msg)
	if err != nil && !errors.Is(err, openflow.ErrUnsupportedVersion) {
		c.version = versions[0]
		c.sendError(msg, err)
		return fmt.Errorf("handshake: %w", err)
	}
	var ours uint64
	for _, v := range versions {
		ours |= openflow.VersionBit(v)
	}
	var v uint8
	if err == nil {
		v, err = openflow.Negotiate(ours, &peer)
	} else {
		// A HELLO of version 0 offers no version at all: it fails as
		// one with no common version does (OFPHFC_INCOMPATIBLE,
		// OpenFlow 1.3.5 §6.3.1), not as a bad request.
		err = &openflow.DecodeError{Type: openflow.TypeHello, Field: "header.version", Err: openflow.ErrIncompatible}
	}
	if err != nil {
		c.version = versions[0]
		em := openflow.ErrorFor(err, msg)
		em.Version = versions[0]
		em.Data = fmt.Appendf(nil, "no common version: we speak 0x%02x..0x%02x, peer offers bitmap %#x",
			versions[0], versions[len(versions)-1], peer.Versions())
		c.send(&em)
		return fmt.Errorf("handshake: %w", err)
	}
	c.version = v
	return nil
}

// handle dispatches one message; it returns an error only when the
// connection cannot go on (a write failed).
func (c *conn) handle(msg []byte) error {
	t := openflow.Type(msg[1])
	if t == openflow.TypeBarrierRequest && len(c.batch) > 0 && c.pipelining() &&
		msg[0] == c.version && len(msg) == openflow.HeaderLen {
		// Apply the burst beside the next one's reading (see flows.go).
		return unwrapSend(c.handOff(msg))
	}
	if t != openflow.TypeFlowMod {
		// Everything else sees the effect of earlier FLOW_MODs.
		if err := c.flush(); err != nil {
			return err
		}
	}
	var err error
	switch h := handlers[t]; {
	case msg[0] != c.version && t != openflow.TypeHello && t != openflow.TypeError:
		err = openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadVersion)}
	case stateChanging[t] && c.isSlave():
		err = openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestIsSlave)}
	case h == nil:
		err = openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadType)}
	default:
		err = c.call(h, msg)
	}
	if err == nil {
		return nil
	}
	var sendErr *sendError
	if errors.As(err, &sendErr) {
		return sendErr.err
	}
	c.a.cfg.Logger.Debug("request refused", "peer", c.nc.RemoteAddr().String(), "type", t,
		"xid", binary.BigEndian.Uint32(msg[4:]), "err", err)
	// A FLOW_MOD refused as it is read follows the answers to the burst
	// the applier may have (the others waited for it in flush).
	if err := c.waitApplier(); err != nil {
		return unwrapSend(err)
	}
	return c.sendError(msg, err)
}

// call runs a handler; a panic in it is a bug, which is logged and
// answered as OFPBRC_EPERM so that one message cannot take the switch down.
func (c *conn) call(h handler, msg []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.a.cfg.Logger.Error("handler panic", "type", openflow.Type(msg[1]), "panic", p, "stack", string(debug.Stack()))
			err = openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestEPerm)}
		}
	}()
	return h(c, msg)
}

// isSlave reports whether the connection has the slave role; other
// connections change it when they become master (syncAsync, with the
// role, under the agent's lock). A message read while another
// connection's ROLE_REQUEST demotes this one is ordered with it either
// way, as it was when this read the role under the lock.
func (c *conn) isSlave() bool { return c.am.slave.Load() }

// sendError marks a failure to write, which ends the connection, as
// opposed to a refused request, which is answered.
type sendError struct{ err error }

func (e *sendError) Error() string { return e.err.Error() }

// unwrapSend returns the write error in err, a *sendError or nil.
func unwrapSend(err error) error {
	if se, ok := err.(*sendError); ok {
		return se.err
	}
	return err
}

// out wraps the result of a send so that handle can tell it apart.
func out(err error) error {
	if err != nil {
		return &sendError{err}
	}
	return nil
}

// headerOnly checks a request that is an ofp_header and nothing more.
func headerOnly(msg []byte) error {
	var req openflow.Empty
	if err := req.UnmarshalBinary(msg); err != nil {
		return err
	}
	if len(msg) != openflow.HeaderLen {
		return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadLen)}
	}
	return nil
}

func (c *conn) onError(msg []byte) error {
	var em openflow.ErrorMsg
	if err := em.UnmarshalBinary(msg); err != nil {
		return err
	}
	c.a.cfg.Logger.Info("peer sent error", "peer", c.nc.RemoteAddr().String(), "xid", em.XID, "error", em.Error())
	return nil
}

func (c *conn) onEchoRequest(msg []byte) error {
	var req openflow.EchoRequest
	if err := req.UnmarshalBinary(msg); err != nil {
		return err
	}
	rep := openflow.EchoReply{Data: req.Data}
	return out(c.reply(msg, &rep, openflow.TypeEchoReply))
}

func (c *conn) onExperimenter(msg []byte) error {
	if ok, err := c.onExperimenterBundle(msg); ok {
		return err
	}
	if c.version == openflow.Version13 && len(msg) >= 16 && binary.BigEndian.Uint32(msg[8:]) == openflow.ONFExperimenter &&
		binary.BigEndian.Uint32(msg[12:]) == openflow.ONFTypeFlowMonitor {
		return c.onFlowMonitorCancel(msg)
	}
	switch {
	case isNXMessage(msg, openflow.NXTypeTLVTableMod):
		return c.onTLVTableMod(msg)
	case isNXMessage(msg, openflow.NXTypeTLVTableRequest):
		return c.onTLVTableRequest(msg)
	case isNXMessage(msg, openflow.NXTypeTLVTableReply):
		// A message only a switch sends, as Open vSwitch answers it.
		return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadType)}
	}
	var m openflow.Experimenter
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadExperimenter)}
}

func (c *conn) onFeaturesRequest(msg []byte) error {
	if err := headerOnly(msg); err != nil {
		return err
	}
	rep := openflow.FeaturesReply{
		DatapathID: c.a.cfg.DatapathID,
		NTables:    c.a.cfg.Tables,
		// Queue statistics are answered (no port has queues).
		Capabilities: openflow.CapFlowStats | openflow.CapTableStats | openflow.CapPortStats |
			openflow.CapQueueStats | openflow.CapGroupStats,
	}
	if c.version >= openflow.Version14 {
		rep.Capabilities |= openflow.CapBundles
	}
	return out(c.reply(msg, &rep, openflow.TypeFeaturesReply))
}

func (c *conn) onGetConfigRequest(msg []byte) error {
	if err := headerOnly(msg); err != nil {
		return err
	}
	c.a.mu.Lock()
	rep := openflow.SwitchConfig{Flags: c.a.configFlags, MissSendLen: uint16(c.am.missSendLen.Load())}
	c.a.mu.Unlock()
	return out(c.reply(msg, &rep, openflow.TypeGetConfigReply))
}

func (c *conn) onSetConfig(msg []byte) error {
	var m openflow.SwitchConfig
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	if m.Flags&^openflow.ConfigFragMask != 0 || m.Flags&openflow.ConfigFragMask == openflow.ConfigFragReasm {
		// Unknown bits, or reassembly, which the switch does not do.
		return openflow.ErrorMsg{Type: openflow.ErrTypeSwitchConfigFailed, Code: uint16(openflow.SwitchConfigFailedBadFlags)}
	}
	// miss_send_len is per connection, as in Open vSwitch.
	c.a.mu.Lock()
	c.a.configFlags = m.Flags
	c.am.missSendLen.Store(uint32(m.MissSendLen))
	c.a.mu.Unlock()
	return nil
}

// onTableMod takes OFPT_TABLE_MOD (OpenFlow 1.3.5 §7.3.3, 1.4.1 §7.3.3):
// a table the switch has, or OFPTT_ALL, and a config that asks for nothing
// the tables lack. OpenFlow 1.3 defines no config bits (its two are
// deprecated and ignored); 1.4's eviction and vacancy events are refused
// with OFPTMFC_BAD_CONFIG, since no table evicts flows or reports vacancy
// (OFPMP_TABLE_DESC says so), and so are unknown bits. Properties, checked
// for framing by the codec, only qualify those two.
func (c *conn) onTableMod(msg []byte) error {
	var m openflow.TableMod
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	if m.TableID != openflow.TableAll && int(m.TableID) >= c.a.pipe.NumTables() {
		return openflow.ErrorMsg{Type: openflow.ErrTypeTableModFailed, Code: uint16(openflow.TableModFailedBadTable)}
	}
	if m.Config&^openflow.TableConfigDeprecatedMask != 0 {
		return openflow.ErrorMsg{Type: openflow.ErrTypeTableModFailed, Code: uint16(openflow.TableModFailedBadConfig)}
	}
	return nil
}

// onPortMod hands OFPT_PORT_MOD to the ports (see PortModder).
func (c *conn) onPortMod(msg []byte) error {
	var m openflow.PortMod
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	pm, ok := c.a.cfg.Ports.(PortModder)
	if !ok {
		return openflow.ErrorMsg{Type: openflow.ErrTypePortModFailed, Code: uint16(openflow.PortModFailedBadPort)}
	}
	return pm.ModPort(m.PortNo, m.HWAddr, m.Config, m.Mask, m.Advertise)
}

func (c *conn) onBarrierRequest(msg []byte) error {
	if err := headerOnly(msg); err != nil {
		return err
	}
	// Every earlier message of this connection has been handled by now:
	// the loop handles them in order and each takes effect before the
	// next is read.
	rep := openflow.Empty{}
	return out(c.reply(msg, &rep, openflow.TypeBarrierReply))
}

func (c *conn) onRoleRequest(msg []byte) error {
	var req openflow.Role
	if err := req.UnmarshalBinary(msg); err != nil {
		return err
	}
	a := c.a
	a.mu.Lock()
	switch req.Role {
	case openflow.RoleNoChange, openflow.RoleEqual:
	case openflow.RoleMaster, openflow.RoleSlave:
		// Generation ids compare with wraparound (OpenFlow 1.3.5 §6.3.5).
		if a.genDefined && int64(req.GenerationID-a.generation) < 0 {
			a.mu.Unlock()
			return openflow.ErrorMsg{Type: openflow.ErrTypeRoleRequestFailed, Code: uint16(openflow.RoleRequestFailedStale)}
		}
		a.generation, a.genDefined = req.GenerationID, true
	default:
		a.mu.Unlock()
		return openflow.ErrorMsg{Type: openflow.ErrTypeRoleRequestFailed, Code: uint16(openflow.RoleRequestFailedBadRole)}
	}
	var demoted []*conn
	if req.Role != openflow.RoleNoChange {
		if req.Role == openflow.RoleMaster {
			// There is one master: the others become slaves.
			for o := range a.conns {
				if o != c && o.role == openflow.RoleMaster {
					o.role = openflow.RoleSlave
					o.syncAsync()
					if o.async.RoleStatusMask[1]&(1<<openflow.RoleReasonMasterRequest) != 0 {
						demoted = append(demoted, o)
					}
				}
			}
		}
		c.role = req.Role
		c.syncAsync()
	}
	rep := openflow.Role{Role: c.role, GenerationID: a.generation}
	a.mu.Unlock()
	a.roleStatus(demoted, rep.GenerationID)
	return out(c.reply(msg, &rep, openflow.TypeRoleReply))
}

func (c *conn) onGetAsyncRequest(msg []byte) error {
	if err := headerOnly(msg); err != nil {
		return err
	}
	c.a.mu.Lock()
	rep := c.async
	c.a.mu.Unlock()
	rep.Props = openflow.AsyncPropsAll // used by the OpenFlow 1.4 form
	return out(c.reply(msg, &rep, openflow.TypeGetAsyncReply))
}

func (c *conn) onSetAsync(msg []byte) error {
	var m openflow.AsyncConfig
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	c.a.mu.Lock()
	c.setAsync(&m)
	c.syncAsync()
	c.a.mu.Unlock()
	return nil
}

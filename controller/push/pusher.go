package push

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// newPusher returns a pusher over nc with cfg's defaults filled in.
func newPusher(nc net.Conn, cfg *Config) *pusher {
	c := Config{}
	if cfg != nil {
		c = *cfg
	}
	if c.Batch <= 0 {
		c.Batch = 1024
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Window <= 0 {
		c.Window = 4
	}
	return &pusher{nc: nc, r: openflow.NewReader(nc, 0), w: openflow.NewWriter(nc), ctl: openflow.NewWriter(nc),
		cfg: &c, bundle: c.Bundle, enc: ofrules.Encoder{TLV: c.TLV}}
}

// push runs the handshake and pushes updates with Config.Mods among
// them, as Flows does.
func (p *pusher) push(ctx context.Context, updates []rules.Update) (*Result, error) {
	if err := checkMods(p.cfg.Mods, len(updates)); err != nil {
		return nil, err
	}
	p.src = &sliceSource{ups: updates, lines: p.cfg.Lines, mods: p.cfg.Mods}
	p.cfg.Importance = anyImportance(updates)
	return p.run(ctx)
}

// run runs the handshake and pushes the mods of p.src.
func (p *pusher) run(ctx context.Context) (*Result, error) {
	c := p.cfg
	if err := p.handshake(c.Bundle || c.Importance); err != nil {
		return nil, err
	}
	res := &Result{Version: p.version, ImportanceDropped: c.Importance && p.version < openflow.Version14}
	start := time.Now()
	// Each batch is encoded before the barrier replies it waits for: with
	// Window 1 the client encodes the next batch while the switch applies
	// this one.
	for {
		ok, err := p.prepare(res)
		if err != nil {
			if _, ok := err.(sourceError); ok {
				if derr := p.drain(res); derr != nil {
					err = derr
				}
			}
			return res, p.fail(ctx, err, p.sent)
		}
		if !ok {
			break
		}
		if !p.next.started {
			for len(p.inflight) >= c.Window {
				if err := p.await(res); err != nil {
					return res, p.fail(ctx, err, p.inflight[0].lo)
				}
			}
		}
		if err := p.send(); err != nil {
			return res, p.fail(ctx, err, p.next.lo)
		}
	}
	for len(p.inflight) > 0 {
		if err := p.await(res); err != nil {
			return res, p.fail(ctx, err, p.inflight[0].lo)
		}
	}
	res.Elapsed = time.Since(start)
	if res.Elapsed > 0 {
		res.PerSec = float64(p.sent) / res.Elapsed.Seconds()
	}
	res.ErrCount = len(res.Errors)
	latencyFigures(res, p.lat)
	return res, nil
}

// latencyFigures fills in res's percentiles and histogram from the barrier
// latencies (µs) of its batches, which it sorts: percentiles by rank as
// HdrHistogram defines them, the histogram with one bar per distinct value
// (HdrHistogram at 3 significant figures has a bar per µs below 2 ms).
// Sorting the few latencies of a push costs less than a histogram's
// thousands of counters.
func latencyFigures(res *Result, lat []int64) {
	n := len(lat)
	if n == 0 {
		return
	}
	slices.Sort(lat)
	rank := func(q float64) time.Duration {
		return time.Duration(lat[min(max(int(q*float64(n)+0.5), 1), n)-1]) * time.Microsecond
	}
	res.LatencyP50, res.LatencyP99 = rank(0.5), rank(0.99)
	res.LatencyMax = time.Duration(lat[n-1]) * time.Microsecond
	for i, v := range lat {
		if i > 0 && v == lat[i-1] {
			res.Histogram[len(res.Histogram)-1][1]++
			continue
		}
		res.Histogram = append(res.Histogram, [2]int64{v, 1})
	}
}

type pusher struct {
	nc       net.Conn
	r        *openflow.Reader
	w        *openflow.Writer // the next batch, encoded until send writes it
	ctl      *openflow.Writer // the handshake and echo replies
	cfg      *Config
	version  uint8
	xid      uint32
	next     *sentBatch   // the batch in w
	inflight []*sentBatch // oldest first
	free     []*sentBatch // batches done, for the next ones
	bundle   bool         // Config.Bundle
	bundleID uint32       // of the last bundle opened
	lat      []int64      // barrier latency of each batch, µs
	enc      ofrules.Encoder
	msg      []byte // a bundled FLOW_MOD, encoded before its bundle add message

	src     Source
	chunk   []Msg // the source's, from pos on not encoded yet
	pos     int
	srcDone bool // the source said io.EOF
	sent    int  // messages encoded: the number of the next
	flows   int  // of which flows: the Error.Index of the next
	mods    int  // and group and meter mods
}

// sentBatch is a batch whose barrier reply has not arrived yet. Its
// messages are numbered as they go out, flows, groups and meters alike.
type sentBatch struct {
	lo      int       // number of its first message
	first   uint32    // xid of its first FLOW_MOD (or group or meter mod)
	barrier uint32    // xid of its BARRIER_REQUEST, or of its bundle's commit
	open    uint32    // xid of its bundle's open request (Bundle)
	n       int       // its messages
	refused int       // of which the switch refused so far
	t0      time.Time // when send began writing it
	refs    []msgRef  // its messages, for their errors
	// started is set when a part of the batch went out before it was
	// all encoded (see flushLen); it is then in flight already.
	started bool
}

// msgRef names a message of a batch in its errors.
type msgRef struct {
	where string
	file  string // with line, where where is empty (Msg.File)
	line  int
	index int // Error.Index
	typ   openflow.Type
}

// name returns where the message came from ("" if unknown).
func (r *msgRef) name() string {
	if r.where == "" && r.line > 0 {
		return r.file + ":" + strconv.Itoa(r.line)
	}
	return r.where
}

// flushLen is the most bytes of a batch that wait for the rest of it in
// the writer: a batch of more (--batch 0 of a large file) goes out in
// pieces of flushLen as it is encoded, so that its memory is bounded.
// Batches of a few thousand flows go out in one write. A variable for
// the tests.
var flushLen = 4 << 20

// fail names the batch (by its first message, lo) a failure happened in,
// with the context's error if the caller cancelled.
func (p *pusher) fail(ctx context.Context, err error, lo int) error {
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return fmt.Errorf("batch at message %d: %w", lo+1, err)
}

// checkMods checks that mods go with n updates: each a group or a meter
// mod, in order, before an update or after the last.
func checkMods(mods []Mod, n int) error {
	for i := range mods {
		m := &mods[i]
		switch {
		case (m.Group == nil) == (m.Meter == nil):
			return fmt.Errorf("push: mod %d is not one group or one meter mod", i+1)
		case m.Before < 0 || m.Before > n || i > 0 && m.Before < mods[i-1].Before:
			return fmt.Errorf("push: mod %d goes before update %d: out of order or range", i+1, m.Before)
		}
	}
	return nil
}

func (p *pusher) handshake(want14 bool) error {
	ours := openflow.VersionBit(openflow.Version13)
	h := openflow.NewHello(0, openflow.Version13)
	if want14 {
		ours |= openflow.VersionBit(openflow.Version14)
		h = openflow.NewHello(0, openflow.Version13, openflow.Version14)
	}
	if err := p.ctl.WriteMessage(&h); err != nil {
		return err
	}
	p.nc.SetReadDeadline(time.Now().Add(p.cfg.Timeout))
	msg, err := p.r.Next()
	if err != nil {
		return fmt.Errorf("read HELLO: %w", err)
	}
	var peer openflow.Hello
	if err := peer.UnmarshalBinary(msg); err != nil {
		return fmt.Errorf("switch HELLO: %w", err)
	}
	v, err := openflow.Negotiate(ours, &peer)
	if err != nil {
		return fmt.Errorf("switch does not speak OpenFlow 1.3 (offers %#x)", peer.Versions())
	}
	p.version = v
	return nil
}

// anyImportance reports whether an ADD among updates has an importance,
// which only OpenFlow 1.4 carries: push then offers 1.4 as well as 1.3.
func anyImportance(updates []rules.Update) bool {
	for i := range updates {
		if updates[i].Importance != 0 && updates[i].Command == rules.CmdAdd {
			return true
		}
	}
	return false
}

// bundleFlags are the flags of push's bundles.
const bundleFlags = openflow.BundleAtomic | openflow.BundleOrdered

// more reports whether the source has a message left, asking it for more
// when the chunk in hand is done.
func (p *pusher) more() (bool, error) {
	for p.pos >= len(p.chunk) {
		if p.srcDone {
			return false, nil
		}
		c, err := p.src.Next()
		if err == io.EOF {
			p.srcDone, p.chunk = true, nil
			return false, nil
		}
		if err != nil {
			return false, sourceError{err}
		}
		p.chunk, p.pos = c, 0
	}
	return true, nil
}

// sourceError is an error of the Source.
type sourceError struct{ err error }

func (e sourceError) Error() string { return e.err.Error() }
func (e sourceError) Unwrap() error { return e.err }

// drain waits for the replies of the batches in flight, after the source
// failed: the Result then counts what the switch applied. A batch whose
// first part went out and whose rest cannot come is left without its
// barrier (its bundle uncommitted, discarded when the connection closes).
func (p *pusher) drain(res *Result) error {
	if n := len(p.inflight); n > 0 && p.inflight[n-1].barrier == ^uint32(0) {
		p.inflight = p.inflight[:n-1]
	}
	for len(p.inflight) > 0 {
		if err := p.await(res); err != nil {
			return err
		}
	}
	return nil
}

// newBatch returns a batch, one done before if there is one.
func (p *pusher) newBatch() *sentBatch {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		*b = sentBatch{refs: b.refs[:0]}
		return b
	}
	return &sentBatch{}
}

// prepare encodes the next batch, up to Batch messages of the source, and
// a barrier into w; with Bundle, the bundle of them, atomic and ordered:
// its open request, each message in a bundle add message of the same xid
// (as OpenFlow 1.4.1 §7.3.9.6 requires), and its commit request. It
// reports false when the source has nothing left. A batch longer than
// flushLen starts going out as it is encoded, once fewer than Window
// batches are in flight (awaiting their replies into res).
func (p *pusher) prepare(res *Result) (bool, error) {
	if ok, err := p.more(); !ok || err != nil {
		return false, err
	}
	b := p.newBatch()
	b.lo = p.sent
	if p.bundle {
		p.bundleID++
		p.xid++
		b.open = p.xid
		open := openflow.BundleControl{Header: openflow.Header{Version: p.version, XID: p.xid},
			BundleID: p.bundleID, Type: openflow.BundleOpenRequest, Flags: bundleFlags}
		if err := p.w.Append(&open); err != nil {
			return false, err
		}
	}
	b.first = p.xid + 1
	for b.n < p.cfg.Batch {
		if ok, err := p.more(); err != nil {
			return false, err
		} else if !ok {
			break
		}
		m := &p.chunk[p.pos]
		p.pos++
		p.xid++
		ref, err := p.encode(m)
		if err != nil {
			return false, err
		}
		b.refs = append(b.refs, ref)
		b.n++
		p.sent++
		if p.w.Buffered() >= flushLen {
			if err := p.flushPart(b, res); err != nil {
				return false, err
			}
		}
	}
	p.xid++
	b.barrier = p.xid
	if p.bundle {
		commit := openflow.BundleControl{Header: openflow.Header{Version: p.version, XID: p.xid},
			BundleID: p.bundleID, Type: openflow.BundleCommitRequest, Flags: bundleFlags}
		if err := p.w.Append(&commit); err != nil {
			return false, err
		}
	} else {
		br := openflow.NewBarrierRequest(p.xid)
		br.Version = p.version
		if err := p.w.Append(&br); err != nil {
			return false, err
		}
	}
	p.next = b
	return true, nil
}

// encode writes message m, with xid p.xid, into w and counts it.
func (p *pusher) encode(m *Msg) (msgRef, error) {
	ref := msgRef{where: m.Where, file: m.File, line: m.Line}
	var err error
	switch {
	case m.Wire != nil && m.Flow == nil && m.Group == nil && m.Meter == nil:
		err = p.copyWire(m.Wire, &ref)
	case m.Flow != nil && m.Group == nil && m.Meter == nil && m.Wire == nil:
		ref.index, ref.typ = p.flows, openflow.TypeFlowMod
		err = p.encodeFlow(m.Flow)
		p.flows++
	case m.Group != nil && m.Meter == nil && m.Flow == nil && m.Wire == nil:
		ref.index, ref.typ = p.mods, openflow.TypeGroupMod
		err = p.encodeMod(m.Group, nil)
		p.mods++
	case m.Meter != nil && m.Group == nil && m.Flow == nil && m.Wire == nil:
		ref.index, ref.typ = p.mods, openflow.TypeMeterMod
		err = p.encodeMod(nil, m.Meter)
		p.mods++
	default:
		return ref, fmt.Errorf("message %d is not one flow, group or meter mod", p.sent+1)
	}
	if err != nil {
		what := ref.name()
		if what == "" {
			what = fmt.Sprintf("message %d", p.sent+1)
		}
		return ref, fmt.Errorf("encode %s: %w", what, err)
	}
	return ref, nil
}

// flushPart writes what w holds of batch b, the first time once fewer
// than Window batches are in flight; b is then in flight, its barrier
// xid unknown until prepare ends it.
func (p *pusher) flushPart(b *sentBatch, res *Result) error {
	if !b.started {
		for len(p.inflight) >= p.cfg.Window {
			if err := p.await(res); err != nil {
				return err
			}
		}
		b.started, b.t0, b.barrier = true, time.Now(), ^uint32(0)
		p.inflight = append(p.inflight, b)
	}
	return p.w.Flush()
}

// send writes the batch prepare encoded, in one write whatever its size:
// each write over loopback runs the receiving side's network stack and
// wakes the switch, which gained nothing from decoding a batch's first
// FLOW_MODs early. (Writing each 256-flow batch in growing pieces from
// 1 KiB on made its barrier latency higher, a median 1/0.85 times that of
// one write; commit b702ebd has the comparison.)
func (p *pusher) send() error {
	b := p.next
	if b.started {
		return p.w.Flush()
	}
	b.t0 = time.Now()
	if err := p.w.Flush(); err != nil {
		return err
	}
	p.inflight = append(p.inflight, b)
	return nil
}

// encodeFlow writes the FLOW_MOD of u, with xid p.xid, into w: straight
// into its buffer, or with Bundle inside a bundle add message. The encoder
// writes a flow that fits its template as a patched copy of it, and any
// other in full (see ofrules.Encoder).
func (p *pusher) encodeFlow(u *rules.Update) error {
	if !p.bundle {
		b, err := p.enc.Encode(p.w.Buffer(), u, p.version, p.xid)
		p.w.SetBuffer(b)
		return err
	}
	var err error
	if p.msg, err = p.enc.Encode(p.msg[:0], u, p.version, p.xid); err != nil {
		return err
	}
	add := openflow.BundleAddMessage{Header: openflow.Header{Version: p.version, XID: p.xid},
		BundleID: p.bundleID, Flags: bundleFlags, Message: p.msg}
	return p.w.Append(&add)
}

// copyWire writes msg, a message encoded before (Msg.Wire), into w with
// xid p.xid, and counts it as its type says in ref.
func (p *pusher) copyWire(msg []byte, ref *msgRef) error {
	if len(msg) < openflow.HeaderLen || int(binary.BigEndian.Uint16(msg[2:])) != len(msg) {
		return fmt.Errorf("encoded message of %d bytes is not one message", len(msg))
	}
	if p.bundle || msg[0] != p.version {
		return fmt.Errorf("encoded message of version %#x in a push of version %#x (bundled %v)", msg[0], p.version, p.bundle)
	}
	switch ref.typ = openflow.Type(msg[1]); ref.typ {
	case openflow.TypeFlowMod:
		ref.index = p.flows
		p.flows++
	case openflow.TypeGroupMod, openflow.TypeMeterMod:
		ref.index = p.mods
		p.mods++
	default:
		return fmt.Errorf("encoded message of type %v is not a flow, group or meter mod", ref.typ)
	}
	b := p.w.Reserve(len(msg))
	copy(b, msg)
	binary.BigEndian.PutUint32(b[4:], p.xid)
	return nil
}

// encodeMod writes the GROUP_MOD of g or the METER_MOD of m, with xid
// p.xid, into w: straight, or with Bundle inside a bundle add message.
func (p *pusher) encodeMod(g *groups.Mod, m *meters.Mod) error {
	var msg openflow.Message
	h := openflow.Header{Version: p.version, XID: p.xid}
	if g != nil {
		gm := ofrules.WireGroupMod(g)
		gm.Header = h
		msg = &gm
	} else {
		mm := ofrules.WireMeterMod(m)
		mm.Header = h
		msg = &mm
	}
	if !p.bundle {
		return p.w.Append(msg)
	}
	var err error
	if p.msg, err = msg.AppendBinary(p.msg[:0]); err != nil {
		return err
	}
	add := openflow.BundleAddMessage{Header: h, BundleID: p.bundleID, Flags: bundleFlags, Message: p.msg}
	return p.w.Append(&add)
}

// errorAt returns the *Error of message k of batch b.
func errorAt(b *sentBatch, k int, xid uint32, em openflow.ErrorMsg) *Error {
	ref := &b.refs[k]
	return &Error{Index: ref.index, Type: ref.typ, Where: ref.name(), XID: xid, Err: em}
}

// done records the end of the oldest batch in flight, and counts its
// messages in res.
func (p *pusher) done(res *Result) {
	b := p.inflight[0]
	p.lat = append(p.lat, max(time.Since(b.t0).Microseconds(), 1))
	p.inflight[0] = nil
	p.inflight = p.inflight[1:]
	res.Batches++
	for i := range b.refs {
		switch b.refs[i].typ {
		case openflow.TypeFlowMod:
			res.Flows++
		case openflow.TypeGroupMod:
			res.Groups++
		default:
			res.Meters++
		}
	}
	p.free = append(p.free, b)
}

// await reads until the barrier (or commit) reply of the oldest batch in
// flight, collecting errors (of any batch in flight) and answering echo
// requests.
func (p *pusher) await(res *Result) error {
	oldest := p.inflight[0]
	p.nc.SetReadDeadline(time.Now().Add(p.cfg.Timeout))
	for {
		msg, err := p.r.Next()
		if err != nil {
			return err
		}
		xid := xidOf(msg)
		switch openflow.Type(msg[1]) {
		case openflow.TypeBarrierReply:
			if xid == oldest.barrier && !p.bundle {
				p.done(res)
				return nil
			}
		case openflow.TypeBundleControl, openflow.TypeExperimenter:
			var bc openflow.BundleControl
			if p.bundle && bc.UnmarshalBinary(msg) == nil && bc.Type == openflow.BundleCommitReply && xid == oldest.barrier {
				p.done(res)
				return nil
			}
		case openflow.TypeError:
			var em openflow.ErrorMsg
			if err := em.UnmarshalBinary(msg); err != nil {
				return err
			}
			if p.bundle {
				for _, b := range p.inflight {
					if xid == b.open {
						return fmt.Errorf("switch refused to open a bundle (xid %d): %s", xid, em.Error())
					}
				}
				if b := p.inflight[0]; xid == b.barrier {
					pe := errorAt(b, 0, xid, em)
					pe.Commit, pe.Flows = true, b.n
					res.Errors = append(res.Errors, pe)
					res.NotApplied += b.n - b.refused
					p.done(res)
					return nil
				}
			}
			b, k, ok := p.flowOf(xid)
			if !ok {
				return fmt.Errorf("switch error for xid %d outside the batches in flight: %s", xid, em.Error())
			}
			res.Errors = append(res.Errors, errorAt(b, k, xid, em))
			res.NotApplied++
			b.refused++
		case openflow.TypeEchoRequest:
			var req openflow.EchoRequest
			if err := req.UnmarshalBinary(msg); err != nil {
				return err
			}
			rep := openflow.EchoReply{Header: req.Header, Data: bytes.Clone(req.Data)}
			rep.Type = openflow.TypeEchoReply
			if err := p.ctl.WriteMessage(&rep); err != nil {
				return err
			}
		}
	}
}

// flowOf returns the batch in flight of the message of xid, and its
// place in the batch.
func (p *pusher) flowOf(xid uint32) (*sentBatch, int, bool) {
	for _, b := range p.inflight {
		if xid >= b.first && xid < b.barrier && int(xid-b.first) < len(b.refs) {
			return b, int(xid - b.first), true
		}
	}
	return nil, 0, false
}

func xidOf(msg []byte) uint32 { return binary.BigEndian.Uint32(msg[4:]) }

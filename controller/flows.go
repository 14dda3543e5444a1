package controller

import (
	"fmt"
	"net"
	"time"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// A connection queues the FLOW_MODs it reads and applies them to the flow
// tables as one burst when a BARRIER_REQUEST (or any other message but a
// FLOW_MOD) arrives, when the batch reaches Config.BatchMax, or when its
// first update has waited Config.BatchWait. Updates keep their order; each
// failure is answered with the xid of its own FLOW_MOD. A burst is
// published to lookups at once, so a BARRIER_REPLY, which follows the burst,
// leaves only after every earlier update is visible.
//
// A client that pipelines (ofswitch push, which keeps several batches in
// flight) has the next batch's FLOW_MODs on the wire while a burst is
// applied. With Config.OverlapBursts the burst then goes to the
// connection's applier goroutine, with the BARRIER_REQUEST that ended it,
// and the connection goes on reading and translating the next batch
// meanwhile: the applier answers the burst's failures and then the
// barrier, in that order, and at most one burst is with it at a time.
// Everything else is done on the connection's goroutine once the applier
// is idle (flush), so that every other message, and every reply, sees and
// follows the effect of the FLOW_MODs before it, as without the applier.
// When the applier is idle and nothing more has been read, the burst is
// applied where it is: a client that waits for each barrier reply gains
// nothing from the hand-over but a wake-up in the latency of its batch.
// Without OverlapBursts every burst is applied where it is: the two
// wake-ups of a hand-over cost more than the overlap gains where
// processors are few.

// pendingMod is a queued FLOW_MOD: its translation and the first bytes of
// the request, for the error reply.
type pendingMod struct {
	req [64]byte
	n   int
}

// connBufs is what a closed connection leaves for the next one: its
// Reader's buffer, its FLOW_MOD queue and its burst result. A queue of
// BatchMax updates is large, and growing one for every connection would
// cost a short-lived one more than its burst; and memory the process has
// not touched yet costs a page fault a page when first written (tens of
// microseconds a page in some virtual machines), a dozen of them in the first
// batch of a new connection otherwise.
type connBufs struct {
	r    *openflow.Reader
	ups  []rules.Update
	reqs []pendingMod
	res  rules.BurstResult
}

// takeBufs gives the connection, reading nc, the buffers of a closed one,
// or new ones.
func (c *conn) takeBufs(nc net.Conn) {
	b, ok := c.a.bufs.Get().(*connBufs)
	if !ok {
		c.r = openflow.NewReader(nc, 0)
		return
	}
	b.r.Reset(nc)
	c.r, c.batch, c.batchReq, c.res = b.r, b.ups, b.reqs, b.res
}

// releaseBufs hands the connection's buffers on to the next connection,
// once nothing reads them any more: the connection's loop has ended and
// its last burst has been applied.
func (c *conn) releaseBufs() {
	clear(c.batch[:cap(c.batch)]) // drop references to instructions
	clear(c.res.Errs[:cap(c.res.Errs)])
	clear(c.res.Removed[:cap(c.res.Removed)])
	c.r.Reset(nil)
	c.a.bufs.Put(&connBufs{r: c.r, ups: c.batch[:0], reqs: c.batchReq[:0],
		res: rules.BurstResult{Errs: c.res.Errs[:0], Removed: c.res.Removed[:0]}})
	c.r, c.batch, c.batchReq, c.res = nil, nil, nil, rules.BurstResult{}
}

// onFlowMod queues the update of a FLOW_MOD, or returns the error to
// answer it with.
func (c *conn) onFlowMod(msg []byte) error {
	// The update is translated in place, at the end of the queue: a
	// FLOW_MOD of the connection's usual shape on the decoder's fast path,
	// any other on its full path.
	// Every element of c.batch past its length is zero (flush,
	// waitApplier, releaseBufs and the error below clear what they drop):
	// the update is decoded into the next one as it is, not zeroed again.
	if n := len(c.batch); n < cap(c.batch) {
		c.batch = c.batch[:n+1]
	} else {
		c.batch = append(c.batch, rules.Update{})
	}
	u := &c.batch[len(c.batch)-1]
	if err := c.dec.Decode(u, msg); err != nil {
		*u = rules.Update{}
		c.batch = c.batch[:len(c.batch)-1]
		return err
	}
	if len(c.batch) == 1 {
		c.batchStart, c.batchLks = time.Now(), c.a.tables.Lookups()
		c.batchDue = c.batchStart.Add(c.a.cfg.BatchWait)
	}
	c.batchReq = append(c.batchReq, pendingMod{})
	p := &c.batchReq[len(c.batchReq)-1]
	p.n = copy(p.req[:], msg)
	if len(c.batch) >= c.a.cfg.BatchMax {
		if c.pipelining() {
			return c.handOff(nil)
		}
		return c.flush()
	}
	return nil
}

// flush applies the queued FLOW_MODs as one burst and answers failures,
// after the burst the applier has, if any: when it returns, every FLOW_MOD
// read so far has taken effect and been answered.
func (c *conn) flush() error {
	if err := c.waitApplier(); err != nil {
		return err
	}
	if len(c.batch) == 0 {
		return nil
	}
	err := c.applyBurst(c.batch, c.batchReq, c.batchStart, c.batchLks)
	clear(c.batch) // drop references to instructions
	c.batch, c.batchReq = c.batch[:0], c.batchReq[:0]
	return err
}

// applyBurst applies ups as one burst, answers each failure with the
// request in reqs at its index and sends the FLOW_REMOVED records of the
// rules it deleted. A write that fails is returned as a *sendError; the
// burst has taken effect all the same.
func (c *conn) applyBurst(ups []rules.Update, reqs []pendingMod, start time.Time, lks uint64) error {
	res := &c.res
	// The burst is published whole, by one atomic store after its last
	// update, not update by update: a lookup sees the tables as before
	// the burst or after it, and the burst pays one publication, not one
	// per update (OpenFlow orders nothing between barriers; the barrier
	// reply still follows the publication).
	c.a.tables.Apply(res, ups, true, start, lks)
	var werr error
	for i, err := range res.Errs {
		if err != nil && werr == nil {
			p := &reqs[i]
			werr = c.sendError(p.req[:p.n], ofrules.WireError(err))
		}
	}
	c.a.flowsRemoved(res.Removed)
	c.a.flowsChanged(c, func(i int) uint32 { return xidOf(reqs[i].req[:]) }, res.Version, res.Changes)
	if werr != nil {
		return &sendError{werr}
	}
	return nil
}

// applyJob is a burst with the applier: the queue it was read into, and
// the BARRIER_REQUEST to answer after it, if one ended it.
type applyJob struct {
	ups        []rules.Update
	reqs       []pendingMod
	start      time.Time
	lks        uint64
	barrier    [openflow.HeaderLen]byte
	hasBarrier bool
	err        error // what answering the burst ran into, a *sendError
}

// pipelining reports whether a burst goes to the applier: with
// Config.OverlapBursts, when the client has the next burst on its way,
// some of it read already, or when the applier still has the burst before
// (a client that waits for each barrier reply before it sends the next
// batch would not have sent this one before that reply).
func (c *conn) pipelining() bool {
	return c.a.cfg.OverlapBursts && (c.applying || c.r.Buffered() > 0)
}

// handOff gives the queued FLOW_MODs to the applier as one burst, followed
// by the reply to barrier (a well-formed BARRIER_REQUEST) if it is not
// nil, and takes the queue of the applier's last burst for the next
// FLOW_MODs. It waits until the applier is done with the burst before.
func (c *conn) handOff(barrier []byte) error {
	if err := c.waitApplier(); err != nil {
		return err
	}
	if c.jobs == nil {
		c.jobs, c.jobDone = make(chan *applyJob), make(chan *applyJob, 1)
		c.applierWG.Add(1)
		go func() {
			defer c.applierWG.Done()
			c.applier()
		}()
	}
	j := c.job
	if j == nil {
		j = new(applyJob)
	}
	c.job = nil
	// The connection goes on with the queue of the burst before.
	j.ups, c.batch = c.batch, j.ups[:0]
	j.reqs, c.batchReq = c.batchReq, j.reqs[:0]
	j.start, j.lks = c.batchStart, c.batchLks
	j.hasBarrier = barrier != nil
	copy(j.barrier[:], barrier)
	c.jobs <- j
	c.applying = true
	c.a.handOffs.Add(1)
	return nil
}

// waitApplier waits until the applier has answered the burst it has, if
// any, and returns the error it ran into.
func (c *conn) waitApplier() error {
	if !c.applying {
		return nil
	}
	j := <-c.jobDone
	c.applying = false
	clear(j.ups) // drop references to instructions
	j.ups, j.reqs = j.ups[:0], j.reqs[:0]
	err := j.err
	j.err = nil
	c.job = j
	return err
}

// applier applies the bursts handOff gives it, one at a time, until
// stopApplier.
func (c *conn) applier() {
	for j := range c.jobs {
		j.err = c.applyBurst(j.ups, j.reqs, j.start, j.lks)
		if j.err == nil && j.hasBarrier {
			rep := openflow.Empty{}
			j.err = out(c.reply(j.barrier[:], &rep, openflow.TypeBarrierReply))
		}
		c.jobDone <- j
	}
}

// stopApplier waits for the applier's burst and ends the applier.
func (c *conn) stopApplier() {
	if c.jobs == nil {
		return
	}
	c.waitApplier()
	close(c.jobs)
	c.applierWG.Wait()
	c.jobs = nil
}

// flowsRemoved sends OFPT_FLOW_REMOVED for each record to every connection
// whose role and asynchronous configuration ask for it (OpenFlow 1.3.5
// §7.4.2, §6.1.1).
func (a *Agent) flowsRemoved(rs []rules.FlowRemoved) {
	if len(rs) == 0 {
		return
	}
	a.mu.Lock()
	var targets []*conn
	for c := range a.conns {
		targets = append(targets, c)
	}
	a.mu.Unlock()
	for _, r := range rs {
		d := r.Duration.Nanoseconds()
		m := openflow.FlowRemoved{
			Cookie: r.Rule.Cookie, Priority: r.Rule.Priority, Reason: uint8(r.Reason),
			TableID: r.Rule.Table(), DurationSec: uint32(d / 1e9), DurationNsec: uint32(d % 1e9),
			IdleTimeout: r.Rule.IdleTimeout, HardTimeout: r.Rule.HardTimeout,
			PacketCount: r.Packets, ByteCount: r.Bytes, Match: ofrules.WireMatchTLV(&r.Rule.Match, a.tlv.Load()),
		}
		for _, c := range targets {
			a.mu.Lock()
			mask := c.async.FlowRemovedMask[0]
			if c.role == openflow.RoleSlave {
				mask = c.async.FlowRemovedMask[1]
			}
			a.mu.Unlock()
			if mask&(1<<r.Reason) == 0 {
				continue
			}
			m.Version, m.XID = c.version, 0
			c.sendAsync(&m)
		}
	}
}

// selectRules calls fn, in lookup order, for each rule an OFPMP_FLOW or
// OFPMP_AGGREGATE request selects (OpenFlow 1.3.5 §7.3.5.2): in the given
// table or all, whose match the request's covers, that output to out_port
// and use out_group when those are set, and whose cookie agrees under
// cookie_mask. fn runs inside tables.Owner.Read: a pipeline that recycles
// may reuse a rule's memory for another flow in the next burst, so nothing
// of a rule is read after selectRules returns.
func (a *Agent) selectRules(fr *openflow.FlowStatsRequest, fn func(*rules.Rule)) error {
	n := a.pipe.NumTables()
	if fr.TableID != 0xff && int(fr.TableID) >= n {
		return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadTableID)}
	}
	var m rules.Match
	if err := ofrules.Match(&m, &fr.Match, &ofrules.Options{TLV: &a.tlv}); err != nil {
		return err
	}
	a.tables.Read(func(p *rules.Pipeline) {
		for id := range n {
			if fr.TableID != 0xff && int(fr.TableID) != id {
				continue
			}
			for _, r := range p.Rules(uint8(id)) {
				if !r.CoveredBy(&m, rules.Ranges{}) ||
					r.Cookie&fr.CookieMask != fr.Cookie&fr.CookieMask ||
					(fr.OutPort != openflow.PortAny && !r.OutputsTo(fr.OutPort)) ||
					(fr.OutGroup != openflow.GroupAny && !r.UsesGroup(fr.OutGroup)) {
					continue
				}
				fn(r)
			}
		}
	})
	return nil
}

func (c *conn) onFlowStats(msg []byte, req *openflow.MultipartRequest) error {
	now := time.Now().UnixNano()
	// Each flow is encoded as it is listed: the reply holds its wire
	// bytes (about 100 per flow), not a FlowStats per flow as well,
	// while it waits for a slow reader.
	w := openflow.NewFlowReplyWriter(nil, openflow.Header{Version: c.version, XID: xidOf(msg)}, 0)
	if err := c.a.selectRules(&req.Flow, func(r *rules.Rule) {
		fs := ofrules.FlowStatsTLV(r, now, c.a.tlv.Load())
		w.Add(&fs)
	}); err != nil {
		return err
	}
	b, err := w.Bytes()
	if err != nil {
		return fmt.Errorf("encode %v reply: %w", openflow.MultipartFlow, err)
	}
	return c.sendReply(b)
}

func (c *conn) onAggregateStats(msg []byte, req *openflow.MultipartRequest) error {
	rep := &openflow.MultipartReply{Part: openflow.MultipartAggregate}
	if err := c.a.selectRules(&req.Flow, func(r *rules.Rule) {
		rep.Aggregate.PacketCount += r.Packets()
		rep.Aggregate.ByteCount += r.Bytes()
		rep.Aggregate.FlowCount++
	}); err != nil {
		return err
	}
	return out(c.reply(msg, rep, openflow.TypeMultipartReply))
}

func (c *conn) onTableStats(msg []byte) error {
	a := c.a
	rep := &openflow.MultipartReply{Part: openflow.MultipartTable}
	a.tables.Read(func(p *rules.Pipeline) {
		for id := range p.NumTables() {
			// Inside Read no burst is half applied: the table's flows
			// are those visible at the published version, counted
			// without listing (and sorting) them.
			ts := openflow.TableStats{TableID: uint8(id), ActiveCount: uint32(p.Table(uint8(id)).Stats().Flows)}
			if a.cfg.TableCounters != nil {
				ts.LookupCount, ts.MatchedCount = a.cfg.TableCounters(uint8(id))
			}
			rep.Tables = append(rep.Tables, ts)
		}
	})
	return out(c.reply(msg, rep, openflow.TypeMultipartReply))
}

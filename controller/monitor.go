package controller

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Flow monitoring (OpenFlow 1.4.1 §7.3.5.19 at 1.4; Open vSwitch's ONF
// extension ONFST_FLOW_MONITOR at 1.3, as ovs-ofctl monitor SWITCH watch:
// sends it) is served as Open vSwitch 3.1 serves it:
//
//   - A request adds monitors to its connection (at 1.4 it may also modify
//     or delete one). Each selects the entries of one table or all, whose
//     match its match covers (as a non-strict flow stats request), that
//     output to out_port and use out_group when those are set. The reply
//     lists, as initial (ONF: added) updates, the entries that the
//     monitors with the initial flag select. A request that fails on one
//     monitor adds none of them.
//   - Then every entry added (an add that replaces an identical entry
//     included), modified (when its instructions change) or removed (a
//     delete, a timeout, the deletion of its group or meter) that a
//     monitor asking for that event selects goes to the monitoring
//     connection in flow monitor replies of xid 0: one per update the
//     flow tables applied (a FLOW_MOD, alone or in a burst or bundle; the
//     removal of the flows of a deleted group or meter) and one per entry
//     a timeout removed, as Open vSwitch sends one per FLOW_MOD. The order of the
//     entries one FLOW_MOD changes is the switch's, which need not be
//     Open vSwitch's. A modify that takes an output to out_port away
//     is still reported. Updates carry instructions when a monitor asks.
//   - Changes the monitoring connection makes itself are abbreviated to
//     one update naming the xid of the request that made them, unless a
//     monitor has the "own" flag (ONF's ONFFMF_OWN; at 1.4
//     OFPFMF_ONLY_OWN, which Open vSwitch reads as "own changes in full",
//     not as the specification's "only own changes").
//   - ONFT_FLOW_MONITOR_CANCEL (1.3) or OFPFMC_DELETE (1.4) removes a
//     monitor; closing the connection removes all of its.
//
//   - A connection that leaves more than monitorPauseBytes of updates
//     unread is paused, as Open vSwitch pauses it (nicira-ext.h, "Flow
//     Monitor Paused"): after the updates queued it gets a PAUSED notice
//     (ONFT_FLOW_MONITOR_PAUSED at 1.3, a reply with an OFPFME_PAUSED
//     update at 1.4); then only the removal of entries that existed before
//     the pause goes out. Once it has read everything queued, it gets an
//     ADDED update for each entry added since the pause and still there
//     and a MODIFIED update for each older entry modified since, for the
//     monitors that select them, then a RESUMED notice, and updates flow
//     again. So a monitoring controller that falls behind costs the
//     switch at most the pause threshold plus one update per entry.
//
// The flow tables record their changes only while some connection
// monitors (tables.Owner.Watch), so that bursts pay nothing otherwise.

// flowMonitor is one monitor of a connection.
type flowMonitor struct {
	id       uint32
	flags    uint16 // standard bits; openflow.FlowMonitorOnlyOwn means own changes in full
	outPort  uint32
	outGroup uint32
	table    uint8
	match    rules.Match
	// since is the flow tables' version when the monitor was added: a
	// burst published at or before it is in the initial reply already.
	since uint64
}

// monitorPauseBytes is the backlog of unread flow monitor updates past
// which a connection's monitors pause: Open vSwitch's 128 KiB.
const monitorPauseBytes = 128 << 10

// monitors is a connection's flow monitors; mu guards the fields below.
type monitors struct {
	mu   sync.Mutex
	list []flowMonitor
	// paused is set while the monitors are paused (written under mu,
	// read by the writer without it); changed then holds the flows added
	// (true) or modified (false) since the pause, by identity.
	paused  atomic.Bool
	changed map[flowID]bool
}

// flowID is a flow entry's identity: what a strict FLOW_MOD names.
type flowID struct {
	table    uint8
	priority uint16
	match    rules.Match
	ranges   rules.Ranges
}

func idOf(r *rules.Rule) flowID {
	return flowID{table: r.Table(), priority: r.Priority, match: r.Match, ranges: r.Ranges}
}

// Flow monitor flags each form allows (Open vSwitch refuses others, and
// a monitor that asks for no event, with OFPMOFC_BAD_FLAGS).
const (
	monitorEvents  = openflow.FlowMonitorAdded | openflow.FlowMonitorRemoved | openflow.FlowMonitorModified
	monitorAllowed = openflow.FlowMonitorInitial | monitorEvents | openflow.FlowMonitorInstructions | openflow.FlowMonitorOnlyOwn
)

// monitorError is the OFPET_FLOW_MONITOR_FAILED error code at 1.4, and
// the Nicira experimenter error Open vSwitch sends for it at 1.3 (only
// the codes it has one for are used at 1.3).
func (c *conn) monitorError(code uint16) error {
	if c.version >= openflow.Version14 {
		return openflow.ErrorMsg{Type: openflow.ErrTypeFlowMonitorFailed, Code: code}
	}
	nx := map[uint16]uint16{
		openflow.FlowMonitorFailedMonitorExists:  6, // NX1.2-1.3(6)
		openflow.FlowMonitorFailedBadFlags:       7, // NX1.2-1.3(7)
		openflow.FlowMonitorFailedUnknownMonitor: 8, // NX1.2-1.3(8)
	}[code]
	return openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter, Code: nx, Experimenter: 0x00002320}
}

// onFlowMonitor serves a flow monitor request.
func (c *conn) onFlowMonitor(msg []byte) error {
	var req openflow.FlowMonitorRequest
	if err := req.UnmarshalBinary(msg); err != nil {
		return err
	}
	return c.addMonitors(xidOf(msg), req.Monitors)
}

// onFlowMonitorParts serves a flow monitor request sent in several parts
// (OFPMPF_REQ_MORE): every part is checked as it comes, and the last one
// adds the monitors of all of them, as one request, as Open vSwitch does.
// A sequence is bounded as the other multipart requests are.
func (c *conn) onFlowMonitorParts(msg []byte, more bool) error {
	xid := xidOf(msg)
	var req openflow.FlowMonitorRequest
	err := req.UnmarshalBinary(msg)
	i := c.partial(xid)
	if err != nil {
		if i >= 0 {
			c.dropPartial(i)
		}
		return err
	}
	if i < 0 {
		if len(c.mp) >= maxMultipartPending {
			return badRequest(openflow.BadRequestMultipartBufferOverflow)
		}
		c.mp = append(c.mp, mpPartial{xid: xid, part: openflow.MultipartFlowMonitor, monitor: true})
		i = len(c.mp) - 1
	}
	p := &c.mp[i]
	if !p.monitor {
		c.dropPartial(i)
		return badRequest(openflow.BadRequestBadMultipart)
	}
	p.size += len(msg)
	p.monitors = append(p.monitors, req.Monitors...)
	if p.size > maxMultipartBytes {
		c.dropPartial(i)
		return badRequest(openflow.BadRequestMultipartBufferOverflow)
	}
	if more {
		return nil
	}
	ms := p.monitors
	c.dropPartial(i)
	return c.addMonitors(xid, ms)
}

// addMonitors adds, modifies or deletes the monitors of the request of
// xid, all or none, and answers it with the initial entries.
func (c *conn) addMonitors(xid uint32, monitors []openflow.FlowMonitor) error {
	req := openflow.FlowMonitorRequest{Monitors: monitors}
	type op struct {
		del bool
		m   flowMonitor
	}
	ops := make([]op, 0, len(req.Monitors))
	for i := range req.Monitors {
		fm := &req.Monitors[i]
		if fm.Command == openflow.FlowMonitorDelete {
			ops = append(ops, op{del: true, m: flowMonitor{id: fm.ID}})
			continue
		}
		if fm.Command != openflow.FlowMonitorAdd && fm.Command != openflow.FlowMonitorModify {
			return c.monitorError(openflow.FlowMonitorFailedBadCommand)
		}
		flags := fm.Flags
		allowed := monitorAllowed
		if c.version < openflow.Version14 {
			// The ONF form: bit 5 is "own", bit 6 does not exist.
			allowed = monitorAllowed&^openflow.FlowMonitorOnlyOwn | openflow.ONFFlowMonitorOwn
		}
		if flags&monitorEvents == 0 || flags&^allowed != 0 {
			return c.monitorError(openflow.FlowMonitorFailedBadFlags)
		}
		if c.version < openflow.Version14 && flags&openflow.ONFFlowMonitorOwn != 0 {
			flags = flags&^openflow.ONFFlowMonitorOwn | openflow.FlowMonitorOnlyOwn
		}
		if fm.TableID != openflow.TableAll && int(fm.TableID) >= c.a.pipe.NumTables() {
			return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadTableID)}
		}
		m := flowMonitor{id: fm.ID, flags: flags, outPort: fm.OutPort, outGroup: fm.OutGroup, table: fm.TableID}
		if err := ofrules.Match(&m.match, &fm.Match, nil); err != nil {
			return err
		}
		if fm.Command == openflow.FlowMonitorModify {
			// A modify deletes the monitor and adds it anew.
			ops = append(ops, op{del: true, m: flowMonitor{id: fm.ID}})
		}
		ops = append(ops, op{m: m})
	}
	c.a.watchMonitors(1)
	defer c.a.watchMonitors(-1) // the monitors added hold their own count
	var err error
	delta := 0
	defer func() { c.a.watchMonitors(delta) }() // before the -1 above
	c.a.tables.Read(func(p *rules.Pipeline) {
		c.mon.mu.Lock()
		defer c.mon.mu.Unlock()
		list := append([]flowMonitor(nil), c.mon.list...)
		var added []flowMonitor
		for _, o := range ops {
			at := -1
			for i := range list {
				if list[i].id == o.m.id {
					at = i
				}
			}
			if o.del {
				if at < 0 {
					err = c.monitorError(openflow.FlowMonitorFailedUnknownMonitor)
					return
				}
				list = append(list[:at], list[at+1:]...)
				continue
			}
			if at >= 0 {
				err = c.monitorError(openflow.FlowMonitorFailedMonitorExists)
				return
			}
			o.m.since = p.Version()
			list = append(list, o.m)
			added = append(added, o.m)
		}
		// The initial entries, each once, with the instructions if any
		// monitor that lists it asks for them.
		now := time.Now().UnixNano()
		var ups []openflow.FlowUpdate
		for id := range p.NumTables() {
			for _, r := range p.Rules(uint8(id)) {
				var flags uint16
				for i := range added {
					if m := &added[i]; m.flags&openflow.FlowMonitorInitial != 0 && m.selects(r, nil) {
						flags |= m.flags
					}
				}
				if flags != 0 {
					ups = append(ups, flowUpdate(r, openflow.FlowUpdateInitial, 0, flags, now, c.a.tlv.Load()))
				}
			}
		}
		b, e := appendUpdates(nil, c.version, xid, ups)
		if e != nil {
			err = fmt.Errorf("encode flow monitor reply: %w", e)
			return
		}
		delta = len(list) - len(c.mon.list)
		c.mon.list = list
		// Through the asynchronous queue, where the updates go, under
		// c.mon.mu: no update can overtake the reply.
		c.enqueue(b)
	})
	return err
}

// onFlowMonitorCancel removes a monitor (ONFT_FLOW_MONITOR_CANCEL).
func (c *conn) onFlowMonitorCancel(msg []byte) error {
	var m openflow.FlowMonitorCancel
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	c.mon.mu.Lock()
	found := false
	for i := range c.mon.list {
		if c.mon.list[i].id == m.ID {
			c.mon.list = append(c.mon.list[:i], c.mon.list[i+1:]...)
			found = true
			break
		}
	}
	c.mon.mu.Unlock()
	if !found {
		return c.monitorError(openflow.FlowMonitorFailedUnknownMonitor)
	}
	c.a.watchMonitors(-1) // not under c.mon.mu: Watch takes the tables' lock
	return nil
}

// dropMonitors removes a closed connection's monitors.
func (c *conn) dropMonitors() {
	c.mon.mu.Lock()
	n := len(c.mon.list)
	c.mon.list = nil
	c.mon.mu.Unlock()
	if n > 0 {
		c.a.watchMonitors(-n)
	}
}

// watchMonitors adds d to the number of monitors (and requests under
// way), and has the flow tables record their changes while it is not 0.
func (a *Agent) watchMonitors(d int) {
	a.monMu.Lock()
	defer a.monMu.Unlock()
	was := a.nmon
	a.nmon += d
	switch {
	case was == 0 && a.nmon > 0:
		a.tables.Watch(func(cs []rules.Change) { a.flowsChanged(nil, nil, ^uint64(0), cs) })
	case was > 0 && a.nmon == 0:
		a.tables.Watch(nil)
	}
}

// selects reports whether m selects rule r (or r with the instructions
// old, which a modify replaced, for its out_port).
func (m *flowMonitor) selects(r *rules.Rule, old []rules.Instruction) bool {
	if m.table != openflow.TableAll && m.table != r.Table() {
		return false
	}
	if m.outPort != openflow.PortAny && !r.OutputsTo(m.outPort) {
		if old == nil {
			return false
		}
		before := rules.Rule{Instructions: old}
		if !before.OutputsTo(m.outPort) {
			return false
		}
	}
	if m.outGroup != openflow.GroupAny && !r.UsesGroup(m.outGroup) {
		return false
	}
	return r.CoveredBy(&m.match, rules.Ranges{})
}

// flowUpdate is the full update of event for r; flags are those of the
// monitors that select it, tlv the switch's TLV table, which names the
// fields of the option space.
func flowUpdate(r *rules.Rule, event uint16, reason rules.RemovedReason, flags uint16, now int64, tlv *ofrules.TLVTable) openflow.FlowUpdate {
	fs := ofrules.FlowStatsTLV(r, now, tlv)
	u := openflow.FlowUpdate{Event: event, TableID: fs.TableID, Priority: fs.Priority,
		IdleTimeout: fs.IdleTimeout, HardTimeout: fs.HardTimeout, Cookie: fs.Cookie, Match: fs.Match}
	if event == openflow.FlowUpdateRemoved {
		u.Reason = uint16(reason)
	}
	if flags&openflow.FlowMonitorInstructions != 0 {
		u.Instructions = fs.Instructions
	}
	return u
}

// appendUpdates appends ups as flow monitor replies of version v and xid,
// as many as they need (OFPMPF_REPLY_MORE on all but the last); no
// updates make one empty reply.
func appendUpdates(dst []byte, v uint8, xid uint32, ups []openflow.FlowUpdate) ([]byte, error) {
	start := len(dst)
	dst = openflow.AppendReplyHeader(dst, v, xid, 0)
	var err error
	for i := range ups {
		at := len(dst)
		if dst, err = openflow.AppendUpdate(dst, v, &ups[i]); err != nil {
			return dst, err
		}
		if len(dst)-start > openflow.MaxMessageLen {
			// Close the message before this update and go on in a new one.
			u := append([]byte(nil), dst[at:]...)
			dst = dst[:at]
			dst[start+10] |= byte(openflow.MultipartReplyMore >> 8)
			dst[start+11] |= byte(openflow.MultipartReplyMore)
			if dst, err = openflow.FinishReply(dst, start); err != nil {
				return dst, err
			}
			start = len(dst)
			dst = openflow.AppendReplyHeader(dst, v, xid, 0)
			dst = append(dst, u...)
		}
	}
	return openflow.FinishReply(dst, start)
}

// flowsChanged sends the flow monitor updates of the changes cs, made by
// a burst of origin (nil: a timeout) published at version, whose update
// i came from the request with xid xids(i), to every monitoring
// connection.
func (a *Agent) flowsChanged(origin *conn, xids func(int) uint32, version uint64, cs []rules.Change) {
	if len(cs) == 0 {
		return
	}
	live := a.live.Load()
	if live == nil {
		return
	}
	now := time.Now().UnixNano()
	for _, c := range *live {
		c.mon.mu.Lock()
		if len(c.mon.list) == 0 {
			c.mon.mu.Unlock()
			continue
		}
		paused := c.mon.paused.Load()
		// One reply per request of the burst (per update index), and
		// one per entry a timeout removed, as Open vSwitch sends them.
		var b []byte
		var ups []openflow.FlowUpdate
		var err error
		flush := func() {
			if len(ups) > 0 && err == nil {
				b, err = appendUpdates(b, c.version, 0, ups)
			}
			ups = ups[:0]
		}
		abbrev := false
		for i := range cs {
			ch := &cs[i]
			if i > 0 && (ch.Update != cs[i-1].Update || ch.Update < 0) {
				flush()
				abbrev = false
			}
			event, want := openflow.FlowUpdateAdded, openflow.FlowMonitorAdded
			var old []rules.Instruction
			switch ch.Kind {
			case rules.ChangeModified:
				if sameInstructions(ch.OldInstructions, ch.Rule.Instructions) {
					continue // Open vSwitch reports a modify that changes something
				}
				event, want, old = openflow.FlowUpdateModified, openflow.FlowMonitorModified, ch.OldInstructions
			case rules.ChangeRemoved:
				event, want = openflow.FlowUpdateRemoved, openflow.FlowMonitorRemoved
			}
			if paused {
				// Remember adds and modifies for the resume; report
				// the removal of an entry older than the pause.
				id := idOf(ch.Rule)
				fresh, seen := c.mon.changed[id]
				switch ch.Kind {
				case rules.ChangeAdded:
					c.mon.changed[id] = true
					continue
				case rules.ChangeModified:
					if !seen {
						c.mon.changed[id] = false
					}
					continue
				}
				delete(c.mon.changed, id)
				if fresh {
					continue
				}
			}
			var flags uint16
			for j := range c.mon.list {
				if m := &c.mon.list[j]; m.flags&want != 0 && version > m.since && m.selects(ch.Rule, old) {
					flags |= m.flags
				}
			}
			if flags == 0 {
				continue
			}
			if c == origin && flags&openflow.FlowMonitorOnlyOwn == 0 && !paused {
				// One abbreviated update per request.
				if !abbrev {
					x := uint32(0)
					if xids != nil && ch.Update >= 0 {
						x = xids(ch.Update)
					}
					ups = append(ups, openflow.FlowUpdate{Event: openflow.FlowUpdateAbbrev, XID: x})
					abbrev = true
				}
				continue
			}
			ups = append(ups, flowUpdate(ch.Rule, event, ch.Reason, flags, now, a.tlv.Load()))
		}
		flush()
		if err != nil {
			c.mon.mu.Unlock()
			a.cfg.Logger.Error("encode flow monitor update", "err", err)
			continue
		}
		if len(b) > 0 {
			c.enqueueKind(b, true)
			if !paused && c.monitorBacklog() > monitorPauseBytes {
				c.pauseMonitors()
			}
		}
		c.mon.mu.Unlock()
	}
}

// pauseMonitors pauses c's monitors and queues the PAUSED notice, after
// the updates queued already. c.mon.mu is held.
func (c *conn) pauseMonitors() {
	b, err := c.pauseNotice(false)
	if err != nil {
		c.a.cfg.Logger.Error("encode flow monitor pause", "err", err)
		return
	}
	c.mon.changed = map[flowID]bool{}
	c.mon.paused.Store(true)
	c.enqueueKind(b, true)
}

// pauseNotice encodes the PAUSED or RESUMED notice in the form of c's
// version.
func (c *conn) pauseNotice(resumed bool) ([]byte, error) {
	if c.version < openflow.Version14 {
		m := openflow.FlowMonitorPause{Header: openflow.Header{Version: c.version}, Resumed: resumed}
		return m.AppendBinary(nil)
	}
	ev := openflow.FlowUpdatePaused
	if resumed {
		ev = openflow.FlowUpdateResumed
	}
	return appendUpdates(nil, c.version, 0, []openflow.FlowUpdate{{Event: ev}})
}

// resumeMonitors ends the pause of c's monitors once c has read every
// update queued before it: it queues an ADDED update for each entry added
// since the pause and a MODIFIED one for each older entry modified since,
// for the monitors that ask for either event and select the entry (as
// Open vSwitch's ofmonitor_resume does), then the RESUMED notice.
func (c *conn) resumeMonitors() {
	c.a.tables.Read(func(p *rules.Pipeline) {
		c.mon.mu.Lock()
		defer c.mon.mu.Unlock()
		if !c.mon.paused.Load() {
			return
		}
		now := time.Now().UnixNano()
		var ups []openflow.FlowUpdate
		for id := range p.NumTables() {
			for _, r := range p.Rules(uint8(id)) {
				fresh, ok := c.mon.changed[idOf(r)]
				if !ok {
					continue
				}
				event, update := openflow.FlowUpdateModified, openflow.FlowMonitorModified
				if fresh {
					event, update = openflow.FlowUpdateAdded, openflow.FlowMonitorAdded|openflow.FlowMonitorModified
				}
				var flags uint16
				for i := range c.mon.list {
					if m := &c.mon.list[i]; m.flags&update != 0 && m.selects(r, nil) {
						flags |= m.flags
					}
				}
				if flags != 0 {
					ups = append(ups, flowUpdate(r, event, 0, flags, now, c.a.tlv.Load()))
				}
			}
		}
		c.mon.changed = nil
		c.mon.paused.Store(false)
		if len(ups) > 0 {
			b, err := appendUpdates(nil, c.version, 0, ups)
			if err != nil {
				c.a.cfg.Logger.Error("encode flow monitor update", "err", err)
			} else {
				c.enqueue(b)
			}
		}
		if b, err := c.pauseNotice(true); err != nil {
			c.a.cfg.Logger.Error("encode flow monitor resume", "err", err)
		} else {
			c.enqueue(b)
		}
	})
}

// sameInstructions reports whether a and b are the same instructions.
func sameInstructions(a, b []rules.Instruction) bool { return reflect.DeepEqual(a, b) }

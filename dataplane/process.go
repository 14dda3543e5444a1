package dataplane

import (
	"encoding/binary"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// frameState is one frame on its way through the pipeline: its current
// bytes (the capture's until an action rewrites them, then the worker's
// copy) and where its headers are.
type frameState struct {
	data    []byte
	owned   bool   // data is the worker's copy
	eth     bool   // the frame starts with an Ethernet header
	dropped bool   // dec_ttl expired, a meter dropped it or an action panicked
	expired bool   // dropped by a failed TTL decrement (see ttlExpired)
	sent    bool   // output somewhere or sent to the controller
	exit    bool   // an exit action ran: no more actions, the action set's neither
	xerr    bool   // the translation hit a resubmit limit: dropped, nothing more runs
	table   uint8  // the pipeline table the frame was last looked up in (a resubmit's current table in the action set)
	depth   uint8  // resubmits running now that went to the same or an earlier table
	nresub  uint16 // resubmits and goto_tables that found an entry, Open vSwitch's ctx->resubmits
	inPort  uint32
	// snap says where data's bytes as they are now are kept, unchanged
	// until the vector's deferred outputs are sent (see deferOut):
	// snapData, data itself (the capture's bytes, when the frame comes
	// in); snapNone, nowhere yet; otherwise at that offset in the
	// worker's deferral arena (len(data) bytes). Every write to data
	// goes through writable, which sets snapNone. An int32 beside
	// inPort, not a slice: frameState stays within 80 bytes.
	snap    int32
	l3, l4  int // header offsets, 0 if absent
	vlans   int // VLAN tags in the frame now
	ethType uint16
	proto   uint8
}

// actionSet is the action set of one packet (OpenFlow 1.3.5 §5.10): at
// most one action of each type, one set_field per field, as
// rules.ExecActionSet keeps them.
type actionSet struct {
	n    int
	acts [24]*rules.Action
}

func (s *actionSet) write(a *rules.Action) {
	for i := 0; i < s.n; i++ {
		b := s.acts[i]
		if b.Kind == a.Kind && (a.Kind != rules.ActionSetField || b.Field == a.Field) && !a.Kind.SetOrMove() {
			s.acts[i] = a
			return
		}
	}
	if s.n < len(s.acts) {
		s.acts[s.n] = a
		s.n++
	}
}

// Process parses the frames of v, classifies them through the pipeline
// (one LookupBatch per table for the whole vector), runs the instructions
// of the entries they match and counts everything. It allocates nothing in
// steady state. One deferred recover per stage covers the vector: a panic
// in an action costs only the packet that caused it.
func (w *Worker) Process(v *Vector) {
	w.rd.Enter() // nothing of the vector before is held from here on
	w.processed.Add(uint64(v.N))
	w.clock, w.mclock = false, false
	w.open = w.sw.failOpen.Load()
	w.parser.ParseVector(v)
	st := &w.stats
	n := 0
	for i := 0; i < v.N; i++ {
		if !v.OK[i] {
			continue
		}
		h := &v.Hdr[i]
		pi := w.sw.index(h.InPort)
		if pi >= 0 {
			w.portc[pi].RxPackets++
			w.portc[pi].RxBytes += uint64(len(v.Frames[i]))
			if w.sw.portCfg[pi].Load()&PortNoRecv != 0 {
				st.PortDrops++
				continue
			}
		}
		h.Key(&w.keys[n])
		w.idx[n] = uint8(i)
		w.next[n] = 0
		w.set[n].n = 0
		w.hits[n] = nil
		// Field by field: a composite literal would be built in a
		// temporary and copied with a write barrier.
		fs := &w.pkt[n]
		fs.data, fs.snap = v.Frames[i], snapData
		fs.owned, fs.dropped, fs.sent, fs.expired, fs.exit, fs.xerr = false, false, false, false, false, false
		fs.table, fs.depth, fs.nresub = 0, 0, 0
		fs.eth = v.Link[i] == layers.LinkTypeEthernet
		fs.inPort = h.InPort
		fs.l3, fs.l4, fs.vlans = int(h.L3Off), int(h.L4Off), int(h.VLANs)
		fs.ethType, fs.proto = h.EthType, h.IPProto
		st.Packets++
		st.Bytes += uint64(len(fs.data))
		n++
	}
	w.n = n
	if n == 0 {
		return
	}
	pipe := w.sw.pipe
	w.dfr = w.mayResubmit()
	nt := pipe.NumTables()
	for t := 0; t < nt; t++ {
		// Table 0 sees every parsed frame in order: look up w.keys in
		// place. Later tables get the frames sent to them, gathered.
		m, keys := n, w.keys[:n]
		if t == 0 {
			for j := range n {
				w.bidx[j] = uint8(j)
			}
		} else {
			m = 0
			for j := 0; j < n; j++ {
				if w.next[j] == uint8(t) {
					w.batch[m] = w.keys[j]
					w.bidx[m] = uint8(j)
					m++
				}
			}
			if m == 0 {
				continue
			}
			keys = w.batch[:m]
		}
		var ver uint64
		if o := w.obs; o != nil && t == 0 {
			lc := &w.obsc
			*lc = rules.Counters{}
			start := time.Now()
			ver = pipe.Table(0).LookupBatch(keys, w.bout[:m], lc)
			o.ObserveLookup(start, time.Since(start), m, lc)
			st.Lookup.Add(lc)
		} else {
			ver = pipe.Table(uint8(t)).LookupBatch(keys, w.bout[:m], &st.Lookup)
		}
		if t == 0 {
			w.version = ver
			copy(w.hits[:m], w.bout[:m])
		}
		// instrRun counts each miss, and each frame it stops at a
		// resubmit limit before the table: the table's are the
		// differences.
		misses, skips := st.Misses, w.skips
		for k := 0; k < m; {
			k = w.instrRun(uint8(t), m, k)
		}
		w.countTable(t, uint64(m)-(w.skips-skips), st.Misses-misses)
	}
	for j := 0; j < n; {
		j = w.finishRun(n, j)
	}
	w.sendDeferred()
	w.flush()
}

// flush sends what the worker queued on ports with transmit queues.
func (w *Worker) flush() {
	for _, q := range w.queues {
		q.Flush()
	}
}

// instrRun runs the instructions of the entries found in table t for
// batch entries k.. m; after a panic it returns the index after the one
// that panicked.
func (w *Worker) instrRun(t uint8, m, k int) (next int) {
	defer func() {
		if r := recover(); r != nil {
			w.stats.Panics++
			j := w.bidx[k]
			w.next[j] = 0xff
			w.pkt[j].dropped = true
			next = k + 1
		}
	}()
	st := &w.stats
	for ; k < m; k++ {
		j := int(w.bidx[k])
		r := w.bout[k]
		w.next[j] = 0xff
		fs := &w.pkt[j]
		fs.table = t
		if t > 0 && fs.nresub >= MaxResubmits {
			// A goto_table is a resubmit to Open vSwitch: the limit
			// holds for it too, checked before its lookup, which
			// the table's counters then do not count.
			w.skips++
			w.xlateError(j)
			continue
		}
		if r == nil {
			st.Misses++
			if t == 0 {
				st.MissTable0++
			}
			if w.open {
				w.normal(j)
			}
			continue
		}
		st.Hits++
		r.Hit(len(fs.data))
		if t > 0 {
			fs.nresub++
		}
		w.instructions(j, r, t, false)
	}
	return k
}

// instructions runs r's instructions for parsed frame j in the order of
// OpenFlow 1.3.5 §5.9: meter, apply-actions, clear-actions, write-actions,
// write-metadata, goto-table. The meter instruction is first in a rule's
// list if it is there at all (rules.Pipeline refuses it elsewhere), so a
// rule without one pays one compare for it.
//
// inline says that r was found by a resubmit: its goto_table then runs
// at once, inside the resubmit, as Open vSwitch runs it (see
// tableAction), where the pipeline's goto_table only names the next
// table of the vector pass.
func (w *Worker) instructions(j int, r *rules.Rule, t uint8, inline bool) {
	ins := r.Instructions
	fs := &w.pkt[j]
	if len(ins) > 0 && ins[0].Kind == rules.InstMeter {
		if !w.meter(j, ins[0].Meter) {
			return
		}
		ins = ins[1:]
	}
	var kinds uint32 // bit k: an instruction of kind k other than apply-actions
	for i := range ins {
		if ins[i].Kind != rules.InstApplyActions {
			kinds |= 1 << (ins[i].Kind & 31)
			continue
		}
		for a := range ins[i].Actions {
			w.act(j, &ins[i].Actions[a], r, t)
			if fs.dropped || fs.exit {
				// exit ends the actions of every level, this entry's
				// other instructions (clear, write, metadata, goto)
				// and the action set (see finishRun).
				// A failed TTL decrement ends this entry's
				// instructions only: the action set that earlier
				// tables wrote still runs (see ttlExpired).
				if fs.expired {
					fs.dropped, fs.expired = false, false
				}
				return
			}
		}
	}
	if kinds == 0 { // apply-actions only: the common case
		return
	}
	for i := range ins {
		switch in := &ins[i]; in.Kind {
		case rules.InstClearActions:
			w.set[j].n = 0
		}
	}
	for i := range ins {
		if in := &ins[i]; in.Kind == rules.InstWriteActions {
			for a := range in.Actions {
				w.set[j].write(&in.Actions[a])
			}
		}
	}
	for i := range ins {
		switch in := &ins[i]; in.Kind {
		case rules.InstWriteMetadata:
			k := &w.keys[j]
			k[4] = k[4]&^in.MetadataMask | in.Metadata&in.MetadataMask // metadata's word
		case rules.InstGotoTable:
			if inline {
				w.tableAction(j, rules.PortInPort, in.Table, t)
			} else {
				w.next[j] = in.Table
			}
		}
	}
}

// finishRun executes the action sets of frames j..n that left the
// pipeline and counts drops.
func (w *Worker) finishRun(n, j int) (next int) {
	defer func() {
		if r := recover(); r != nil {
			w.stats.Panics++
			next = j + 1
		}
	}()
	for ; j < n; j++ {
		fs := &w.pkt[j]
		// After exit the action set does not run either: Open vSwitch
		// 3.1 still calls it, but its action loop stops before the
		// first action once exit is set (do_xlate_actions), which
		// ofproto/trace shows as an empty "Executing action set".
		if s := &w.set[j]; s.n > 0 && !fs.dropped && !fs.exit {
			w.runSet(j, s, nil, 0xff, 0)
		}
		if !fs.sent || fs.xerr {
			w.stats.Drops++ // a failed translation sends nothing (see sendDeferred)
		}
	}
	return j
}

// runSet executes action set s on frame j in the order of §5.10, for
// entry r of table t (nil and 0xff for the packet's own action set), a
// group in it at chaining level depth. The order puts group before output:
// a group that ran takes precedence over the output (§5.10). A resubmit
// is a final action as in Open vSwitch (ofpacts_execute_action_set):
// after both, and only when the set holds neither group nor output.
func (w *Worker) runSet(j int, s *actionSet, r *rules.Rule, t uint8, depth int) {
	fs := &w.pkt[j]
	grouped, final := false, false
	for _, kind := range rules.ActionSetOrder {
		if kind == rules.ActionOutput && grouped || kind == rules.ActionResubmit && final {
			continue
		}
		for i := 0; i < s.n && !fs.dropped && !fs.exit; i++ {
			if a := s.acts[i]; a.Kind == kind || kind == rules.ActionSetField && a.Kind.SetOrMove() {
				grouped = grouped || kind == rules.ActionGroup
				final = final || kind == rules.ActionGroup || kind == rules.ActionOutput
				if kind == rules.ActionGroup {
					w.group(j, a, r, t, depth)
				} else {
					w.act(j, a, r, t)
				}
			}
		}
	}
}

// act executes one action on parsed frame j. r and t are the entry and
// table that asked for it (nil and 0xff for the action set).
func (w *Worker) act(j int, a *rules.Action, r *rules.Rule, t uint8) {
	switch a.Kind {
	case rules.ActionOutput:
		w.output(j, a, r, t)
	case rules.ActionSetField:
		if w.setField(j, a) {
			w.stats.Rewrites++
		} else {
			w.stats.Skipped++
		}
	case rules.ActionPushVLAN:
		if w.pushVLAN(j, a.EthType) {
			w.stats.Rewrites++
		} else {
			w.stats.Skipped++
		}
	case rules.ActionPopVLAN:
		if w.popVLAN(j) {
			w.stats.Rewrites++
		} else {
			w.stats.Skipped++
		}
	case rules.ActionDecNwTTL:
		switch w.decTTL(j) {
		case ttlDone:
			w.stats.Rewrites++
		case ttlExpired:
			w.ttlExpired(j, a, r, t)
		default:
			w.stats.Skipped++
		}
	case rules.ActionPushMPLS, rules.ActionPopMPLS, rules.ActionSetMPLSTTL, rules.ActionDecMPLSTTL,
		rules.ActionPushPBB, rules.ActionPopPBB, rules.ActionCopyTTLOut, rules.ActionCopyTTLIn:
		w.tagAct(j, a, r, t)
	case rules.ActionSetNwTTL:
		if w.setTTL(j, a.TTL) {
			w.stats.Rewrites++
		} else {
			w.stats.Skipped++
		}
	case rules.ActionGroup:
		w.group(j, a, r, t, 0)
	case rules.ActionController:
		w.controller(j, a, r, t)
	case rules.ActionExit:
		w.pkt[j].exit = true
	case rules.ActionResubmit:
		w.resubmit(j, a, t)
	case rules.ActionNote: // a comment for the controller
	case rules.ActionLoad:
		w.runLoad(j, a)
	case rules.ActionMove:
		w.move(j, a.Ext)
	case rules.ActionOutputReg:
		w.outputReg(j, a, r, t)
	default: // queues are not modelled
		w.stats.Skipped++
	}
}

func (w *Worker) output(j int, a *rules.Action, r *rules.Rule, t uint8) {
	fs := &w.pkt[j]
	s := w.sw
	switch p := a.Port; p {
	case rules.PortInPort:
		w.transmit(j, s.index(fs.inPort))
	case rules.PortFlood, rules.PortAll:
		for i, q := range s.ports {
			if q != fs.inPort {
				w.transmit(j, i)
			}
		}
	case rules.PortNormal:
		w.normal(j)
	case rules.PortController:
		fs.sent = true
		w.packetIn(j, PacketInAction, a.MaxLen, r, t)
	case fs.inPort:
		// Only OFPP_IN_PORT sends a frame back out of the port it came
		// in on (OpenFlow 1.3.5 §7.2.1, ofp_port_no): an output to that
		// port by number sends nothing, as in Open vSwitch ("skipping
		// output to input port").
	default:
		w.transmit(j, s.index(p))
	}
}

// packetIn sends frame j to the controller for entry r of table t (nil
// and 0xff for the action set and PACKET_OUT) with reason PacketInAction
// (PacketInNoMatch when r is a table-miss entry) or PacketInInvalidTTL,
// the first maxLen bytes of it (all for rules.ControllerMaxLenNoBuffer),
// at once or, while outputs are deferred, when the vector's translations
// end (deferOut): the frame, metadata and tunnel ID are those of now.
func (w *Worker) packetIn(j int, reason uint8, maxLen uint16, r *rules.Rule, t uint8) {
	fs := &w.pkt[j]
	k := &w.keys[j]
	d := deferred{r: r, meta: k.Get(rules.FieldMetadata), tun: k.Get(rules.FieldTunnelID), j: uint8(j), pin: true, reason: reason, t: t, maxLen: maxLen}
	if w.dfr {
		d.data = w.snapshot(j)
		w.dq = append(w.dq, d)
		return
	}
	d.data = fs.data
	w.sendPacketIn(&d)
}

// sendPacketIn sends packet-in d of frame d.j. Without an entry the
// cookie is -1, as OpenFlow 1.3.5 §7.4.1 asks. A frame received on a port
// with NO_PACKET_IN is counted in PortDrops, one the Controller meter
// drops in MeterDrops; the others in PacketIns.
func (w *Worker) sendPacketIn(d *deferred) {
	inPort := w.pkt[d.j].inPort
	s := w.sw
	if pi := s.index(inPort); pi >= 0 && s.portCfg[pi].Load()&PortNoPacketIn != 0 {
		w.stats.PortDrops++
		return
	}
	if s.meters != nil && !w.meterPacketIn(len(d.data)) {
		return
	}
	w.stats.PacketIns++
	if s.cfg.PacketIn == nil {
		return
	}
	pin := &w.pin // a worker field: a local would escape through the callback
	r, reason, maxLen := d.r, d.reason, d.maxLen
	*pin = PacketIn{Worker: w.id, InPort: inPort, Reason: reason, Table: d.t, MaxLen: maxLen, Frame: d.data,
		Metadata: d.meta, TunnelID: d.tun, Cookie: ^uint64(0)}
	if r != nil {
		pin.Cookie = r.Cookie
		if reason == PacketInAction && r.Priority == 0 && r.Match.Mask == (rules.Key{}) {
			pin.Reason = PacketInNoMatch
		}
	}
	if maxLen != rules.ControllerMaxLenNoBuffer && int(maxLen) < len(pin.Frame) {
		pin.Frame = pin.Frame[:maxLen]
	}
	s.cfg.PacketIn(pin)
	pin.Frame = nil
}

// ttlExpired handles a dec_ttl or dec_mpls_ttl of entry r in table t (nil
// and 0xff for the action set and PACKET_OUT) that found the TTL at 0 or
// 1, as Open vSwitch does: the frame, as the actions before left it and
// with its TTL unchanged, goes to the controller whole as a packet-in of
// reason OFPR_INVALID_TTL with r's table and cookie (the controller cuts
// it to each connection's miss_send_len, OpenFlow 1.3.5 §7.3.2, and sends
// it only where the asynchronous configuration asks for the reason). The
// rest of the action list does not run: for an apply-actions instruction,
// none of r's other instructions (no write-actions, no goto-table), but
// the action set earlier tables wrote still executes; in the action set,
// the remaining actions; in a group bucket, that bucket's.
//
// dec_ttl(id,...) (a, when not nil, with controller ids) sends the
// packet-in to each id listed: every connection has controller id 0 (there
// is no NXT_SET_CONTROLLER_ID), so one per 0 in the list, none without.
func (w *Worker) ttlExpired(j int, a *rules.Action, r *rules.Rule, t uint8) {
	w.stats.TTLExpired++
	if a == nil || a.Ext == nil || a.Ext.IDs == nil {
		w.packetIn(j, PacketInInvalidTTL, rules.ControllerMaxLenNoBuffer, r, t)
	} else {
		for _, id := range a.Ext.IDs {
			if id == 0 {
				w.packetIn(j, PacketInInvalidTTL, rules.ControllerMaxLenNoBuffer, r, t)
			}
		}
	}
	fs := &w.pkt[j]
	fs.dropped, fs.expired = true, true
	w.next[j] = 0xff
}

// controller runs controller(reason=...,max_len=...,id=...) (NXAST_CONTROLLER)
// of entry r in table t: a packet-in with a's reason and max_len to the
// connections of controller id a.CtlID. Every connection has id 0, so an
// other id sends nothing. The reasons OpenFlow 1.3 lacks (action_set,
// group, packet_out) go out as OFPR_ACTION, as Open vSwitch encodes them
// for 1.3.
func (w *Worker) controller(j int, a *rules.Action, r *rules.Rule, t uint8) {
	if a.CtlID != 0 {
		w.stats.Skipped++
		return
	}
	reason := a.Reason
	if reason > PacketInInvalidTTL {
		reason = PacketInAction
	}
	w.pkt[j].sent = true
	w.packetIn(j, reason, a.MaxLen, r, t)
}

// transmit counts frame j out of port index pi (-1: no such port) and
// hands it to the port's device, if any: at once or, while outputs are
// deferred, when the vector's translations end (deferOut), as it is now.
func (w *Worker) transmit(j, pi int) {
	fs := &w.pkt[j]
	fs.sent = true
	if w.dfr {
		w.dq = append(w.dq, deferred{data: w.snapshot(j), j: uint8(j), pi: int32(pi)})
		return
	}
	w.send(pi, fs.data)
}

// send counts frame data out of port index pi (-1: no such port) and
// hands it to the port's device, if any.
func (w *Worker) send(pi int, data []byte) {
	if pi < 0 {
		w.stats.NoPort++
		return
	}
	if w.sw.portCfg[pi].Load()&PortNoFwd != 0 {
		w.stats.PortDrops++
		return
	}
	w.stats.Outputs++
	w.portc[pi].TxPackets++
	w.portc[pi].TxBytes += uint64(len(data))
	if d := w.devs[pi]; d != nil {
		d.Transmit(data)
	}
}

// writable makes frame j the worker's own copy, with room for a tag.
func (w *Worker) writable(j int) []byte {
	fs := &w.pkt[j]
	fs.snap = snapNone // the caller writes to data
	if !fs.owned {
		buf := w.bufs[j][:0]
		if cap(buf) < len(fs.data)+4 {
			buf = make([]byte, 0, len(fs.data)+64)
		}
		buf = append(buf, fs.data...)
		w.bufs[j] = buf
		fs.data, fs.owned = buf, true
	}
	return fs.data
}

// pushVLAN inserts a tag with TPID tpid after the MAC addresses, copying
// VID and PCP from the current outer tag if there is one (§7.2.5).
func (w *Worker) pushVLAN(j int, tpid uint16) bool {
	fs := &w.pkt[j]
	if !fs.eth || len(fs.data) < 14 {
		return false
	}
	if tpid == 0 {
		tpid = EtherTypeVLAN
	}
	var tci uint16
	if fs.vlans > 0 && len(fs.data) >= 16 {
		tci = binary.BigEndian.Uint16(fs.data[14:])
	}
	d := w.writable(j)
	d = append(d, 0, 0, 0, 0)
	copy(d[16:], d[12:len(d)-4])
	binary.BigEndian.PutUint16(d[12:], tpid)
	binary.BigEndian.PutUint16(d[14:], tci)
	w.bufs[j], fs.data = d, d
	fs.vlans++
	fs.shift(4)
	k := &w.keys[j]
	k.Set(rules.FieldVLANVID, rules.VIDPresent|uint64(tci&0x0fff))
	k.Set(rules.FieldVLANPCP, uint64(tci>>13))
	return true
}

// popVLAN removes the outer tag.
func (w *Worker) popVLAN(j int) bool {
	fs := &w.pkt[j]
	if !fs.eth || fs.vlans == 0 || len(fs.data) < 18 {
		return false
	}
	d := w.writable(j)
	copy(d[12:], d[16:])
	d = d[:len(d)-4]
	w.bufs[j], fs.data = d, d
	fs.vlans--
	fs.shift(-4)
	k := &w.keys[j]
	if fs.vlans > 0 && len(d) >= 16 {
		tci := binary.BigEndian.Uint16(d[14:])
		k.Set(rules.FieldVLANVID, rules.VIDPresent|uint64(tci&0x0fff))
		k.Set(rules.FieldVLANPCP, uint64(tci>>13))
	} else {
		k.Set(rules.FieldVLANVID, 0)
		k.Set(rules.FieldVLANPCP, 0)
	}
	return true
}

func (fs *frameState) shift(n int) {
	if fs.l3 != 0 {
		fs.l3 += n
	}
	if fs.l4 != 0 {
		fs.l4 += n
	}
}

const (
	ttlSkipped = iota
	ttlDone
	ttlExpired
)

// decTTL decrements the IPv4 TTL or IPv6 hop limit of frame j.
func (w *Worker) decTTL(j int) int {
	fs := &w.pkt[j]
	d := fs.data
	switch {
	case fs.ethType == EtherTypeIPv4 && has(d, fs.l3, 20):
		ttl := d[fs.l3+8]
		if ttl <= 1 {
			return ttlExpired
		}
		d = w.writable(j)
		replace16(d, fs.l3+8, uint16(ttl-1)<<8|uint16(d[fs.l3+9]), fs.l3+10)
		w.keys[j].Set(rules.FieldNwTTL, uint64(ttl-1))
	case fs.ethType == EtherTypeIPv6 && has(d, fs.l3, 40):
		if d[fs.l3+7] <= 1 {
			return ttlExpired
		}
		d = w.writable(j)
		d[fs.l3+7]--
		w.keys[j].Set(rules.FieldNwTTL, uint64(d[fs.l3+7]))
	default:
		return ttlSkipped
	}
	// The key follows the header, so that a later table matching nw_ttl
	// sees the new TTL.
	return ttlDone
}

// Open vSwitch's limits on a packet's translation (ofproto-dpif-xlate.c
// MAX_DEPTH, MAX_RESUBMITS): resubmits nested that each went to the same
// or an earlier table, and resubmits (goto_table included) that found an
// entry.
const (
	MaxResubmitDepth = 64
	MaxResubmits     = MaxResubmitDepth * MaxResubmitDepth
)

// resubmit runs resubmit(port,table) (NXAST_RESUBMIT, _TABLE) of entry r
// in table t (0xff: the action set or a PACKET_OUT, whose current table is
// the last one the frame was looked up in, fs.table).
func (w *Worker) resubmit(j int, a *rules.Action, t uint8) {
	if t == 0xff {
		t = w.pkt[j].table
	}
	tt := a.Table
	if tt == rules.TableAll {
		tt = t
	}
	w.tableAction(j, a.Port, tt, t)
}

// tableAction looks frame j up in table tt with in_port replaced by port
// (rules.PortInPort: the frame's own) and, on a hit, runs the entry's
// instructions inline, as Open vSwitch's xlate_table_action does for a
// resubmit from table cur (and for a goto_table inside one):
//
//   - The limits are checked first: MaxResubmitDepth resubmits deep (depth
//     grows only when tt ≤ cur, a resubmit that may loop) or MaxResubmits
//     in all make a translation error (xlateError).
//   - in_port is the resubmit's for the lookup only: the entry's actions
//     see the frame's own again.
//   - A miss does nothing (no table-miss packet-in, no drop), and so does
//     a table the switch lacks: Open vSwitch has 255 tables, empty ones
//     miss.
//   - The lookup counts in the table's counters (TableCount), a match
//     or not, as Open vSwitch counts a resubmit's lookup in the table's
//     (rule_dpif_lookup_from_table).
//   - The entry's counters count the frame, and its actions act on the
//     frame in place: the actions after the resubmit see their changes,
//     its write-actions add to the frame's one action set, its exit ends
//     every level.
//
// The vector pass (Process) cannot go back to a table, so a resubmit runs
// here, one frame at a time, with a lookup of its own (LookupVersion, at
// the version published now).
func (w *Worker) tableAction(j int, port uint32, tt, cur uint8) {
	fs := &w.pkt[j]
	if fs.depth >= MaxResubmitDepth || fs.nresub >= MaxResubmits {
		w.xlateError(j)
		return
	}
	pipe := w.sw.pipe
	if int(tt) >= pipe.NumTables() {
		return
	}
	k := &w.keys[j]
	in := k[1] // in_port's word, restored whole
	if port != rules.PortInPort {
		k.Set(rules.FieldInPort, uint64(port))
	}
	r, _ := pipe.Table(tt).LookupVersion(k, &w.stats.Lookup)
	k[1] = in
	w.countLookup(tt, r != nil)
	if r == nil {
		return
	}
	w.stats.Resubmits++
	r.Hit(len(fs.data))
	fs.nresub++
	deep := tt <= cur
	if deep {
		fs.depth++
	}
	w.instructions(j, r, tt, true)
	if deep {
		fs.depth--
	}
}

// xlateError ends frame j's translation at a resubmit limit. As Open
// vSwitch does, the packet is dropped with everything its translation
// did: the outputs and packet-ins of its actions so far, deferred since a
// resubmit may be reached (deferOut), are not sent, and nothing after
// runs, the action set included.
func (w *Worker) xlateError(j int) {
	fs := &w.pkt[j]
	if !fs.xerr {
		w.stats.XlateErrors++
	}
	fs.xerr, fs.dropped = true, true
	w.next[j] = 0xff
}

package controller

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
)

// Ports is what the agent needs of the data plane's ports. The data plane
// implements it; a switch without ports passes nil.
type Ports interface {
	// Descs appends the OpenFlow description of every port to dst.
	Descs(dst []openflow.Port) []openflow.Port
	// Stats appends the counters of port (or of every port, for
	// openflow.PortAny) to dst, and reports whether the port exists.
	Stats(dst []openflow.PortStats, port uint32) ([]openflow.PortStats, bool)
}

// PortModder is what Ports may also do: take OFPT_PORT_MOD (OpenFlow 1.3.5
// §7.3.4.3). ModPort changes the OFPPC_* bits of port no that mask
// selects to their values in config, after checking that hwAddr is the
// port's; advertise is the features to advertise (0: leave them). A
// refusal is an openflow.ErrorMsg of type OFPET_PORT_MOD_FAILED. Without
// it every PORT_MOD is OFPPMFC_BAD_PORT: the switch has no port to change.
type PortModder interface {
	ModPort(no uint32, hwAddr [6]byte, config, mask, advertise uint32) error
}

// Description strings of OFPMP_DESC.
const (
	mfrDesc = "ofswitch developers"
	hwDesc  = "ofswitch software switch"
	swDesc  = "ofswitch (Bloom-Cuckoo fronted flow table)"
	serial  = "None"
)

func padded(dst []byte, s string) { copy(dst[:len(dst)-1], s) }

// Multipart requests in several parts (OFPMPF_REQ_MORE, OpenFlow 1.3.5
// §7.3.5) are reassembled per xid, as Open vSwitch does: every part must
// have the first part's type (else OFPBRC_BAD_MULTIPART), parts with an
// empty body may come anywhere (a flow monitor request's parts each carry
// monitors, which add up: see onFlowMonitorParts), and a sequence may not grow beyond
// maxMultipartBytes, nor may more than maxMultipartPending sequences be
// open at once (OFPBRC_MULTIPART_BUFFER_OVERFLOW). A failed sequence is
// forgotten. The request is served when its last part arrives. Every type
// this switch answers has a fixed body, so at most one part may carry it
// (else OFPBRC_BAD_LEN), except TABLE_FEATURES, whose parts each carry
// whole table descriptions: those are checked as they come and the
// request is refused as a single-part one is (the tables are fixed).
const (
	maxMultipartBytes   = 4 << 20
	maxMultipartPending = 4
	multipartHeaderLen  = 16
)

// mpPartial is a multipart request sequence still waiting for parts.
type mpPartial struct {
	xid    uint32
	part   openflow.MultipartType
	size   int    // bytes received, headers included
	bodies int    // parts with a body
	body   []byte // the part with the body (fixed-body types), copied
	// monitor marks a flow monitor request, whose parts' monitors
	// add up in monitors.
	monitor  bool
	monitors []openflow.FlowMonitor
}

func (c *conn) onMultipartRequest(msg []byte) error {
	var req openflow.MultipartRequest
	more := len(msg) >= multipartHeaderLen && binary.BigEndian.Uint16(msg[10:])&openflow.MultipartRequestMore != 0
	if (c.version == openflow.Version13 || c.version == openflow.Version14) && openflow.IsFlowMonitor(msg) {
		if !more && c.partial(xidOf(msg)) < 0 {
			return c.onFlowMonitor(msg)
		}
		return c.onFlowMonitorParts(msg, more)
	}
	if !more && c.partial(xidOf(msg)) < 0 {
		if err := req.UnmarshalBinary(msg); err != nil {
			return err
		}
		return c.serveMultipart(msg, &req)
	}
	full, err := c.assemble(msg, more, &req)
	if err != nil || full == nil {
		return err
	}
	if err := req.UnmarshalBinary(full); err != nil {
		return err
	}
	return c.serveMultipart(full, &req)
}

// partial returns the index of the sequence with this xid, or -1.
func (c *conn) partial(xid uint32) int {
	for i := range c.mp {
		if c.mp[i].xid == xid {
			return i
		}
	}
	return -1
}

func (c *conn) dropPartial(i int) {
	c.mp = append(c.mp[:i], c.mp[i+1:]...)
}

// assemble adds one part of a multipart request sequence. It returns the
// request to serve when msg completes the sequence, nil while parts are
// missing.
func (c *conn) assemble(msg []byte, more bool, req *openflow.MultipartRequest) ([]byte, error) {
	hasBody := len(msg) > multipartHeaderLen
	if hasBody || len(msg) < multipartHeaderLen {
		// Check the part on its own; this also refuses a short header.
		if err := req.UnmarshalBinary(msg); err != nil {
			if i := c.partial(xidOf(msg)); i >= 0 {
				c.dropPartial(i)
			}
			return nil, err
		}
	}
	part := openflow.MultipartType(binary.BigEndian.Uint16(msg[8:]))
	i := c.partial(xidOf(msg))
	if i < 0 {
		if len(c.mp) >= maxMultipartPending {
			return nil, badRequest(openflow.BadRequestMultipartBufferOverflow)
		}
		c.mp = append(c.mp, mpPartial{xid: xidOf(msg), part: part})
		i = len(c.mp) - 1
	}
	p := &c.mp[i]
	if p.part != part || p.monitor {
		c.dropPartial(i)
		return nil, badRequest(openflow.BadRequestBadMultipart)
	}
	p.size += len(msg)
	if p.size > maxMultipartBytes {
		c.dropPartial(i)
		return nil, badRequest(openflow.BadRequestMultipartBufferOverflow)
	}
	if hasBody {
		p.bodies++
		if part != openflow.MultipartTableFeatures {
			if p.bodies > 1 {
				c.dropPartial(i)
				return nil, badRequest(openflow.BadRequestBadLen)
			}
			p.body = bytes.Clone(msg)
		}
	}
	if more {
		return nil, nil
	}
	done := *p
	c.dropPartial(i)
	if part == openflow.MultipartTableFeatures && done.bodies > 0 {
		return nil, openflow.ErrorMsg{Type: openflow.ErrTypeTableFeaturesFailed, Code: uint16(openflow.TableFeaturesFailedEPerm)}
	}
	full := done.body
	if full == nil {
		full = bytes.Clone(msg)
	}
	binary.BigEndian.PutUint16(full[10:], 0) // the flags of a whole request
	return full, nil
}

// serveMultipart answers one whole multipart request.
func (c *conn) serveMultipart(msg []byte, req *openflow.MultipartRequest) error {
	rep := &openflow.MultipartReply{Part: req.Part}
	switch req.Part {
	case openflow.MultipartDesc:
		padded(rep.Desc.MfrDesc[:], mfrDesc)
		padded(rep.Desc.HWDesc[:], hwDesc)
		padded(rep.Desc.SWDesc[:], swDesc)
		padded(rep.Desc.SerialNum[:], serial)
		padded(rep.Desc.DPDesc[:], fmt.Sprintf("datapath %016x", c.a.cfg.DatapathID))
	case openflow.MultipartPortDesc:
		if p := c.a.cfg.Ports; p != nil {
			rep.PortDescs = p.Descs(nil)
		}
		return c.sendParts(msg, rep)
	case openflow.MultipartPortStats:
		if req.PortNo > openflow.PortMax && req.PortNo != openflow.PortAny {
			return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadPort)}
		}
		if p := c.a.cfg.Ports; p != nil {
			var ok bool
			if rep.Ports, ok = p.Stats(nil, req.PortNo); !ok {
				return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadPort)}
			}
		} else if req.PortNo != openflow.PortAny {
			return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadPort)}
		}
		return c.sendParts(msg, rep)
	case openflow.MultipartQueue, openflow.MultipartQueueDesc:
		// No port has queues: every port, or ANY, with OFPQ_ALL
		// gives an empty list, and a queue by its id is unknown.
		// QUEUE_DESC is OpenFlow 1.4's.
		if req.Part == openflow.MultipartQueueDesc && c.version < openflow.Version14 {
			return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadMultipart)}
		}
		if err := c.queuePort(req.PortNo); err != nil {
			return err
		}
		if req.QueueID != openflow.QueueAll {
			return openflow.ErrorMsg{Type: openflow.ErrTypeQueueOpFailed, Code: uint16(openflow.QueueOpFailedBadQueue)}
		}
		return c.sendParts(msg, rep)
	case openflow.MultipartTableDesc:
		// OpenFlow 1.4's: no eviction or vacancy events on any table
		// (config 0, no properties).
		if c.version < openflow.Version14 {
			return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadMultipart)}
		}
		for id := range c.a.pipe.NumTables() {
			rep.TableDescs = append(rep.TableDescs, openflow.TableDesc{TableID: uint8(id)})
		}
		return c.sendParts(msg, rep)
	case openflow.MultipartTableFeatures:
		if len(req.TableFeatures) != 0 {
			// Setting table features is optional; this switch's
			// tables are fixed (OpenFlow 1.3.5 §7.3.5.5).
			return openflow.ErrorMsg{Type: openflow.ErrTypeTableFeaturesFailed, Code: uint16(openflow.TableFeaturesFailedEPerm)}
		}
		rep.TableFeatures = c.a.tableFeatures()
		return c.sendParts(msg, rep)
	case openflow.MultipartFlow:
		return c.onFlowStats(msg, req)
	case openflow.MultipartAggregate:
		return c.onAggregateStats(msg, req)
	case openflow.MultipartTable:
		return c.onTableStats(msg)
	case openflow.MultipartMeter, openflow.MultipartMeterConfig, openflow.MultipartMeterFeatures:
		return c.onMeterMultipart(msg, req, rep)
	case openflow.MultipartGroupDesc, openflow.MultipartGroup, openflow.MultipartGroupFeatures:
		return c.serveGroups(msg, req, rep)
	default:
		return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadMultipart)}
	}
	return out(c.reply(msg, rep, openflow.TypeMultipartReply))
}

// queuePort checks the port of a queue request (OpenFlow 1.3.5 §7.3.5.8,
// §7.3.6): ANY, or a port of the switch; any other is refused with
// OFPQOFC_BAD_PORT, as Open vSwitch refuses it.
func (c *conn) queuePort(port uint32) error {
	if port == openflow.PortAny {
		return nil
	}
	if p := c.a.cfg.Ports; p != nil && port <= openflow.PortMax {
		if _, ok := p.Stats(nil, port); ok {
			return nil
		}
	}
	return openflow.ErrorMsg{Type: openflow.ErrTypeQueueOpFailed, Code: uint16(openflow.QueueOpFailedBadPort)}
}

// onQueueGetConfigRequest answers OFPT_QUEUE_GET_CONFIG_REQUEST: the
// switch's ports have no queues, so the reply lists none.
func (c *conn) onQueueGetConfigRequest(msg []byte) error {
	var req openflow.QueueGetConfigRequest
	if err := req.UnmarshalBinary(msg); err != nil {
		return err
	}
	if err := c.queuePort(req.Port); err != nil {
		return err
	}
	return out(c.reply(msg, &openflow.QueueGetConfigReply{Port: req.Port}, openflow.TypeQueueGetConfigReply))
}

// sendParts sends a reply with a list body, split into as many messages
// as it takes to keep each within the 64 KiB an ofp_header can state, all
// but the last flagged OFPMPF_REPLY_MORE (OpenFlow 1.3.5 §7.3.5).
func (c *conn) sendParts(req []byte, r *openflow.MultipartReply) error {
	r.Version, r.Type, r.XID = c.version, openflow.TypeMultipartReply, xidOf(req)
	b, _, err := r.AppendSplit(nil, 0)
	if err != nil {
		return fmt.Errorf("encode %v reply: %w", r.Part, err)
	}
	return c.sendReply(b)
}

// sendReply writes b, the messages of a multipart reply, counted against
// Config.ReplyLimitTotal while it is written if it is large.
func (c *conn) sendReply(b []byte) error {
	if len(b) >= replyTrackMin {
		c.a.replies.begin(c, len(b), c.a.cfg.ReplyLimitTotal)
		defer c.a.replies.end(c)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.out.Write(b); err != nil {
		return &sendError{err}
	}
	return nil
}

// oxmID is the OXM header of an OpenFlow-basic field, with the mask bit
// (and the length of value and mask) if masked, as table features list
// it.
func oxmID(f openflow.OXMField, masked bool) uint64 {
	h := uint32(openflow.OXMClassOpenFlow)<<16 | uint32(f)<<9 | uint32(f.Size())
	if masked {
		h += 1<<8 | uint32(f.Size())
	}
	return openflow.OXMID(h)
}

// tcpFlagsID is the OXM id of Open vSwitch's tcp_flags for OpenFlow 1.3:
// the ONF experimenter's field 42, whose payload is the experimenter id
// and a 16-bit value (and mask, if masked).
func tcpFlagsID(masked bool) uint64 {
	h := uint32(openflow.OXMClassExperimenter)<<16 | uint32(openflow.ONFFieldTCPFlags)<<9 | 4 + 2
	if masked {
		h += 1<<8 | 2
	}
	return openflow.OXMID(h) | uint64(openflow.ONFExperimenter)
}

// tableFeatures describes every table (OpenFlow 1.3.5 §7.3.5.5): what it
// matches, and the instructions and actions its entries may use. The
// lists come from ofrules.SupportedFeatures, which derives them from the
// translation of FLOW_MODs: what the switch accepts is what it lists.
func (a *Agent) tableFeatures() []openflow.TableFeatures {
	sup := ofrules.SupportedFeatures(&a.ofopt)
	var instr, last []openflow.FeatureID
	for _, t := range sup.Instructions {
		instr = append(instr, openflow.FeatureID{Type: uint16(t)})
		if t != openflow.InstructionGotoTable {
			last = append(last, openflow.FeatureID{Type: uint16(t)})
		}
	}
	var actions []openflow.FeatureID
	for _, t := range sup.Actions {
		actions = append(actions, openflow.FeatureID{Type: uint16(t)})
	}
	var match, wild, set []uint64
	for _, f := range sup.Match {
		match = append(match, oxmID(f, slices.Contains(sup.Maskable, f)))
		wild = append(wild, oxmID(f, false))
	}
	if sup.TCPFlags {
		match = append(match, tcpFlagsID(true))
		wild = append(wild, tcpFlagsID(false))
	}
	for _, f := range sup.SetFields {
		set = append(set, oxmID(f, false))
	}
	n := int(a.cfg.Tables)
	out := make([]openflow.TableFeatures, n)
	for id := range n {
		var next []uint8
		for j := id + 1; j < n; j++ {
			next = append(next, uint8(j))
		}
		ins := instr
		if id == n-1 {
			ins = last
		}
		tf := &out[id]
		tf.TableID = uint8(id)
		copy(tf.Name[:31], fmt.Sprintf("table%d", id))
		tf.MetadataMatch, tf.MetadataWrite = ^uint64(0), ^uint64(0)
		tf.MaxEntries = 1 << 24
		tf.Properties = []openflow.TableFeatureProp{
			{Type: openflow.TFPInstructions, IDs: ins},
			{Type: openflow.TFPInstructionsMiss, IDs: ins},
			{Type: openflow.TFPNextTables, TableIDs: next},
			{Type: openflow.TFPNextTablesMiss, TableIDs: next},
			{Type: openflow.TFPWriteActions, IDs: actions},
			{Type: openflow.TFPWriteActionsMiss, IDs: actions},
			{Type: openflow.TFPApplyActions, IDs: actions},
			{Type: openflow.TFPApplyActionsMiss, IDs: actions},
			{Type: openflow.TFPMatch, OXMIDs: match},
			{Type: openflow.TFPWildcards, OXMIDs: wild},
			{Type: openflow.TFPWriteSetField, OXMIDs: set},
			{Type: openflow.TFPWriteSetFieldMiss, OXMIDs: set},
			{Type: openflow.TFPApplySetField, OXMIDs: set},
			{Type: openflow.TFPApplySetFieldMiss, OXMIDs: set},
		}
	}
	return out
}

package controller

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/ofswitch/ofswitch/openflow"
)

// Asynchronous messages the data plane starts: PACKET_IN and PORT_STATUS
// (OpenFlow 1.3.5 §7.4). They are encoded once per distinct wire form and
// queued on every connection whose role and asynchronous configuration ask
// for them (§6.1.1, §7.3.10); the caller never waits for a controller.

// PacketIn is a frame for the controllers (OFPT_PACKET_IN, buffer_id
// OFP_NO_BUFFER).
type PacketIn struct {
	InPort   uint32
	Reason   uint8 // openflow.PacketIn*: 0 no match, 1 action, 2 invalid ttl
	Table    uint8
	Cookie   uint64
	Metadata uint64
	TunnelID uint64
	// MaxLen is the number of bytes the output action asked for;
	// openflow.ControllerMaxLenNoBuffer (0xffff) means the whole frame.
	// For openflow.PacketInInvalidTTL, which no output action sends, each
	// connection's miss_send_len (SET_CONFIG) applies instead.
	MaxLen uint16
	// Frame is the whole frame; PacketIn copies what it sends, so the
	// caller may reuse it after PacketIn returns.
	Frame []byte
}

// asyncMasks is a connection's asynchronous configuration for its current
// role, readable without a lock: bit n of a mask enables reason n.
type asyncMasks struct {
	packetIn    atomic.Uint32
	portStatus  atomic.Uint32
	missSendLen atomic.Uint32 // SET_CONFIG miss_send_len of this connection
	// slave is whether the role is slave: conn.isSlave reads it for
	// every state-changing message, which would otherwise take the
	// agent's lock for each FLOW_MOD.
	slave atomic.Bool
}

// syncAsync refreshes c.am from c.role and c.async; a.mu must be held.
func (c *conn) syncAsync() {
	i := 0
	if c.role == openflow.RoleSlave {
		i = 1
	}
	c.am.slave.Store(i == 1)
	c.am.packetIn.Store(c.async.PacketInMask[i])
	c.am.portStatus.Store(c.async.PortStatusMask[i])
}

// setAsync applies a SET_ASYNC: on OpenFlow 1.4 only the masks whose
// properties it carries, on 1.3 all three pairs. a.mu must be held.
func (c *conn) setAsync(m *openflow.AsyncConfig) {
	if m.Version < openflow.Version14 {
		c.async.PacketInMask, c.async.PortStatusMask, c.async.FlowRemovedMask = m.PacketInMask, m.PortStatusMask, m.FlowRemovedMask
		return
	}
	pairs := [...]struct{ dst, src *[2]uint32 }{
		{&c.async.PacketInMask, &m.PacketInMask}, {&c.async.PortStatusMask, &m.PortStatusMask},
		{&c.async.FlowRemovedMask, &m.FlowRemovedMask}, {&c.async.RoleStatusMask, &m.RoleStatusMask},
		{&c.async.TableStatusMask, &m.TableStatusMask}, {&c.async.RequestForwardMask, &m.RequestForwardMask},
	}
	for p := range 12 {
		if m.Props&(1<<p) == 0 {
			continue
		}
		role := 0 // OFPACPT_*_MASTER: master and equal
		if p%2 == 0 {
			role = 1 // OFPACPT_*_SLAVE
		}
		pairs[p/2].dst[role] = pairs[p/2].src[role]
	}
}

// pinHeaderLen is the fixed part of a PACKET_IN before its match.
const pinHeaderLen = 24

// pinMatchLen is the encoded length of a PACKET_IN match: OXM in_port and,
// when not zero, OXM metadata and tunnel_id, padded to 8 bytes.
func pinMatchLen(p *PacketIn) int {
	n := 4 + 8 // ofp_match header + in_port
	if p.Metadata != 0 {
		n += 12
	}
	if p.TunnelID != 0 {
		n += 12
	}
	return (n + 7) &^ 7
}

// appendPacketIn appends the PACKET_IN of p for a connection of version v,
// with the first n bytes of the frame.
func appendPacketIn(dst []byte, v uint8, p *PacketIn, n int) []byte {
	var fields [3]openflow.OXM
	var b [8]byte
	binary.BigEndian.PutUint32(b[:], p.InPort)
	fields[0] = openflow.NewOXM(openflow.FieldInPort, b[:4], nil)
	m := openflow.PacketIn{
		Header:   openflow.Header{Version: v},
		BufferID: openflow.NoBuffer, TotalLen: uint16(min(len(p.Frame), 0xffff)),
		Reason: p.Reason, TableID: p.Table, Cookie: p.Cookie,
		Match: openflow.Match{Fields: fields[:1]},
		Data:  p.Frame[:n],
	}
	nf := 1
	if p.Metadata != 0 {
		binary.BigEndian.PutUint64(b[:], p.Metadata)
		fields[nf] = openflow.NewOXM(openflow.FieldMetadata, b[:], nil)
		nf++
	}
	if p.TunnelID != 0 {
		binary.BigEndian.PutUint64(b[:], p.TunnelID)
		fields[nf] = openflow.NewOXM(openflow.FieldTunnelID, b[:], nil)
		nf++
	}
	m.Match.Fields = fields[:nf]
	out, err := m.AppendBinary(dst)
	if err != nil {
		// Unreachable: the caller bounds n so that the message fits.
		return dst
	}
	return out
}

// pinEncoding is one wire form of a PACKET_IN, shared by the connections
// that want exactly it.
type pinEncoding struct {
	version uint8
	n       int
	b       []byte
}

// PacketIn sends p to every connection whose role and asynchronous
// configuration want it (OFPT_PACKET_IN, OpenFlow 1.3.5 §7.4.1; the
// OpenFlow 1.4 message has the same layout): buffer_id OFP_NO_BUFFER,
// total_len the frame's length, match OXM in_port (and metadata and
// tunnel_id when not zero), data the frame truncated to p.MaxLen, or to the connection's
// miss_send_len for openflow.PacketInInvalidTTL. Masters and equals follow
// packet_in_mask[0] of SET_ASYNC, slaves packet_in_mask[1].
//
// It never blocks: it queues on each connection's asynchronous queue and
// returns, allocating one buffer per distinct encoding (version and
// length). Safe from any goroutine; data plane workers call it.
func (a *Agent) PacketIn(p *PacketIn) {
	cs := a.live.Load()
	if cs == nil || p.Reason >= 32 {
		return
	}
	bit := uint32(1) << p.Reason
	fixed := pinHeaderLen + pinMatchLen(p) + 2
	room := openflow.MaxMessageLen - fixed
	var encs [4]pinEncoding
	nenc := 0
	for _, c := range *cs {
		if c.am.packetIn.Load()&bit == 0 {
			continue
		}
		limit := uint32(p.MaxLen)
		if p.Reason == openflow.PacketInInvalidTTL {
			limit = c.am.missSendLen.Load()
		}
		n := len(p.Frame)
		if limit != uint32(openflow.ControllerMaxLenNoBuffer) {
			n = min(n, int(limit))
		}
		n = min(n, room)
		var b []byte
		for i := range nenc {
			if e := &encs[i]; e.version == c.version && e.n == n {
				b = e.b
				break
			}
		}
		if b == nil {
			b = appendPacketIn(make([]byte, 0, fixed+n), c.version, p, n)
			if nenc < len(encs) {
				encs[nenc] = pinEncoding{version: c.version, n: n, b: b}
				nenc++
			}
		}
		c.enqueue(b)
	}
}

// PortStatus sends OFPT_PORT_STATUS (OpenFlow 1.3.5 §7.4.3; reason
// openflow.PortAdd, PortDelete or PortModify) to every connection whose
// asynchronous configuration wants it: port_status_mask[0] for masters and
// equals, [1] for slaves. OpenFlow 1.4 connections get the port in the
// 1.4 layout (an Ethernet property). It never blocks.
func (a *Agent) PortStatus(reason uint8, port openflow.Port) {
	cs := a.live.Load()
	if cs == nil || reason >= 32 {
		return
	}
	bit := uint32(1) << reason
	var encs [2][]byte // by version: 1.3, 1.4
	for _, c := range *cs {
		if c.am.portStatus.Load()&bit == 0 {
			continue
		}
		i := 0
		if c.version == openflow.Version14 {
			i = 1
		}
		if encs[i] == nil {
			m := openflow.PortStatus{Header: openflow.Header{Version: c.version}, Reason: reason, Desc: port}
			b, err := m.AppendBinary(nil)
			if err != nil {
				a.cfg.Logger.Error("encode port status", "err", err)
				return
			}
			encs[i] = b
		}
		c.enqueue(encs[i])
	}
}

// roleStatus tells the controllers that another one's master request made
// slaves that they are (OpenFlow 1.4.1 §7.4.4): OFPT_ROLE_STATUS on
// OpenFlow 1.4 connections (unless their role status mask for slaves,
// which only 1.4's SET_ASYNC can change, says otherwise), and on OpenFlow
// 1.3 ones the ONF experimenter message ONFT_ROLE_STATUS with the same
// body, as Open vSwitch sends.
func (a *Agent) roleStatus(demoted []*conn, generation uint64) {
	for _, o := range demoted {
		m := openflow.RoleStatus{
			Header: openflow.Header{Version: o.version}, Role: openflow.RoleSlave,
			Reason: openflow.RoleReasonMasterRequest, GenerationID: generation,
		}
		o.sendAsync(&m)
	}
}

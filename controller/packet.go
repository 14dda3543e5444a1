package controller

import (
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// PACKET_OUT (OpenFlow 1.3.5 §7.3.7). The switch buffers no packets
// (n_buffers 0), so a buffer_id other than OFP_NO_BUFFER is refused with
// OFPBRC_BUFFER_UNKNOWN. in_port must be a port number (1..OFPP_MAX) or
// OFPP_CONTROLLER; OFPP_LOCAL and OFPP_ANY (what ovs-ofctl sends for
// in_port=none, handed to Config.PacketOut as OFPP_CONTROLLER) are
// accepted as Open vSwitch accepts them; anything else is OFPBRC_BAD_PORT.
// When Config.Ports is set, in_port and every output port must name a
// port it describes (OFPBRC_BAD_PORT, OFPBAC_BAD_OUT_PORT). The actions
// are checked as a flow entry's are (ofrules.ActionsTLV, through the
// switch's TLV table) and get the same OFPET_BAD_ACTION codes.
//
// Without Config.PacketOut the switch is one without ports, which is what
// Open vSwitch's checks make of a datapath with no ports (max_ports 0):
// a physical in_port is OFPBRC_BAD_PORT, an output to a physical port
// OFPBAC_BAD_OUT_PORT, and the reserved ports are executed: FLOOD, ALL,
// IN_PORT, NORMAL, LOCAL and TABLE reach no port, so the frame is dropped
// silently, and CONTROLLER sends it back to the controllers as a
// PACKET_IN with reason OFPR_ACTION (OpenFlow 1.3's reason for what later
// versions call OFPR_PACKET_OUT), table_id 0xff and cookie all ones.

func badRequest(code openflow.BadRequestCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(code)}
}

func badAction(code openflow.BadActionCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadAction, Code: uint16(code)}
}

func (c *conn) onPacketOut(msg []byte) error {
	var po openflow.PacketOut
	if err := po.UnmarshalBinary(msg); err != nil {
		return err
	}
	a := c.a
	ports := a.switchPorts()
	in := po.InPort
	switch {
	case in == openflow.PortController || in == openflow.PortLocal:
	case in == openflow.PortAny:
		in = openflow.PortController
	case in == 0 || in > openflow.PortMax:
		return badRequest(openflow.BadRequestBadPort)
	case !ports.has(in):
		return badRequest(openflow.BadRequestBadPort)
	}
	acts, err := ofrules.ActionsTLV(po.Actions, a.tlv.Load())
	if err != nil {
		return err
	}
	for _, act := range acts {
		if act.Kind == rules.ActionOutput && act.Port <= openflow.PortMax && !ports.has(act.Port) {
			return badAction(openflow.BadActionBadOutPort)
		}
	}
	if a.missingGroup(acts) {
		return badAction(openflow.BadActionBadOutGroup)
	}
	if po.BufferID != openflow.NoBuffer {
		return badRequest(openflow.BadRequestBufferUnknown)
	}
	if a.cfg.PacketOut != nil {
		return a.cfg.PacketOut(in, acts, po.Data)
	}
	// No data plane: only the controller can receive the frame.
	for _, act := range acts {
		if act.Kind == rules.ActionOutput && act.Port == openflow.PortController {
			a.PacketIn(&PacketIn{
				InPort: in, Reason: openflow.PacketInAction, Table: 0xff, Cookie: ^uint64(0),
				MaxLen: act.MaxLen, Frame: po.Data,
			})
		}
	}
	return nil
}

// portSet is the switch's ports (1..OFPP_MAX) as PACKET_OUT checks them.
type portSet struct {
	all   bool // any port number: the data plane decides
	descs []openflow.Port
}

// switchPorts returns the ports Config.Ports describes; without Ports,
// any port when a data plane executes PACKET_OUT, none otherwise.
func (a *Agent) switchPorts() portSet {
	if a.cfg.Ports == nil {
		return portSet{all: a.cfg.PacketOut != nil}
	}
	return portSet{descs: a.cfg.Ports.Descs(nil)}
}

func (s portSet) has(port uint32) bool {
	if s.all {
		return true
	}
	for i := range s.descs {
		if s.descs[i].PortNo == port {
			return true
		}
	}
	return false
}

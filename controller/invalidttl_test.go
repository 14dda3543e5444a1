package controller

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/tables"
)

// ttlFrame is a UDP frame from 02:00:00:00:00:01 to :02 whose IPv4 TTL,
// IPv6 hop limit or (kind "mpls", one label over IPv4) MPLS TTL is ttl.
func ttlFrame(t testing.TB, kind string, ttl uint8) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, 1}, DstMAC: []byte{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	u := &layers.UDP{SrcPort: 1000, DstPort: 2000}
	var ls []gopacket.SerializableLayer
	switch kind {
	case "ip", "mpls":
		ip := &layers.IPv4{Version: 4, TTL: ttl, Protocol: layers.IPProtocolUDP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}}
		u.SetNetworkLayerForChecksum(ip)
		ls = []gopacket.SerializableLayer{eth, ip, u}
		if kind == "mpls" {
			ip.TTL = 64
			eth.EthernetType = layers.EthernetTypeMPLSUnicast
			ls = []gopacket.SerializableLayer{eth, &layers.MPLS{Label: 100, StackBottom: true, TTL: ttl}, ip, u}
		}
	case "ipv6":
		eth.EthernetType = layers.EthernetTypeIPv6
		ip := &layers.IPv6{Version: 6, HopLimit: ttl, NextHeader: layers.IPProtocolUDP, SrcIP: make([]byte, 16), DstIP: make([]byte, 16)}
		ip.SrcIP[15], ip.DstIP[15] = 1, 2
		u.SetNetworkLayerForChecksum(ip)
		ls = []gopacket.SerializableLayer{eth, ip, u}
	default:
		t.Fatalf("no frame kind %q", kind)
	}
	ls = append(ls, gopacket.Payload(make([]byte, 20)))
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// startSwitch serves an agent whose PACKET_OUTs run through a data plane
// (ports 1-4, no devices) sharing its flow tables, and whose packet-ins
// come from that data plane, as bridge wires them.
func startSwitch(t *testing.T) (*Agent, string) {
	t.Helper()
	pipe, err := rules.New(&rules.Config{Tables: 4})
	if err != nil {
		t.Fatal(err)
	}
	own := tables.New(pipe, &tables.Config{})
	var agent atomic.Pointer[Agent]
	sw := dataplane.NewSwitch(pipe, &dataplane.Config{Ports: []uint32{1, 2, 3, 4}, Groups: own.Groups(),
		PacketIn: func(p *dataplane.PacketIn) {
			if a := agent.Load(); a != nil {
				a.PacketIn(&PacketIn{InPort: p.InPort, Reason: p.Reason, Table: p.Table, Cookie: p.Cookie,
					MaxLen: p.MaxLen, Frame: p.Frame, Metadata: p.Metadata, TunnelID: p.TunnelID})
			}
		}})
	a, addr := startAgent(t, &Config{FlowTables: own, PacketOut: sw.PacketOut})
	agent.Store(a)
	return a, addr
}

// sendTable sends frame through the flow tables as received on port 1
// (PACKET_OUT to OFPP_TABLE) and returns the PACKET_INs that arrive
// before the reply to the barrier that follows and within wait after it.
func (c *client) sendTable(frame []byte, xid uint32, wait time.Duration) []openflow.PacketIn {
	c.t.Helper()
	return c.sendOut(frame, []openflow.Action{openflow.Output(openflow.PortTable, 0)}, xid, wait)
}

// sendOut is sendTable with the PACKET_OUT's actions acts.
func (c *client) sendOut(frame []byte, acts []openflow.Action, xid uint32, wait time.Duration) []openflow.PacketIn {
	c.t.Helper()
	c.send(&openflow.PacketOut{Header: hdr(openflow.TypePacketOut, xid), BufferID: openflow.NoBuffer, InPort: 1,
		Actions: acts, Data: frame})
	c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, xid+1)})
	var pins []openflow.PacketIn
	barrier := false
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		msg, err := c.r.Next()
		if err != nil {
			if barrier {
				return pins // the wait after the barrier is over
			}
			c.t.Fatalf("waiting for PACKET_IN or BARRIER_REPLY: %v", err)
		}
		switch openflow.Type(msg[1]) {
		case openflow.TypePacketIn:
			var pin openflow.PacketIn
			if err := pin.UnmarshalBinary(msg); err != nil {
				c.t.Fatal(err)
			}
			pin.Data = bytes.Clone(pin.Data)
			pins = append(pins, pin)
		case openflow.TypeBarrierReply:
			barrier = true
			c.nc.SetReadDeadline(time.Now().Add(wait))
		case openflow.TypeEchoRequest:
		default:
			c.t.Fatalf("got %v", openflow.Type(msg[1]))
		}
	}
}

// inPort returns the in_port of a PACKET_IN's match, or 0.
func inPort(m *openflow.Match) uint32 {
	if f := m.Field(openflow.FieldInPort); f != nil {
		return binary.BigEndian.Uint32(f.Bytes())
	}
	return 0
}

// TestInvalidTTLPacketIn: a dec_ttl at TTL 1 reaches a controller over
// its connection as a PACKET_IN of reason OFPR_INVALID_TTL, with the
// entry's table and cookie, in_port and the frame cut to the connection's
// miss_send_len, only once SET_ASYNC asks for the reason; the entry's
// output to CONTROLLER after the dec_ttl does not run.
func TestInvalidTTLPacketIn(t *testing.T) {
	_, addr := startSwitch(t)
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	c.send(&openflow.FlowMod{Header: hdr(openflow.TypeFlowMod, 2), TableID: 1, Cookie: 0x11, Priority: 5, BufferID: openflow.NoBuffer,
		Match: openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800)}},
		Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Action{Type: openflow.ActionDecNWTTL},
			openflow.Output(2, 0), openflow.Output(openflow.PortController, 0xffff))}})
	c.send(&openflow.FlowMod{Header: hdr(openflow.TypeFlowMod, 3), Priority: 0, BufferID: openflow.NoBuffer,
		Instructions: []openflow.Instruction{openflow.GotoTable(1)}})
	c.barrier(4)
	frame := ttlFrame(t, "ip", 1)

	// The default asynchronous configuration leaves OFPR_INVALID_TTL out.
	if pins := c.sendTable(frame, 10, 200*time.Millisecond); len(pins) != 0 {
		t.Fatalf("%d PACKET_INs with the default async config, want none: %+v", len(pins), pins)
	}
	c.send(&openflow.AsyncConfig{Header: hdr(openflow.TypeSetAsync, 20),
		PacketInMask: [2]uint32{1<<openflow.PacketInNoMatch | 1<<openflow.PacketInAction | 1<<openflow.PacketInInvalidTTL, 0}})
	for _, tt := range []struct {
		missSendLen uint16
		n           int
	}{{128, len(frame)}, {40, 40}, {0xffff, len(frame)}} {
		c.send(&openflow.SwitchConfig{Header: hdr(openflow.TypeSetConfig, 21), MissSendLen: tt.missSendLen})
		pins := c.sendTable(frame, 22, 100*time.Millisecond)
		if len(pins) != 1 {
			t.Fatalf("miss_send_len %d: %d PACKET_INs, want 1: %+v", tt.missSendLen, len(pins), pins)
		}
		p := &pins[0]
		if p.Reason != openflow.PacketInInvalidTTL || p.TableID != 1 || p.Cookie != 0x11 || p.BufferID != openflow.NoBuffer ||
			inPort(&p.Match) != 1 || int(p.TotalLen) != len(frame) || !bytes.Equal(p.Data, frame[:tt.n]) {
			t.Errorf("miss_send_len %d: PACKET_IN reason %d table %d cookie %#x in_port %d total_len %d data %x, want reason 2 table 1 "+
				"cookie 0x11 in_port 1 total_len %d data %x", tt.missSendLen, p.Reason, p.TableID, p.Cookie, inPort(&p.Match),
				p.TotalLen, p.Data, len(frame), frame[:tt.n])
		}
	}
	// Masked off again: none.
	c.send(&openflow.AsyncConfig{Header: hdr(openflow.TypeSetAsync, 30), PacketInMask: [2]uint32{1 << openflow.PacketInAction, 0}})
	if pins := c.sendTable(frame, 31, 200*time.Millisecond); len(pins) != 0 {
		t.Fatalf("%d PACKET_INs with OFPR_INVALID_TTL masked off, want none: %+v", len(pins), pins)
	}
	// TTL 2: decremented, then output to CONTROLLER: reason action.
	pins := c.sendTable(ttlFrame(t, "ip", 2), 40, 100*time.Millisecond)
	if len(pins) != 1 || pins[0].Reason != openflow.PacketInAction || !bytes.Equal(pins[0].Data, frame) {
		t.Errorf("TTL 2: PACKET_INs %+v, want one of reason action with TTL 1", pins)
	}
}

package controller

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// waitConns waits (boundedly) until the agent has registered n
// connections: a client's handshake ends before the switch registers it.
func waitConns(t *testing.T, a *Agent, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for a.Conns() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections registered, want %d", a.Conns(), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// barrier sends a BARRIER_REQUEST and waits for its reply: every earlier
// message of c has been handled by then.
func (c *client) barrier(xid uint32) {
	c.t.Helper()
	c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, xid)})
	c.recv(openflow.TypeBarrierReply)
}

func (c *client) setRole(role uint32, gen uint64, xid uint32) {
	c.t.Helper()
	c.send(&openflow.Role{Header: hdr(openflow.TypeRoleRequest, xid), Role: role, GenerationID: gen})
	c.recv(openflow.TypeRoleReply)
}

func testFrame(n int) []byte {
	f := make([]byte, n)
	for i := range f {
		f[i] = byte(i)
	}
	return f
}

// TestPacketInWire checks the PACKET_IN bytes field by field.
func TestPacketInWire(t *testing.T) {
	a, addr := startAgent(t, nil)
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	waitConns(t, a, 1)
	frame := testFrame(100)
	a.PacketIn(&PacketIn{InPort: 5, Reason: openflow.PacketInAction, Table: 3, Cookie: 0x0102030405060708, MaxLen: 64, Frame: frame})
	frame[0] = 0xee // PacketIn copied what it sends
	want := hexBytes(t, `
		04 0a 00 6a 00 00 00 00   # v1.3 PACKET_IN, len 106, xid 0
		ff ff ff ff               # buffer_id OFP_NO_BUFFER
		00 64 01 03               # total_len 100, reason ACTION, table 3
		01 02 03 04 05 06 07 08   # cookie
		00 01 00 0c               # match: OXM, length 12
		80 00 00 04 00 00 00 05   # OXM in_port 5
		00 00 00 00 00 00         # match pad, then 2 bytes pad
	`)
	want = append(want, testFrame(64)...)
	got := c.recv(openflow.TypePacketIn)
	if !bytes.Equal(got, want) {
		t.Fatalf("PACKET_IN\n got %x\nwant %x", got, want)
	}
	if ofctl, err := exec.LookPath("ovs-ofctl"); err == nil {
		out, err := exec.Command(ofctl, "ofp-print", hex.EncodeToString(got)).CombinedOutput()
		if s := string(out); err != nil || !strings.Contains(s, "total_len=100 in_port=5") || !strings.Contains(s, "cookie=0x102030405060708") {
			t.Errorf("ovs-ofctl ofp-print: %v\n%s", err, s)
		}
	}

	// Metadata travels as a second OXM; NO_BUFFER sends the whole frame.
	a.PacketIn(&PacketIn{InPort: 7, Reason: openflow.PacketInNoMatch, Metadata: 0xabc, MaxLen: openflow.ControllerMaxLenNoBuffer, Frame: testFrame(80)})
	var pin openflow.PacketIn
	if err := pin.UnmarshalBinary(c.recv(openflow.TypePacketIn)); err != nil {
		t.Fatal(err)
	}
	wantMatch := []openflow.OXM{
		openflow.NewOXM(openflow.FieldInPort, []byte{0, 0, 0, 7}, nil),
		openflow.NewOXM(openflow.FieldMetadata, []byte{0, 0, 0, 0, 0, 0, 0x0a, 0xbc}, nil),
	}
	if diff := cmp.Diff(wantMatch, pin.Match.Fields); diff != "" {
		t.Errorf("match (-want +got):\n%s", diff)
	}
	if pin.BufferID != openflow.NoBuffer || pin.TotalLen != 80 || !bytes.Equal(pin.Data, testFrame(80)) || pin.Reason != openflow.PacketInNoMatch {
		t.Errorf("PACKET_IN %+v", pin)
	}

	// Invalid TTL (asked for with SET_ASYNC) follows the connection's
	// miss_send_len, not MaxLen.
	c.send(&openflow.AsyncConfig{Header: hdr(openflow.TypeSetAsync, 8), PacketInMask: [2]uint32{0b111, 0}})
	c.send(&openflow.SwitchConfig{Header: hdr(openflow.TypeSetConfig, 9), MissSendLen: 20})
	c.barrier(10)
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInInvalidTTL, MaxLen: 64, Frame: testFrame(100)})
	if err := pin.UnmarshalBinary(c.recv(openflow.TypePacketIn)); err != nil {
		t.Fatal(err)
	}
	if pin.TotalLen != 100 || len(pin.Data) != 20 {
		t.Errorf("invalid-ttl PACKET_IN: total_len %d, %d bytes of data; want 100, 20", pin.TotalLen, len(pin.Data))
	}
	// MaxLen 0 sends no data at all.
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInAction, MaxLen: 0, Frame: testFrame(100)})
	if err := pin.UnmarshalBinary(c.recv(openflow.TypePacketIn)); err != nil || len(pin.Data) != 0 || pin.TotalLen != 100 {
		t.Errorf("max_len 0: %+v, %v", pin, err)
	}
	// A jumbo frame is cut to what fits in one message.
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInAction, MaxLen: openflow.ControllerMaxLenNoBuffer, Frame: testFrame(70000)})
	if err := pin.UnmarshalBinary(c.recv(openflow.TypePacketIn)); err != nil || pin.TotalLen != 0xffff || len(pin.Data) != 0xffff-42 {
		t.Errorf("jumbo: total_len %d, %d bytes, %v", pin.TotalLen, len(pin.Data), err)
	}
}

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	var sb strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		sb.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(sb.String())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPacketInRolesAndAsync: masters and equals follow packet_in_mask[0],
// slaves [1]; by default a slave gets no PACKET_IN. An OpenFlow 1.4
// connection gets the same message at version 0x05.
func TestPacketInRolesAndAsync(t *testing.T) {
	a, addr := startAgent(t, nil)
	m, s, e := dial(t, addr), dial(t, addr), dial(t, addr)
	m.handshake(openflow.Version13)
	s.handshake(openflow.Version13)
	e.handshake(openflow.Version13, openflow.Version14)
	waitConns(t, a, 3)
	m.setRole(openflow.RoleMaster, 1, 1)
	s.setRole(openflow.RoleSlave, 1, 1)

	// reasonOf reads the next PACKET_IN and returns its reason and version.
	reasonOf := func(c *client) (uint8, uint8) {
		t.Helper()
		var pin openflow.PacketIn
		if err := pin.UnmarshalBinary(c.recv(openflow.TypePacketIn)); err != nil {
			t.Fatal(err)
		}
		return pin.Reason, pin.Version
	}
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInInvalidTTL, MaxLen: 64, Frame: testFrame(60)})
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInNoMatch, MaxLen: 64, Frame: testFrame(60)})
	// Default masks: no-match and action for master/equal, nothing for a
	// slave; the invalid-ttl one is filtered out for everyone.
	if r, v := reasonOf(m); r != openflow.PacketInNoMatch || v != openflow.Version13 {
		t.Errorf("master got reason %d v%d first, want no-match v1.3", r, v)
	}
	if r, v := reasonOf(e); r != openflow.PacketInNoMatch || v != openflow.Version14 {
		t.Errorf("equal got reason %d v%d first, want no-match v1.4", r, v)
	}
	// The slave asks for invalid-ttl packet-ins; the master stops
	// wanting no-match ones.
	s.send(&openflow.AsyncConfig{Header: hdr(openflow.TypeSetAsync, 2), PacketInMask: [2]uint32{0, 1 << openflow.PacketInInvalidTTL}})
	s.barrier(3)
	m.send(&openflow.AsyncConfig{Header: hdr(openflow.TypeSetAsync, 2), PacketInMask: [2]uint32{1 << openflow.PacketInAction, 0}})
	m.barrier(3)
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInNoMatch, MaxLen: 64, Frame: testFrame(60)})
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInInvalidTTL, MaxLen: 64, Frame: testFrame(60)})
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInAction, MaxLen: 64, Frame: testFrame(60)})
	if r, _ := reasonOf(s); r != openflow.PacketInInvalidTTL {
		t.Errorf("slave got reason %d, want invalid-ttl", r)
	}
	if r, _ := reasonOf(m); r != openflow.PacketInAction {
		t.Errorf("master got reason %d, want action (no-match is masked off)", r)
	}
	for _, want := range []uint8{openflow.PacketInNoMatch, openflow.PacketInAction} {
		if r, _ := reasonOf(e); r != want {
			t.Errorf("equal got reason %d, want %d", r, want)
		}
	}
}

// TestPortStatus: port_status_mask per role; an OpenFlow 1.4 controller
// gets the port in the 1.4 layout.
func TestPortStatus(t *testing.T) {
	a, addr := startAgent(t, nil)
	m, s, e := dial(t, addr), dial(t, addr), dial(t, addr)
	m.handshake(openflow.Version13)
	s.handshake(openflow.Version13)
	e.handshake(openflow.Version14)
	waitConns(t, a, 3)
	m.setRole(openflow.RoleMaster, 1, 1)
	s.setRole(openflow.RoleSlave, 1, 1)
	s.send(&openflow.AsyncConfig{Header: hdr(openflow.TypeSetAsync, 2), PortStatusMask: [2]uint32{0b111, 1 << openflow.PortDelete}})
	s.barrier(3)
	port := openflow.Port{PortNo: 3, HWAddr: [6]byte{2, 0, 0, 0, 0, 3}, CurrSpeed: 10000000}
	copy(port.Name[:], "veth3")
	a.PortStatus(openflow.PortModify, port)
	a.PortStatus(openflow.PortDelete, port)
	status := func(c *client) openflow.PortStatus {
		t.Helper()
		var ps openflow.PortStatus
		if err := ps.UnmarshalBinary(c.recv(openflow.TypePortStatus)); err != nil {
			t.Fatal(err)
		}
		return ps
	}
	for _, want := range []uint8{openflow.PortModify, openflow.PortDelete} {
		if ps := status(m); ps.Reason != want || ps.Desc != port || ps.XID != 0 {
			t.Errorf("master: %+v, want reason %d and %+v", ps, want, port)
		}
	}
	if ps := status(s); ps.Reason != openflow.PortDelete {
		t.Errorf("slave got reason %d first, want delete (modify is masked off)", ps.Reason)
	}
	b := e.recv(openflow.TypePortStatus)
	if b[0] != openflow.Version14 || len(b) != 88 {
		t.Fatalf("1.4 PORT_STATUS: version %#x, %d bytes; want 0x05, 88", b[0], len(b))
	}
	if ofctl, err := exec.LookPath("ovs-ofctl"); err == nil {
		out, err := exec.Command(ofctl, "ofp-print", hex.EncodeToString(b)).CombinedOutput()
		if s := string(out); err != nil || !strings.Contains(s, "OFPT_PORT_STATUS (OF1.4) (xid=0x0): MOD: 3(veth3): addr:02:00:00:00:00:03") ||
			!strings.Contains(s, "speed: 10000 Mbps now") {
			t.Errorf("ovs-ofctl ofp-print of the 1.4 PORT_STATUS: %v\n%s", err, s)
		}
	}
}

// TestPacketInAllocs: one PACKET_IN to two connections of one version is
// encoded once; PacketIn allocates that buffer and nothing else.
func TestPacketInAllocs(t *testing.T) {
	a, err := New(&Config{Logger: quiet, AsyncLimit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	var cs []*conn
	for range 2 {
		c := newConn(a, nil)
		c.version = openflow.Version13
		cs = append(cs, c)
		a.conns[c] = struct{}{}
	}
	a.publishConns()
	p := &PacketIn{InPort: 1, Reason: openflow.PacketInNoMatch, MaxLen: 128, Frame: testFrame(1500)}
	allocs := testing.AllocsPerRun(200, func() { a.PacketIn(p) })
	if allocs > 1.2 { // one buffer, plus the queues' amortised growth
		t.Errorf("PacketIn: %.2f allocations per call, want 1", allocs)
	}
	q0, q1 := cs[0].q, cs[1].q
	if len(q0) == 0 || len(q0) != len(q1) || &q0[0].b[0] != &q1[0].b[0] || len(q0[0].b) != 42+128 {
		t.Fatalf("queues hold %d and %d messages, not one shared encoding of 170 bytes", len(q0), len(q1))
	}
}

// poRecorder records what Config.PacketOut receives.
type poRecorder struct {
	mu   sync.Mutex
	got  []recordedPO
	fail error
}

type recordedPO struct {
	InPort  uint32
	Actions []rules.Action
	Frame   []byte
}

func (r *poRecorder) packetOut(in uint32, acts []rules.Action, frame []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, recordedPO{in, acts, bytes.Clone(frame)})
	return r.fail
}

func (r *poRecorder) take() []recordedPO {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.got
	r.got = nil
	return g
}

func TestPacketOut(t *testing.T) {
	rec := &poRecorder{}
	a, addr := startAgent(t, &Config{PacketOut: rec.packetOut})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	waitConns(t, a, 1)
	frame := testFrame(60)
	po := func(xid, buffer, in uint32, acts ...openflow.Action) *openflow.PacketOut {
		return &openflow.PacketOut{Header: hdr(openflow.TypePacketOut, xid), BufferID: buffer, InPort: in, Actions: acts, Data: frame}
	}
	c.send(po(1, openflow.NoBuffer, 1, openflow.Output(openflow.PortFlood, 0),
		openflow.SetField(openflow.NewOXM(openflow.FieldEthDst, []byte{2, 0, 0, 0, 0, 9}, nil)), openflow.Output(2, 0)))
	c.send(po(2, openflow.NoBuffer, openflow.PortController, openflow.Output(openflow.PortTable, 0)))
	c.send(po(3, openflow.NoBuffer, openflow.PortAny, openflow.Output(3, 0)))
	c.barrier(4)
	want := []recordedPO{
		{1, []rules.Action{
			{Kind: rules.ActionOutput, Port: rules.PortFlood},
			{Kind: rules.ActionSetField, Field: rules.FieldEthDst, Value: [2]uint64{0, 0x020000000009}},
			{Kind: rules.ActionOutput, Port: 2},
		}, frame},
		{openflow.PortController, []rules.Action{{Kind: rules.ActionOutput, Port: rules.PortTable}}, frame},
		{openflow.PortController, []rules.Action{{Kind: rules.ActionOutput, Port: 3}}, frame},
	}
	if diff := cmp.Diff(want, rec.take()); diff != "" {
		t.Fatalf("PacketOut calls (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		name string
		msg  *openflow.PacketOut
		typ  openflow.ErrorType
		code uint16
	}{
		{"buffered", po(10, 7, 1, openflow.Output(2, 0)), openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBufferUnknown)},
		{"in_port 0", po(11, openflow.NoBuffer, 0, openflow.Output(2, 0)), openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPort)},
		{"in_port FLOOD", po(12, openflow.NoBuffer, openflow.PortFlood, openflow.Output(2, 0)), openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPort)},
		{"in_port reserved gap", po(13, openflow.NoBuffer, openflow.PortMax+1, openflow.Output(2, 0)), openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPort)},
		{"group", po(14, openflow.NoBuffer, 1, openflow.Action{Type: openflow.ActionGroup, GroupID: 1}), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadOutGroup)},
		{"output ANY", po(15, openflow.NoBuffer, 1, openflow.Output(openflow.PortAny, 0)), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadOutPort)},
		{"push bad ethertype", po(16, openflow.NoBuffer, 1, openflow.Action{Type: openflow.ActionPushVLAN, EtherType: 0x0800}), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadArgument)},
		{"set_field masked", po(17, openflow.NoBuffer, 1, openflow.SetField(openflow.NewOXM(openflow.FieldEthDst, make([]byte, 6), make([]byte, 6)))), openflow.ErrTypeBadAction, uint16(openflow.BadActionBadSetArgument)},
	} {
		c.send(tt.msg)
		em := c.expectError(tt.msg.XID, tt.typ, tt.code)
		raw, _ := tt.msg.AppendBinary(nil)
		if !bytes.Equal(em.Data, raw[:min(64, len(raw))]) {
			t.Errorf("%s: error data is not the request's first 64 bytes", tt.name)
		}
	}
	// An unknown action type fails decoding: OFPBAC_BAD_TYPE.
	raw, _ := po(20, openflow.NoBuffer, 1, openflow.Output(2, 0)).AppendBinary(nil)
	binary.BigEndian.PutUint16(raw[24:], 0x7777)
	c.sendRaw(raw)
	c.expectError(20, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadType))

	// The data plane's error is the answer.
	rec.mu.Lock()
	rec.fail = openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadPacket)}
	rec.mu.Unlock()
	c.send(po(21, openflow.NoBuffer, 1, openflow.Output(2, 0)))
	c.expectError(21, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPacket))
	if n := len(rec.take()); n != 1 {
		t.Errorf("%d PacketOut calls for the refused messages, want 1 (the last)", n)
	}

	// A slave may not send PACKET_OUT.
	c.setRole(openflow.RoleSlave, 1, 22)
	c.send(po(23, openflow.NoBuffer, 1, openflow.Output(2, 0)))
	c.expectError(23, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestIsSlave))
	if n := len(rec.take()); n != 0 {
		t.Errorf("a slave's PACKET_OUT reached the data plane")
	}
}

// fakePorts describes ports 1 and 2.
type fakePorts struct{}

func (fakePorts) Descs(dst []openflow.Port) []openflow.Port {
	return append(dst, openflow.Port{PortNo: 1}, openflow.Port{PortNo: 2})
}

func (fakePorts) Stats(dst []openflow.PortStats, port uint32) ([]openflow.PortStats, bool) {
	return dst, port == openflow.PortAny || port == 1 || port == 2
}

// TestPacketOutPorts: with Config.Ports, in_port and output ports must be
// the switch's.
func TestPacketOutPorts(t *testing.T) {
	rec := &poRecorder{}
	a, addr := startAgent(t, &Config{PacketOut: rec.packetOut, Ports: fakePorts{}})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	waitConns(t, a, 1)
	po := func(xid, in uint32, out uint32) *openflow.PacketOut {
		return &openflow.PacketOut{Header: hdr(openflow.TypePacketOut, xid), BufferID: openflow.NoBuffer, InPort: in,
			Actions: []openflow.Action{openflow.Output(out, 0)}, Data: testFrame(60)}
	}
	c.send(po(1, 3, 2))
	c.expectError(1, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPort))
	c.send(po(2, 1, 3))
	c.expectError(2, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadOutPort))
	c.send(po(3, 1, 2))
	c.barrier(4)
	if got := rec.take(); len(got) != 1 || got[0].InPort != 1 {
		t.Fatalf("PacketOut calls %+v, want one from port 1", got)
	}
}

// TestPacketOutWithoutDataPlane: without Config.PacketOut the switch has
// no ports; output:CONTROLLER comes back as a PACKET_IN.
func TestPacketOutWithoutDataPlane(t *testing.T) {
	a, addr := startAgent(t, nil)
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	waitConns(t, a, 1)
	po := func(xid, in uint32, acts ...openflow.Action) *openflow.PacketOut {
		return &openflow.PacketOut{Header: hdr(openflow.TypePacketOut, xid), BufferID: openflow.NoBuffer, InPort: in, Actions: acts, Data: testFrame(60)}
	}
	c.send(po(1, 1, openflow.Output(openflow.PortFlood, 0)))
	c.expectError(1, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPort))
	c.send(po(2, openflow.PortController, openflow.Output(1, 0)))
	c.expectError(2, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadOutPort))
	c.send(po(3, openflow.PortController, openflow.Output(openflow.PortFlood, 0), openflow.Output(openflow.PortController, 20)))
	var pin openflow.PacketIn
	if err := pin.UnmarshalBinary(c.recv(openflow.TypePacketIn)); err != nil {
		t.Fatal(err)
	}
	if pin.Reason != openflow.PacketInAction || pin.TotalLen != 60 || !bytes.Equal(pin.Data, testFrame(20)) || pin.TableID != 0xff {
		t.Errorf("PACKET_IN from PACKET_OUT: %+v", pin)
	}
}

func TestParseFailMode(t *testing.T) {
	for _, m := range []FailMode{FailSecure, FailStandalone} {
		if got, err := ParseFailMode(m.String()); err != nil || got != m {
			t.Errorf("ParseFailMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseFailMode("open"); err == nil {
		t.Error("ParseFailMode(open) succeeded")
	}
	if _, err := New(&Config{FailMode: 7}); err == nil {
		t.Error("New accepted fail mode 7")
	}
}

// TestRoleStatus: a master demoted by another's request is told, in the
// form of its version; the new master and an equal are not.
func TestRoleStatus(t *testing.T) {
	a, addr := startAgent(t, nil)
	c13, c14, eq := dial(t, addr), dial(t, addr), dial(t, addr)
	c13.handshake(openflow.Version13)
	c14.handshake(openflow.Version14)
	eq.handshake(openflow.Version13)
	waitConns(t, a, 3)
	c13.setRole(openflow.RoleMaster, 1, 1)
	// c14 takes over: c13 hears of it through the ONF message.
	c14.send(&openflow.Role{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeRoleRequest, XID: 2},
		Role: openflow.RoleMaster, GenerationID: 5})
	c14.recv(openflow.TypeRoleReply)
	want := hexBytes(t, `
		04 04 00 20 00 00 00 00   # v1.3 EXPERIMENTER, len 32, xid 0
		4f 4e 46 00 00 00 07 77   # ONF, ONFT_ROLE_STATUS
		00 00 00 03 00 00 00 00   # role slave, reason master request
		00 00 00 00 00 00 00 05   # generation_id 5
	`)
	if got := c13.recv(openflow.TypeExperimenter); !bytes.Equal(got, want) {
		t.Fatalf("role status to the 1.3 controller\n got %x\nwant %x", got, want)
	}
	// c13 takes it back: c14 hears of it through OFPT_ROLE_STATUS.
	c13.setRole(openflow.RoleMaster, 6, 3)
	var rs openflow.RoleStatus
	if err := rs.UnmarshalBinary(c14.recv(openflow.TypeRoleStatus)); err != nil {
		t.Fatal(err)
	}
	if rs.Version != openflow.Version14 || rs.Role != openflow.RoleSlave || rs.GenerationID != 6 || rs.Reason != openflow.RoleReasonMasterRequest {
		t.Errorf("role status to the 1.4 controller: %+v", rs)
	}
	// Becoming master again changes nothing for the others: no message.
	// The equal controller never heard anything: its next message is the
	// reply to its own request.
	c13.setRole(openflow.RoleMaster, 7, 4)
	eq.barrier(5)
	c14.send(&openflow.Empty{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBarrierRequest, XID: 6}})
	c14.recv(openflow.TypeBarrierReply)
}

// countWarnings is a slog handler that counts warnings.
type countWarnings struct{ n *atomic.Int32 }

func (h countWarnings) Enabled(context.Context, slog.Level) bool { return true }
func (h countWarnings) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		h.n.Add(1)
	}
	return nil
}
func (h countWarnings) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countWarnings) WithGroup(string) slog.Handler      { return h }

// TestPacketInFloodSlowController: a controller that stops reading is
// disconnected once its backlog passes the limit, with one warning, and
// PacketIn goes on returning at once.
func TestPacketInFloodSlowController(t *testing.T) {
	var warnings atomic.Int32
	a, addr := startAgent(t, &Config{Logger: slog.New(countWarnings{&warnings}), EchoInterval: time.Minute, AsyncLimit: 64 << 10})
	slow := dial(t, addr)
	slow.handshake(openflow.Version13)
	waitConns(t, a, 1)
	slow.nc.(*net.TCPConn).SetReadBuffer(4096)
	p := &PacketIn{InPort: 1, MaxLen: openflow.ControllerMaxLenNoBuffer, Frame: testFrame(1500)}
	for range 20000 { // 30 MB, beyond any socket buffer
		a.PacketIn(p)
	}
	deadline := time.Now().Add(10 * time.Second)
	for a.Conns() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := a.Conns(); n != 0 {
		t.Fatal("a controller over its backlog limit was not disconnected")
	}
	if n := warnings.Load(); n != 1 {
		t.Errorf("%d warnings for one slow controller, want 1", n)
	}
}

// TestAsyncConfig14: an OpenFlow 1.4 controller reads and changes its
// asynchronous configuration in the property form; a SET_ASYNC changes
// only the masks it carries, and the role status mask holds back
// ROLE_STATUS.
func TestAsyncConfig14(t *testing.T) {
	a, addr := startAgent(t, nil)
	c, m := dial(t, addr), dial(t, addr)
	c.handshake(openflow.Version14)
	m.handshake(openflow.Version13)
	waitConns(t, a, 2)
	h14 := func(typ openflow.Type, xid uint32) openflow.Header {
		return openflow.Header{Version: openflow.Version14, Type: typ, XID: xid}
	}
	get := func(xid uint32) openflow.AsyncConfig {
		t.Helper()
		c.send(&openflow.Empty{Header: h14(openflow.TypeGetAsyncRequest, xid)})
		b := c.recv(openflow.TypeGetAsyncReply)
		var rep openflow.AsyncConfig
		if err := rep.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if rep.Version != openflow.Version14 || rep.Props != openflow.AsyncPropsAll || rep.XID != xid {
			t.Fatalf("GET_ASYNC_REPLY v%#x props %#x xid %d", rep.Version, rep.Props, rep.XID)
		}
		return rep
	}
	want := openflow.AsyncConfig{PacketInMask: [2]uint32{3, 0}, PortStatusMask: [2]uint32{7, 7},
		FlowRemovedMask: [2]uint32{15, 0}, RoleStatusMask: [2]uint32{7, 7}}
	got := get(1)
	got.Header, got.Props = openflow.Header{}, 0
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("default asynchronous configuration (-want +got):\n%s", diff)
	}
	c.send(&openflow.AsyncConfig{Header: h14(openflow.TypeSetAsync, 2),
		PacketInMask: [2]uint32{1 << openflow.PacketInInvalidTTL, 0}, RoleStatusMask: [2]uint32{0, 0},
		Props: 1<<openflow.AsyncPropPacketInMaster | 1<<openflow.AsyncPropRoleStatusSlave})
	want.PacketInMask[0], want.RoleStatusMask[1] = 1<<openflow.PacketInInvalidTTL, 0
	got = get(3)
	got.Header, got.Props = openflow.Header{}, 0
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after SET_ASYNC (-want +got):\n%s", diff)
	}
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInNoMatch, MaxLen: 64, Frame: testFrame(60)})
	a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInInvalidTTL, MaxLen: 64, Frame: testFrame(60)})
	var pin openflow.PacketIn
	if err := pin.UnmarshalBinary(c.recv(openflow.TypePacketIn)); err != nil || pin.Reason != openflow.PacketInInvalidTTL {
		t.Fatalf("PACKET_IN reason %d, %v; want only invalid-ttl", pin.Reason, err)
	}
	m.recv(openflow.TypePacketIn) // the 1.3 controller keeps the defaults: no-match
	// Demoted with role status off for slaves: no ROLE_STATUS; the next
	// message is the answer to the barrier.
	c.send(&openflow.Role{Header: h14(openflow.TypeRoleRequest, 4), Role: openflow.RoleMaster, GenerationID: 1})
	c.recv(openflow.TypeRoleReply)
	m.setRole(openflow.RoleMaster, 2, 5)
	a.PortStatus(openflow.PortAdd, openflow.Port{PortNo: 9}) // queued after any ROLE_STATUS
	c.recv(openflow.TypePortStatus)
	// A malformed property list is refused and changes nothing.
	bad := []byte{5, byte(openflow.TypeSetAsync), 0, 16, 0, 0, 0, 6, 0, 1, 0, 8, 0, 0, 0}
	bad = append(bad, 0)
	binary.BigEndian.PutUint16(bad[8:], 0xfffe) // experimenter
	c.sendRaw(bad)
	c.expectError(6, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen))
	got = get(7)
	got.Header, got.Props = openflow.Header{}, 0
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after a refused SET_ASYNC (-want +got):\n%s", diff)
	}
}

// TestPacketInConcurrent: data plane workers call PacketIn and PortStatus
// at once while controllers come and go; every steady controller gets
// every message, intact.
func TestPacketInConcurrent(t *testing.T) {
	a, addr := startAgent(t, nil)
	readers := []*client{dial(t, addr), dial(t, addr)}
	for _, c := range readers {
		c.handshake(openflow.Version13)
	}
	waitConns(t, a, 2)
	const workers, each = 4, 250
	stop := make(chan struct{})
	var churn sync.WaitGroup
	churn.Add(1)
	go func() { // a controller that keeps connecting and leaving
		defer churn.Done()
		for i := 0; i < 200; i++ {
			select {
			case <-stop:
				return
			default:
			}
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			h := openflow.NewHello(1, openflow.Version13)
			b, _ := h.AppendBinary(nil)
			nc.Write(b)
			time.Sleep(time.Millisecond)
			nc.Close()
		}
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			frame := testFrame(200)
			for i := range each {
				frame[0] = byte(w) // PacketIn copies: the worker may reuse its frame
				a.PacketIn(&PacketIn{InPort: uint32(w + 1), Reason: openflow.PacketInNoMatch, Cookie: uint64(i), MaxLen: 128, Frame: frame})
				if i%50 == 0 {
					a.PortStatus(openflow.PortModify, openflow.Port{PortNo: uint32(w + 1)})
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	churn.Wait()
	for n, c := range readers {
		var pins, status int
		perWorker := make([]int, workers)
		for pins < workers*each || status < workers*each/50 {
			c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			msg, err := c.r.Next()
			if err != nil {
				t.Fatalf("reader %d after %d PACKET_IN, %d PORT_STATUS: %v", n, pins, status, err)
			}
			switch openflow.Type(msg[1]) {
			case openflow.TypeEchoRequest:
			case openflow.TypePacketIn:
				var pin openflow.PacketIn
				if err := pin.UnmarshalBinary(msg); err != nil {
					t.Fatal(err)
				}
				w := int(pin.Data[0])
				if w >= workers || len(pin.Data) != 128 || pin.TotalLen != 200 || !bytes.Equal(pin.Data[1:], testFrame(128)[1:]) {
					t.Fatalf("reader %d: PACKET_IN %+v", n, pin)
				}
				if pin.Cookie != uint64(perWorker[w]) {
					t.Fatalf("reader %d: worker %d's PACKET_IN %d came as number %d", n, w, pin.Cookie, perWorker[w])
				}
				perWorker[w]++
				pins++
			case openflow.TypePortStatus:
				status++
			default:
				t.Fatalf("reader %d: unexpected %v", n, openflow.Type(msg[1]))
			}
		}
	}
}

package controller

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// quiet is a logger that drops everything, so tests print only failures.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startAgent serves an agent on a loopback listener until the test ends.
func startAgent(t *testing.T, cfg *Config) (*Agent, string) {
	t.Helper()
	if cfg == nil {
		cfg = &Config{}
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after cancel")
		}
	})
	return a, l.Addr().String()
}

// client is a minimal controller for tests.
type client struct {
	t  *testing.T
	nc net.Conn
	r  *openflow.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, r: openflow.NewReader(nc, 0)}
}

func (c *client) send(m openflow.Message) {
	c.t.Helper()
	b, err := m.AppendBinary(nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(b)
}

func (c *client) sendRaw(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// recv returns the next message, skipping echo requests unless want is
// TypeEchoRequest.
func (c *client) recv(want openflow.Type) []byte {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		msg, err := c.r.Next()
		if err != nil {
			c.t.Fatalf("waiting for %v: %v", want, err)
		}
		if got := openflow.Type(msg[1]); got != want {
			if got == openflow.TypeEchoRequest {
				continue
			}
			c.t.Fatalf("got %v, want %v", got, want)
		}
		return bytes.Clone(msg)
	}
}

// handshake exchanges HELLOs offering versions and returns the switch's.
func (c *client) handshake(versions ...uint8) openflow.Hello {
	c.t.Helper()
	h := openflow.NewHello(1, versions...)
	c.send(&h)
	var got openflow.Hello
	if err := got.UnmarshalBinary(c.recv(openflow.TypeHello)); err != nil {
		c.t.Fatal(err)
	}
	return got
}

func (c *client) expectError(xid uint32, typ openflow.ErrorType, code uint16) openflow.ErrorMsg {
	c.t.Helper()
	var em openflow.ErrorMsg
	if err := em.UnmarshalBinary(c.recv(openflow.TypeError)); err != nil {
		c.t.Fatal(err)
	}
	if em.XID != xid || em.Type != typ || em.Code != code {
		c.t.Fatalf("error xid=%d %v, want xid=%d %v", em.XID, em.Error(), xid,
			openflow.ErrorMsg{Type: typ, Code: code}.Error())
	}
	return em
}

func hdr(t openflow.Type, xid uint32) openflow.Header {
	return openflow.Header{Version: openflow.Version13, Type: t, XID: xid}
}

func TestHandshakeAndBasics(t *testing.T) {
	a, addr := startAgent(t, &Config{DatapathID: 0xabcdef, Tables: 4})
	c := dial(t, addr)
	hello := c.handshake(openflow.Version13)
	if hello.Versions()&openflow.VersionBit(openflow.Version13) == 0 {
		t.Fatalf("switch HELLO offers %#x, not 1.3", hello.Versions())
	}

	c.send(&openflow.EchoRequest{Header: hdr(0, 7), Data: []byte("ping")})
	var echo openflow.EchoReply
	if err := echo.UnmarshalBinary(c.recv(openflow.TypeEchoReply)); err != nil || echo.XID != 7 || string(echo.Data) != "ping" {
		t.Fatalf("echo reply %+v, %v", echo, err)
	}

	c.send(&openflow.Empty{Header: hdr(openflow.TypeFeaturesRequest, 8)})
	var feat openflow.FeaturesReply
	if err := feat.UnmarshalBinary(c.recv(openflow.TypeFeaturesReply)); err != nil {
		t.Fatal(err)
	}
	if feat.XID != 8 || feat.DatapathID != 0xabcdef || feat.NTables != 4 || feat.Version != openflow.Version13 {
		t.Fatalf("features reply %+v", feat)
	}

	c.send(&openflow.SwitchConfig{Header: hdr(openflow.TypeSetConfig, 9), Flags: openflow.ConfigFragDrop, MissSendLen: 200})
	c.send(&openflow.Empty{Header: hdr(openflow.TypeGetConfigRequest, 10)})
	var cfg openflow.SwitchConfig
	if err := cfg.UnmarshalBinary(c.recv(openflow.TypeGetConfigReply)); err != nil || cfg.XID != 10 || cfg.Flags != openflow.ConfigFragDrop || cfg.MissSendLen != 200 {
		t.Fatalf("config reply %+v, %v", cfg, err)
	}

	c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, 11)})
	if b := c.recv(openflow.TypeBarrierReply); binary.BigEndian.Uint32(b[4:]) != 11 {
		t.Fatalf("barrier reply xid %d", binary.BigEndian.Uint32(b[4:]))
	}

	c.send(&openflow.Empty{Header: hdr(openflow.TypeGetAsyncRequest, 12)})
	var async openflow.AsyncConfig
	if err := async.UnmarshalBinary(c.recv(openflow.TypeGetAsyncReply)); err != nil || async.PacketInMask[0] != 0b11 {
		t.Fatalf("async reply %+v, %v", async, err)
	}
	if a.Conns() != 1 {
		t.Fatalf("Conns() = %d, want 1", a.Conns())
	}
}

// TestVersionNegotiation: Open vSwitch sends a 1.5 header with a bitmap of
// {1.0, 1.3, 1.4, 1.5}; the switch must settle on the highest common one.
func TestVersionNegotiation(t *testing.T) {
	_, addr := startAgent(t, nil)
	for _, tt := range []struct {
		offer []uint8
		want  uint8
	}{
		{[]uint8{openflow.Version13}, openflow.Version13},
		{[]uint8{openflow.Version10, openflow.Version13, openflow.Version14, openflow.Version15}, openflow.Version14},
		{[]uint8{openflow.Version14}, openflow.Version14},
	} {
		c := dial(t, addr)
		c.handshake(tt.offer...)
		c.send(&openflow.EchoRequest{Header: openflow.Header{Version: tt.want, XID: 3}})
		if b := c.recv(openflow.TypeEchoReply); b[0] != tt.want {
			t.Errorf("offer %v: replies in version %#x, want %#x", tt.offer, b[0], tt.want)
		}
		c.nc.Close()
	}
}

func TestHelloFailed(t *testing.T) {
	_, addr := startAgent(t, nil)
	c := dial(t, addr)
	h := openflow.NewHello(5, openflow.Version10)
	c.send(&h)
	c.recv(openflow.TypeHello)
	em := c.expectError(5, openflow.ErrTypeHelloFailed, uint16(openflow.HelloFailedIncompatible))
	if !strings.Contains(string(em.Data), "no common version") {
		t.Errorf("HELLO_FAILED data %q does not say why", em.Data)
	}
	if _, err := c.r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("connection still open after HELLO_FAILED: %v", err)
	}

	c = dial(t, addr)
	c.send(&openflow.Empty{Header: hdr(openflow.TypeFeaturesRequest, 6)})
	c.recv(openflow.TypeHello)
	c.expectError(6, openflow.ErrTypeHelloFailed, uint16(openflow.HelloFailedEPerm))

	// A HELLO of version 0 offers nothing: HELLO_FAILED, not BAD_VERSION.
	c = dial(t, addr)
	if _, err := c.nc.Write([]byte{0, byte(openflow.TypeHello), 0, 8, 0, 0, 0, 7}); err != nil {
		t.Fatal(err)
	}
	c.recv(openflow.TypeHello)
	c.expectError(7, openflow.ErrTypeHelloFailed, uint16(openflow.HelloFailedIncompatible))
	if _, err := c.r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("connection still open after HELLO_FAILED: %v", err)
	}
}

// TestMalformedKeepsConnection sends bad messages; each is answered with the
// prescribed error carrying its xid and first bytes, and the connection
// still works afterwards.
func TestMalformedKeepsConnection(t *testing.T) {
	_, addr := startAgent(t, nil)
	c := dial(t, addr)
	c.handshake(openflow.Version13)

	unknown := []byte{4, 200, 0, 12, 0, 0, 0, 21, 1, 2, 3, 4}
	badVersion := []byte{3, byte(openflow.TypeFeaturesRequest), 0, 8, 0, 0, 0, 22}
	shortConfig := []byte{4, byte(openflow.TypeSetConfig), 0, 10, 0, 0, 0, 23, 0, 0}
	badFlags := []byte{4, byte(openflow.TypeSetConfig), 0, 12, 0, 0, 0, 24, 0x80, 0, 0, 128}
	badRole := []byte{4, byte(openflow.TypeRoleRequest), 0, 24, 0, 0, 0, 25, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	longFeatures := []byte{4, byte(openflow.TypeFeaturesRequest), 0, 12, 0, 0, 0, 26, 9, 9, 9, 9}
	experimenter := []byte{4, byte(openflow.TypeExperimenter), 0, 16, 0, 0, 0, 27, 0, 0, 0x23, 0x20, 0, 0, 0, 1}
	for _, tt := range []struct {
		name string
		msg  []byte
		typ  openflow.ErrorType
		code uint16
	}{
		{"unknown type", unknown, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadType)},
		{"wrong version", badVersion, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadVersion)},
		{"short SET_CONFIG", shortConfig, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen)},
		{"SET_CONFIG bad flags", badFlags, openflow.ErrTypeSwitchConfigFailed, uint16(openflow.SwitchConfigFailedBadFlags)},
		{"bad role", badRole, openflow.ErrTypeRoleRequestFailed, uint16(openflow.RoleRequestFailedBadRole)},
		{"FEATURES_REQUEST with a body", longFeatures, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen)},
		{"experimenter", experimenter, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadExperimenter)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			c.sendRaw(tt.msg)
			xid := binary.BigEndian.Uint32(tt.msg[4:])
			em := c.expectError(xid, tt.typ, tt.code)
			if !bytes.Equal(em.Data, tt.msg) {
				t.Errorf("error data %x, want the request %x", em.Data, tt.msg)
			}
			c.send(&openflow.EchoRequest{Header: hdr(0, xid+100)})
			c.recv(openflow.TypeEchoReply)
		})
	}
}

func TestFramingErrorCloses(t *testing.T) {
	_, addr := startAgent(t, nil)
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	c.sendRaw([]byte{4, 2, 0, 4, 0, 0, 0, 1}) // length 4 < header
	c.expectError(0, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen))
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after a bad length: %v, want the switch to close", err)
	}
}

func TestDeadPeerClosed(t *testing.T) {
	_, addr := startAgent(t, &Config{EchoInterval: 250 * time.Millisecond})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	c.recv(openflow.TypeEchoRequest) // idle: the switch probes
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("unanswered echo: %v, want the switch to close", err)
	}

	// A peer that answers stays connected across several intervals.
	c = dial(t, addr)
	c.handshake(openflow.Version13)
	for range 4 {
		var req openflow.EchoRequest
		if err := req.UnmarshalBinary(c.recv(openflow.TypeEchoRequest)); err != nil {
			t.Fatal(err)
		}
		c.send(&openflow.EchoReply{Header: hdr(0, req.XID)})
	}
}

func TestRoles(t *testing.T) {
	_, addr := startAgent(t, nil)
	a, b := dial(t, addr), dial(t, addr)
	a.handshake(openflow.Version13)
	b.handshake(openflow.Version13)
	role := func(c *client, r uint32, gen uint64, xid uint32) openflow.Role {
		c.send(&openflow.Role{Header: hdr(openflow.TypeRoleRequest, xid), Role: r, GenerationID: gen})
		var rep openflow.Role
		if err := rep.UnmarshalBinary(c.recv(openflow.TypeRoleReply)); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if r := role(a, openflow.RoleMaster, 1, 1); r.Role != openflow.RoleMaster || r.GenerationID != 1 {
		t.Fatalf("a: %+v", r)
	}
	if r := role(b, openflow.RoleMaster, 2, 2); r.Role != openflow.RoleMaster {
		t.Fatalf("b: %+v", r)
	}
	// a hears that it was demoted (ONF ROLE_STATUS on OpenFlow 1.3).
	var rs openflow.RoleStatus
	if err := rs.UnmarshalBinary(a.recv(openflow.TypeExperimenter)); err != nil || rs.Role != openflow.RoleSlave || rs.GenerationID != 2 {
		t.Fatalf("a: role status %+v, %v", rs, err)
	}
	if r := role(a, openflow.RoleNoChange, 0, 3); r.Role != openflow.RoleSlave {
		t.Fatalf("a after b became master: %+v, want slave", r)
	}
	// A slave may not change state.
	flowMod := []byte{4, byte(openflow.TypeFlowMod), 0, 8, 0, 0, 0, 4}
	a.sendRaw(flowMod)
	a.expectError(4, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestIsSlave))
	// A stale generation id is refused.
	a.send(&openflow.Role{Header: hdr(openflow.TypeRoleRequest, 5), Role: openflow.RoleMaster, GenerationID: 1})
	a.expectError(5, openflow.ErrTypeRoleRequestFailed, uint16(openflow.RoleRequestFailedStale))
}

// TestManyConnections runs 64 controllers at once, then drops them all,
// some in the middle of a message; no goroutine is left behind.
func TestManyConnections(t *testing.T) {
	before := runtime.NumGoroutine()
	a, addr := startAgent(t, nil)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer nc.Close()
			r := openflow.NewReader(nc, 0)
			h := openflow.NewHello(1, openflow.Version13)
			b, _ := h.AppendBinary(nil)
			echo := openflow.EchoRequest{Header: hdr(0, uint32(i))}
			b, _ = echo.AppendBinary(b)
			nc.Write(b)
			nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			for {
				msg, err := r.Next()
				if err != nil {
					t.Errorf("conn %d: %v", i, err)
					return
				}
				if openflow.Type(msg[1]) == openflow.TypeEchoReply {
					break
				}
			}
			if i%2 == 0 {
				nc.Write([]byte{4, 2, 0, 64, 0, 0}) // half a message, then gone
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for a.Conns() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.Conns(); n != 0 {
		t.Fatalf("%d connections still registered after all clients left", n)
	}
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Fatalf("%d goroutines, %d before: connections leak", n, before)
	}
}

// TestActiveReconnects: an agent with an active target connects to a
// controller, and connects again after the controller drops it.
func TestActiveReconnects(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tgt, err := ParseTarget("tcp:" + l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(&Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, []Target{tgt}) }()
	for i := range 2 {
		l.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
		nc, err := l.Accept()
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		c := &client{t: t, nc: nc, r: openflow.NewReader(nc, 0)}
		c.handshake(openflow.Version13)
		c.send(&openflow.Empty{Header: hdr(openflow.TypeFeaturesRequest, 1)})
		c.recv(openflow.TypeFeaturesReply)
		nc.Close()
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

// FuzzConn feeds arbitrary bytes after a valid HELLO into a connection:
// no panic, and the connection ends when the input does.
func FuzzConn(f *testing.F) {
	f.Add([]byte{4, 5, 0, 8, 0, 0, 0, 1})
	f.Add([]byte{4, 200, 0, 12, 0, 0, 0, 21, 1, 2, 3, 4, 4, 2, 0, 8, 0, 0, 0, 2})
	f.Add([]byte{4, 24, 0, 24, 0, 0, 0, 25, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7})
	f.Add([]byte{4, 9, 0, 12, 0, 0, 0, 24, 0, 1, 0, 128, 4, 7, 0, 8, 0, 0, 0, 3})
	// FLOW_MODs and barriers back to back, the second batch with an
	// overlap refused: bursts go to the applier.
	var pipelined []byte
	var fm openflow.FlowMod
	flows := flowgen.Exact(4, 0)
	for i, u := range flows {
		if i == 3 { // the one before with its tp_dst wildcarded
			u = flows[2]
			u.Match.Set(rules.FieldL4Dst, 0, 0)
			u.Flags = rules.FlagCheckOverlap
		}
		ofrules.WireFlowMod(&fm, &u)
		fm.Version, fm.XID = openflow.Version13, uint32(i+2)
		pipelined, _ = fm.AppendBinary(pipelined)
		if i%2 == 1 {
			br := openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, uint32(100+i))}
			pipelined, _ = br.AppendBinary(pipelined)
		}
	}
	f.Add(pipelined)
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := New(&Config{Logger: quiet, EchoInterval: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		sw, peer := net.Pipe()
		done := make(chan error, 1)
		go func() { done <- a.ServeConn(context.Background(), sw) }()
		go io.Copy(io.Discard, peer)
		h := openflow.NewHello(1, openflow.Version13)
		b, _ := h.AppendBinary(nil)
		peer.Write(append(b, in...))
		peer.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("connection did not end with its input")
		}
	})
}

// TestOvsOfctl drives the switch with Open vSwitch's own client.
func TestOvsOfctl(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	_, addr := startAgent(t, nil)
	_, port, _ := net.SplitHostPort(addr)
	target := "tcp:127.0.0.1:" + port
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(ofctl, append([]string{"-O", "OpenFlow13"}, append(args[:1:1], append([]string{target}, args[1:]...)...)...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("ovs-ofctl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := run("probe"); out != "" {
		t.Errorf("ovs-ofctl probe printed %q", out)
	}
	if out := run("get-frags"); !strings.Contains(out, "normal") {
		t.Errorf("get-frags = %q, want normal", out)
	}
	run("set-frags", "drop")
	if out := run("get-frags"); !strings.Contains(out, "drop") {
		t.Errorf("get-frags after set-frags drop = %q", out)
	}
}

func TestMultipart(t *testing.T) {
	_, addr := startAgent(t, &Config{DatapathID: 7, Tables: 120})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	req := func(part openflow.MultipartType, xid uint32) {
		c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, xid), Part: part, PortNo: openflow.PortAny})
	}
	var rep openflow.MultipartReply
	req(openflow.MultipartDesc, 1)
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil || rep.XID != 1 ||
		openflow.CString(rep.Desc.HWDesc[:]) != hwDesc || openflow.CString(rep.Desc.DPDesc[:]) != "datapath 0000000000000007" {
		t.Fatalf("DESC reply %+v, %v", rep.Desc, err)
	}
	// 120 tables of features exceed one message: the reply comes in
	// parts, all but the last flagged REPLY_MORE, covering every table.
	req(openflow.MultipartTableFeatures, 2)
	var tables []uint8
	parts := 0
	for {
		var r openflow.MultipartReply
		if err := r.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
			t.Fatal(err)
		}
		parts++
		for _, tf := range r.TableFeatures {
			tables = append(tables, tf.TableID)
		}
		if r.Flags&openflow.MultipartReplyMore == 0 {
			break
		}
	}
	if parts < 2 || len(tables) != 120 || tables[119] != 119 {
		t.Fatalf("TABLE_FEATURES in %d parts for tables %v", parts, tables)
	}
	req(openflow.MultipartPortDesc, 3)
	if err := rep.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil || len(rep.PortDescs) != 0 {
		t.Fatalf("PORT_DESC of a switch without ports: %+v, %v", rep.PortDescs, err)
	}
	c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 4), Part: openflow.MultipartPortStats, PortNo: 5})
	c.expectError(4, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPort))
	c.sendRaw([]byte{4, byte(openflow.TypeMultipartRequest), 0, 16, 0, 0, 0, 5, 0, 200, 0, 0, 0, 0, 0, 0})
	c.expectError(5, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadMultipart))
}

// TestOvsOfctlShow: ovs-ofctl's show, dump-desc, dump-ports and
// dump-table-features accept the switch's replies.
func TestOvsOfctlShow(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	_, addr := startAgent(t, &Config{DatapathID: 0x1234, Tables: 2})
	_, port, _ := net.SplitHostPort(addr)
	for _, tt := range []struct{ cmd, want string }{
		{"show", "dpid:0000000000001234"},
		{"dump-desc", hwDesc},
		{"dump-ports", "OFPST_PORT reply"},
		{"dump-table-features", "table1"},
	} {
		out, err := exec.Command(ofctl, "-O", "OpenFlow13", tt.cmd, "tcp:127.0.0.1:"+port).CombinedOutput()
		if err != nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("ovs-ofctl %s: %v, output lacks %q:\n%s", tt.cmd, err, tt.want, out)
		}
	}
}

// TestAsyncLimit: a controller whose unread backlog passes the limit is
// disconnected.
func TestAsyncLimit(t *testing.T) {
	a, addr := startAgent(t, &Config{EchoInterval: time.Minute, AsyncLimit: 256 << 10})
	slow := dial(t, addr)
	slow.handshake(openflow.Version13)
	for a.Conns() != 1 {
		time.Sleep(time.Millisecond)
	}
	slow.nc.(*net.TCPConn).SetReadBuffer(4096)
	r := &rules.Rule{Priority: 1}
	recs := make([]rules.FlowRemoved, 200000) // 11 MB of FLOW_REMOVED, beyond any socket buffer
	for i := range recs {
		recs[i] = rules.FlowRemoved{Rule: r, Reason: rules.RemovedDelete}
	}
	a.flowsRemoved(recs)
	deadline := time.Now().Add(10 * time.Second)
	for a.Conns() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.Conns(); n != 0 {
		t.Fatal("a controller over its backlog limit was not disconnected")
	}
}

// statPorts describes ports 1 and 2 with names, addresses and counters.
type statPorts struct{}

func (statPorts) Descs(dst []openflow.Port) []openflow.Port {
	for i := uint32(1); i <= 2; i++ {
		p := openflow.Port{PortNo: i, HWAddr: [6]byte{2, 0, 0, 0, 0, byte(i)}, State: 4,
			Curr: 0x800 | 0x40, CurrSpeed: 10_000_000}
		copy(p.Name[:], fmt.Sprintf("veth%d", i))
		dst = append(dst, p)
	}
	return dst
}

func (statPorts) Stats(dst []openflow.PortStats, port uint32) ([]openflow.PortStats, bool) {
	for i := uint32(1); i <= 2; i++ {
		if port == openflow.PortAny || port == i {
			dst = append(dst, openflow.PortStats{PortNo: i, RxPackets: 5 * uint64(i), TxPackets: 7, RxBytes: 500, TxBytes: 700,
				RxDropped: 1, RxErrors: 2, RxFrameErr: 3, RxCRCErr: 4, Collisions: 5, DurationSec: 9})
		}
	}
	return dst, port == openflow.PortAny || port == 1 || port == 2
}

// TestOvsOfctlPorts14: port statistics and descriptions travel in
// OpenFlow 1.4's own layouts (properties for the Ethernet figures) on a
// 1.4 connection: ovs-ofctl -O OpenFlow14 prints what it prints over 1.3,
// where it reported a decode error before.
func TestOvsOfctlPorts14(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	_, addr := startAgent(t, &Config{Ports: statPorts{}, Tables: 2})
	_, port, _ := net.SplitHostPort(addr)
	version := regexp.MustCompile(`\(OF1\.[34]\)`)
	for _, cmd := range [][]string{{"dump-ports"}, {"dump-ports", "2"}, {"dump-ports-desc"}, {"show"}} {
		var outs [2]string
		for i, v := range []string{"OpenFlow13", "OpenFlow14"} {
			out, err := exec.Command(ofctl, append([]string{"-O", v, cmd[0], "tcp:127.0.0.1:" + port}, cmd[1:]...)...).CombinedOutput()
			if err != nil || strings.Contains(string(out), "decode error") {
				t.Fatalf("ovs-ofctl -O %s %s: %v\n%s", v, strings.Join(cmd, " "), err, out)
			}
			// Bundles are announced over 1.4 only (TestOvsOfctlCapabilities).
			outs[i] = strings.Replace(version.ReplaceAllString(string(out), ""), " QUEUE_STATS BUNDLES\n", " QUEUE_STATS\n", 1)
		}
		if outs[0] != outs[1] {
			t.Errorf("ovs-ofctl %s: over 1.3\n%s\nover 1.4\n%s", strings.Join(cmd, " "), outs[0], outs[1])
		}
		if !strings.Contains(outs[0], "veth2") && !strings.Contains(outs[0], "port  2: rx pkts=10") {
			t.Errorf("ovs-ofctl %s shows neither port 2's name nor its counters:\n%s", strings.Join(cmd, " "), outs[0])
		}
	}
}

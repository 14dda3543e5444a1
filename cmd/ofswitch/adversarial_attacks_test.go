package main

import (
	"encoding/binary"
	"net"
	"net/netip"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/openflow"
)

// The attacks of TestAdversarial, one method of advSwitch each (the
// harness is in adversarial_test.go).

// attackDuplicates: bundles of 10K identical ADDs and of 10K identical
// MODIFY_STRICTs of one known flow, committed, and a plain burst of 10K
// ADDs of it; each answered (the commit replies, the barrier) and the flow
// set unchanged.
func (s *advSwitch) attackDuplicates(t *testing.T) {
	const n = 10000
	c := dialOF(t, s.addr, 0)
	c.handshake(openflow.Version14)
	for b, cmd := range []openflow.FlowModCommand{openflow.FlowAdd, openflow.FlowModifyStrict} {
		id := uint32(b + 1)
		for i := range n {
			fm := knownFlow0(uint32(i), cmd)
			fm.Version = openflow.Version14
			inner, err := fm.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			c.send(&openflow.BundleAddMessage{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBundleAddMessage, XID: uint32(i)},
				BundleID: id, Flags: openflow.BundleAtomic, Message: inner})
		}
		start := time.Now()
		c.send(&openflow.BundleControl{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBundleControl, XID: 1e6 + id},
			BundleID: id, Type: openflow.BundleCommitRequest, Flags: openflow.BundleAtomic})
		c.flush()
		var rep openflow.BundleControl
		if err := rep.UnmarshalBinary(c.recv(60 * time.Second)); err != nil || rep.Type != openflow.BundleCommitReply || rep.XID != 1e6+id {
			t.Fatalf("bundle of %d %v: reply %+v (%v), want COMMIT_REPLY", n, cmd, rep, err)
		}
		t.Logf("bundle of %d %v committed %v after the commit request", n, cmd, time.Since(start).Round(time.Millisecond))
	}
	for i := range n {
		fm := knownFlow0(uint32(i), openflow.FlowAdd)
		fm.Version = openflow.Version14
		c.send(&fm)
	}
	bar := openflow.NewBarrierRequest(2e6)
	bar.Version = openflow.Version14
	c.send(&bar)
	c.flush()
	if msg := c.recv(60 * time.Second); openflow.Type(msg[1]) != openflow.TypeBarrierReply {
		t.Fatalf("after %d ADDs: got %v, want BARRIER_REPLY", n, openflow.Type(msg[1]))
	}
}

// attackConnFlood opens connections past the switch's descriptor limit
// until its accept fails with EMFILE, then closes them: the switch must
// accept again (checkServed's ovs-ofctl connects afterwards).
func (s *advSwitch) attackConnFlood(t *testing.T) {
	const most = 2 * advFDLimit
	const emfile = `too many open files" retry_in=` // accept failed: the listener's log line
	before := s.logCount(emfile)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(conns) < most && s.logCount(emfile) == before && time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", s.addr, 2*time.Second)
		if err != nil {
			break // refused: the backlog is full
		}
		conns = append(conns, c)
	}
	s.waitLog(t, emfile, before+1, 10*time.Second)
	t.Logf("%d connections opened until accept failed with EMFILE", len(conns))
	for _, c := range conns {
		c.Close()
	}
	conns = nil
}

// bundleAdd queues a BUNDLE_ADD of a distinct flow to bundle id.
func (c *ofConn) bundleAdd(id, xid uint32, i int) {
	fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version14, XID: xid}, TableID: 3, Priority: uint16(i), BufferID: openflow.NoBuffer,
		OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
		Match:        openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPv4Dst(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32))}},
		Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(1, 0))}}
	inner, err := fm.AppendBinary(nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(&openflow.BundleAddMessage{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBundleAddMessage, XID: xid},
		BundleID: id, Flags: openflow.BundleAtomic, Message: inner})
}

// attackBundles fills 16 bundles (the most a connection may open) up to
// the 262,144 messages BundleMaxMsgs allows, round robin so that none is
// idle meanwhile, and adds one more: that one is refused with
// OFPBFC_MSG_TOO_MANY, which fails its bundle. None is committed: all 16
// are discarded with OFPBFC_TIMEOUT once idle for --bundle-idle-timeout, each
// error naming the request that opened its bundle.
func (s *advSwitch) attackBundles(t *testing.T) {
	const bundles, maxMsgs = 16, 1 << 18
	c := dialOF(t, s.addr, 0)
	c.handshake(openflow.Version14)
	for i := range maxMsgs {
		c.bundleAdd(uint32(i%bundles+1), uint32(i+1), i)
		if i%4096 == 0 {
			c.flush()
		}
	}
	over := uint32(maxMsgs + 1)
	c.bundleAdd(1, over, maxMsgs)
	c.flush()
	em := c.errorOf(c.recv(30 * time.Second))
	if em.XID != over || em.Type != openflow.ErrTypeBundleFailed || em.Code != uint16(openflow.BundleFailedMsgTooMany) {
		t.Fatalf("message %d: %v xid %d, want OFPBFC_MSG_TOO_MANY xid %d", over, em.Error(), em.XID, over)
	}
	timedOut := map[uint32]bool{}
	for len(timedOut) < bundles {
		em := c.errorOf(c.recv(30 * time.Second))
		if em.Type != openflow.ErrTypeBundleFailed || em.Code != uint16(openflow.BundleFailedTimeout) {
			t.Fatalf("got %v xid %d, want OFPBFC_TIMEOUT", em.Error(), em.XID)
		}
		// Bundle b was opened by the message of xid b (round robin from
		// 1); bundle 1, failed by MSG_TOO_MANY, waits for its commit or
		// discard as the others do.
		if em.XID < 1 || em.XID > bundles || timedOut[em.XID] {
			t.Fatalf("OFPBFC_TIMEOUT for xid %d, want each of 1..%d once", em.XID, bundles)
		}
		timedOut[em.XID] = true
	}
	c.echo(openflow.Version14, 7)
}

// attackBundleBytes fills bundles over several connections with FLOW_MODs
// as large as a bundle can carry (3,000 actions, about 48 KB) until
// BundleMaxBytes (32 MiB over all connections) refuses them: every
// message past it is answered with OFPBFC_MSG_TOO_MANY, whichever
// connection sent it. The bundles go with their connections.
func (s *advSwitch) attackBundleBytes(t *testing.T) {
	const conns, budget = 4, 32 << 20
	acts := make([]openflow.Action, 3000)
	for i := range acts {
		acts[i] = openflow.Output(uint32(1+i%4), 0)
	}
	var cs []*ofConn
	for range conns {
		c := dialOF(t, s.addr, 0)
		c.handshake(openflow.Version14)
		cs = append(cs, c)
	}
	var inner []byte
	fits := 0
	n := 0
	for ; n < 2*budget/(48<<10); n++ {
		c := cs[n%conns]
		fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version14, XID: uint32(n + 1)}, TableID: 3, Priority: uint16(n), BufferID: openflow.NoBuffer,
			OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
			Match:        openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPv4Dst(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 9, byte(n >> 8), byte(n)}), 32))}},
			Instructions: []openflow.Instruction{openflow.ApplyActions(acts...)}}
		var err error
		if inner, err = fm.AppendBinary(inner[:0]); err != nil {
			t.Fatal(err)
		}
		fits = budget / len(inner)
		c.send(&openflow.BundleAddMessage{Header: openflow.Header{Version: openflow.Version14, Type: openflow.TypeBundleAddMessage, XID: uint32(n + 1)},
			BundleID: 1, Flags: openflow.BundleAtomic, Message: inner})
		if n%64 == 0 {
			c.flush()
		}
	}
	refused := 0
	for i, c := range cs {
		c.send(&openflow.EchoRequest{Header: openflow.Header{Version: openflow.Version14, XID: 1 << 30}})
		c.flush()
		for {
			msg := c.recv(30 * time.Second)
			if openflow.Type(msg[1]) == openflow.TypeEchoReply {
				break
			}
			if em := c.errorOf(msg); em.Type != openflow.ErrTypeBundleFailed || em.Code != uint16(openflow.BundleFailedMsgTooMany) {
				t.Fatalf("connection %d: %v xid %d, want OFPBFC_MSG_TOO_MANY", i, em.Error(), em.XID)
			}
			refused++
		}
	}
	if refused != n-fits {
		t.Errorf("%d of %d messages of %d bytes refused, want all past the %d that fit in %d bytes", refused, n, len(inner), fits, budget)
	}
	for _, c := range cs {
		c.nc.Close()
	}
}

// attackSlowReaders opens connections that each request the flow stats
// of table 3 (advManyFlows flows, about 5 MB a reply) twice and never
// read. The switch must drop each, after --write-timeout or when the
// replies in flight pass --reply-limit-total, and serve the well-behaved
// client meanwhile.
func (s *advSwitch) attackSlowReaders(t *testing.T) {
	const readers = 16
	const gone = "the peer took nothing for 2s" // --write-timeout
	const shed = "replies in flight over the limit"
	before := s.logCount(gone) + s.logCount(shed)
	var conns []*ofConn
	for range readers {
		c := dialOF(t, s.addr, 4096)
		c.handshake(openflow.Version13)
		for j := range 2 {
			c.send(&openflow.MultipartRequest{Header: openflow.Header{XID: uint32(10 + j)}, Part: openflow.MultipartFlow,
				Flow: openflow.FlowStatsRequest{TableID: 3, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}})
		}
		c.flush()
		conns = append(conns, c)
	}
	// Served while the readers hold their replies.
	s.checkServed(t)
	// Dropped after the write timeout, or before it when the replies in
	// flight of all of them pass --reply-limit-total (32 MiB: about 6
	// of these replies), the most stalled first.
	for deadline := time.Now().Add(60 * time.Second); s.logCount(gone)+s.logCount(shed) < before+readers; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d silent readers dropped after 60 s", s.logCount(gone)+s.logCount(shed)-before, readers)
		}
	}
	if s.logCount(shed) == 0 {
		t.Errorf("no reader was dropped for the replies in flight of all of them")
	}
	for _, c := range conns {
		waitClosed(t, c.nc, 30*time.Second)
	}
}

// attackTLSSilent opens TCP connections to the pssl: listener that never
// send a ClientHello: each is closed after --handshake-timeout, and a
// controller with a certificate is served meanwhile.
func (s *advSwitch) attackTLSSilent(t *testing.T) {
	const silent = 32
	var conns []net.Conn
	for range silent {
		nc, err := net.DialTimeout("tcp", s.tlsAddr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		conns = append(conns, nc)
	}
	var stderr strings.Builder
	cmd := exec.Command(s.ofctl, "-O", "OpenFlow13", "--private-key="+filepath.Join(s.pki, "controller.key"),
		"--certificate="+filepath.Join(s.pki, "controller.crt"), "--ca-cert="+filepath.Join(s.pki, "ca.crt"),
		"dump-flows", "ssl:"+s.tlsAddr)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ovs-ofctl dump-flows over ssl beside silent connections: %v\n%s", err, stderr.String())
	}
	if got := ovstest.FlowLines(string(out)); !slices.Equal(got, s.known) {
		t.Errorf("dump-flows over ssl: %d flows, want the %d known", len(got), len(s.known))
	}
	for _, nc := range conns {
		waitClosed(t, nc, 15*time.Second)
	}
	// Closed by the handshake deadline, each with its log line.
	s.waitLog(t, "TLS handshake: context deadline exceeded", silent, 10*time.Second)
}

// attackAsyncBacklog: controllers that never read, and an attacker that
// first adds flows with send_flow_rem and a hard timeout of 1 s (a
// FLOW_REMOVED to every controller when each expires), then sends
// PACKET_OUTs to CONTROLLER, each a 32 KB PACKET_IN to every controller.
// The backlog limits (--async-limit, --async-limit-total) disconnect every
// non-reader, with a log line each.
func (s *advSwitch) attackAsyncBacklog(t *testing.T) {
	const readers, expiring, frameLen, most = 4, 5000, 32 << 10, 4000
	const cut = "asynchronous backlog"
	before := s.logCount(cut)
	var conns []*ofConn
	for range readers {
		c := dialOF(t, s.addr, 4096)
		c.handshake(openflow.Version13)
		c.echo(openflow.Version13, 1) // the switch has taken it as a controller
		conns = append(conns, c)
	}
	a := dialOF(t, s.addr, 0)
	a.handshake(openflow.Version13)
	// The attacker reads what it gets, so that its own backlog stays
	// small, and counts its FLOW_REMOVEDs.
	var removed atomic.Int64
	drained := make(chan error, 1)
	go func() {
		a.nc.SetReadDeadline(time.Time{})
		for {
			msg, err := a.r.Next()
			if err != nil {
				drained <- err
				return
			}
			if openflow.Type(msg[1]) == openflow.TypeFlowRemoved {
				removed.Add(1)
			}
		}
	}()
	for i := range expiring {
		a.send(&openflow.FlowMod{Header: openflow.Header{XID: uint32(i)}, TableID: 3, Priority: 5, HardTimeout: 1,
			Flags: openflow.FlowSendFlowRem, BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
			Match: openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPv4Src(netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 16, byte(i >> 8), byte(i)}), 32))}}})
	}
	a.flush()
	for deadline := time.Now().Add(30 * time.Second); removed.Load() < expiring; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d FLOW_REMOVEDs of %d flows with a hard timeout of 1 s after 30 s", removed.Load(), expiring)
		}
	}
	frame := make([]byte, frameLen)
	copy(frame, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x00})
	sent := 0
	deadline := time.Now().Add(60 * time.Second)
	for ; sent < most && s.logCount(cut) < before+readers && time.Now().Before(deadline); sent++ {
		a.send(&openflow.PacketOut{Header: openflow.Header{XID: uint32(sent)}, BufferID: openflow.NoBuffer, InPort: openflow.PortController,
			Actions: []openflow.Action{openflow.Output(openflow.PortController, openflow.ControllerMaxLenNoBuffer)}, Data: frame})
		if sent%16 == 15 {
			a.flush()
		}
	}
	a.flush()
	s.waitLog(t, cut, before+readers, 10*time.Second)
	t.Logf("%d PACKET_OUTs of %d KB until the %d non-readers were disconnected", sent, frameLen>>10, readers)
	for _, c := range conns {
		waitClosed(t, c.nc, 30*time.Second)
	}
	a.nc.Close()
	<-drained
}

// attackInvalidValues sends FLOW_MODs with set_field actions OpenFlow
// forbids or whose values are out of range, and matches with out of range
// values: each is refused with its code and xid, the connection stays, and
// no flow is added.
func (s *advSwitch) attackInvalidValues(t *testing.T) {
	u := func(f openflow.OXMField, n int, v uint64) openflow.OXM {
		b := binary.BigEndian.AppendUint64(nil, v)
		return openflow.NewOXM(f, b[8-n:], nil)
	}
	ip := openflow.EthType(0x0800)
	vlan := u(openflow.FieldVLANVID, 2, 0x1005)
	for i, tt := range []struct {
		name  string
		match []openflow.OXM
		acts  []openflow.Action
		want  string
	}{
		{"set in_port", nil, []openflow.Action{openflow.SetField(u(openflow.FieldInPort, 4, 1))}, "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
		{"set ipv4_src without eth_type", nil, []openflow.Action{openflow.SetField(u(openflow.FieldIPv4Src, 4, 0x0a000001))}, "OFPET_BAD_ACTION/OFPBAC_MATCH_INCONSISTENT"},
		{"set vlan_vid 0x2005", []openflow.OXM{vlan}, []openflow.Action{openflow.SetField(u(openflow.FieldVLANVID, 2, 0x2005))}, "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
		{"set vlan_pcp 8", []openflow.OXM{vlan}, []openflow.Action{openflow.SetField(u(openflow.FieldVLANPCP, 1, 8))}, "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
		{"set ip_dscp 64", []openflow.OXM{ip}, []openflow.Action{openflow.SetField(u(openflow.FieldIPDSCP, 1, 64))}, "OFPET_BAD_ACTION/OFPBAC_BAD_SET_ARGUMENT"},
		{"match ip_dscp 0xff", []openflow.OXM{ip, u(openflow.FieldIPDSCP, 1, 0xff)}, nil, "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
		{"match ip_ecn 4", []openflow.OXM{ip, u(openflow.FieldIPECN, 1, 4)}, nil, "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
		{"match vlan_vid 0xffff", []openflow.OXM{u(openflow.FieldVLANVID, 2, 0xffff)}, nil, "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
		{"match vlan_pcp 8", []openflow.OXM{vlan, u(openflow.FieldVLANPCP, 1, 8)}, nil, "OFPET_BAD_MATCH/OFPBMC_BAD_VALUE"},
	} {
		c := dialOF(t, s.addr, 0)
		c.handshake(openflow.Version13)
		xid := uint32(100 + i)
		fm := openflow.FlowMod{Header: openflow.Header{XID: xid}, TableID: 3, Priority: 77, BufferID: openflow.NoBuffer,
			OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, Match: openflow.Match{Fields: tt.match}}
		if tt.acts != nil {
			fm.Instructions = []openflow.Instruction{openflow.ApplyActions(tt.acts...)}
		}
		c.send(&fm)
		c.flush()
		em := c.errorOf(c.recv(10 * time.Second))
		if em.XID != xid || errName(em) != tt.want {
			t.Errorf("%s: %s xid %d, want %s xid %d", tt.name, em.Error(), em.XID, tt.want, xid)
		}
		c.echo(openflow.Version13, xid+1000)
		c.nc.Close()
	}
}

// attackMalformed sends malformed messages on one connection: each is
// answered with its error and xid and the connection goes on; a length
// shorter than a header cannot be trusted and closes the connection.
func (s *advSwitch) attackMalformed(t *testing.T) {
	c := dialOF(t, s.addr, 0)
	c.handshake(openflow.Version13)
	fm := knownFlow0(30, openflow.FlowAdd)
	full, err := fm.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	truncated := slices.Clone(full[:40]) // FLOW_MOD cut inside its fixed part
	binary.BigEndian.PutUint16(truncated[2:], 40)
	shortMatch := slices.Clone(full) // the match's length past the message
	binary.BigEndian.PutUint16(shortMatch[openflow.FlowModMatchOffset+2:], 200)
	for _, tt := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"unknown type", []byte{4, 200, 0, 12, 0, 0, 0, 21, 1, 2, 3, 4}, "OFPET_BAD_REQUEST/OFPBRC_BAD_TYPE"},
		{"wrong version", []byte{3, byte(openflow.TypeFeaturesRequest), 0, 8, 0, 0, 0, 22}, "OFPET_BAD_REQUEST/OFPBRC_BAD_VERSION"},
		{"short SET_CONFIG", []byte{4, byte(openflow.TypeSetConfig), 0, 10, 0, 0, 0, 23, 0, 0}, "OFPET_BAD_REQUEST/OFPBRC_BAD_LEN"},
		{"FEATURES_REQUEST with a body", []byte{4, byte(openflow.TypeFeaturesRequest), 0, 12, 0, 0, 0, 26, 9, 9, 9, 9}, "OFPET_BAD_REQUEST/OFPBRC_BAD_LEN"},
		{"truncated FLOW_MOD", truncated, "OFPET_BAD_REQUEST/OFPBRC_BAD_LEN"},
		{"FLOW_MOD match past its end", shortMatch, "OFPET_BAD_MATCH/OFPBMC_BAD_LEN"},
	} {
		c.w.Write(tt.msg)
		c.flush()
		xid := binary.BigEndian.Uint32(tt.msg[4:])
		em := c.errorOf(c.recv(10 * time.Second))
		if em.XID != xid || errName(em) != tt.want {
			t.Errorf("%s: %s xid %d, want %s xid %d", tt.name, em.Error(), em.XID, tt.want, xid)
		}
		c.echo(openflow.Version13, xid+100)
	}
	c.w.Write([]byte{4, byte(openflow.TypeEchoRequest), 0, 4, 0, 0, 0, 50}) // length 4 < header
	c.flush()
	em := c.errorOf(c.recv(10 * time.Second))
	if errName(em) != "OFPET_BAD_REQUEST/OFPBRC_BAD_LEN" {
		t.Errorf("length 4: %s, want OFPET_BAD_REQUEST/OFPBRC_BAD_LEN", em.Error())
	}
	waitClosed(t, c.nc, 10*time.Second)
}

// attackHelloV0: a HELLO of version 0 offers no version: HELLO_FAILED
// (OFPHFC_INCOMPATIBLE) with its xid, then the switch closes.
func (s *advSwitch) attackHelloV0(t *testing.T) {
	for i := range 8 {
		c := dialOF(t, s.addr, 0)
		xid := uint32(7 + i)
		c.w.Write([]byte{0, byte(openflow.TypeHello), 0, 8, 0, 0, 0, byte(xid)})
		c.flush()
		if msg := c.recv(10 * time.Second); openflow.Type(msg[1]) != openflow.TypeHello {
			t.Fatalf("got %v, want the switch's HELLO", openflow.Type(msg[1]))
		}
		em := c.errorOf(c.recv(10 * time.Second))
		if em.XID != xid || errName(em) != "OFPET_HELLO_FAILED/OFPHFC_INCOMPATIBLE" {
			t.Errorf("HELLO version 0: %s xid %d, want OFPET_HELLO_FAILED/OFPHFC_INCOMPATIBLE xid %d", em.Error(), em.XID, xid)
		}
		waitClosed(t, c.nc, 10*time.Second)
	}
}

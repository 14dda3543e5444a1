package controller

import (
	"encoding/binary"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/openflow"
)

// mpPart encodes one part of a multipart request; an empty body when
// body is false.
func mpPart(t *testing.T, xid uint32, part openflow.MultipartType, more, body bool, port uint32) []byte {
	t.Helper()
	m := openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, xid), Part: part, PortNo: port}
	if more {
		m.Flags = openflow.MultipartRequestMore
	}
	b, err := m.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !body {
		b = b[:multipartHeaderLen]
		binary.BigEndian.PutUint16(b[2:], multipartHeaderLen)
	}
	return b
}

// TestMultipartRequestMore: requests in several parts are reassembled;
// bad sequences get the spec's errors and are forgotten.
func TestMultipartRequestMore(t *testing.T) {
	_, addr := startAgent(t, &Config{Ports: fakePorts{}, Tables: 40})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	reply := func(xid uint32, part openflow.MultipartType) openflow.MultipartReply {
		t.Helper()
		var r openflow.MultipartReply
		if err := r.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
			t.Fatal(err)
		}
		if r.XID != xid || r.Part != part {
			t.Fatalf("reply xid %d %v, want xid %d %v", r.XID, r.Part, xid, part)
		}
		return r
	}

	// PORT_STATS for port 2: empty part, the body, empty last part.
	c.sendRaw(mpPart(t, 1, openflow.MultipartPortStats, true, false, 0))
	c.sendRaw(mpPart(t, 1, openflow.MultipartPortStats, true, true, 2))
	c.sendRaw(mpPart(t, 1, openflow.MultipartPortStats, false, false, 0))
	reply(1, openflow.MultipartPortStats)
	// The body decides: port 3 is not the switch's.
	c.sendRaw(mpPart(t, 2, openflow.MultipartPortStats, true, true, 3))
	c.sendRaw(mpPart(t, 2, openflow.MultipartPortStats, false, false, 0))
	c.expectError(2, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadPort))
	// DESC in two empty parts, interleaved with another sequence.
	c.sendRaw(mpPart(t, 3, openflow.MultipartDesc, true, false, 0))
	c.sendRaw(mpPart(t, 4, openflow.MultipartPortDesc, true, false, 0))
	c.sendRaw(mpPart(t, 3, openflow.MultipartDesc, false, false, 0))
	reply(3, openflow.MultipartDesc)
	c.sendRaw(mpPart(t, 4, openflow.MultipartPortDesc, false, false, 0))
	if r := reply(4, openflow.MultipartPortDesc); len(r.PortDescs) != 2 {
		t.Errorf("PORT_DESC reassembled: %d ports, want 2", len(r.PortDescs))
	}

	// A part of another type: OFPBRC_BAD_MULTIPART, and the sequence is
	// gone (the same xid starts afresh).
	c.sendRaw(mpPart(t, 5, openflow.MultipartPortStats, true, false, 0))
	c.sendRaw(mpPart(t, 5, openflow.MultipartDesc, true, false, 0))
	c.expectError(5, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadMultipart))
	c.sendRaw(mpPart(t, 5, openflow.MultipartDesc, false, false, 0))
	reply(5, openflow.MultipartDesc)
	// A fixed body in two parts: OFPBRC_BAD_LEN.
	c.sendRaw(mpPart(t, 6, openflow.MultipartPortStats, true, true, 1))
	c.sendRaw(mpPart(t, 6, openflow.MultipartPortStats, true, true, 2))
	c.expectError(6, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen))
	// A malformed part ends its sequence with its own error.
	c.sendRaw(mpPart(t, 7, openflow.MultipartPortStats, true, false, 0))
	bad := mpPart(t, 7, openflow.MultipartPortStats, false, true, 1)
	bad = append(bad, 0, 0, 0, 0)
	binary.BigEndian.PutUint16(bad[2:], uint16(len(bad)))
	c.sendRaw(bad)
	c.expectError(7, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen))
	c.sendRaw(mpPart(t, 7, openflow.MultipartDesc, false, false, 0))
	reply(7, openflow.MultipartDesc)

	// At most maxMultipartPending sequences at once.
	for i := range maxMultipartPending {
		c.sendRaw(mpPart(t, uint32(100+i), openflow.MultipartDesc, true, false, 0))
	}
	c.sendRaw(mpPart(t, 200, openflow.MultipartDesc, true, false, 0))
	c.expectError(200, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestMultipartBufferOverflow))
	for i := range maxMultipartPending {
		c.sendRaw(mpPart(t, uint32(100+i), openflow.MultipartDesc, false, false, 0))
		reply(uint32(100+i), openflow.MultipartDesc)
	}

	// TABLE_FEATURES bodies are checked part by part and refused at the
	// end, as a single-part one is; past maxMultipartBytes the sequence
	// overflows.
	tf := openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, 8), Part: openflow.MultipartTableFeatures,
		Flags: openflow.MultipartRequestMore}
	var a Agent
	a.cfg.Tables = 40
	tf.TableFeatures = a.tableFeatures()
	body, err := tf.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.sendRaw(body)
	c.sendRaw(mpPart(t, 8, openflow.MultipartTableFeatures, false, false, 0))
	c.expectError(8, openflow.ErrTypeTableFeaturesFailed, uint16(openflow.TableFeaturesFailedEPerm))
	binary.BigEndian.PutUint32(body[4:], 9)
	n := maxMultipartBytes/len(body) + 1
	for range n {
		c.sendRaw(body)
	}
	c.expectError(9, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestMultipartBufferOverflow))
	// The connection goes on.
	c.sendRaw(mpPart(t, 10, openflow.MultipartDesc, false, false, 0))
	reply(10, openflow.MultipartDesc)
}

// TestQueues: the switch's ports have no queues. OFPMP_QUEUE for every
// queue (OFPQ_ALL) of a port or of ANY is an empty list, a queue by its id
// is OFPQOFC_BAD_QUEUE and a port the switch lacks OFPQOFC_BAD_PORT;
// QUEUE_GET_CONFIG lists no queues. Open vSwitch answers the same.
func TestQueues(t *testing.T) {
	_, addr := startAgent(t, &Config{Ports: fakePorts{}})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	queueStats := func(xid, port, queue uint32) {
		c.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, xid), Part: openflow.MultipartQueue, PortNo: port, QueueID: queue})
	}
	for i, port := range []uint32{openflow.PortAny, 2} {
		xid := uint32(1 + i)
		queueStats(xid, port, openflow.QueueAll)
		var r openflow.MultipartReply
		if err := r.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
			t.Fatal(err)
		}
		if r.XID != xid || r.Part != openflow.MultipartQueue || len(r.Queues) != 0 {
			t.Errorf("queue stats of port %#x: xid %d %v with %d queues, want xid %d, OFPMP_QUEUE, none", port, r.XID, r.Part, len(r.Queues), xid)
		}
	}
	queueStats(3, openflow.PortAny, 5)
	c.expectError(3, openflow.ErrTypeQueueOpFailed, uint16(openflow.QueueOpFailedBadQueue))
	queueStats(4, 7, openflow.QueueAll)
	c.expectError(4, openflow.ErrTypeQueueOpFailed, uint16(openflow.QueueOpFailedBadPort))
	queueStats(5, openflow.PortController, openflow.QueueAll)
	c.expectError(5, openflow.ErrTypeQueueOpFailed, uint16(openflow.QueueOpFailedBadPort))

	for i, port := range []uint32{openflow.PortAny, 1} {
		xid := uint32(10 + i)
		c.send(&openflow.QueueGetConfigRequest{Header: hdr(openflow.TypeQueueGetConfigRequest, xid), Port: port})
		var r openflow.QueueGetConfigReply
		if err := r.UnmarshalBinary(c.recv(openflow.TypeQueueGetConfigReply)); err != nil {
			t.Fatal(err)
		}
		if r.XID != xid || r.Port != port || len(r.Queues) != 0 {
			t.Errorf("queue config of port %#x: xid %d port %#x with %d queues, want xid %d, the port, none", port, r.XID, r.Port, len(r.Queues), xid)
		}
	}
	c.send(&openflow.QueueGetConfigRequest{Header: hdr(openflow.TypeQueueGetConfigRequest, 12), Port: 9})
	c.expectError(12, openflow.ErrTypeQueueOpFailed, uint16(openflow.QueueOpFailedBadPort))
	// The connection goes on.
	c.send(&openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, 13)})
	c.recv(openflow.TypeBarrierReply)
}

// TestDescs14: OpenFlow 1.4's OFPMP_TABLE_DESC lists every table with no
// eviction and no vacancy events, and OFPMP_QUEUE_DESC is answered as the
// queue statistics are (no queues); over OpenFlow 1.3, where neither type
// exists, both are OFPBRC_BAD_MULTIPART. ovs-ofctl -O OpenFlow14
// dump-table-desc and queue-get-config read the replies.
func TestDescs14(t *testing.T) {
	_, addr := startAgent(t, &Config{Ports: fakePorts{}, Tables: 3})
	h14 := func(typ openflow.Type, xid uint32) openflow.Header {
		return openflow.Header{Version: openflow.Version14, Type: typ, XID: xid}
	}
	c := dial(t, addr)
	c.handshake(openflow.Version13, openflow.Version14)
	c.send(&openflow.MultipartRequest{Header: h14(openflow.TypeMultipartRequest, 1), Part: openflow.MultipartTableDesc})
	var r openflow.MultipartReply
	if err := r.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
		t.Fatal(err)
	}
	want := []openflow.TableDesc{{TableID: 0}, {TableID: 1}, {TableID: 2}}
	if r.XID != 1 || r.Part != openflow.MultipartTableDesc || !slices.EqualFunc(r.TableDescs, want, func(a, b openflow.TableDesc) bool {
		return a.TableID == b.TableID && a.Config == b.Config && len(a.Properties) == 0
	}) {
		t.Errorf("TABLE_DESC reply: xid %d %v %+v, want the three tables", r.XID, r.Part, r.TableDescs)
	}
	for _, q := range []struct {
		xid, port, queue uint32
		code             openflow.QueueOpFailedCode // 0xffff: an empty reply
	}{
		{2, openflow.PortAny, openflow.QueueAll, 0xffff},
		{3, 1, openflow.QueueAll, 0xffff},
		{4, openflow.PortAny, 5, openflow.QueueOpFailedBadQueue},
		{5, 9, openflow.QueueAll, openflow.QueueOpFailedBadPort},
	} {
		c.send(&openflow.MultipartRequest{Header: h14(openflow.TypeMultipartRequest, q.xid), Part: openflow.MultipartQueueDesc, PortNo: q.port, QueueID: q.queue})
		if q.code != 0xffff {
			c.expectError(q.xid, openflow.ErrTypeQueueOpFailed, uint16(q.code))
			continue
		}
		if err := r.UnmarshalBinary(c.recv(openflow.TypeMultipartReply)); err != nil {
			t.Fatal(err)
		}
		if r.XID != q.xid || r.Part != openflow.MultipartQueueDesc || len(r.QueueDescs) != 0 {
			t.Errorf("QUEUE_DESC of port %#x: xid %d %v with %d queues", q.port, r.XID, r.Part, len(r.QueueDescs))
		}
	}

	c13 := dial(t, addr)
	c13.handshake(openflow.Version13)
	for xid, part := range []openflow.MultipartType{openflow.MultipartTableDesc, openflow.MultipartQueueDesc} {
		c13.send(&openflow.MultipartRequest{Header: hdr(openflow.TypeMultipartRequest, uint32(10+xid)), Part: part, PortNo: openflow.PortAny, QueueID: openflow.QueueAll})
		c13.expectError(uint32(10+xid), openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadMultipart))
	}

	ofctl := ovstest.Tool(t, "ovs-ofctl")
	out, err := exec.Command(ofctl, "-O", "OpenFlow14", "dump-table-desc", "tcp:"+addr).CombinedOutput()
	if err != nil || strings.Count(string(out), "eviction=off") != 3 || strings.Count(string(out), "vacancy=off") != 3 || !strings.Contains(string(out), "table 2:") {
		t.Errorf("ovs-ofctl dump-table-desc: %v\n%s", err, out)
	}
	out, err = exec.Command(ofctl, "-O", "OpenFlow14", "queue-get-config", "tcp:"+addr).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "OFPST_QUEUE_DESC reply (OF1.4)") {
		t.Errorf("ovs-ofctl queue-get-config: %v\n%s", err, out)
	}
}

package controller

import (
	"encoding/binary"
	"testing"

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

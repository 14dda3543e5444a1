package openflow

import (
	"encoding/binary"
	"fmt"
)

// FlowReplyWriter appends the entries of an OFPMP_FLOW reply one at a
// time, as the OFPT_MULTIPART_REPLY messages that AppendSplit makes of a
// MultipartReply holding them all: whole entries, each message at most
// MaxMessageLen bytes, OFPMPF_REPLY_MORE on all but the last. A switch
// that encodes each flow as it lists it holds the reply's wire bytes
// only, not a FlowStats value per flow as well.
type FlowReplyWriter struct {
	h     Header
	flags uint16
	dst   []byte
	start int // the current message's first byte
	count int // its entries
	err   error
}

// NewFlowReplyWriter starts a reply with h's version and xid (and flags,
// ORed into every message's), appending to dst.
func NewFlowReplyWriter(dst []byte, h Header, flags uint16) *FlowReplyWriter {
	w := &FlowReplyWriter{h: h, flags: flags &^ MultipartReplyMore, dst: dst}
	w.open()
	return w
}

func (w *FlowReplyWriter) open() {
	m := MultipartReply{Header: w.h, Part: MultipartFlow}
	w.start, w.count = len(w.dst), 0
	w.dst = m.appendPartHeader(w.dst, w.flags)
}

// Add appends s. An entry too long for a message of its own is an error
// that Bytes returns too; entries after it are ignored.
func (w *FlowReplyWriter) Add(s *FlowStats) error {
	if w.err != nil {
		return w.err
	}
	before := len(w.dst)
	var err error
	if w.dst, err = s.appendTo(w.dst, w.h.Version); err != nil {
		w.dst = w.dst[:before]
		w.err = encodeCtx(err, TypeMultipartReply)
		return w.err
	}
	if len(w.dst)-w.start <= MaxMessageLen {
		w.count++
		return nil
	}
	if w.count == 0 {
		w.dst = w.dst[:before]
		w.err = &EncodeError{Type: TypeMultipartReply, Field: "entry", Err: ErrTooLong}
		return w.err
	}
	// The entry starts the next message: close this one before it and
	// put the next one's header between them.
	n := len(w.dst) - before
	w.close(before, true)
	var room [replyHeaderLen]byte
	w.dst = append(w.dst, room[:]...)
	copy(w.dst[before+replyHeaderLen:], w.dst[before:before+n])
	m := MultipartReply{Header: w.h, Part: MultipartFlow}
	m.appendPartHeader(w.dst[before:before], w.flags) // in place
	w.start, w.count = before, 1
	return nil
}

// replyHeaderLen is the length of an OFPT_MULTIPART_REPLY's header and
// type, flags and padding, before its entries.
const replyHeaderLen = 16

// close ends the message that starts at w.start at end, with
// OFPMPF_REPLY_MORE if more follow.
func (w *FlowReplyWriter) close(end int, more bool) {
	if more {
		binary.BigEndian.PutUint16(w.dst[w.start+10:], w.flags|MultipartReplyMore)
	}
	binary.BigEndian.PutUint16(w.dst[w.start+2:], uint16(end-w.start))
}

// Bytes ends the reply and returns it: dst and the messages appended.
func (w *FlowReplyWriter) Bytes() ([]byte, error) {
	if w.err != nil {
		return nil, fmt.Errorf("flow stats reply: %w", w.err)
	}
	w.close(len(w.dst), false)
	return w.dst, nil
}

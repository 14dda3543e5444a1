package push

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Encoded holds mods encoded ahead of a push, as a client that checks a
// file before it sends it encodes them: OpenFlow 1.3 messages with xid 0
// (what a push that neither bundles nor carries an importance sends), in
// the order they were added, each with its line. A push then sends them
// (EncodedSource) without translating them again.
type Encoded struct {
	enc    ofrules.Encoder
	buf    []byte  // FLOW_MODs, GROUP_MODs and METER_MODs, in order
	lines  []int32 // the line of each message of buf
	failed bool    // a mod did not encode: buf is incomplete
	unmap  func()  // of the memory mapped for buf, or nil
}

// NewEncoded returns an Encoded for the mods of size bytes of flow text,
// its buffer reserved for the messages of ordinary flows (a 95-byte line
// becomes a 128-byte FLOW_MOD) in memory mapped for it (mapBuffer):
// memory reserved and never written costs a process nothing, and a
// buffer that grows copies what it holds. The caller calls Release when
// done with the messages.
func NewEncoded(size int64) *Encoded {
	n := int(size + size/2 + 4096)
	e := &Encoded{lines: make([]int32, 0, size/64+16)}
	if mem, unmap := mapBuffer(n); mem != nil {
		e.buf, e.unmap = mem[:0], unmap
	} else {
		e.buf = make([]byte, 0, n)
	}
	return e
}

// Release gives back the memory mapped for e's messages, which must no
// longer be used. e may be nil.
func (e *Encoded) Release() {
	if e != nil && e.unmap != nil {
		unmap := e.unmap
		e.buf, e.lines, e.unmap = nil, nil, nil
		unmap()
	}
}

// SetTLV makes e encode the flows after it through the switch's TLV
// table t (ofrules.Encoder.TLV), as Config.TLV does a push's.
func (e *Encoded) SetTLV(t *ofrules.TLVTable) { e.enc.TLV = t }

// Failed reports whether a mod did not encode: the messages are then
// incomplete and the push must translate the mods itself.
func (e *Encoded) Failed() bool { return e.failed }

// Flow encodes the FLOW_MOD of u, whose ID is its line.
func (e *Encoded) Flow(u *rules.Update) {
	if e.failed {
		return
	}
	var err error
	e.buf, err = e.enc.Encode(e.buf, u, openflow.Version13, 0)
	e.done(u.ID, err)
}

// Group encodes the GROUP_MOD of m, from line.
func (e *Encoded) Group(m *groups.Mod, line int) {
	if e.failed {
		return
	}
	gm := ofrules.WireGroupMod(m)
	gm.Header = openflow.Header{Version: openflow.Version13}
	e.append(&gm, line)
}

// Meter encodes the METER_MOD of m, from line.
func (e *Encoded) Meter(m *meters.Mod, line int) {
	if e.failed {
		return
	}
	mm := ofrules.WireMeterMod(m)
	mm.Header = openflow.Header{Version: openflow.Version13}
	e.append(&mm, line)
}

// append encodes msg, from line.
func (e *Encoded) append(msg interface{ AppendBinary([]byte) ([]byte, error) }, line int) {
	var err error
	e.buf, err = msg.AppendBinary(e.buf)
	e.done(line, err)
}

// AddLines adds n to the line of every message: a part of a file whose
// lines were counted from the part's first line takes the lines before
// it.
func (e *Encoded) AddLines(n int) {
	for i := range e.lines {
		e.lines[i] += int32(n)
	}
}

// done records the line of the message just encoded, or the failure.
func (e *Encoded) done(line int, err error) {
	if err != nil || line > math.MaxInt32 {
		e.failed = true
		return
	}
	e.lines = append(e.lines, int32(line))
}

// EncodedSource is the Source of the messages of Encoded parts, in the
// parts' order, up to a chunk of Msgs at a time.
type EncodedSource struct {
	name  string
	parts []*Encoded
	k     int // the part being sent
	off   int // of its next message in buf
	i     int // and its index
	msgs  []Msg
}

// NewEncodedSource returns the source of the parts' messages, Msgs
// naming file name and their lines, chunk at a time; nil if parts is
// nil.
func NewEncodedSource(name string, parts []*Encoded, chunk int) *EncodedSource {
	if parts == nil {
		return nil
	}
	return &EncodedSource{name: name, parts: parts, msgs: make([]Msg, 0, chunk)}
}

func (s *EncodedSource) Next() ([]Msg, error) {
	s.msgs = s.msgs[:0]
	for len(s.msgs) < cap(s.msgs) && s.k < len(s.parts) {
		p := s.parts[s.k]
		if s.i == len(p.lines) {
			s.k, s.off, s.i = s.k+1, 0, 0
			continue
		}
		n := int(binary.BigEndian.Uint16(p.buf[s.off+2:]))
		s.msgs = append(s.msgs, Msg{Wire: p.buf[s.off : s.off+n : s.off+n], File: s.name, Line: int(p.lines[s.i])})
		s.off += n
		s.i++
	}
	if len(s.msgs) == 0 {
		return nil, io.EOF
	}
	return s.msgs, nil
}

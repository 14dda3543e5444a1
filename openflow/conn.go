package openflow

import (
	"encoding/binary"
	"errors"
	"io"
	"slices"
)

// Message is implemented by a pointer to every message value in this
// package. Dispatch on MsgHeader().Type, or use a type switch.
type Message interface {
	MsgHeader() *Header
	AppendBinary(dst []byte) ([]byte, error)
	UnmarshalBinary(b []byte) error
}

// DefaultMaxLen is the Reader's maximum message length when none is given:
// the largest length an ofp_header can express.
const DefaultMaxLen = MaxMessageLen

// Reader frames OpenFlow messages from a byte stream (OpenFlow 1.3.5 §7.1:
// every message starts with ofp_header, whose length covers the whole
// message). It reads into one buffer that it reuses for every message, so
// reading allocates nothing in steady state. The buffer starts small, so
// that a short-lived connection costs little, and doubles (up to twice the
// maximum message length) when a message does not fit or a read fills it.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	r      io.Reader
	buf    []byte
	start  int // first unread byte
	end    int // end of buffered data
	maxLen int
	off    int64 // stream offset of buf[start]
	last   int64 // stream offset of the message Next returned last
	reads  uint64
}

// NewReader returns a Reader that rejects messages longer than maxLen bytes
// (0 means DefaultMaxLen; values below HeaderLen are raised to it).
func NewReader(r io.Reader, maxLen int) *Reader {
	if maxLen <= 0 || maxLen > MaxMessageLen {
		maxLen = DefaultMaxLen
	}
	maxLen = max(maxLen, HeaderLen)
	size := min(max(2*maxLen, 4096), initialReadBuf)
	return &Reader{r: r, buf: make([]byte, size), maxLen: maxLen}
}

// Reset makes the Reader read a new stream from r, keeping its buffer and
// maximum length and dropping whatever it had buffered: a server can hand
// a closed connection's Reader, whose buffer is in memory already, to the
// next connection.
func (r *Reader) Reset(rd io.Reader) {
	*r = Reader{r: rd, buf: r.buf, maxLen: r.maxLen}
}

// initialReadBuf is the size a Reader's buffer starts at: a burst of a few
// hundred FLOW_MODs in one read.
const initialReadBuf = 32 << 10

// Reads returns the number of reads from the underlying reader that
// returned data so far: a caller can tell whether a message came with new
// data from the stream or from what the Reader had buffered.
func (r *Reader) Reads() uint64 { return r.reads }

// Buffered returns the number of bytes read from the stream that Next has
// not returned yet: more than zero means that the next message, or part
// of it, is already here.
func (r *Reader) Buffered() int { return r.end - r.start }

// Ready reports whether Next will return without reading from the
// stream: a whole message is buffered, or a header that Next refuses.
func (r *Reader) Ready() bool {
	avail := r.end - r.start
	if avail < HeaderLen {
		return false
	}
	n := int(binary.BigEndian.Uint16(r.buf[r.start+2:]))
	return avail >= n || n < HeaderLen || n > r.maxLen
}

// Offset returns the stream offset at which the message most recently
// returned by Next started; after an error, where the failing message
// starts.
func (r *Reader) Offset() int64 { return r.last }

// Next returns the next whole message. The returned slice aliases the
// Reader's buffer and is valid only until the next call to Next.
//
// At a clean end of stream Next returns io.EOF; a stream that ends inside a
// message gives io.ErrUnexpectedEOF. A header whose length is below
// HeaderLen or above the maximum gives a *DecodeError (ErrBadLength,
// ErrTooLong) after which the stream cannot be resynchronised.
func (r *Reader) Next() ([]byte, error) {
	need := HeaderLen
	r.last = r.off
	for {
		avail := r.end - r.start
		if avail >= HeaderLen {
			n := int(binary.BigEndian.Uint16(r.buf[r.start+2:]))
			t := Type(r.buf[r.start+1])
			if n < HeaderLen {
				return nil, &DecodeError{Type: t, Field: "header.length", Offset: 2, Err: ErrBadLength}
			}
			if n > r.maxLen {
				return nil, &DecodeError{Type: t, Field: "header.length", Offset: 2, Err: ErrTooLong}
			}
			need = n
			if avail >= n {
				msg := r.buf[r.start : r.start+n : r.start+n]
				r.start += n
				r.off += int64(n)
				return msg, nil
			}
		}
		if err := r.fill(need); err != nil {
			if errors.Is(err, io.EOF) {
				if r.end == r.start {
					return nil, io.EOF
				}
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// fill reads at least once, first making room for need bytes.
func (r *Reader) fill(need int) error {
	// Move the partial message to the front when the one being read
	// would not fit, or when little room is left for the read.
	if r.start+need > len(r.buf) || r.start == r.end || len(r.buf)-r.end < len(r.buf)/4 {
		copy(r.buf, r.buf[r.start:r.end])
		r.end -= r.start
		r.start = 0
	}
	if need > len(r.buf) {
		r.grow(need)
	}
	for i := 0; ; i++ {
		n, err := r.r.Read(r.buf[r.end:])
		full := r.end+n == len(r.buf)
		r.end += n
		if n > 0 {
			r.reads++
			if full {
				r.grow(0) // more is likely waiting: read more at once next time
			}
			return nil
		}
		if err != nil {
			return err
		}
		if i > 100 {
			return io.ErrNoProgress
		}
	}
}

// grow doubles the buffer, to at least need bytes, up to twice the maximum
// message length.
func (r *Reader) grow(need int) {
	limit := max(2*r.maxLen, 4096)
	if len(r.buf) >= limit {
		return
	}
	size := min(max(2*len(r.buf), need), limit)
	buf := make([]byte, size)
	r.end = copy(buf, r.buf[r.start:r.end])
	r.start = 0
	r.buf = buf
}

// Writer encodes messages into one reused buffer and writes them to an
// io.Writer. Buffered messages go out on Flush; WriteMessage is Append
// followed by Flush.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer for w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, buf: make([]byte, 0, 4096)} }

// Append encodes m into the buffer without writing it.
func (w *Writer) Append(m Message) error {
	b, err := m.AppendBinary(w.buf)
	w.buf = b
	return err
}

// Buffered returns the number of bytes waiting for Flush.
func (w *Writer) Buffered() int { return len(w.buf) }

// Reserve appends n bytes to the buffer and returns them for the caller to
// fill with a message it encodes itself (a copy of one encoded earlier,
// with some fields changed, say); they go out with the buffered messages
// at the next Flush.
func (w *Writer) Reserve(n int) []byte {
	w.buf = slices.Grow(w.buf, n)
	w.buf = w.buf[:len(w.buf)+n]
	return w.buf[len(w.buf)-n:]
}

// Buffer returns the messages waiting for Flush, for a caller that
// encodes messages itself by appending them (as AppendBinary appends):
// it hands the longer slice back with SetBuffer before using the Writer
// again.
func (w *Writer) Buffer() []byte { return w.buf }

// SetBuffer makes b the messages waiting for Flush: what Buffer returned,
// with messages appended.
func (w *Writer) SetBuffer(b []byte) { w.buf = b }

// Flush writes the buffered messages.
func (w *Writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// WriteMessage encodes m and writes it at once.
func (w *Writer) WriteMessage(m Message) error {
	if err := w.Append(m); err != nil {
		return err
	}
	return w.Flush()
}

package ofctl

import (
	"bufio"
	"errors"
	"io"
)

// ModsReader reads a file of flow, group and meter mods (ParseMods'
// syntax) a chunk of lines at a time, so that a file of any size costs
// the memory of a chunk and its mods: ofswitch push parses and sends a
// file batch by batch, and checks it first without keeping its mods.
//
// Each chunk is parsed by ParseMods' code, which reads every line on its
// own: the chunks' mods and errors, in order, are those ParseMods returns
// for the whole file, with the same line numbers.
type ModsReader struct {
	name  string
	r     *bufio.Reader
	opt   *ParseOptions
	lines int    // most lines of a chunk
	line  int    // lines read before the next chunk
	buf   []byte // the chunk, reused
	done  bool
	// noWhere leaves Mods.Where out, for a reader that does not send
	// (rules lint).
	noWhere bool
	// p is NextInto's memory for the flows' instructions and actions.
	p *flowParser
}

// chunkBytes bounds a chunk of a ModsReader: it ends at the first line end
// beyond, so that lines of 1 MB cost a few of them, not a chunk's count.
const chunkBytes = 1 << 20

// NewModsReader returns a ModsReader of the file name (for errors and
// Mods.Where) that r reads, lines at a time (at most; 1024 if lines <= 0),
// each chunk parsed with opt.
func NewModsReader(name string, r io.Reader, lines int, opt *ParseOptions) *ModsReader {
	if lines <= 0 {
		lines = 1024
	}
	return &ModsReader{name: name, r: bufio.NewReaderSize(r, 64<<10), opt: opt, lines: lines}
}

// Reset makes the reader read the file name from r, from its first line,
// keeping its memory: its buffers and its memory for the flows'
// instructions and actions (NextInto). A short-lived process pays for
// each page it touches first, so that push reads the file it checked
// with the check's reader and spares a chunk's worth of page faults.
func (mr *ModsReader) Reset(name string, r io.Reader) {
	mr.name, mr.line, mr.done = name, 0, false
	mr.r.Reset(r)
	mr.buf = mr.buf[:0]
}

// Name returns the name of the file, as errors and Mods.Where give it.
func (mr *ModsReader) Name() string { return mr.name }

// Lines returns the lines of the chunks read so far, blank lines and
// comments included: after the last chunk, the file's lines. A caller
// that reads a file in parts, each with a reader of its own, adds the
// lines of the parts before to a part's line numbers.
func (mr *ModsReader) Lines() int { return mr.line }

// Next parses the next chunk of lines and returns its mods and the errors
// of its bad lines, as ParseMods would: Update.ID, GroupMod.Line,
// MeterMod.Line, Mods.Where and the errors' lines count from the file's
// first line. After the last chunk it returns io.EOF; a read error ends
// the file too. The Mods are the caller's; the reader keeps no reference
// to them.
func (mr *ModsReader) Next() (*Mods, []error, error) {
	m := &Mods{}
	errs, err := mr.next(m, nil)
	if err != nil {
		return nil, nil, err
	}
	if !mr.noWhere {
		m.Where = whereOf(mr.name, m.Flows)
	}
	return m, errs, nil
}

// NextInto is Next into m, whose slices it reuses, as are the reader's
// memory for the flows' instructions and actions: reading a file of
// ordinary flows chunk by chunk into one Mods allocates nothing per line.
// What m held before is overwritten, the instructions and actions of
// its flows included. m.Where is left empty: a flow's line is its ID, in
// the file Name gives. After the last chunk it returns io.EOF.
func (mr *ModsReader) NextInto(m *Mods) ([]error, error) {
	if mr.p == nil {
		mr.p = &flowParser{}
	}
	m.Where = m.Where[:0]
	return mr.next(m, mr.p)
}

// next reads the next chunk into m with p's memory (nil: m's slices and
// memory of its own, as ParseMods has).
func (mr *ModsReader) next(m *Mods, p *flowParser) ([]error, error) {
	if mr.done {
		return nil, io.EOF
	}
	buf, n := mr.buf[:0], 0
	for n < mr.lines && len(buf) < chunkBytes {
		start := len(buf)
		var err error
		for {
			var b []byte
			b, err = mr.r.ReadSlice('\n')
			buf = append(buf, b...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if len(buf) > start {
			n++
		}
		if err != nil {
			mr.done = true
			if err != io.EOF {
				return nil, err
			}
			break
		}
	}
	mr.buf = buf
	if n == 0 {
		return nil, io.EOF
	}
	errs := parseModsInto(mr.name, buf, mr.opt, m, p)
	base := mr.line
	mr.line += n
	if base > 0 {
		for i := range m.Flows {
			m.Flows[i].ID += base
		}
		for i := range m.Groups {
			m.Groups[i].Line += base
		}
		for i := range m.Meters {
			m.Meters[i].Line += base
		}
		for _, err := range errs {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.Line += base
			}
		}
	}
	return errs, nil
}

package dataplane

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/capture"
)

// Sentinel errors a *FileError unwraps to.
var (
	ErrTruncated = errors.New("dataplane: capture file cut short")
	ErrCorrupt   = errors.New("dataplane: capture file corrupt")
	ErrLinkType  = errors.New("dataplane: unsupported link type")
)

// FileError reports where reading a capture file failed. It unwraps to one
// of ErrTruncated, ErrCorrupt or ErrLinkType and to the reader's own error.
type FileError struct {
	File   string // file name as given
	Offset int64  // byte offset of the record or block that could not be read
	Err    error  // ErrTruncated, ErrCorrupt or ErrLinkType
	Detail error  // what the pcap reader said, or nil
}

func (e *FileError) Error() string {
	if e.Detail == nil {
		return fmt.Sprintf("%s: offset %d: %v", e.File, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: offset %d: %v: %v", e.File, e.Offset, e.Err, e.Detail)
}

// Unwrap returns the sentinel and the reader's error.
func (e *FileError) Unwrap() []error {
	if e.Detail == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Detail}
}

// Interface is one capture interface: the single one of a pcap file, or
// an interface description block of a pcapng file.
type Interface struct {
	Name string          // pcapng if_name, or empty
	Link layers.LinkType // Ethernet, Null or Loop (others are rejected)
}

// Capture is a capture file loaded into memory: every frame back to back
// in Data, so that replay touches one contiguous buffer.
//
// Frame i is Data[Off[i]:Off[i+1]], captured at TS[i] (Unix nanoseconds)
// on interface Iface[i], which Replay presents as in_port Iface[i]+1.
type Capture struct {
	Name    string      // file name
	Data    []byte      // all frames
	Off     []int       // len(Off) == Len()+1
	TS      []int64     // capture time of each frame, Unix ns
	WireLen []uint32    // original length of each frame (≥ its captured length)
	Iface   []uint16    // interface index of each frame
	Ifaces  []Interface // interfaces, in file order (pcapng sections concatenated)
}

// Len returns the number of frames.
func (c *Capture) Len() int { return len(c.TS) }

// Frame returns the bytes of frame i, aliasing c.Data.
func (c *Capture) Frame(i int) []byte { return c.Data[c.Off[i]:c.Off[i+1]:c.Off[i+1]] }

// Link returns the link type of frame i.
func (c *Capture) Link(i int) layers.LinkType { return c.Ifaces[c.Iface[i]].Link }

func (c *Capture) add(data []byte, ts int64, wire int, iface int) {
	if len(c.Off) == 0 {
		c.Off = append(c.Off, 0)
	}
	c.Data = append(c.Data, data...)
	c.Off = append(c.Off, len(c.Data))
	c.TS = append(c.TS, ts)
	c.WireLen = append(c.WireLen, uint32(wire))
	c.Iface = append(c.Iface, uint16(iface))
}

func supportedLink(l layers.LinkType) bool {
	return l == layers.LinkTypeEthernet || l == layers.LinkTypeNull || l == layers.LinkTypeLoop
}

// LoadFile reads the pcap or pcapng file at path (gzip-compressed or not)
// into memory. If the file is cut short or corrupt it returns the frames
// read before that point together with a *FileError; the Capture is
// non-nil whenever the file could be opened.
func LoadFile(path string) (*Capture, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(path, raw)
}

// Load parses a whole pcap or pcapng file held in raw; name is used in
// errors. See LoadFile. Offsets in errors of gzip-compressed files are in
// the decompressed stream.
func Load(name string, raw []byte) (*Capture, error) {
	c := &Capture{Name: name}
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err == nil {
			raw, err = io.ReadAll(zr)
		}
		if err != nil {
			return c, &FileError{File: name, Offset: int64(len(raw)), Err: ErrCorrupt, Detail: err}
		}
	}
	if len(raw) < 4 {
		return c, &FileError{File: name, Offset: int64(len(raw)), Err: ErrTruncated}
	}
	return c, c.load(raw)
}

func classify(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return ErrTruncated
	}
	return ErrCorrupt
}

// fileError reports an error of package capture: at the offset of its
// *capture.Error, with what the pcap reader said.
func (c *Capture) fileError(err error) error {
	var ce *capture.Error
	if !errors.As(err, &ce) {
		return &FileError{File: c.Name, Err: classify(err), Detail: err}
	}
	return &FileError{File: c.Name, Offset: ce.Offset, Err: classify(ce.Err), Detail: ce.Err}
}

// load reads the frames of raw through package capture. A pcap file's
// link type is checked in its header; a pcapng file's, at each packet.
func (c *Capture) load(raw []byte) error {
	r, err := capture.NewReader(raw)
	if err != nil {
		return c.fileError(err)
	}
	if r.Format() == capture.Pcap {
		link := r.Interfaces()[0].LinkType
		if !supportedLink(link) {
			return &FileError{File: c.Name, Offset: 20, Err: ErrLinkType, Detail: fmt.Errorf("link type %d (%v)", int(link), link)}
		}
		c.Ifaces = []Interface{{Link: link}}
	}
	c.Data = make([]byte, 0, len(raw))
	for {
		p, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return c.fileError(err)
		}
		for _, ifc := range r.Interfaces()[len(c.Ifaces):] {
			c.Ifaces = append(c.Ifaces, Interface{Name: ifc.Name, Link: ifc.LinkType})
		}
		if p.Iface > 0xffff {
			return &FileError{File: c.Name, Offset: r.Offset(), Err: ErrCorrupt,
				Detail: fmt.Errorf("packet on undeclared interface %d", p.Iface)}
		}
		if l := p.LinkType; !supportedLink(l) {
			return &FileError{File: c.Name, Offset: r.Offset(), Err: ErrLinkType,
				Detail: fmt.Errorf("interface %d: link type %d (%v)", p.Iface, int(l), l)}
		}
		c.add(p.Data, p.Timestamp.UnixNano(), p.Length, p.Iface)
	}
}

// LoadFiles loads every file in paths, going on past files that cannot be
// read or are cut short. It returns one Capture per path, in order (nil
// where the file could not be opened, partial where it broke off), and all
// errors joined (nil if every file loaded cleanly).
func LoadFiles(paths []string) ([]*Capture, error) {
	caps := make([]*Capture, len(paths))
	var errs []error
	for i, p := range paths {
		c, err := LoadFile(p)
		caps[i] = c
		if err != nil {
			errs = append(errs, err)
		}
	}
	return caps, errors.Join(errs...)
}

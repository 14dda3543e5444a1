package dataplane

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
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
	if binary.BigEndian.Uint32(raw) == 0x0a0d0d0a {
		return c, c.loadNg(raw)
	}
	return c, c.loadPcap(raw)
}

func classify(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return ErrTruncated
	}
	return ErrCorrupt
}

func (c *Capture) loadPcap(raw []byte) error {
	r, err := pcapgo.NewReader(bytes.NewReader(raw))
	if err != nil {
		return &FileError{File: c.Name, Offset: 0, Err: classify(err), Detail: err}
	}
	link := r.LinkType()
	if !supportedLink(link) {
		return &FileError{File: c.Name, Offset: 20, Err: ErrLinkType, Detail: fmt.Errorf("link type %d (%v)", int(link), link)}
	}
	c.Ifaces = []Interface{{Link: link}}
	c.Data = make([]byte, 0, len(raw))
	off := int64(24)
	for {
		data, ci, err := r.ZeroCopyReadPacketData()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &FileError{File: c.Name, Offset: off, Err: classify(err), Detail: err}
		}
		c.add(data, ci.Timestamp.UnixNano(), ci.Length, 0)
		off += 16 + int64(len(data))
	}
}

func (c *Capture) loadNg(raw []byte) error {
	sectionBase := 0 // index in c.Ifaces of the current section's interface 0
	var r *pcapgo.NgReader
	opts := pcapgo.NgReaderOptions{
		WantMixedLinkType: true,
		SectionEndCallback: func(ifs []pcapgo.NgInterface, _ pcapgo.NgSectionInfo) {
			c.syncIfaces(r, sectionBase)
			sectionBase = len(c.Ifaces)
		},
	}
	r, err := pcapgo.NewNgReader(bytes.NewReader(raw), opts)
	if err != nil {
		return &FileError{File: c.Name, Offset: ngFailOffset(raw, 0), Err: classify(err), Detail: err}
	}
	c.Data = make([]byte, 0, len(raw))
	for {
		data, ci, err := r.ZeroCopyReadPacketData()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &FileError{File: c.Name, Offset: ngFailOffset(raw, c.Len()), Err: classify(err), Detail: err}
		}
		c.syncIfaces(r, sectionBase)
		idx := sectionBase + ci.InterfaceIndex
		if idx >= len(c.Ifaces) || idx > 0xffff {
			return &FileError{File: c.Name, Offset: ngFailOffset(raw, c.Len()), Err: ErrCorrupt,
				Detail: fmt.Errorf("packet on undeclared interface %d", ci.InterfaceIndex)}
		}
		if l := c.Ifaces[idx].Link; !supportedLink(l) {
			return &FileError{File: c.Name, Offset: ngFailOffset(raw, c.Len()), Err: ErrLinkType,
				Detail: fmt.Errorf("interface %d: link type %d (%v)", ci.InterfaceIndex, int(l), l)}
		}
		c.add(data, ci.Timestamp.UnixNano(), ci.Length, idx)
	}
}

// syncIfaces appends the interfaces of the current pcapng section that c
// does not have yet.
func (c *Capture) syncIfaces(r *pcapgo.NgReader, base int) {
	for j := len(c.Ifaces) - base; j < r.NInterfaces(); j++ {
		ifc, err := r.Interface(j)
		if err != nil {
			return
		}
		c.Ifaces = append(c.Ifaces, Interface{Name: ifc.Name, Link: ifc.LinkType})
	}
}

// ngFailOffset walks the pcapng block chain of raw and returns the offset
// of the first block that is not a well-formed block, or of packet block
// number n (0-based) if that comes first: where a reader that returned n
// packets stopped.
func ngFailOffset(raw []byte, n int) int64 {
	var bo binary.ByteOrder = binary.LittleEndian
	seen := 0
	off := 0
	for off < len(raw) {
		if len(raw)-off < 12 {
			return int64(off)
		}
		if binary.BigEndian.Uint32(raw[off:]) == 0x0a0d0d0a { // section header: byte order
			switch binary.LittleEndian.Uint32(raw[off+8:]) {
			case 0x1a2b3c4d:
				bo = binary.LittleEndian
			case 0x4d3c2b1a:
				bo = binary.BigEndian
			default:
				return int64(off)
			}
		}
		typ := bo.Uint32(raw[off:])
		l := int(bo.Uint32(raw[off+4:]))
		if l < 12 || l%4 != 0 || l > len(raw)-off {
			return int64(off)
		}
		if typ == 2 || typ == 3 || typ == 6 { // packet, simple packet, enhanced packet
			if seen == n {
				return int64(off)
			}
			seen++
		}
		off += l
	}
	return int64(off)
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

package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Format is the format of a capture file.
type Format uint8

// Formats.
const (
	Pcap   Format = iota // libpcap's file format
	Pcapng               // pcap next generation
)

// Interface is one capture interface: the single one of a pcap file, or an
// interface description block of a pcapng file.
type Interface struct {
	Name     string          // pcapng if_name; empty in a pcap file
	LinkType layers.LinkType // LINKTYPE_* of its frames
	SnapLen  uint32          // longest frame captured; 0: no limit
	Nanos    bool            // timestamps in nanoseconds, else microseconds
}

// Packet is one captured frame.
type Packet struct {
	Data      []byte          // the frame as captured
	Timestamp time.Time       // capture time
	Length    int             // original length on the wire (≥ len(Data)); 0 when writing means len(Data)
	Iface     int             // its interface, numbered over the whole file
	LinkType  layers.LinkType // its interface's link type (ignored when writing)
}

// Error reports where reading a capture file failed. It unwraps to the
// reader's error.
type Error struct {
	Offset int64 // byte offset of the file header, record or block that could not be read
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("capture: offset %d: %v", e.Offset, e.Err) }

// Unwrap returns the reader's error.
func (e *Error) Unwrap() error { return e.Err }

// pcapngMagic is the block type of a pcapng section header, the first
// four bytes of a pcapng file in either byte order.
const pcapngMagic = 0x0a0d0d0a

// Reader reads the packets of a capture file held in memory.
type Reader struct {
	raw    []byte
	format Format
	pcap   *pcapgo.Reader
	ng     *pcapgo.NgReader
	ifaces []Interface
	base   int   // pcapng: index in ifaces of the current section's interface 0
	n      int   // packets returned
	off    int64 // pcap: offset of the next record
	last   int64 // pcap: offset of the last packet's record
}

// NewReader reads the file header of the pcap or pcapng file held in b. A
// gzip-compressed pcap file is read through gzip (offsets are then in the
// decompressed stream).
func NewReader(b []byte) (*Reader, error) {
	r := &Reader{raw: b}
	if len(b) >= 4 && binary.BigEndian.Uint32(b) == pcapngMagic {
		r.format = Pcapng
		opts := pcapgo.NgReaderOptions{
			WantMixedLinkType: true,
			SectionEndCallback: func([]pcapgo.NgInterface, pcapgo.NgSectionInfo) {
				r.syncIfaces()
				r.base = len(r.ifaces)
			},
		}
		ng, err := pcapgo.NewNgReader(bytes.NewReader(b), opts)
		if err != nil {
			return nil, &Error{Offset: ngFailOffset(b, 0), Err: err}
		}
		r.ng = ng
		return r, nil
	}
	pr, err := pcapgo.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, &Error{Offset: 0, Err: err}
	}
	r.pcap = pr
	r.ifaces = []Interface{{LinkType: pr.LinkType(), SnapLen: pr.Snaplen(),
		Nanos: pr.Resolution() == gopacket.TimestampResolutionNanosecond}}
	r.off = 24
	return r, nil
}

// Format returns the file's format.
func (r *Reader) Format() Format { return r.format }

// Interfaces returns the interfaces declared so far: a pcap file's one from
// the start, a pcapng file's up to the last packet Next returned.
func (r *Reader) Interfaces() []Interface { return r.ifaces }

// Next returns the next packet, or io.EOF after the last one. Its Data is
// valid until the next call. Any other error is an *Error.
func (r *Reader) Next() (Packet, error) {
	if r.ng == nil {
		data, ci, err := r.pcap.ZeroCopyReadPacketData()
		if err == io.EOF {
			return Packet{}, io.EOF
		}
		if err != nil {
			return Packet{}, &Error{Offset: r.off, Err: err}
		}
		r.n++
		r.last = r.off
		r.off += 16 + int64(len(data))
		return Packet{Data: data, Timestamp: ci.Timestamp, Length: ci.Length, LinkType: r.ifaces[0].LinkType}, nil
	}
	data, ci, err := r.ng.ZeroCopyReadPacketData()
	if err == io.EOF {
		return Packet{}, io.EOF
	}
	if err != nil {
		return Packet{}, &Error{Offset: ngFailOffset(r.raw, r.n), Err: err}
	}
	r.syncIfaces()
	idx := r.base + ci.InterfaceIndex
	if idx >= len(r.ifaces) {
		return Packet{}, &Error{Offset: ngFailOffset(r.raw, r.n), Err: fmt.Errorf("packet on undeclared interface %d", ci.InterfaceIndex)}
	}
	r.n++
	return Packet{Data: data, Timestamp: ci.Timestamp, Length: ci.Length, Iface: idx, LinkType: r.ifaces[idx].LinkType}, nil
}

// Offset returns the byte offset of the record or block that held the
// packet Next returned last. For pcapng it walks the blocks from the start
// of the file: it is meant for error reports.
func (r *Reader) Offset() int64 {
	if r.ng == nil {
		return r.last
	}
	return ngFailOffset(r.raw, r.n-1)
}

// syncIfaces appends the interfaces of the current pcapng section that r
// does not have yet.
func (r *Reader) syncIfaces() {
	for j := len(r.ifaces) - r.base; j < r.ng.NInterfaces(); j++ {
		ifc, err := r.ng.Interface(j)
		if err != nil {
			return
		}
		r.ifaces = append(r.ifaces, Interface{Name: ifc.Name, LinkType: ifc.LinkType, SnapLen: ifc.SnapLength,
			Nanos: ifc.TimestampResolution == 9})
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

// Read reads every packet of the capture file held in b, copying their
// data into one buffer, and returns them with the file's interfaces. If
// the file is cut short or corrupt it returns the packets before that
// point and an *Error.
func Read(b []byte) ([]Packet, []Interface, error) {
	r, err := NewReader(b)
	if err != nil {
		return nil, nil, err
	}
	var pkts []Packet
	buf := make([]byte, 0, len(b))
	for {
		p, err := r.Next()
		if err == io.EOF {
			return pkts, r.Interfaces(), nil
		}
		if err != nil {
			return pkts, r.Interfaces(), err
		}
		if len(buf)+len(p.Data) > cap(buf) { // a decompressed file: start another buffer
			buf = make([]byte, 0, max(len(p.Data), len(b)))
		}
		start := len(buf)
		buf = append(buf, p.Data...)
		p.Data = buf[start:len(buf):len(buf)]
		pkts = append(pkts, p)
	}
}

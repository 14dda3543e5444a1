// Package capture reads and writes packet captures for tests and tools:
// pcap and pcapng files (no cgo, no libpcap), TCP stream reassembly by
// sequence number, and synthetic TCP streams written as pcap. It has no
// flags and does not import testing, so commands may use it too.
package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Packet is one captured frame with the link type it was captured on
// (LINKTYPE_* numbers: 1 Ethernet, 0 BSD loopback, 101 raw IP, 113 Linux
// cooked).
type Packet struct {
	LinkType uint16
	Data     []byte
}

// ReadCapture parses a whole pcap or pcapng file held in b. It supports both
// byte orders, microsecond and nanosecond pcap, and the pcapng blocks that
// carry packets (SHB, IDB, EPB, SPB); other pcapng blocks are skipped.
// Packet data aliases b.
func ReadCapture(b []byte) ([]Packet, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("capture: %w", io.ErrUnexpectedEOF)
	}
	if binary.BigEndian.Uint32(b) == 0x0a0d0d0a {
		return readPcapng(b)
	}
	return readPcap(b)
}

func readPcap(b []byte) ([]Packet, error) {
	if len(b) < 24 {
		return nil, fmt.Errorf("pcap header: %w", io.ErrUnexpectedEOF)
	}
	var bo binary.ByteOrder
	switch binary.LittleEndian.Uint32(b) {
	case 0xa1b2c3d4, 0xa1b23c4d:
		bo = binary.LittleEndian
	case 0xd4c3b2a1, 0x4d3cb2a1:
		bo = binary.BigEndian
	default:
		return nil, errors.New("capture: not a pcap or pcapng file")
	}
	link := uint16(bo.Uint32(b[20:]))
	var out []Packet
	for off := 24; off < len(b); {
		if len(b)-off < 16 {
			return out, fmt.Errorf("pcap record at offset %d: %w", off, io.ErrUnexpectedEOF)
		}
		n := int(bo.Uint32(b[off+8:]))
		if n > len(b)-off-16 {
			return out, fmt.Errorf("pcap record at offset %d: %w", off, io.ErrUnexpectedEOF)
		}
		out = append(out, Packet{LinkType: link, Data: b[off+16 : off+16+n]})
		off += 16 + n
	}
	return out, nil
}

func readPcapng(b []byte) ([]Packet, error) {
	var bo binary.ByteOrder = binary.LittleEndian
	var ifaces []uint16
	var out []Packet
	for off := 0; off < len(b); {
		if len(b)-off < 12 {
			return out, fmt.Errorf("pcapng block at offset %d: %w", off, io.ErrUnexpectedEOF)
		}
		typ := bo.Uint32(b[off:])
		if binary.BigEndian.Uint32(b[off:]) == 0x0a0d0d0a {
			typ = 0x0a0d0d0a
			switch binary.LittleEndian.Uint32(b[off+8:]) {
			case 0x1a2b3c4d:
				bo = binary.LittleEndian
			case 0x4d3c2b1a:
				bo = binary.BigEndian
			default:
				return out, fmt.Errorf("pcapng section at offset %d: bad byte-order magic", off)
			}
			ifaces = ifaces[:0]
		}
		n := int(bo.Uint32(b[off+4:]))
		if n < 12 || n%4 != 0 || n > len(b)-off {
			return out, fmt.Errorf("pcapng block at offset %d: bad length %d", off, n)
		}
		body := b[off+8 : off+n-4]
		switch typ {
		case 1: // Interface Description Block
			if len(body) < 8 {
				return out, fmt.Errorf("pcapng IDB at offset %d: short", off)
			}
			ifaces = append(ifaces, bo.Uint16(body))
		case 6: // Enhanced Packet Block
			if len(body) < 20 {
				return out, fmt.Errorf("pcapng EPB at offset %d: short", off)
			}
			id := int(bo.Uint32(body))
			capLen := int(bo.Uint32(body[12:]))
			if id >= len(ifaces) || capLen > len(body)-20 {
				return out, fmt.Errorf("pcapng EPB at offset %d: bad interface or length", off)
			}
			out = append(out, Packet{LinkType: ifaces[id], Data: body[20 : 20+capLen]})
		case 3: // Simple Packet Block
			if len(body) < 4 || len(ifaces) == 0 {
				return out, fmt.Errorf("pcapng SPB at offset %d: short", off)
			}
			capLen := min(int(bo.Uint32(body)), len(body)-4)
			out = append(out, Packet{LinkType: ifaces[0], Data: body[4 : 4+capLen]})
		}
		off += n
	}
	return out, nil
}

// WritePcap returns a little-endian microsecond pcap file holding frames,
// one per record, all of link type link, timestamps one second apart.
func WritePcap(link uint16, frames [][]byte) []byte {
	le := binary.LittleEndian
	out := le.AppendUint32(nil, 0xa1b2c3d4)
	out = le.AppendUint16(out, 2)
	out = le.AppendUint16(out, 4)
	out = le.AppendUint32(out, 0)
	out = le.AppendUint32(out, 0)
	out = le.AppendUint32(out, 262144)
	out = le.AppendUint32(out, uint32(link))
	for i, f := range frames {
		out = le.AppendUint32(out, uint32(1_700_000_000+i))
		out = le.AppendUint32(out, 0)
		out = le.AppendUint32(out, uint32(len(f)))
		out = le.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

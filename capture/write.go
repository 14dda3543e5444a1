package capture

import (
	"errors"
	"io"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

// Writer writes packets to a pcap or pcapng stream.
type Writer struct {
	pcap *pcapgo.Writer
	ng   *pcapgo.NgWriter
}

// NewPcapWriter writes to w the header of a little-endian pcap file with
// iface's link type and snap length, in nanoseconds if iface.Nanos, else
// in microseconds. iface.Name is not written.
func NewPcapWriter(w io.Writer, iface Interface) (*Writer, error) {
	pw := pcapgo.NewWriter(w)
	if iface.Nanos {
		pw = pcapgo.NewWriterNanos(w)
	}
	if err := pw.WriteFileHeader(iface.SnapLen, iface.LinkType); err != nil {
		return nil, err
	}
	return &Writer{pcap: pw}, nil
}

// NewPcapngWriter writes to w a pcapng section header naming application
// and an interface description block for each of ifaces (at least one),
// which packets name by index. Timestamps are in nanoseconds whatever
// Nanos says (pcapgo writes no other resolution). The stream is buffered
// until Flush.
func NewPcapngWriter(w io.Writer, application string, ifaces ...Interface) (*Writer, error) {
	if len(ifaces) == 0 {
		return nil, errors.New("capture: pcapng writer with no interface")
	}
	ng, err := pcapgo.NewNgWriterInterface(w, ngInterface(ifaces[0]),
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: application}})
	if err != nil {
		return nil, err
	}
	for _, ifc := range ifaces[1:] {
		if _, err := ng.AddInterface(ngInterface(ifc)); err != nil {
			return nil, err
		}
	}
	return &Writer{ng: ng}, nil
}

// ngInterface describes ifc to pcapgo, which writes every pcapng interface
// with nanosecond timestamps whatever ifc.Nanos says.
func ngInterface(ifc Interface) pcapgo.NgInterface {
	return pcapgo.NgInterface{Name: ifc.Name, LinkType: ifc.LinkType, SnapLength: ifc.SnapLen}
}

// WritePacket writes p: its Data, Timestamp, Length and, in pcapng, Iface.
func (w *Writer) WritePacket(p Packet) error {
	n := p.Length
	if n == 0 {
		n = len(p.Data)
	}
	ci := gopacket.CaptureInfo{Timestamp: p.Timestamp, CaptureLength: len(p.Data), Length: n, InterfaceIndex: p.Iface}
	if w.ng != nil {
		return w.ng.WritePacket(ci, p.Data)
	}
	return w.pcap.WritePacket(ci, p.Data)
}

// Flush writes out what a pcapng Writer buffers; a pcap Writer buffers
// nothing.
func (w *Writer) Flush() error {
	if w.ng != nil {
		return w.ng.Flush()
	}
	return nil
}

package dataplane

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// PcapWriter records the frames a switch outputs as a pcapng stream with
// one Ethernet interface per port, named "port<N>". Its ports are safe to
// use from several workers at once (they share one mutex, so it is meant
// for inspecting a replay, not for measuring one).
type PcapWriter struct {
	// mu guards the fields below.
	mu     sync.Mutex
	w      *pcapgo.NgWriter
	iface  map[uint32]int
	frames int
	err    error
	now    func() time.Time
}

// NewPcapWriter writes a pcapng section with one interface per port to w.
// now stamps the frames; nil means time.Now.
func NewPcapWriter(w io.Writer, ports []uint32, now func() time.Time) (*PcapWriter, error) {
	if len(ports) == 0 {
		return nil, fmt.Errorf("dataplane: pcap writer with no ports")
	}
	if now == nil {
		now = time.Now
	}
	ng, err := pcapgo.NewNgWriterInterface(w, pcapgo.NgInterface{Name: fmt.Sprintf("port%d", ports[0]), LinkType: layers.LinkTypeEthernet},
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "ofswitch replay"}})
	if err != nil {
		return nil, err
	}
	p := &PcapWriter{w: ng, iface: map[uint32]int{ports[0]: 0}, now: now}
	for _, pn := range ports[1:] {
		if _, dup := p.iface[pn]; dup {
			continue
		}
		id, err := ng.AddInterface(pcapgo.NgInterface{Name: fmt.Sprintf("port%d", pn), LinkType: layers.LinkTypeEthernet})
		if err != nil {
			return nil, err
		}
		p.iface[pn] = id
	}
	return p, nil
}

// Devices returns a Port per port, for Config.Devices.
func (p *PcapWriter) Devices() map[uint32]Port {
	m := make(map[uint32]Port, len(p.iface))
	for pn, id := range p.iface {
		m[pn] = &pcapPort{p: p, iface: id}
	}
	return m
}

// Frames returns the number of frames written so far.
func (p *PcapWriter) Frames() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frames
}

// Flush writes out what is buffered and returns the first write error.
func (p *PcapWriter) Flush() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.w.Flush(); err != nil && p.err == nil {
		p.err = err
	}
	return p.err
}

type pcapPort struct {
	p     *PcapWriter
	iface int
}

// Transmit appends frame to the stream on the port's interface. A write
// error is kept for Flush.
func (pp *pcapPort) Transmit(frame []byte) {
	p := pp.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	ci := gopacket.CaptureInfo{Timestamp: p.now(), CaptureLength: len(frame), Length: len(frame), InterfaceIndex: pp.iface}
	if err := p.w.WritePacket(ci, frame); err != nil {
		p.err = err
		return
	}
	p.frames++
}

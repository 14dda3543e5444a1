package dataplane

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/capture"
)

// PcapWriter records the frames a switch outputs as a pcapng stream with
// one Ethernet interface per port, named "port<N>". Its ports are safe to
// use from several workers at once (they share one mutex, so it is meant
// for inspecting a replay, not for measuring one).
type PcapWriter struct {
	// mu guards the fields below.
	mu     sync.Mutex
	w      *capture.Writer
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
	p := &PcapWriter{iface: map[uint32]int{}, now: now}
	var ifaces []capture.Interface
	for _, pn := range ports {
		if _, dup := p.iface[pn]; dup {
			continue
		}
		p.iface[pn] = len(ifaces)
		ifaces = append(ifaces, capture.Interface{Name: fmt.Sprintf("port%d", pn), LinkType: layers.LinkTypeEthernet})
	}
	cw, err := capture.NewPcapngWriter(w, "ofswitch replay", ifaces...)
	if err != nil {
		return nil, err
	}
	p.w = cw
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
	if err := p.w.WritePacket(capture.Packet{Data: frame, Timestamp: p.now(), Length: len(frame), Iface: pp.iface}); err != nil {
		p.err = err
		return
	}
	p.frames++
}

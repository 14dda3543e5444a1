package openflow

import "encoding/binary"

// PortStats is ofp_port_stats (OpenFlow 1.3.5 §7.3.5.6).
type PortStats struct {
	PortNo       uint32
	RxPackets    uint64
	TxPackets    uint64
	RxBytes      uint64
	TxBytes      uint64
	RxDropped    uint64
	TxDropped    uint64
	RxErrors     uint64
	TxErrors     uint64
	RxFrameErr   uint64
	RxOverErr    uint64
	RxCRCErr     uint64
	Collisions   uint64
	DurationSec  uint32
	DurationNsec uint32
}

// appendTo appends s in OpenFlow 1.3's layout.
func (s *PortStats) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint32(dst, s.PortNo)
	dst = append(dst, 0, 0, 0, 0)
	for _, c := range [...]uint64{s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes, s.RxDropped, s.TxDropped,
		s.RxErrors, s.TxErrors, s.RxFrameErr, s.RxOverErr, s.RxCRCErr, s.Collisions} {
		dst = be.AppendUint64(dst, c)
	}
	dst = be.AppendUint32(dst, s.DurationSec)
	return be.AppendUint32(dst, s.DurationNsec)
}

// OpenFlow 1.4 port statistics sizes (OpenFlow 1.4.1 §7.3.5.7): the
// counters of 1.3's ofp_port_stats but the Ethernet ones, which move into
// an OFPPSPT_ETHERNET property.
const (
	portStats14Len     = 80 // ofp_port_stats without properties
	portStats14EthLen  = 40 // ofp_port_stats_prop_ethernet
	portStats14EthType = 0  // OFPPSPT_ETHERNET
)

// appendTo14 appends s in OpenFlow 1.4's layout, with its Ethernet
// counters in an OFPPSPT_ETHERNET property.
func (s *PortStats) appendTo14(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint16(dst, portStats14Len+portStats14EthLen)
	dst = append(dst, 0, 0)
	dst = be.AppendUint32(dst, s.PortNo)
	dst = be.AppendUint32(dst, s.DurationSec)
	dst = be.AppendUint32(dst, s.DurationNsec)
	for _, c := range [...]uint64{s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes, s.RxDropped, s.TxDropped, s.RxErrors, s.TxErrors} {
		dst = be.AppendUint64(dst, c)
	}
	dst = be.AppendUint16(dst, portStats14EthType)
	dst = be.AppendUint16(dst, portStats14EthLen)
	dst = append(dst, 0, 0, 0, 0)
	for _, c := range [...]uint64{s.RxFrameErr, s.RxOverErr, s.RxCRCErr, s.Collisions} {
		dst = be.AppendUint64(dst, c)
	}
	return dst
}

// decode14 decodes an OpenFlow 1.4 ofp_port_stats that fills b: its
// properties may be one OFPPSPT_ETHERNET and no other (ErrBadProperty).
func (s *PortStats) decode14(b []byte) error {
	be := binary.BigEndian
	*s = PortStats{PortNo: be.Uint32(b[4:]), DurationSec: be.Uint32(b[8:]), DurationNsec: be.Uint32(b[12:])}
	c := func(k int) uint64 { return be.Uint64(b[16+8*k:]) }
	s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes = c(0), c(1), c(2), c(3)
	s.RxDropped, s.TxDropped, s.RxErrors, s.TxErrors = c(4), c(5), c(6), c(7)
	switch prop := b[portStats14Len:]; {
	case len(prop) == 0:
	case len(prop) == portStats14EthLen && be.Uint16(prop) == portStats14EthType && be.Uint16(prop[2:]) == portStats14EthLen:
		e := func(k int) uint64 { return be.Uint64(prop[8+8*k:]) }
		s.RxFrameErr, s.RxOverErr, s.RxCRCErr, s.Collisions = e(0), e(1), e(2), e(3)
	default:
		return &DecodeError{Field: "properties[0]", Offset: portStats14Len, Err: ErrBadProperty}
	}
	return nil
}

// decodePorts decodes the body of an OFPMP_PORT_STATS reply, reusing
// m.Ports.
func (m *MultipartReply) decodePorts(body []byte) error {
	be := binary.BigEndian
	if m.Version >= Version14 {
		return eachEntry14(body, 0, portStats14Len, "ports", func(e []byte) error {
			var ps PortStats
			err := ps.decode14(e)
			m.Ports = append(m.Ports, ps)
			return err
		})
	}
	n, err := replyEntries(body, 112)
	if err != nil {
		return err
	}
	m.Ports = m.Ports[:0]
	for i := 0; i < n; i++ {
		e := body[112*i:]
		c := func(k int) uint64 { return be.Uint64(e[8+8*k:]) }
		m.Ports = append(m.Ports, PortStats{PortNo: be.Uint32(e), RxPackets: c(0), TxPackets: c(1), RxBytes: c(2),
			TxBytes: c(3), RxDropped: c(4), TxDropped: c(5), RxErrors: c(6), TxErrors: c(7), RxFrameErr: c(8),
			RxOverErr: c(9), RxCRCErr: c(10), Collisions: c(11), DurationSec: be.Uint32(e[104:]), DurationNsec: be.Uint32(e[108:])})
	}
	return nil
}

package openflow

import "encoding/binary"

// TableStats is ofp_table_stats (OpenFlow 1.3.5 §7.3.5.4).
type TableStats struct {
	TableID      uint8
	ActiveCount  uint32
	LookupCount  uint64
	MatchedCount uint64
}

// appendTo appends s as an entry of an OFPMP_TABLE reply.
func (s *TableStats) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = append(dst, s.TableID, 0, 0, 0)
	dst = be.AppendUint32(dst, s.ActiveCount)
	dst = be.AppendUint64(dst, s.LookupCount)
	return be.AppendUint64(dst, s.MatchedCount)
}

// decodeTables decodes the body of an OFPMP_TABLE reply, reusing m.Tables.
func (m *MultipartReply) decodeTables(body []byte) error {
	be := binary.BigEndian
	n, err := replyEntries(body, 24)
	if err != nil {
		return err
	}
	m.Tables = m.Tables[:0]
	for i := 0; i < n; i++ {
		e := body[24*i:]
		m.Tables = append(m.Tables, TableStats{e[0], be.Uint32(e[4:]), be.Uint64(e[8:]), be.Uint64(e[16:])})
	}
	return nil
}

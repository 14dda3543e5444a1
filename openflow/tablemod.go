package openflow

import (
	"encoding/binary"
	"fmt"
)

// TableMod is an OFPT_TABLE_MOD message (OpenFlow 1.3.5 §7.3.3; 1.4.1
// §7.3.3 adds eviction and vacancy events, as config bits and properties).
type TableMod struct {
	Header
	TableID uint8
	Config  uint32 // OFPTC_* bits: 1.3 defines none (its two are deprecated); 1.4 TableConfigEviction and TableConfigVacancyEvents
	// Properties is the raw property list of an OpenFlow 1.4 TABLE_MOD
	// (ofp_table_mod_prop_*: type, length, body, padding to 8 bytes),
	// checked for framing only; empty in 1.3.
	Properties []byte
}

// Table config bits (OpenFlow 1.4.1 §7.3.3, enum ofp_table_config).
const (
	TableConfigDeprecatedMask uint32 = 3      // OFPTC_DEPRECATED_MASK: OpenFlow 1.1's table-miss bits
	TableConfigEviction       uint32 = 1 << 2 // OFPTC_EVICTION (1.4)
	TableConfigVacancyEvents  uint32 = 1 << 3 // OFPTC_VACANCY_EVENTS (1.4)
)

// AppendBinary appends the wire form of m to dst; Properties only from
// OpenFlow 1.4 on.
func (m *TableMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeTableMod)
	dst = append(dst, m.TableID, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, m.Config)
	if m.Version >= Version14 {
		dst = append(dst, m.Properties...)
	}
	return finish(dst, start, TypeTableMod)
}

// MarshalBinary returns the wire form of m.
func (m *TableMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one TABLE_MOD: 16 bytes in OpenFlow 1.3, and
// from 1.4 on properties after them, each at least 4 bytes long and padded
// to 8 (ErrBadLength otherwise). m.Properties aliases b.
func (m *TableMod) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeTableMod, 16); err != nil {
		return err
	}
	if m.Version < Version14 && len(b) != 16 {
		return &DecodeError{Type: TypeTableMod, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	m.TableID = b[8]
	m.Config = binary.BigEndian.Uint32(b[12:])
	m.Properties = nil
	if len(b) > 16 {
		m.Properties = b[16:]
	}
	if field, off := eachProp(b, 16, func(uint16, []byte) bool { return true }); field != "" {
		return &DecodeError{Type: TypeTableMod, Field: field, Offset: off, Err: ErrBadLength}
	}
	return nil
}

// TableDesc is ofp_table_desc, an entry of the OFPMP_TABLE_DESC reply
// (OpenFlow 1.4.1 §7.3.5.5.3): a table's configuration (OFPTC_EVICTION,
// OFPTC_VACANCY_EVENTS) and its properties, kept as they are on the wire.
type TableDesc struct {
	TableID    uint8
	Config     uint32
	Properties []byte // whole ofp_table_mod_prop TLVs
}

// tableDescLen is the size of ofp_table_desc without properties.
const tableDescLen = 8

// appendTo appends d as entry i of an OFPMP_TABLE_DESC reply.
func (d *TableDesc) appendTo(dst []byte, i int) ([]byte, error) {
	be := binary.BigEndian
	n := tableDescLen + len(d.Properties)
	if n > 0xffff || n%8 != 0 {
		return dst, &EncodeError{Field: fmt.Sprintf("table_descs[%d].properties", i), Err: ErrBadLength}
	}
	dst = be.AppendUint16(dst, uint16(n))
	dst = append(dst, d.TableID, 0)
	dst = be.AppendUint32(dst, d.Config)
	return append(dst, d.Properties...), nil
}

// decodeTableDescs decodes the body of an OFPMP_TABLE_DESC reply.
func (m *MultipartReply) decodeTableDescs(body []byte) error {
	be := binary.BigEndian
	return eachEntry14(body, 0, tableDescLen, "table_descs", func(e []byte) error {
		m.TableDescs = append(m.TableDescs, TableDesc{TableID: e[2], Config: be.Uint32(e[4:]), Properties: cloneOrNil(e[tableDescLen:])})
		return nil
	})
}

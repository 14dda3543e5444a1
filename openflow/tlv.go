package openflow

import "encoding/binary"

// Nicira experimenter message types of the TLV table (Open vSwitch's
// NXT_TLV_TABLE_*; include/openflow/nicira-ext.h). They travel as
// OFPT_EXPERIMENTER messages with experimenter NXExperimenter at every
// version from OpenFlow 1.0 on.
const (
	NXTypeTLVTableMod     uint32 = 24 // NXT_TLV_TABLE_MOD
	NXTypeTLVTableRequest uint32 = 25 // NXT_TLV_TABLE_REQUEST
	NXTypeTLVTableReply   uint32 = 26 // NXT_TLV_TABLE_REPLY
)

// TLV table mod commands (enum nx_tlv_table_mod_command).
const (
	TLVAdd    uint16 = 0 // NXTTMC_ADD: new mappings; fails if an index or option is mapped
	TLVDelete uint16 = 1 // NXTTMC_DELETE: delete mappings by index; unmapped ones are ignored
	TLVClear  uint16 = 2 // NXTTMC_CLEAR: delete every mapping; the list is ignored
)

// TLVMaxOptLen is the largest option length a mapping may give
// (Open vSwitch's TLV_MAX_OPT_SIZE): a Geneve option's body is at most 31
// words of 4 bytes.
const TLVMaxOptLen = 124

// TLVMaxFields is the number of tunnel metadata fields, tun_metadata0 to
// tun_metadata63 (Open vSwitch's TUN_METADATA_NUM_OPTS).
const TLVMaxFields = 64

// Open vSwitch's errors about the TLV table (OFPET_TLV_TABLE_MOD_FAILED
// and one flow mod code, all Nicira experimenter errors at OpenFlow 1.2
// and later; include/openvswitch/ofp-errors.h).
var (
	// ErrTLVBadCommand is NXTTMFC_BAD_COMMAND (16): the command is not
	// ADD, DELETE or CLEAR.
	ErrTLVBadCommand = ErrorMsg{Type: ErrTypeExperimenter, Code: 16, Experimenter: NXExperimenter}
	// ErrTLVBadOptLen is NXTTMFC_BAD_OPT_LEN (17): an option length is
	// not a multiple of 4 or is over TLVMaxOptLen.
	ErrTLVBadOptLen = ErrorMsg{Type: ErrTypeExperimenter, Code: 17, Experimenter: NXExperimenter}
	// ErrTLVBadFieldIdx is NXTTMFC_BAD_FIELD_IDX (18): an index is not
	// below TLVMaxFields.
	ErrTLVBadFieldIdx = ErrorMsg{Type: ErrTypeExperimenter, Code: 18, Experimenter: NXExperimenter}
	// ErrTLVTableFull is NXTTMFC_TABLE_FULL (19): the mapped options do
	// not fit in the switch's option space.
	ErrTLVTableFull = ErrorMsg{Type: ErrTypeExperimenter, Code: 19, Experimenter: NXExperimenter}
	// ErrTLVAlreadyMapped is NXTTMFC_ALREADY_MAPPED (20): an ADD names
	// an index that is mapped.
	ErrTLVAlreadyMapped = ErrorMsg{Type: ErrTypeExperimenter, Code: 20, Experimenter: NXExperimenter}
	// ErrTLVDupEntry is NXTTMFC_DUP_ENTRY (21): an ADD maps an option
	// (class and type) that another index maps.
	ErrTLVDupEntry = ErrorMsg{Type: ErrTypeExperimenter, Code: 21, Experimenter: NXExperimenter}
	// ErrTLVInvalidDel is NXTTMFC_INVALID_TLV_DEL (38): a DELETE or
	// CLEAR would remove a mapping that a flow uses.
	ErrTLVInvalidDel = ErrorMsg{Type: ErrTypeExperimenter, Code: 38, Experimenter: NXExperimenter}
	// ErrInvalidTLVField is NXFMFC_INVALID_TLV_FIELD (37): a flow names
	// a tun_metadataN field that the TLV table does not map.
	ErrInvalidTLVField = ErrorMsg{Type: ErrTypeExperimenter, Code: 37, Experimenter: NXExperimenter}
)

// TLVMap is struct nx_tlv_map: it maps the tunnel option of class
// OptionClass and type OptionType, OptionLen bytes long, to the field
// tun_metadata<Index>. The codec keeps any values; Check says whether a
// switch takes them.
type TLVMap struct {
	OptionClass uint16
	OptionType  uint8
	OptionLen   uint8
	Index       uint16
}

const tlvMapLen = 8

// Check returns the error Open vSwitch answers for m in a TLV table mod
// or reply (its decode_tlv_table_mappings): ErrTLVBadOptLen, then
// ErrTLVBadFieldIdx; nil if m is valid.
func (m TLVMap) Check() error {
	if m.OptionLen%4 != 0 || m.OptionLen > TLVMaxOptLen {
		return ErrTLVBadOptLen
	}
	if m.Index >= TLVMaxFields {
		return ErrTLVBadFieldIdx
	}
	return nil
}

func appendTLVMaps(dst []byte, maps []TLVMap) []byte {
	for _, m := range maps {
		dst = binary.BigEndian.AppendUint16(dst, m.OptionClass)
		dst = append(dst, m.OptionType, m.OptionLen)
		dst = binary.BigEndian.AppendUint16(dst, m.Index)
		dst = append(dst, 0, 0)
	}
	return dst
}

// decodeTLVMaps decodes the nx_tlv_map array b (a whole number of maps,
// checked by the caller) into maps[:0]. Pad bytes are not checked (Open
// vSwitch does not check them).
func decodeTLVMaps(maps []TLVMap, b []byte) []TLVMap {
	maps = maps[:0]
	for ; len(b) >= tlvMapLen; b = b[tlvMapLen:] {
		maps = append(maps, TLVMap{
			OptionClass: binary.BigEndian.Uint16(b),
			OptionType:  b[2],
			OptionLen:   b[3],
			Index:       binary.BigEndian.Uint16(b[4:]),
		})
	}
	return maps
}

// appendNXHeader appends the header of a Nicira experimenter message of
// type typ with h's version and xid.
func appendNXHeader(dst []byte, h *Header, typ uint32) []byte {
	dst = appendHeader(dst, h, TypeExperimenter)
	dst = binary.BigEndian.AppendUint32(dst, NXExperimenter)
	return binary.BigEndian.AppendUint32(dst, typ)
}

// decodeNXMessage decodes the header of the Nicira experimenter message
// b of type typ, whose body after the experimenter header is fixed bytes
// and then a whole number of nx_tlv_maps (mapped false: exactly fixed
// bytes).
func decodeNXMessage(h *Header, b []byte, typ uint32, fixed int, mapped bool) error {
	const t = TypeExperimenter
	if err := decodeHeader(h, b, t, onfHeaderLen+fixed); err != nil {
		return err
	}
	if binary.BigEndian.Uint32(b[8:]) != NXExperimenter {
		return &DecodeError{Type: t, Field: "experimenter", Offset: 8, Err: ErrBadExperimenter}
	}
	if binary.BigEndian.Uint32(b[12:]) != typ {
		return &DecodeError{Type: t, Field: "subtype", Offset: 12, Err: ErrBadExperimenter}
	}
	rest := len(b) - onfHeaderLen - fixed
	if (!mapped && rest != 0) || rest%tlvMapLen != 0 {
		return &DecodeError{Type: t, Field: "body", Offset: onfHeaderLen + fixed, Err: ErrBadLength}
	}
	return nil
}

// TLVTableMod is Open vSwitch's NXT_TLV_TABLE_MOD (struct
// nx_tlv_table_mod and its nx_tlv_map array): it adds or deletes mappings
// of tunnel options to the fields tun_metadata0-63, or clears them all.
// A switch applies the whole message or none of it.
//
// The zero TLVTableMod is an ADD of no mapping.
type TLVTableMod struct {
	Header
	Command uint16 // TLVAdd, TLVDelete, TLVClear
	Maps    []TLVMap
}

// AppendBinary appends the wire form of m to dst.
func (m *TLVTableMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendNXHeader(dst, &m.Header, NXTypeTLVTableMod)
	dst = binary.BigEndian.AppendUint16(dst, m.Command)
	dst = append(dst, 0, 0, 0, 0, 0, 0)
	return finish(appendTLVMaps(dst, m.Maps), start, TypeExperimenter)
}

// MarshalBinary returns the wire form of m.
func (m *TLVTableMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an NXT_TLV_TABLE_MOD. Any command and map
// values decode; Check says whether a switch takes them.
func (m *TLVTableMod) UnmarshalBinary(b []byte) error {
	if err := decodeNXMessage(&m.Header, b, NXTypeTLVTableMod, 8, true); err != nil {
		return err
	}
	m.Command = binary.BigEndian.Uint16(b[16:])
	m.Maps = decodeTLVMaps(m.Maps, b[24:])
	return nil
}

// Check returns the error Open vSwitch answers for m before it looks at
// its table (ofputil_decode_tlv_table_mod): ErrTLVBadCommand, or the
// first map's TLVMap.Check error; nil if m is valid. The maps of a CLEAR
// are checked too, as Open vSwitch does.
func (m *TLVTableMod) Check() error {
	if m.Command > TLVClear {
		return ErrTLVBadCommand
	}
	for _, mp := range m.Maps {
		if err := mp.Check(); err != nil {
			return err
		}
	}
	return nil
}

// TLVTableRequest is Open vSwitch's NXT_TLV_TABLE_REQUEST: it asks for
// the TLV table. It has no body.
type TLVTableRequest struct {
	Header
}

// AppendBinary appends the wire form of m to dst.
func (m *TLVTableRequest) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	return finish(appendNXHeader(dst, &m.Header, NXTypeTLVTableRequest), start, TypeExperimenter)
}

// MarshalBinary returns the wire form of m.
func (m *TLVTableRequest) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an NXT_TLV_TABLE_REQUEST.
func (m *TLVTableRequest) UnmarshalBinary(b []byte) error {
	return decodeNXMessage(&m.Header, b, NXTypeTLVTableRequest, 0, false)
}

// TLVTableReply is Open vSwitch's NXT_TLV_TABLE_REPLY (struct
// nx_tlv_table_reply and its nx_tlv_map array): the switch's limits and
// its mappings, in index order.
type TLVTableReply struct {
	Header
	MaxOptionSpace uint32 // bytes of option space all mappings share
	MaxFields      uint16 // number of fields (64)
	Maps           []TLVMap
}

// AppendBinary appends the wire form of m to dst.
func (m *TLVTableReply) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendNXHeader(dst, &m.Header, NXTypeTLVTableReply)
	dst = binary.BigEndian.AppendUint32(dst, m.MaxOptionSpace)
	dst = binary.BigEndian.AppendUint16(dst, m.MaxFields)
	dst = append(dst, make([]byte, 10)...)
	return finish(appendTLVMaps(dst, m.Maps), start, TypeExperimenter)
}

// MarshalBinary returns the wire form of m.
func (m *TLVTableReply) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an NXT_TLV_TABLE_REPLY.
func (m *TLVTableReply) UnmarshalBinary(b []byte) error {
	if err := decodeNXMessage(&m.Header, b, NXTypeTLVTableReply, 16, true); err != nil {
		return err
	}
	m.MaxOptionSpace = binary.BigEndian.Uint32(b[16:])
	m.MaxFields = binary.BigEndian.Uint16(b[20:])
	m.Maps = decodeTLVMaps(m.Maps, b[32:])
	return nil
}

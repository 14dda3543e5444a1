package openflow

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/ofswitch/ofswitch/internal/wire"
)

// Table feature property types (OpenFlow 1.3.5 §7.3.5.5.2, enum
// ofp_table_feature_prop_type).
type TableFeaturePropType uint16

// Table feature property types.
const (
	TFPInstructions      TableFeaturePropType = 0      // OFPTFPT_INSTRUCTIONS
	TFPInstructionsMiss  TableFeaturePropType = 1      // OFPTFPT_INSTRUCTIONS_MISS
	TFPNextTables        TableFeaturePropType = 2      // OFPTFPT_NEXT_TABLES
	TFPNextTablesMiss    TableFeaturePropType = 3      // OFPTFPT_NEXT_TABLES_MISS
	TFPWriteActions      TableFeaturePropType = 4      // OFPTFPT_WRITE_ACTIONS
	TFPWriteActionsMiss  TableFeaturePropType = 5      // OFPTFPT_WRITE_ACTIONS_MISS
	TFPApplyActions      TableFeaturePropType = 6      // OFPTFPT_APPLY_ACTIONS
	TFPApplyActionsMiss  TableFeaturePropType = 7      // OFPTFPT_APPLY_ACTIONS_MISS
	TFPMatch             TableFeaturePropType = 8      // OFPTFPT_MATCH
	TFPWildcards         TableFeaturePropType = 10     // OFPTFPT_WILDCARDS
	TFPWriteSetField     TableFeaturePropType = 12     // OFPTFPT_WRITE_SETFIELD
	TFPWriteSetFieldMiss TableFeaturePropType = 13     // OFPTFPT_WRITE_SETFIELD_MISS
	TFPApplySetField     TableFeaturePropType = 14     // OFPTFPT_APPLY_SETFIELD
	TFPApplySetFieldMiss TableFeaturePropType = 15     // OFPTFPT_APPLY_SETFIELD_MISS
	TFPExperimenter      TableFeaturePropType = 0xfffe // OFPTFPT_EXPERIMENTER
	TFPExperimenterMiss  TableFeaturePropType = 0xffff // OFPTFPT_EXPERIMENTER_MISS
)

// String returns the spec name.
func (t TableFeaturePropType) String() string {
	switch t {
	case TFPExperimenter:
		return "OFPTFPT_EXPERIMENTER"
	case TFPExperimenterMiss:
		return "OFPTFPT_EXPERIMENTER_MISS"
	}
	return enumName([]string{"OFPTFPT_INSTRUCTIONS", "OFPTFPT_INSTRUCTIONS_MISS", "OFPTFPT_NEXT_TABLES",
		"OFPTFPT_NEXT_TABLES_MISS", "OFPTFPT_WRITE_ACTIONS", "OFPTFPT_WRITE_ACTIONS_MISS",
		"OFPTFPT_APPLY_ACTIONS", "OFPTFPT_APPLY_ACTIONS_MISS", "OFPTFPT_MATCH", "", "OFPTFPT_WILDCARDS", "",
		"OFPTFPT_WRITE_SETFIELD", "OFPTFPT_WRITE_SETFIELD_MISS", "OFPTFPT_APPLY_SETFIELD",
		"OFPTFPT_APPLY_SETFIELD_MISS"}, int(t), "OFPTFPT_"+strconv.Itoa(int(t)))
}

// FeatureID is an instruction or action id in a table feature property:
// the type, and for experimenter ids the bytes after the 4-byte header
// (experimenter id and any subtype).
type FeatureID struct {
	Type uint16
	Data []byte
}

// TableFeatureProp is one table feature property (OpenFlow 1.3.5
// §7.3.5.5.2), a tagged struct: IDs for the instruction and action
// properties, TableIDs for NEXT_TABLES, OXMIDs for MATCH, WILDCARDS and the
// SETFIELD properties (experimenter OXM ids carry the experimenter id in
// the low 32 bits of a 64-bit entry, with Header<<32), and Experimenter,
// ExpType, Data for the experimenter properties.
type TableFeatureProp struct {
	Type         TableFeaturePropType
	IDs          []FeatureID
	TableIDs     []uint8
	OXMIDs       []uint64
	Experimenter uint32
	ExpType      uint32
	Data         []byte
}

// OXMID builds an OXMIDs entry for a 32-bit OXM header.
func OXMID(header uint32) uint64 { return uint64(header) << 32 }

// TableFeatures is ofp_table_features (OpenFlow 1.3.5 §7.3.5.5.1).
type TableFeatures struct {
	TableID       uint8
	Name          [32]byte // NUL-padded
	MetadataMatch uint64
	MetadataWrite uint64
	Config        uint32
	MaxEntries    uint32
	Properties    []TableFeatureProp
}

func propKind(t TableFeaturePropType) int {
	switch t {
	case TFPInstructions, TFPInstructionsMiss, TFPWriteActions, TFPWriteActionsMiss, TFPApplyActions, TFPApplyActionsMiss:
		return 1
	case TFPNextTables, TFPNextTablesMiss:
		return 2
	case TFPMatch, TFPWildcards, TFPWriteSetField, TFPWriteSetFieldMiss, TFPApplySetField, TFPApplySetFieldMiss:
		return 3
	case TFPExperimenter, TFPExperimenterMiss:
		return 4
	}
	return 0
}

func appendTableFeatures(dst []byte, tfs []TableFeatures) ([]byte, error) {
	be := binary.BigEndian
	for i := range tfs {
		tf := &tfs[i]
		ts := len(dst)
		dst = append(dst, 0, 0, tf.TableID, 0, 0, 0, 0, 0)
		dst = append(dst, tf.Name[:]...)
		dst = be.AppendUint64(dst, tf.MetadataMatch)
		dst = be.AppendUint64(dst, tf.MetadataWrite)
		dst = be.AppendUint32(dst, tf.Config)
		dst = be.AppendUint32(dst, tf.MaxEntries)
		for j := range tf.Properties {
			p := &tf.Properties[j]
			ps := len(dst)
			dst = be.AppendUint16(dst, uint16(p.Type))
			dst = append(dst, 0, 0)
			switch propKind(p.Type) {
			case 1:
				for _, id := range p.IDs {
					dst = be.AppendUint16(dst, id.Type)
					dst = be.AppendUint16(dst, uint16(4+len(id.Data)))
					dst = append(dst, id.Data...)
				}
			case 2:
				dst = append(dst, p.TableIDs...)
			case 3:
				for _, id := range p.OXMIDs {
					dst = be.AppendUint32(dst, uint32(id>>32))
					if uint16(id>>48) == uint16(OXMClassExperimenter) {
						dst = be.AppendUint32(dst, uint32(id))
					}
				}
			case 4:
				dst = be.AppendUint32(dst, p.Experimenter)
				dst = be.AppendUint32(dst, p.ExpType)
				dst = append(dst, p.Data...)
			default:
				dst = append(dst, p.Data...)
			}
			if len(dst)-ps > 0xffff {
				return dst, &EncodeError{Field: "table_features.properties.length", Err: ErrTooLong}
			}
			be.PutUint16(dst[ps+2:], uint16(len(dst)-ps))
			dst = wire.PadTo8(dst, ps)
		}
		if len(dst)-ts > 0xffff {
			return dst, &EncodeError{Field: "table_features.length", Err: ErrTooLong}
		}
		be.PutUint16(dst[ts:], uint16(len(dst)-ts))
	}
	return dst, nil
}

func decodeTableFeatures(tfs *[]TableFeatures, b []byte, base int) error {
	be := binary.BigEndian
	*tfs = (*tfs)[:0]
	bad := func(field string, off int) error {
		return &DecodeError{Field: field, Offset: base + off, Err: ErrBadTableFeatures}
	}
	for off, i := 0, 0; off < len(b); i++ {
		if len(b)-off < 64 {
			return bad(fmt.Sprintf("table_features[%d]", i), off)
		}
		n := int(be.Uint16(b[off:]))
		if n < 64 || off+n > len(b) {
			return bad(fmt.Sprintf("table_features[%d].length", i), off)
		}
		e := b[off : off+n]
		tf := TableFeatures{TableID: e[2], MetadataMatch: be.Uint64(e[40:]), MetadataWrite: be.Uint64(e[48:]),
			Config: be.Uint32(e[56:]), MaxEntries: be.Uint32(e[60:])}
		copy(tf.Name[:], e[8:40])
		for po, j := 64, 0; po < n; j++ {
			field := fmt.Sprintf("table_features[%d].properties[%d]", i, j)
			if n-po < 4 {
				return bad(field, off+po)
			}
			p := TableFeatureProp{Type: TableFeaturePropType(be.Uint16(e[po:]))}
			pl := int(be.Uint16(e[po+2:]))
			if pl < 4 || po+pl > n {
				return bad(field+".length", off+po+2)
			}
			body := e[po+4 : po+pl]
			switch propKind(p.Type) {
			case 1:
				for k := 0; k < len(body); {
					if len(body)-k < 4 {
						return bad(field+".ids", off+po+4+k)
					}
					il := int(be.Uint16(body[k+2:]))
					if il < 4 || k+il > len(body) {
						return bad(field+".ids.len", off+po+4+k+2)
					}
					id := FeatureID{Type: be.Uint16(body[k:])}
					if il > 4 {
						id.Data = append([]byte(nil), body[k+4:k+il]...)
					}
					p.IDs = append(p.IDs, id)
					k += il
				}
			case 2:
				p.TableIDs = append([]byte(nil), body...)
			case 3:
				for k := 0; k < len(body); {
					if len(body)-k < 4 {
						return bad(field+".oxm_ids", off+po+4+k)
					}
					h := be.Uint32(body[k:])
					id := uint64(h) << 32
					k += 4
					if uint16(h>>16) == uint16(OXMClassExperimenter) {
						if len(body)-k < 4 {
							return bad(field+".oxm_ids", off+po+4+k)
						}
						id |= uint64(be.Uint32(body[k:]))
						k += 4
					}
					p.OXMIDs = append(p.OXMIDs, id)
				}
			case 4:
				if len(body) < 8 {
					return bad(field+".length", off+po+2)
				}
				p.Experimenter = be.Uint32(body)
				p.ExpType = be.Uint32(body[4:])
				p.Data = append([]byte(nil), body[8:]...)
			default:
				return &DecodeError{Field: field + ".type", Offset: base + off + po, Err: ErrBadProperty}
			}
			tf.Properties = append(tf.Properties, p)
			po += wire.Align8(pl)
			if po > n {
				return bad(field+".padding", off+n)
			}
		}
		*tfs = append(*tfs, tf)
		off += n
	}
	return nil
}

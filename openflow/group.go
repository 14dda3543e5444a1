package openflow

import (
	"encoding/binary"
	"fmt"
)

// Group types (OpenFlow 1.3.5 §7.3.4.2, enum ofp_group_type).
const (
	GroupTypeAll      uint8 = 0 // OFPGT_ALL
	GroupTypeSelect   uint8 = 1 // OFPGT_SELECT
	GroupTypeIndirect uint8 = 2 // OFPGT_INDIRECT
	GroupTypeFF       uint8 = 3 // OFPGT_FF
)

// Group mod commands (OpenFlow 1.3.5 §7.3.4.2, enum ofp_group_mod_command).
const (
	GroupAdd    uint16 = 0 // OFPGC_ADD
	GroupModify uint16 = 1 // OFPGC_MODIFY
	GroupDelete uint16 = 2 // OFPGC_DELETE
)

// Bucket is ofp_bucket (OpenFlow 1.3.5 §7.3.4.2), one action bucket of a
// group.
type Bucket struct {
	Weight     uint16
	WatchPort  uint32
	WatchGroup uint32
	Actions    []Action
}

func (bk *Bucket) len() int { return 16 + actionsLen(bk.Actions) }

func appendBuckets(dst []byte, bs []Bucket) ([]byte, error) {
	for i := range bs {
		bk := &bs[i]
		n := bk.len()
		if n > 0xffff {
			return dst, &EncodeError{Field: fmt.Sprintf("buckets[%d].len", i), Err: ErrBadBucket}
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
		dst = binary.BigEndian.AppendUint16(dst, bk.Weight)
		dst = binary.BigEndian.AppendUint32(dst, bk.WatchPort)
		dst = binary.BigEndian.AppendUint32(dst, bk.WatchGroup)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = appendActions(dst, bk.Actions); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func decodeBuckets(bs *[]Bucket, b []byte, base int) error {
	*bs = (*bs)[:0]
	for off, i := 0, 0; off < len(b); i++ {
		if len(b)-off < 16 {
			return &DecodeError{Field: fmt.Sprintf("buckets[%d]", i), Offset: base + off, Err: ErrBadBucket}
		}
		n := int(binary.BigEndian.Uint16(b[off:]))
		if n < 16 || n%8 != 0 || off+n > len(b) {
			return &DecodeError{Field: fmt.Sprintf("buckets[%d].len", i), Offset: base + off, Err: ErrBadBucket}
		}
		*bs = append(*bs, Bucket{})
		bk := &(*bs)[len(*bs)-1]
		bk.Weight = binary.BigEndian.Uint16(b[off+2:])
		bk.WatchPort = binary.BigEndian.Uint32(b[off+4:])
		bk.WatchGroup = binary.BigEndian.Uint32(b[off+8:])
		if err := decodeActions(&bk.Actions, b[off+16:off+n], fmt.Sprintf("buckets[%d].actions", i), base+off+16); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// GroupMod is an OFPT_GROUP_MOD message (OpenFlow 1.3.5 §7.3.4.2).
type GroupMod struct {
	Header
	Command uint16 // GroupAdd, GroupModify, GroupDelete
	Type    uint8  // GroupType*
	GroupID uint32
	Buckets []Bucket
}

// AppendBinary appends the wire form of m to dst.
func (m *GroupMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeGroupMod)
	dst = binary.BigEndian.AppendUint16(dst, m.Command)
	dst = append(dst, m.Type, 0)
	dst = binary.BigEndian.AppendUint32(dst, m.GroupID)
	var err error
	if dst, err = appendBuckets(dst, m.Buckets); err != nil {
		return dst[:start], encodeCtx(err, TypeGroupMod)
	}
	return finish(dst, start, TypeGroupMod)
}

// MarshalBinary returns the wire form of m.
func (m *GroupMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one GROUP_MOD.
func (m *GroupMod) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeGroupMod, 16); err != nil {
		return err
	}
	m.Command = binary.BigEndian.Uint16(b[8:])
	if m.Command > GroupDelete {
		return &DecodeError{Type: TypeGroupMod, Field: "command", Offset: 8, Err: ErrBadGroupCommand}
	}
	m.Type = b[10]
	m.GroupID = binary.BigEndian.Uint32(b[12:])
	return decodeCtx(decodeBuckets(&m.Buckets, b[16:], 16), TypeGroupMod, 0)
}

// GroupStats is ofp_group_stats (OpenFlow 1.3.5 §7.3.5.9).
type GroupStats struct {
	GroupID      uint32
	RefCount     uint32
	PacketCount  uint64
	ByteCount    uint64
	DurationSec  uint32
	DurationNsec uint32
	BucketStats  []Counter
}

// GroupDesc is ofp_group_desc (OpenFlow 1.3.5 §7.3.5.10).
type GroupDesc struct {
	Type    uint8
	GroupID uint32
	Buckets []Bucket
}

// GroupFeatures is ofp_group_features (OpenFlow 1.3.5 §7.3.5.11).
type GroupFeatures struct {
	Types        uint32
	Capabilities uint32
	MaxGroups    [4]uint32
	Actions      [4]uint32
}

// appendTo appends s as an entry of an OFPMP_GROUP reply.
func (s *GroupStats) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint16(dst, uint16(40+16*len(s.BucketStats)))
	dst = append(dst, 0, 0)
	dst = be.AppendUint32(dst, s.GroupID)
	dst = be.AppendUint32(dst, s.RefCount)
	dst = append(dst, 0, 0, 0, 0)
	dst = be.AppendUint64(dst, s.PacketCount)
	dst = be.AppendUint64(dst, s.ByteCount)
	dst = be.AppendUint32(dst, s.DurationSec)
	dst = be.AppendUint32(dst, s.DurationNsec)
	return appendCounters(dst, s.BucketStats)
}

// appendCounters appends cs as the packet and byte counts that end a group
// entry (ofp_bucket_counter) or a meter entry (ofp_meter_band_stats).
func appendCounters(dst []byte, cs []Counter) []byte {
	for _, c := range cs {
		dst = binary.BigEndian.AppendUint64(dst, c.PacketCount)
		dst = binary.BigEndian.AppendUint64(dst, c.ByteCount)
	}
	return dst
}

// decodeCounters appends to cs the 16-byte counters of b, whose length is
// a multiple of 16.
func decodeCounters(cs []Counter, b []byte) []Counter {
	for k := 0; k+16 <= len(b); k += 16 {
		cs = append(cs, Counter{binary.BigEndian.Uint64(b[k:]), binary.BigEndian.Uint64(b[k+8:])})
	}
	return cs
}

// decodeGroups decodes the body of an OFPMP_GROUP reply, reusing m.Groups.
func (m *MultipartReply) decodeGroups(body []byte) error {
	be := binary.BigEndian
	m.Groups = m.Groups[:0]
	for off, i := 0, 0; off < len(body); i++ {
		if len(body)-off < 40 {
			return replyBad(fmt.Sprintf("groups[%d]", i), off)
		}
		n := int(be.Uint16(body[off:]))
		if n < 40 || (n-40)%16 != 0 || off+n > len(body) {
			return replyBad(fmt.Sprintf("groups[%d].length", i), off)
		}
		e := body[off:]
		g := GroupStats{GroupID: be.Uint32(e[4:]), RefCount: be.Uint32(e[8:]), PacketCount: be.Uint64(e[16:]),
			ByteCount: be.Uint64(e[24:]), DurationSec: be.Uint32(e[32:]), DurationNsec: be.Uint32(e[36:])}
		g.BucketStats = decodeCounters(g.BucketStats, e[40:n])
		m.Groups = append(m.Groups, g)
		off += n
	}
	return nil
}

// appendTo appends g as an entry of an OFPMP_GROUP_DESC reply.
func (g *GroupDesc) appendTo(dst []byte) ([]byte, error) {
	be := binary.BigEndian
	gs := len(dst)
	dst = append(dst, 0, 0, g.Type, 0)
	dst = be.AppendUint32(dst, g.GroupID)
	dst, err := appendBuckets(dst, g.Buckets)
	if err != nil {
		return dst[:gs], err
	}
	be.PutUint16(dst[gs:], uint16(len(dst)-gs))
	return dst, nil
}

// decodeGroupDescs decodes the body of an OFPMP_GROUP_DESC reply, reusing
// m.GroupDescs.
func (m *MultipartReply) decodeGroupDescs(body []byte) error {
	be := binary.BigEndian
	m.GroupDescs = m.GroupDescs[:0]
	for off, i := 0, 0; off < len(body); i++ {
		if len(body)-off < 8 {
			return replyBad(fmt.Sprintf("group_descs[%d]", i), off)
		}
		n := int(be.Uint16(body[off:]))
		if n < 8 || off+n > len(body) {
			return replyBad(fmt.Sprintf("group_descs[%d].length", i), off)
		}
		g := GroupDesc{Type: body[off+2], GroupID: be.Uint32(body[off+4:])}
		if err := decodeBuckets(&g.Buckets, body[off+8:off+n], 16+off+8); err != nil {
			return decodeCtx(err, TypeMultipartReply, 0)
		}
		m.GroupDescs = append(m.GroupDescs, g)
		off += n
	}
	return nil
}

// appendTo appends g, the body of an OFPMP_GROUP_FEATURES reply.
func (g *GroupFeatures) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint32(dst, g.Types)
	dst = be.AppendUint32(dst, g.Capabilities)
	for _, w := range g.MaxGroups {
		dst = be.AppendUint32(dst, w)
	}
	for _, w := range g.Actions {
		dst = be.AppendUint32(dst, w)
	}
	return dst
}

// decodeGroupFeatures decodes the body of an OFPMP_GROUP_FEATURES reply.
func (m *MultipartReply) decodeGroupFeatures(body []byte) error {
	be := binary.BigEndian
	if len(body) != 40 {
		return replyBad("body", 0)
	}
	g := &m.GroupFeatures
	g.Types, g.Capabilities = be.Uint32(body), be.Uint32(body[4:])
	for i := 0; i < 4; i++ {
		g.MaxGroups[i] = be.Uint32(body[8+4*i:])
		g.Actions[i] = be.Uint32(body[24+4*i:])
	}
	return nil
}

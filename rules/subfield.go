package rules

import "fmt"

// Subfield is bits [Ofs, Ofs+Bits) of a field, bit 0 the least
// significant: what Open vSwitch's load, move and output:field actions
// read and write (its struct mf_subfield). Of a field of at most 64 bits
// it is at most 64 bits; of a 128-bit field (an IPv6 address, Wide) up
// to 128, counted across the field's two words as one number.
type Subfield struct {
	Field Field
	Ofs   uint8
	Bits  uint8 // 1 to 64, or to 128 of a 128-bit field
	// Row is the index in SubfieldFields of the name the subfield came
	// as: the transport ports and ICMP fields are one Field each for
	// several protocols, and their prerequisites and names follow it.
	Row uint8
}

// Wide reports whether s is of a 128-bit field, whose bits Mask and
// Key.GetBits do not hold: Mask128 and Key.GetBits128 do.
func (s Subfield) Wide() bool { return fields[s.Field].bits > 64 }

// Mask returns the mask of s's bits within its field, of a field of at
// most 64 bits.
func (s Subfield) Mask() uint64 { return (^uint64(0) >> (64 - uint(s.Bits))) << s.Ofs }

// Mask128 returns the mask of s's bits within its field as a 128-bit
// number (high, low): of a field of at most 64 bits, hi is 0.
func (s Subfield) Mask128() (hi, lo uint64) {
	hi, lo = s.ones()
	return Shl128(hi, lo, uint(s.Ofs))
}

// Place128 returns the low s.Bits bits of the 128-bit number (hi, lo)
// moved to s's place in its field: the value a load or move of s writes
// under Mask128.
func (s Subfield) Place128(hi, lo uint64) (uint64, uint64) {
	mhi, mlo := s.ones()
	return Shl128(hi&mhi, lo&mlo, uint(s.Ofs))
}

// ones returns the 128-bit number of s.Bits ones in its low bits.
func (s Subfield) ones() (hi, lo uint64) {
	return Shr128(^uint64(0), ^uint64(0), 128-uint(s.Bits))
}

// GetBits returns bits s of k in the low s.Bits bits: of a 128-bit field,
// the low 64 of them (GetBits128 has them all); of a packed row, of the
// packed value (Key.Packed).
func (k *Key) GetBits(s Subfield) uint64 {
	if s.Wide() {
		_, lo := k.GetBits128(s)
		return lo
	}
	if p := SubfieldFields[s.Row].Pack; p != 0 {
		return k.Packed(p) >> s.Ofs & (^uint64(0) >> (64 - uint(s.Bits)))
	}
	return k.Get(s.Field) >> s.Ofs & (^uint64(0) >> (64 - uint(s.Bits)))
}

// GetBits128 returns bits s of k in the low s.Bits bits of a 128-bit
// number (high, low), of a field of any width.
func (k *Key) GetBits128(s Subfield) (hi, lo uint64) {
	if !s.Wide() {
		return 0, k.GetBits(s)
	}
	hi, lo = k.Get128(s.Field)
	hi, lo = Shr128(hi, lo, uint(s.Ofs))
	mhi, mlo := s.ones()
	return hi & mhi, lo & mlo
}

// Shl128 returns the 128-bit number (hi, lo) shifted left by n bits.
func Shl128(hi, lo uint64, n uint) (uint64, uint64) {
	switch {
	case n >= 128:
		return 0, 0
	case n >= 64:
		return lo << (n - 64), 0
	case n == 0:
		return hi, lo
	}
	return hi<<n | lo>>(64-n), lo << n
}

// Shr128 returns the 128-bit number (hi, lo) shifted right by n bits.
func Shr128(hi, lo uint64, n uint) (uint64, uint64) {
	switch {
	case n >= 128:
		return 0, 0
	case n >= 64:
		return 0, hi >> (n - 64)
	case n == 0:
		return hi, lo
	}
	return hi >> n, lo>>n | hi<<(64-n)
}

// SubfieldField describes a field that load, move and output:field name,
// as Open vSwitch names and checks it (lib/meta-flow.xml).
type SubfieldField struct {
	Name  string // the name Open vSwitch prints: the NXM name, else the OXM name
	Alias []string
	Field Field
	Bits  uint8 // the field's width as Open vSwitch has it
	// Class and Num are the NXM or OXM header's class and field: the
	// header a load or move carries the field in.
	Class uint16
	Num   uint8
	// Proto, when not 0, is the ip_proto the field belongs to (tcp_src
	// is FieldL4Src under ip_proto 6), and a prerequisite of it.
	Proto uint8
	// Writable is false for the fields that Open vSwitch reads but does
	// not write (eth_type, ip_proto) and for in_port, which ofswitch
	// does not let an action change.
	Writable bool
	// Bytes, when not 0, is the length of the field's NXM or OXM
	// payload where it is not the least that holds Bits
	// (NXM_NX_IPV6_LABEL's 20 bits go in 4 bytes).
	Bytes uint8
	// Meta is true for pipeline metadata, which lives in the key only
	// (metadata, tunnel_id, pkt_mark; registers; the tunnel fields): a load or move writes
	// the key, not the frame.
	Meta bool
	// Port16 is in_port's 16-bit NXM form: its reserved ports at 0xff00
	// and up (the 32-bit ones at 0xffffff00 and up).
	Port16 bool
	// Shift is where the row's bit 0 is in Field: a 32-bit register is
	// one half of an xreg field (reg(2N) its bits 32-63, reg(2N+1) its
	// bits 0-31). A Subfield of the row has Ofs counted in Field (the
	// row's offset plus Shift), so that Key.GetBits, Mask and the data
	// plane read and write the field as any other; what prints or
	// encodes a Subfield counts from the row's bit 0 (RowOfs).
	Shift uint8
	// Pack, when not 0, says the row packs several of the key's fields
	// into one NXM field (PackTCI, PackTOS): Field is the first of them,
	// a Subfield of the row counts its bits in the packed value (Shift
	// is 0), and a load of it keeps its mask and value in the action's
	// Ext with the row (LoadOf).
	Pack uint8
}

// The packings of SubfieldField.Pack.
const (
	// PackTCI is NXM_OF_VLAN_TCI: vlan_pcp(3) CFI(1) vlan_vid(12) of
	// the outermost tag, 0 without one; the CFI bit is OFPVID_PRESENT.
	// Writing it with the CFI bit set to a frame without a tag pushes
	// one (TPID 0x8100), with it clear pops the tag, as Open vSwitch
	// commits a changed vlan_tci.
	PackTCI = 1
	// PackTOS is NXM_OF_IP_TOS: the DSCP in bits 2-7 of the TOS byte,
	// bits 0-1 (ECN) read as 0 and not written.
	PackTOS = 2
)

// Packed returns the value of the NXM field that packing p makes of k's
// fields (SubfieldField.Pack).
func (k *Key) Packed(p uint8) uint64 {
	switch p {
	case PackTCI:
		vid := k.Get(FieldVLANVID)
		if vid&VIDPresent == 0 {
			return 0
		}
		return k.Get(FieldVLANPCP)<<13 | vid
	case PackTOS:
		return k.Get(FieldIPDSCP) << 2
	}
	return 0
}

// SubfieldFields lists the fields of SubfieldField, the 32-bit registers
// last (regRows). A 128-bit field (Bits 128: the IPv6 addresses) is one
// row like any other; its loads keep their mask and value in the
// action's Ext (NewLoad), its subfields are read with Key.GetBits128.
// The NXM fields that pack several of ours (NXM_OF_VLAN_TCI,
// NXM_OF_IP_TOS) are rows with Pack, after the rows of their fields.
var SubfieldFields = append([]SubfieldField{
	{Name: "NXM_OF_IN_PORT", Alias: []string{"in_port"}, Field: FieldInPort, Bits: 16, Class: 0, Num: 0, Port16: true},
	{Name: "NXM_OF_ETH_DST", Alias: []string{"eth_dst", "dl_dst"}, Field: FieldEthDst, Bits: 48, Class: 0, Num: 1, Writable: true},
	{Name: "NXM_OF_ETH_SRC", Alias: []string{"eth_src", "dl_src"}, Field: FieldEthSrc, Bits: 48, Class: 0, Num: 2, Writable: true},
	// vlan_vid is the VLAN id's 12 bits (OFPVID_PRESENT is not among
	// them); a load of it needs a tagged frame, as Open vSwitch's
	// set_field does.
	{Name: "OXM_OF_VLAN_VID", Alias: []string{"vlan_vid"}, Field: FieldVLANVID, Bits: 12, Class: 0x8000, Num: 6, Writable: true},
	{Name: "OXM_OF_VLAN_PCP", Alias: []string{"vlan_pcp"}, Field: FieldVLANPCP, Bits: 3, Class: 0x8000, Num: 7, Writable: true},
	{Name: "NXM_OF_ETH_TYPE", Alias: []string{"eth_type", "dl_type"}, Field: FieldEthType, Bits: 16, Class: 0, Num: 3},
	{Name: "NXM_OF_IP_PROTO", Alias: []string{"ip_proto", "nw_proto"}, Field: FieldIPProto, Bits: 8, Class: 0, Num: 6},
	{Name: "NXM_OF_IP_SRC", Alias: []string{"ip_src", "nw_src"}, Field: FieldIPv4Src, Bits: 32, Class: 0, Num: 7, Writable: true},
	{Name: "NXM_OF_IP_DST", Alias: []string{"ip_dst", "nw_dst"}, Field: FieldIPv4Dst, Bits: 32, Class: 0, Num: 8, Writable: true},
	{Name: "NXM_OF_TCP_SRC", Alias: []string{"tcp_src", "tp_src"}, Field: FieldL4Src, Bits: 16, Class: 0, Num: 9, Proto: IPProtoTCP, Writable: true},
	{Name: "NXM_OF_TCP_DST", Alias: []string{"tcp_dst", "tp_dst"}, Field: FieldL4Dst, Bits: 16, Class: 0, Num: 10, Proto: IPProtoTCP, Writable: true},
	{Name: "NXM_OF_UDP_SRC", Alias: []string{"udp_src"}, Field: FieldL4Src, Bits: 16, Class: 0, Num: 11, Proto: IPProtoUDP, Writable: true},
	{Name: "NXM_OF_UDP_DST", Alias: []string{"udp_dst"}, Field: FieldL4Dst, Bits: 16, Class: 0, Num: 12, Proto: IPProtoUDP, Writable: true},
	{Name: "OXM_OF_SCTP_SRC", Alias: []string{"sctp_src"}, Field: FieldL4Src, Bits: 16, Class: 0x8000, Num: 17, Proto: IPProtoSCTP, Writable: true},
	{Name: "OXM_OF_SCTP_DST", Alias: []string{"sctp_dst"}, Field: FieldL4Dst, Bits: 16, Class: 0x8000, Num: 18, Proto: IPProtoSCTP, Writable: true},
	{Name: "NXM_OF_ICMP_TYPE", Alias: []string{"icmp_type"}, Field: FieldICMPType, Bits: 8, Class: 0, Num: 13, Proto: IPProtoICMP, Writable: true},
	{Name: "NXM_OF_ICMP_CODE", Alias: []string{"icmp_code"}, Field: FieldICMPCode, Bits: 8, Class: 0, Num: 14, Proto: IPProtoICMP, Writable: true},
	{Name: "NXM_NX_ICMPV6_TYPE", Alias: []string{"icmpv6_type"}, Field: FieldICMPType, Bits: 8, Class: 1, Num: 21, Proto: IPProtoICMPv6, Writable: true},
	{Name: "NXM_NX_ICMPV6_CODE", Alias: []string{"icmpv6_code"}, Field: FieldICMPCode, Bits: 8, Class: 1, Num: 22, Proto: IPProtoICMPv6, Writable: true},
	{Name: "NXM_OF_ARP_OP", Alias: []string{"arp_op"}, Field: FieldARPOp, Bits: 16, Class: 0, Num: 15, Writable: true},
	{Name: "NXM_OF_ARP_SPA", Alias: []string{"arp_spa"}, Field: FieldARPSPA, Bits: 32, Class: 0, Num: 16, Writable: true},
	{Name: "NXM_OF_ARP_TPA", Alias: []string{"arp_tpa"}, Field: FieldARPTPA, Bits: 32, Class: 0, Num: 17, Writable: true},
	{Name: "NXM_NX_ARP_SHA", Alias: []string{"arp_sha"}, Field: FieldARPSHA, Bits: 48, Class: 1, Num: 17, Writable: true},
	{Name: "NXM_NX_ARP_THA", Alias: []string{"arp_tha"}, Field: FieldARPTHA, Bits: 48, Class: 1, Num: 18, Writable: true},
	{Name: "NXM_NX_TUN_ID", Alias: []string{"tun_id", "tunnel_id"}, Field: FieldTunnelID, Bits: 64, Class: 1, Num: 16, Writable: true, Meta: true},
	{Name: "OXM_OF_METADATA", Alias: []string{"metadata"}, Field: FieldMetadata, Bits: 64, Class: 0x8000, Num: 2, Writable: true, Meta: true},
	{Name: "OXM_OF_IP_DSCP", Alias: []string{"ip_dscp"}, Field: FieldIPDSCP, Bits: 6, Class: 0x8000, Num: 8, Writable: true},
	{Name: "NXM_NX_IP_ECN", Alias: []string{"ip_ecn", "nw_ecn"}, Field: FieldIPECN, Bits: 2, Class: 1, Num: 28, Writable: true},
	{Name: "NXM_NX_IP_TTL", Alias: []string{"nw_ttl"}, Field: FieldNwTTL, Bits: 8, Class: 1, Num: 29, Writable: true},
	{Name: "NXM_NX_IP_FRAG", Alias: []string{"ip_frag", "nw_frag"}, Field: FieldIPFrag, Bits: 2, Bytes: 1, Class: 1, Num: 26},
	{Name: "NXM_NX_IPV6_LABEL", Alias: []string{"ipv6_label"}, Field: FieldIPv6FLabel, Bits: 20, Bytes: 4, Class: 1, Num: 27, Writable: true},
	{Name: "NXM_NX_PKT_MARK", Alias: []string{"pkt_mark"}, Field: FieldPktMark, Bits: 32, Class: 1, Num: 33, Writable: true, Meta: true},
	{Name: "NXM_NX_IPV6_SRC", Alias: []string{"ipv6_src"}, Field: FieldIPv6Src, Bits: 128, Class: 1, Num: 19, Writable: true},
	{Name: "NXM_NX_IPV6_DST", Alias: []string{"ipv6_dst"}, Field: FieldIPv6Dst, Bits: 128, Class: 1, Num: 20, Writable: true},
	{Name: "NXM_NX_ND_TARGET", Alias: []string{"nd_target"}, Field: FieldNDTarget, Bits: 128, Class: 1, Num: 23, Writable: true},
	// tun_flags is 1 bit in 2 bytes (Open vSwitch's "be16 (low 1
	// bits)"): the OAM flag.
	{Name: "NXM_NX_TUN_FLAGS", Alias: []string{"tun_flags"}, Field: FieldTunFlags, Bits: 1, Bytes: 2, Class: 1, Num: 104, Writable: true, Meta: true},
	// The tunnel fields: metadata, as no frame comes from a tunnel.
	{Name: "NXM_NX_TUN_IPV4_SRC", Alias: []string{"tun_src"}, Field: FieldTunSrc, Bits: 32, Class: 1, Num: 31, Writable: true, Meta: true},
	{Name: "NXM_NX_TUN_IPV4_DST", Alias: []string{"tun_dst"}, Field: FieldTunDst, Bits: 32, Class: 1, Num: 32, Writable: true, Meta: true},
	{Name: "NXM_NX_TUN_GBP_ID", Alias: []string{"tun_gbp_id"}, Field: FieldTunGbpID, Bits: 16, Class: 1, Num: 38, Writable: true, Meta: true},
	{Name: "NXM_NX_TUN_GBP_FLAGS", Alias: []string{"tun_gbp_flags"}, Field: FieldTunGbpFlags, Bits: 8, Class: 1, Num: 39, Writable: true, Meta: true},
	{Name: "NXM_NX_TUN_IPV6_SRC", Alias: []string{"tun_ipv6_src"}, Field: FieldTunIPv6Src, Bits: 128, Class: 1, Num: 109, Writable: true, Meta: true},
	{Name: "NXM_NX_TUN_IPV6_DST", Alias: []string{"tun_ipv6_dst"}, Field: FieldTunIPv6Dst, Bits: 128, Class: 1, Num: 110, Writable: true, Meta: true},
	// The words of the tunnel metadata option space, which the loads of
	// a set_field or load of tun_metadataN write (see
	// ActionExt.TunMetadata): no name a flow's text can give, no header
	// (field numbers over 127 are none), for the checks and the key-only
	// writes of the data plane.
	{Name: "(tun_opts0)", Field: FieldTunOpts0, Bits: 64, Class: 1, Num: 0xf0, Writable: true, Meta: true},
	{Name: "(tun_opts1)", Field: FieldTunOpts1, Bits: 64, Class: 1, Num: 0xf1, Writable: true, Meta: true},
	{Name: "(tun_opts2)", Field: FieldTunOpts2, Bits: 64, Class: 1, Num: 0xf2, Writable: true, Meta: true},
	{Name: "(tun_opts3)", Field: FieldTunOpts3, Bits: 64, Class: 1, Num: 0xf3, Writable: true, Meta: true},
	// The packed rows come after the rows of their fields, which
	// SubfieldFor and SubfieldForMask return (they skip packed rows).
	{Name: "NXM_OF_VLAN_TCI", Alias: []string{"vlan_tci"}, Field: FieldVLANVID, Bits: 16, Class: 0, Num: 4, Writable: true, Pack: PackTCI},
	{Name: "NXM_OF_IP_TOS", Alias: []string{"nw_tos"}, Field: FieldIPDSCP, Bits: 8, Class: 0, Num: 5, Writable: true, Pack: PackTOS},
}, regRows()...)

// regRows returns the rows of the registers NXM_NX_REG0 to REG15
// (reg0-reg15), NXM class 1, fields 0 to 15: 32-bit halves of the xreg
// fields (RegField); then those of the 64-bit registers OXM_OF_PKT_REG0
// to 7 (xreg0-xreg7), class 0x8001, the xreg fields whole. The 32-bit
// rows come first: SubfieldForMask gives the register that holds a
// load's bits, the xreg only for bits across both halves.
func regRows() []SubfieldField {
	rows := make([]SubfieldField, NumRegs, NumRegs+NumRegs/2)
	for n := range rows {
		f, sh := RegField(n)
		rows[n] = SubfieldField{
			Name: fmt.Sprintf("NXM_NX_REG%d", n), Alias: []string{fmt.Sprintf("reg%d", n)},
			Field: f, Bits: 32, Class: 1, Num: uint8(n), Writable: true, Meta: true, Shift: uint8(sh),
		}
	}
	for n := range NumRegs / 2 {
		rows = append(rows, SubfieldField{
			Name: fmt.Sprintf("OXM_OF_PKT_REG%d", n), Alias: []string{fmt.Sprintf("xreg%d", n)},
			Field: FieldXReg0 + Field(n), Bits: 64, Class: 0x8001, Num: uint8(n), Writable: true, Meta: true,
		})
	}
	return rows
}

// XRegRow returns the row of SubfieldFields of the 64-bit register (xreg)
// that is field f, -1 if f is not an xreg field.
func XRegRow(f Field) int {
	if f < FieldXReg0 || f > FieldXReg7 {
		return -1
	}
	return len(SubfieldFields) - NumRegs/2 + int(f-FieldXReg0)
}

// LoadRow returns the row of SubfieldFields that load a names: the xreg
// for one with LoadXReg, else the first row of its field in a flow of
// ip_proto proto that holds the mask's bits (of an xreg field, the
// 32-bit register they are in), -1 if none.
func LoadRow(a *Action, proto uint64) int {
	if a.Reason&LoadXReg != 0 {
		return XRegRow(a.Field)
	}
	if a.Ext != nil && a.Ext.LoadRow != 0 {
		return int(a.Ext.LoadRow) - 1
	}
	return SubfieldForMask(a.Field, proto, a.Value[0])
}

// RowOfs returns s's offset counted from the bit 0 of its row (Ofs less
// the row's Shift): the offset Open vSwitch prints and sends.
func (s Subfield) RowOfs() uint8 { return s.Ofs - SubfieldFields[s.Row].Shift }

// SubfieldOf returns bits [ofs, ofs+n) of row r of SubfieldFields, ofs
// counted from the row's bit 0.
func SubfieldOf(r int, ofs, n uint8) Subfield {
	row := &SubfieldFields[r]
	return Subfield{Field: row.Field, Ofs: ofs + row.Shift, Bits: n, Row: uint8(r)}
}

// RowMask returns the mask of all the bits of row r within its field:
// of a 128-bit field, of its low word (all ones).
func RowMask(r int) uint64 {
	row := &SubfieldFields[r]
	if row.Bits >= 64 {
		return ^uint64(0)
	}
	return ^uint64(0) >> (64 - uint(row.Bits)) << row.Shift
}

// Len returns the length of the field's NXM or OXM payload.
func (r *SubfieldField) Len() int {
	if r.Bytes != 0 {
		return int(r.Bytes)
	}
	return (int(r.Bits) + 7) / 8
}

// metaFields marks the fields of the rows of SubfieldFields with Meta.
var metaFields = func() (m [NumFields]bool) {
	for i := range SubfieldFields {
		if r := &SubfieldFields[i]; r.Meta {
			m[r.Field] = true
		}
	}
	return m
}()

// MetaField reports whether f is pipeline metadata that a load writes in
// the key only (a row of SubfieldFields with Meta).
func MetaField(f Field) bool { return int(f) < NumFields && metaFields[f] }

// SubfieldByName returns the row of SubfieldFields named name (an NXM or
// OXM name, or one of its aliases), -1 if none.
func SubfieldByName(name string) int {
	for i := range SubfieldFields {
		r := &SubfieldFields[i]
		if r.Name == name {
			return i
		}
		for _, a := range r.Alias {
			if a == name {
				return i
			}
		}
	}
	return -1
}

// SubfieldByHeader returns the row of SubfieldFields whose NXM or OXM
// header has class and field num, -1 if none.
func SubfieldByHeader(class uint16, num uint8) int {
	for i := range SubfieldFields {
		if r := &SubfieldFields[i]; r.Class == class && r.Num == num {
			return i
		}
	}
	return -1
}

// SubfieldFor returns the row of SubfieldFields of field f in a flow
// whose match has ip_proto proto (0: none), the first row of f that fits,
// -1 if none. Of a field of several rows at different shifts (an xreg's
// two registers) it is the first; SubfieldForMask chooses by the bits.
func SubfieldFor(f Field, proto uint64) int {
	return SubfieldForMask(f, proto, 0)
}

// SubfieldForMask is SubfieldFor among the rows of f that hold all the
// bits of mask mk (0: any row), -1 if none does: the register of an xreg
// field that a load's bits are in.
func SubfieldForMask(f Field, proto, mk uint64) int {
	first := -1
	for i := range SubfieldFields {
		r := &SubfieldFields[i]
		if r.Field != f || r.Pack != 0 || mk&^RowMask(i) != 0 {
			continue
		}
		if r.Proto == 0 || uint64(r.Proto) == proto {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// CheckSubfield checks s as Open vSwitch's mf_check_src and mf_check_dst
// do without a match: a width of at least one bit and bits within the
// field (OFPBAC_BAD_SET_LEN), and for a destination a field that may be
// written (OFPBAC_BAD_SET_ARGUMENT).
func CheckSubfield(s Subfield, dst bool) error {
	r := &SubfieldFields[s.Row]
	what := "source"
	if dst {
		what = "destination"
	}
	if s.Bits == 0 || s.Ofs < r.Shift || int(s.RowOfs())+int(s.Bits) > int(r.Bits) || s.Bits > 64 && !s.Wide() {
		return badAction(BadActionBadSetLen, r.Name, fmt.Sprintf("bits %d..%d of the %s field are beyond its %d bits", s.Ofs-r.Shift, int(s.Ofs-r.Shift)+int(s.Bits)-1, what, r.Bits))
	}
	if dst && !r.Writable {
		return badAction(BadActionBadSetArg, r.Name, "destination field is not writable")
	}
	return nil
}

// checkSubfieldPrereqs checks that match t promises the prerequisites of
// s's field (OFPBAC_MATCH_INCONSISTENT), as Open vSwitch's mf_check__.
func checkSubfieldPrereqs(t *Match, s Subfield) error {
	r := &SubfieldFields[s.Row]
	if r.Proto != 0 && !t.Exact(FieldIPProto, uint64(r.Proto)) {
		return badAction(BadActionMatchInconsistent, r.Name, fmt.Sprintf("needs ip_proto=%d", r.Proto))
	}
	if (r.Field == FieldARPSHA || r.Field == FieldARPTHA) && !t.Exact(FieldEthType, EthTypeARP) {
		return badAction(BadActionMatchInconsistent, r.Name, "needs eth_type=0x0806")
	}
	if err := t.checkPrereqsOf(1 << r.Field); err != nil {
		return badAction(BadActionMatchInconsistent, r.Name, err.(*Error).Why)
	}
	return nil
}

// setBits records in t that bits m of field f are v (a load's effect on
// what the match promises).
func (m *Match) setBits(f Field, v, mk uint64) {
	ov, om := m.Get(f)
	m.Set(f, ov&^mk|v&mk, om|mk)
}

// LoadOf returns the ActionLoad that writes the low s.Bits bits of the
// 128-bit number (hi, lo) into subfield s, with reason as its Reason.
func LoadOf(s Subfield, hi, lo uint64, reason uint8) Action {
	mh, ml := s.Mask128()
	vh, vl := s.Place128(hi, lo)
	return newLoad(int(s.Row), [2]uint64{mh, ml}, [2]uint64{vh, vl}, reason)
}

// LoadRowValue returns the ActionLoad that writes bits mask of row r of
// SubfieldFields with those of value, both counted from the row's bit 0
// (128-bit numbers, high word first), with reason as its Reason.
func LoadRowValue(r int, mask, value [2]uint64, reason uint8) Action {
	sh := uint(SubfieldFields[r].Shift)
	mask[0], mask[1] = Shl128(mask[0], mask[1], sh)
	value[0], value[1] = Shl128(value[0], value[1], sh)
	return newLoad(r, mask, value, reason)
}

// newLoad is NewLoad of the field of row r, mask and value counted as a
// Subfield of the row counts them; a packed row's load keeps the row.
func newLoad(r int, mask, value [2]uint64, reason uint8) Action {
	row := &SubfieldFields[r]
	if row.Pack == 0 {
		return NewLoad(row.Field, mask, value, reason)
	}
	return Action{Kind: ActionLoad, Field: row.Field, Reason: reason,
		Ext: &ActionExt{LoadMask: mask, LoadValue: value, LoadRow: uint8(r + 1)}}
}

// setBits128 is setBits of 128-bit numbers (high word first), for a
// field of any width.
func (m *Match) setBits128(f Field, v, mk [2]uint64) {
	if f.Bits() <= 64 {
		m.setBits(f, v[1], mk[1])
		return
	}
	ovh, ovl := m.Key.Get128(f)
	omh, oml := m.Mask.Get128(f)
	m.Set128(f, ovh&^mk[0]|v[0]&mk[0], ovl&^mk[1]|v[1]&mk[1], omh|mk[0], oml|mk[1])
}

// clearBits records in t that bits s hold what is not known (a move's
// effect on what the match promises).
func (m *Match) clearBits(s Subfield) {
	if !s.Wide() {
		v, mk := m.Get(s.Field)
		m.Set(s.Field, v&^s.Mask(), mk&^s.Mask())
		return
	}
	bh, bl := s.Mask128()
	vh, vl := m.Key.Get128(s.Field)
	mh, ml := m.Mask.Get128(s.Field)
	m.Set128(s.Field, vh&^bh, vl&^bl, mh&^bh, ml&^bl)
}

// Segment is a run of ones in a load's mask: bits [Ofs, Ofs+Bits).
type Segment struct{ Ofs, Bits uint8 }

// LoadSegments splits mask mk of a field of bits bits (at most 64) into
// its runs of ones, lowest first: the loads Open vSwitch sends and prints
// for a set_field of part of a field (its next_load_segment).
func LoadSegments(mk uint64, bits uint8) []Segment { return LoadSegments128(0, mk, bits) }

// LoadSegments128 is LoadSegments of the 128-bit mask (hi, lo) of a field
// of bits bits: a run is cut after 64 bits, as NXAST_REG_LOAD carries no
// more (next_load_segment), so that a load of a whole IPv6 address is two.
func LoadSegments128(hi, lo uint64, bits uint8) []Segment {
	bit := func(i uint) bool {
		if i >= 64 {
			return hi>>(i-64)&1 != 0
		}
		return lo>>i&1 != 0
	}
	var out []Segment
	for i := uint(0); i < uint(bits); {
		if !bit(i) {
			i++
			continue
		}
		j := i
		for j < uint(bits) && j-i < 64 && bit(j) {
			j++
		}
		out = append(out, Segment{uint8(i), uint8(j - i)})
		i = j
	}
	return out
}

package ofctl

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// DefaultPriority is the priority ovs-ofctl gives a flow that names none
// (OFP_DEFAULT_PRIORITY).
const DefaultPriority = 0x8000

// ParseOptions tune ParseFlows and ParseFlowMods.
type ParseOptions struct {
	// FixPrereqs adds missing match prerequisites (see rules.Match.FixPrereqs)
	// instead of rejecting the flow with OFPBMC_BAD_PREREQ; a flow whose
	// ports lack a protocol becomes two flows.
	FixPrereqs bool
	// NoActions accepts lines without actions= (ClassBench-ng's OpenFlow
	// sets); such flows get no instructions (drop).
	NoActions bool
	// Strict makes the modify and delete lines of ParseFlowMods strict
	// (MODIFY_STRICT, DELETE_STRICT), as ovs-ofctl --strict does.
	// ParseFlows, whose lines all add, ignores it.
	Strict bool
	// Check, if set, is asked by ParseMods about each flow, group and
	// meter that parsed; an error refuses its line as a parse error does
	// (file:line:1). ofswitch push and rules lint check so that each
	// mod's OpenFlow message fits in one (ofrules.CheckFlowMod and co),
	// which this package, knowing no wire format, cannot compute.
	Check *ModCheck
	// TunMetadata, if set, places the fields tun_metadata0-63 in the
	// option space, as the TLV table of the switch the flows are for
	// does (ofrules.TLVTable); without it, or for a field it does not
	// map, tun_metadataN is an error, as Open vSwitch refuses a flow
	// naming an unmapped field.
	TunMetadata rules.TunMetadataLayout
}

// ModCheck is a check of ParseOptions.Check: a function per kind of mod,
// each optional.
type ModCheck struct {
	Flow  func(*rules.Update) error
	Group func(*groups.Mod) error
	Meter func(*meters.Mod) error
}

// ParseFlows parses a flow file in ovs-ofctl add-flows syntax (fields are
// separated by commas and/or spaces, so ClassBench-ng's ", " works too). It
// returns the flows of the good lines and one *ParseError per bad line; blank lines and
// lines starting with # are skipped. Each Update's ID is its 1-based line
// number.
func ParseFlows(name string, data []byte, opt *ParseOptions) ([]rules.Update, []error) {
	// One flow a line, as a rule: growing the slice instead copied
	// 300-byte Updates over and over, in copies too long for the garbage
	// collector to interrupt (0.65 of the 0.9 s that 100K lines took).
	ups := make([]rules.Update, 0, countLines(data))
	p := flowParser{file: name}
	return p.appendFlows(ups, data, opt)
}

// appendFlows is ParseFlows appending to dst, with p's memory for the
// flows' instructions and actions. data must not change during the call.
// cutLine splits s at its first newline into the line before it and the
// rest after it; without a newline the line is all of s and the rest "".
func cutLine(s string) (line, rest string) {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func (p *flowParser) appendFlows(dst []rules.Update, data []byte, opt *ParseOptions) ([]rules.Update, []error) {
	p.own = ParseOptions{}
	if opt != nil {
		p.own = *opt
	}
	p.opt = &p.own
	var errs []error
	// The text is read in place: no line, nor any part of one, outlives
	// the call but in what errors copy (fmt), so that a file costs no copy.
	s := unsafe.String(unsafe.SliceData(data), len(data))
	for n := 1; len(s) > 0; n++ {
		var line string
		line, s = cutLine(s)
		trim := strings.TrimSpace(line)
		if trim == "" || trim[0] == '#' {
			continue
		}
		var err error
		p.line = n
		if dst, err = p.parseLine(dst, line); err != nil {
			errs = append(errs, err)
		}
	}
	return dst, errs
}

// countLines returns the lines of data as ParseFlows counts them.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// ParseFlow parses one flow in ovs-ofctl syntax.
func ParseFlow(s string) (rules.Update, error) {
	us, err := parseFlowLine(nil, "flow", 1, s, &ParseOptions{})
	if err != nil {
		return rules.Update{}, err
	}
	return us[0], nil
}

// flowParser reads the flows, groups and meters of one file. Its memory
// for the instructions and actions of flows (ins, acts) is carved into
// the flows it returns, never shared by two, and reused once reset.
type flowParser struct {
	file string
	line int
	opt  *ParseOptions
	own  ParseOptions // opt's copy, for appendFlows
	// cols holds, per match field, 1 + the column of the field of the
	// line that set it (0: none), for the column of a match error.
	cols [rules.NumFields]int32
	// arp says whether the match's eth_type is ARP's: set sets it.
	arp  bool
	ins  slab[rules.Instruction]
	acts slab[rules.Action]
	// valid validates the matches: a file's lines mostly share a mask.
	valid rules.Validator
}

func (p *flowParser) errAt(col int, format string, a ...any) *ParseError {
	return &ParseError{File: p.file, Line: p.line, Col: col + 1, Msg: fmt.Sprintf(format, a...)}
}

// parseFlowLine appends the flow of one line to dst (two flows when
// FixPrereqs splits it), or returns dst as it was and the line's error.
func parseFlowLine(dst []rules.Update, name string, line int, s string, opt *ParseOptions) ([]rules.Update, error) {
	p := &flowParser{file: name, line: line, opt: opt}
	return p.parseLine(dst, s)
}

// parseLine is parseFlowLine of line p.line. An ordinary flow (fields,
// then actions of outputs and goto_table) costs no allocation but its
// share of p's memory.
func (p *flowParser) parseLine(dst []rules.Update, s string) ([]rules.Update, error) {
	// The flow is parsed in place, in dst's next element: an Update is
	// some 500 bytes, and copying it in costs as much as parsing a field.
	n := len(dst)
	dst = slices.Grow(dst, 1)[:n+1]
	if p.scanLine(&dst[n], s) {
		return dst, nil
	}
	return p.parseLineSlow(dst, s)
}

// scanLine reads line s into u in one pass over its bytes, as
// parseLineSlow would, and reports whether it did: a line it cannot read
// so (a field it refuses, no actions=, instructions=, a match that
// Validate refuses) it leaves to parseLineSlow, which reads it again from
// the start, errors and all.
func (p *flowParser) scanLine(u *rules.Update, s string) bool {
	*u = rules.Update{Command: rules.CmdAdd, Priority: DefaultPriority, ID: p.line}
	m := &u.Match
	p.cols, p.arp = [rules.NumFields]int32{}, false
	pos := 0
	for pos < len(s) {
		for pos < len(s) && byteClass[s[pos]] == classSep {
			pos++
		}
		if pos >= len(s) {
			break
		}
		start := pos
		eq, colon := -1, -1
		for {
			pos = nextMarked(s, pos)
			if pos >= len(s) {
				break
			}
			c := byteClass[s[pos]]
			if c == classSep {
				break
			}
			if c == classEq && eq < 0 {
				eq = pos
			} else if c == classColon && colon < 0 {
				colon = pos
			}
			pos++
		}
		tok := s[start:pos]
		if eq-start == len("actions") && tok[:eq-start] == "actions" {
			if start > 0 && s[start-1] == '\r' {
				return false
			}
			inst, ok := p.fastActions(s[eq+1:])
			if !ok {
				return false
			}
			u.Instructions = inst
			return p.valid.Validate(m) == nil
		}
		if eq-start == len("instructions") && tok[:eq-start] == "instructions" {
			return false
		}
		key, val, hasVal := tok, "", false
		if eq >= 0 {
			key, val, hasVal = s[start:eq], s[eq+1:pos], true
		} else if colon >= 0 {
			key, val, hasVal = s[start:colon], s[colon+1:pos], true
		}
		if p.field(u, m, key, val, hasVal, start, start+len(key)+1) != nil {
			return false
		}
	}
	return p.opt.NoActions && p.valid.Validate(m) == nil
}

// Classes of the bytes of a line (byteClass): what scanLine stops at.
const (
	classSep   = 1 + iota // a separator of fields: ',', ' ', '\t', '\r'
	classEq               // '='
	classColon            // ':'
)

var byteClass = [256]uint8{',': classSep, ' ': classSep, '\t': classSep, '\r': classSep, '=': classEq, ':': classColon}

// nextMarked returns the index of the first byte of s at or after pos
// that may have a class (byteClass), or len(s) if none does: every byte
// that has one, and perhaps others below ',' (a byte it returns may be
// of class 0). It reads eight bytes at a time: a line's fields are
// mostly letters, digits and dots, which the byte-by-byte loop paid a
// dozen instructions each for.
func nextMarked(s string, pos int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for pos+8 <= len(s) {
		w := s[pos : pos+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// Each term flags, in a byte's top bit, the bytes below ','
		// (separators: ' ', '\t', '\r', ','... below ',' + 1), equal to
		// '=', equal to ':'. A term may flag bytes above one it flags
		// rightly (a borrow runs upward), never below: the lowest flag
		// of the three is a byte that has a class or is below ','.
		lt := (x - ones*(','+1)) &^ x
		e := x ^ ones*'='
		ee := (e - ones) &^ e
		c := x ^ ones*':'
		cc := (c - ones) &^ c
		if m := (lt | ee | cc) & highs; m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	for pos < len(s) && byteClass[s[pos]] == 0 {
		pos++
	}
	return pos
}

// parseLineSlow is parseLine for the flow in dst[len(dst)-1], read from
// the start of line s: it finds actions= first, then reads the fields
// before it, and returns the first error.
func (p *flowParser) parseLineSlow(dst []rules.Update, s string) ([]rules.Update, error) {
	opt := p.opt
	n := len(dst) - 1
	u := &dst[n]
	*u = rules.Update{Command: rules.CmdAdd, Priority: DefaultPriority, ID: p.line}
	// Split off actions=.
	actPos := -1
	if i := indexKeyword(s, "actions="); i >= 0 {
		actPos = i
	} else if i := indexKeyword(s, "instructions="); i >= 0 {
		actPos = i
	}
	head := s
	if actPos >= 0 {
		head = s[:actPos]
	} else if !opt.NoActions {
		return dst[:n], p.errAt(len(strings.TrimRight(s, " \t\r")), "expected actions=")
	}
	m := &u.Match
	p.cols, p.arp = [rules.NumFields]int32{}, false
	pos := 0
	for pos < len(head) {
		for pos < len(head) && (head[pos] == ',' || head[pos] == ' ' || head[pos] == '\t' || head[pos] == '\r') {
			pos++
		}
		if pos >= len(head) {
			break
		}
		start := pos
		for pos < len(head) && head[pos] != ',' && head[pos] != ' ' && head[pos] != '\t' && head[pos] != '\r' {
			pos++
		}
		tok := head[start:pos]
		key, val, hasVal := strings.Cut(tok, "=")
		if !hasVal {
			key, val, hasVal = strings.Cut(tok, ":")
		}
		valCol := start + len(key) + 1
		if err := p.field(u, m, key, val, hasVal, start, valCol); err != nil {
			return dst[:n], err
		}
	}
	if actPos >= 0 {
		eq := strings.IndexByte(s[actPos:], '=')
		rest := s[actPos+eq+1:]
		col := actPos + eq + 1
		inst, err := p.actions(rest, col, m)
		if err != nil {
			return dst[:n], err
		}
		u.Instructions = inst
	}
	if err := p.valid.Validate(m); err != nil {
		var e *rules.Error
		if opt.FixPrereqs && errors.As(err, &e) && e.Code == rules.BadMatchBadPrereq && e.Type == rules.ErrTypeBadMatch {
			ms, ferr := m.FixPrereqs()
			if ferr == nil {
				v := *u
				dst = dst[:n]
				for _, fm := range ms {
					v.Match = fm
					dst = append(dst, v)
				}
				return dst, nil
			}
		}
		col := 0
		if errors.As(err, &e) {
			for f, c := range p.cols {
				if c != 0 && rules.Field(f).String() == e.Field {
					col = int(c) - 1
				}
			}
		}
		pe := p.errAt(col, "%v", err)
		pe.Err = err
		return dst[:n], pe
	}
	return dst, nil
}

// set makes field f of m match v under mask, set by the field of the line
// at col.
func (p *flowParser) set(m *rules.Match, f rules.Field, v, mask uint64, col int) {
	m.Set(f, v, mask)
	p.cols[f] = int32(col) + 1
	if f == rules.FieldEthType {
		p.arp = m.Exact(rules.FieldEthType, rules.EthTypeARP)
	}
}

// indexKeyword finds kw at a token start (beginning, or after ',' or space).
func indexKeyword(s, kw string) int {
	for off := 0; ; {
		j := strings.Index(s[off:], kw)
		if j < 0 {
			return -1
		}
		i := off + j
		if i == 0 || s[i-1] == ',' || s[i-1] == ' ' || s[i-1] == '\t' {
			return i
		}
		off = i + 1
	}
}

type shorthand struct {
	eth   uint16
	proto uint8 // 0: none
}

// shorthandOf returns the protocol shorthand named key (the shorthands
// map, by a switch: no hashing for the word most lines have).
func shorthandOf(key string) (shorthand, bool) {
	switch key {
	case "ip":
		return shorthand{rules.EthTypeIPv4, 0}, true
	case "tcp":
		return shorthand{rules.EthTypeIPv4, rules.IPProtoTCP}, true
	case "udp":
		return shorthand{rules.EthTypeIPv4, rules.IPProtoUDP}, true
	case "ipv6", "arp", "sctp", "icmp", "mpls", "mplsm", "tcp6", "udp6", "sctp6", "icmp6":
		sh := shorthands[key]
		return sh, true
	}
	return shorthand{}, false
}

var shorthands = map[string]shorthand{
	"ip": {rules.EthTypeIPv4, 0}, "ipv6": {rules.EthTypeIPv6, 0}, "arp": {rules.EthTypeARP, 0},
	"tcp": {rules.EthTypeIPv4, rules.IPProtoTCP}, "udp": {rules.EthTypeIPv4, rules.IPProtoUDP}, "sctp": {rules.EthTypeIPv4, rules.IPProtoSCTP}, "icmp": {rules.EthTypeIPv4, rules.IPProtoICMP},
	"mpls": {rules.EthTypeMPLS, 0}, "mplsm": {rules.EthTypeMPLSMulticast, 0},
	"tcp6": {rules.EthTypeIPv6, rules.IPProtoTCP}, "udp6": {rules.EthTypeIPv6, rules.IPProtoUDP}, "sctp6": {rules.EthTypeIPv6, rules.IPProtoSCTP}, "icmp6": {rules.EthTypeIPv6, rules.IPProtoICMPv6},
}

// tagFieldNames are the fields of MPLS labels and PBB I-TAGs, by the names
// ovs-ofctl gives them (pbb_isid and pbb_uca, which Open vSwitch does not
// know, by their OXM names).
var tagFieldNames = map[string]rules.Field{
	"mpls_label": rules.FieldMPLSLabel, "mpls_tc": rules.FieldMPLSTC, "mpls_bos": rules.FieldMPLSBoS,
	"pbb_isid": rules.FieldPBBISID, "pbb_uca": rules.FieldPBBUCA,
}

var flagNames = map[string]rules.FlowFlags{
	"send_flow_rem": rules.FlagSendFlowRem, "check_overlap": rules.FlagCheckOverlap, "reset_counts": rules.FlagResetCounts,
	"no_packet_counts": rules.FlagNoPktCounts, "no_byte_counts": rules.FlagNoBytCounts,
}

// The keys field reads ahead of its switch, as little-endian words.
const (
	keyNwSrc = 'n' | 'w'<<8 | '_'<<16 | 's'<<24 | 'r'<<32 | 'c'<<40
	keyNwDst = 'n' | 'w'<<8 | '_'<<16 | 'd'<<24 | 's'<<32 | 't'<<40
	keyTpSrc = 't' | 'p'<<8 | '_'<<16 | 's'<<24 | 'r'<<32 | 'c'<<40
	keyTpDst = 't' | 'p'<<8 | '_'<<16 | 'd'<<24 | 's'<<32 | 't'<<40
)

func (p *flowParser) field(u *rules.Update, m *rules.Match, key, val string, hasVal bool, col, vcol int) error {
	if !hasVal {
		if sh, ok := shorthandOf(key); ok {
			p.set(m, rules.FieldEthType, uint64(sh.eth), 0xffff, col)
			if sh.proto != 0 {
				p.set(m, rules.FieldIPProto, uint64(sh.proto), 0xff, col)
			}
			return nil
		}
		if f, ok := flagNames[key]; ok {
			u.Flags |= f
			return nil
		}
		return p.errAt(col, "expected field=value, a protocol (ip, tcp, udp, icmp, arp, ipv6, tcp6, udp6, ...) or a flag; found %q", key)
	}
	set := func(f rules.Field, v, mask uint64) { p.set(m, f, v, mask, col) }
	// The fields of most flows, as the switch below reads them, found by
	// one compare of a word each instead of its binary search of string
	// compares (a mispredicted branch or two a field).
	if len(key) == 6 {
		w := uint64(key[0]) | uint64(key[1])<<8 | uint64(key[2])<<16 | uint64(key[3])<<24 | uint64(key[4])<<32 | uint64(key[5])<<40
		switch {
		case (w == keyNwSrc || w == keyNwDst) && !p.arp:
			v, mk, err := p.ipv4(val, vcol)
			f := rules.FieldIPv4Src
			if w == keyNwDst {
				f = rules.FieldIPv4Dst
			}
			set(f, v, mk)
			return err
		case w == keyTpSrc || w == keyTpDst:
			v, mk, err := p.numMask(val, vcol, 16, key)
			f := rules.FieldL4Src
			if w == keyTpDst {
				f = rules.FieldL4Dst
			}
			set(f, v, mk)
			return err
		}
	}
	switch key {
	case "priority":
		v, err := p.num(val, vcol, 16, "priority")
		u.Priority = uint16(v)
		return err
	case "cookie":
		v, mk, err := p.numMask(val, vcol, 64, "cookie")
		u.Cookie = v
		if strings.Contains(val, "/") {
			u.CookieMask = mk
		}
		return err
	case "table":
		v, err := p.num(val, vcol, 8, "table")
		u.Table = uint8(v)
		return err
	case "idle_timeout", "hard_timeout":
		v, err := p.num(val, vcol, 16, key)
		if key == "idle_timeout" {
			u.IdleTimeout = uint16(v)
		} else {
			u.HardTimeout = uint16(v)
		}
		return err
	case "importance":
		// OpenFlow 1.4's eviction precedence; ovs-ofctl takes it on
		// adds and sends it only over 1.4 or later.
		v, err := p.num(val, vcol, 16, key)
		u.Importance = uint16(v)
		return err
	case "out_port":
		v, err := p.port(val, vcol)
		u.OutPort = v
		return err
	case "in_port":
		v, err := p.port(val, vcol)
		set(rules.FieldInPort, uint64(v), 0xffffffff)
		return err
	case "metadata":
		v, mk, err := p.numMask(val, vcol, 64, "metadata")
		set(rules.FieldMetadata, v, mk)
		return err
	case "dl_src", "eth_src", "dl_dst", "eth_dst":
		v, mk, err := p.macMask(val, vcol)
		f := rules.FieldEthSrc
		if strings.HasSuffix(key, "dst") {
			f = rules.FieldEthDst
		}
		set(f, v, mk)
		return err
	case "dl_type", "eth_type":
		v, err := p.num(val, vcol, 16, key)
		set(rules.FieldEthType, v, 0xffff)
		return err
	case "dl_vlan":
		v, err := p.num(val, vcol, 16, "VLAN id")
		if err != nil {
			return err
		}
		if v == 0xffff {
			set(rules.FieldVLANVID, 0, 0x1fff)
		} else if v >= 4096 {
			return p.errAt(vcol, "VLAN id %d out of range 0..4095 (or 0xffff for no VLAN)", v)
		} else {
			set(rules.FieldVLANVID, rules.VIDPresent|v, 0x1fff)
		}
		return nil
	case "dl_vlan_pcp", "vlan_pcp":
		v, err := p.num(val, vcol, 3, "VLAN priority")
		if err != nil {
			return err
		}
		set(rules.FieldVLANPCP, v, 7)
		if vv, vm := m.Get(rules.FieldVLANVID); vm&rules.VIDPresent == 0 {
			set(rules.FieldVLANVID, vv|rules.VIDPresent, vm|rules.VIDPresent)
		}
		return nil
	case "vlan_tci":
		v, mk, err := p.numMask(val, vcol, 16, "vlan_tci")
		if err != nil {
			return err
		}
		// What ovs-ofctl sends for it over OpenFlow 1.3 and 1.4, and
		// Open vSwitch then holds (nx_put_raw): vlan_vid with the id and
		// CFI bits of the mask, and vlan_pcp, exact, only if the id's
		// value is not 0 and the mask has priority bits. So
		// 0x5000/0x5000 is dl_vlan_pcp=2 and 0x2000/0xe000 matches all.
		v &= mk
		set(rules.FieldVLANVID, v&0x1fff, mk&0x1fff)
		if v&0x1fff != 0 && mk&0xe000 != 0 {
			set(rules.FieldVLANPCP, v>>13, 7)
		}
		return nil
	case "vlan_vid":
		v, mk, err := p.numMask(val, vcol, 13, "vlan_vid")
		set(rules.FieldVLANVID, v, mk)
		return err
	case "nw_src", "ip_src", "nw_dst", "ip_dst", "arp_spa", "arp_tpa":
		v, mk, err := p.ipv4(val, vcol)
		var f rules.Field
		switch key {
		case "nw_src", "ip_src":
			f = rules.FieldIPv4Src
		case "nw_dst", "ip_dst":
			f = rules.FieldIPv4Dst
		case "arp_spa":
			f = rules.FieldARPSPA
		default:
			f = rules.FieldARPTPA
		}
		if p.arp && (f == rules.FieldIPv4Src || f == rules.FieldIPv4Dst) {
			f = rules.FieldARPSPA
			if key == "nw_dst" || key == "ip_dst" {
				f = rules.FieldARPTPA
			}
		}
		set(f, v, mk)
		return err
	case "ipv6_src", "ipv6_dst", "tun_ipv6_src", "tun_ipv6_dst":
		hi, lo, mhi, mlo, err := p.ipv6(val, vcol)
		f := ipv6Field(key)
		m.Set128(f, hi, lo, mhi, mlo)
		p.cols[f] = int32(col) + 1
		return err
	case "nw_proto", "ip_proto":
		v, err := p.num(val, vcol, 8, key)
		if m.Exact(rules.FieldEthType, rules.EthTypeARP) {
			set(rules.FieldARPOp, v, 0xffff)
			return err
		}
		set(rules.FieldIPProto, v, 0xff)
		return err
	case "arp_op":
		v, err := p.num(val, vcol, 16, key)
		set(rules.FieldARPOp, v, 0xffff)
		return err
	case "nw_tos":
		v, err := p.num(val, vcol, 8, key)
		if err == nil && v&3 != 0 {
			return p.errAt(vcol, "nw_tos %d has ECN bits set; expected a multiple of 4", v)
		}
		set(rules.FieldIPDSCP, v>>2, 0x3f)
		return err
	case "ip_dscp":
		v, err := p.num(val, vcol, 6, key)
		set(rules.FieldIPDSCP, v, 0x3f)
		return err
	case "nw_ecn", "ip_ecn":
		v, err := p.num(val, vcol, 2, key)
		set(rules.FieldIPECN, v, 3)
		return err
	case "tp_src", "tcp_src", "udp_src", "sctp_src", "tp_dst", "tcp_dst", "udp_dst", "sctp_dst":
		v, mk, err := p.numMask(val, vcol, 16, key)
		f := rules.FieldL4Src
		if strings.HasSuffix(key, "dst") {
			f = rules.FieldL4Dst
		}
		set(f, v, mk)
		return err
	case "icmp_type", "icmpv4_type", "icmpv6_type", "icmp_code", "icmpv4_code", "icmpv6_code":
		v, err := p.num(val, vcol, 8, key)
		f := rules.FieldICMPType
		if strings.HasSuffix(key, "code") {
			f = rules.FieldICMPCode
		}
		set(f, v, 0xff)
		return err
	case "tcp_flags":
		v, mk, err := p.tcpFlags(val, vcol)
		set(rules.FieldTCPFlags, v, mk)
		return err
	case "mpls_label", "mpls_tc", "mpls_bos", "pbb_uca":
		f := tagFieldNames[key]
		v, err := p.num(val, vcol, f.Bits(), key)
		set(f, v, f.FullMask())
		return err
	case "pbb_isid":
		v, mk, err := p.numMask(val, vcol, 24, key)
		set(rules.FieldPBBISID, v, mk)
		return err
	case "arp_sha", "arp_tha", "nd_sll", "nd_tll":
		// ipv6_nd_sll and ipv6_nd_tll share arp_sha's and arp_tha's bits.
		v, mk, err := p.macMask(val, vcol)
		f := rules.FieldARPSHA
		if key == "arp_tha" || key == "nd_tll" {
			f = rules.FieldARPTHA
		}
		set(f, v, mk)
		return err
	case "ipv6_label":
		v, mk, err := p.numMask(val, vcol, 20, key)
		set(rules.FieldIPv6FLabel, v, mk)
		return err
	case "nd_target":
		hi, lo, mhi, mlo, err := p.ipv6(val, vcol)
		m.Set128(rules.FieldNDTarget, hi, lo, mhi, mlo)
		p.cols[rules.FieldNDTarget] = int32(col) + 1
		return err
	case "tun_id", "tunnel_id":
		v, mk, err := p.numMask(val, vcol, 64, key)
		set(rules.FieldTunnelID, v, mk)
		return err
	case "nw_ttl":
		v, err := p.num(val, vcol, 8, key)
		set(rules.FieldNwTTL, v, 0xff)
		return err
	case "ip_frag", "nw_frag":
		v, mk, ok := fragValue(val)
		if !ok {
			return p.errAt(vcol, "%s: unknown fragment type %q (valid types are no, yes, first, later, not_later)", key, val)
		}
		set(rules.FieldIPFrag, v, mk)
		return nil
	case "pkt_mark":
		v, mk, err := p.numMask(val, vcol, 32, key)
		set(rules.FieldPktMark, v, mk)
		return err
	case "tun_flags":
		v, mk, err := p.tunFlags(val, vcol)
		set(rules.FieldTunFlags, v, mk)
		return err
	case "tun_src", "tun_dst":
		v, mk, err := p.ipv4(val, vcol)
		f := rules.FieldTunSrc
		if key == "tun_dst" {
			f = rules.FieldTunDst
		}
		set(f, v, mk)
		return err
	case "tun_gbp_id":
		v, mk, err := p.numMask(val, vcol, 16, key)
		set(rules.FieldTunGbpID, v, mk)
		return err
	case "tun_gbp_flags":
		v, mk, err := p.numMask(val, vcol, 8, key)
		set(rules.FieldTunGbpFlags, v, mk)
		return err
	case "ipv6_exthdr":
		// OXM_OF_IPV6_EXTHDR, which ovs-ofctl does not know: 9 bits of
		// OFPIEH_* flags, maskable.
		v, mk, err := p.numMask(val, vcol, 9, key)
		set(rules.FieldIPv6Exthdr, v, mk)
		return err
	}
	if n, ok := regNumber(key, "reg", rules.NumRegs); ok {
		// A 32-bit register, one half of an xreg field.
		v, mk, err := p.numMask(val, vcol, 32, key)
		m.SetReg(n, uint32(v), uint32(mk))
		f, _ := rules.RegField(n)
		p.cols[f] = int32(col) + 1
		return err
	}
	if n, ok := regNumber(key, "xreg", rules.NumRegs/2); ok {
		v, mk, err := p.numMask(val, vcol, 64, key)
		set(rules.FieldXReg0+rules.Field(n), v, mk)
		return err
	}
	if n, ok := regNumber(key, "tun_metadata", 64); ok {
		return p.tunMetadata(m, n, key, val, col, vcol)
	}
	if connTrackField(key) {
		return p.errAt(col, "connection tracking (%s) is not supported", key)
	}
	if unsupportedField(key) {
		return p.errAt(col, "match field %s is not supported", key)
	}
	return p.errAt(col, "unknown field %q", key)
}

// regNumber reads key as prefix followed by a register number below n,
// as "reg3" is register 3.
func regNumber(key, prefix string, n int) (int, bool) {
	d, ok := strings.CutPrefix(key, prefix)
	if !ok || d == "" || len(d) > 1 && d[0] == '0' {
		return 0, false
	}
	i, err := strconv.Atoi(d)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// ipv6Field returns the field of the IPv6 address match key ipv6_src,
// ipv6_dst, tun_ipv6_src or tun_ipv6_dst.
func ipv6Field(key string) rules.Field {
	switch key {
	case "ipv6_src":
		return rules.FieldIPv6Src
	case "ipv6_dst":
		return rules.FieldIPv6Dst
	case "tun_ipv6_src":
		return rules.FieldTunIPv6Src
	}
	return rules.FieldTunIPv6Dst
}

// unsupportedField reports whether key is one of the Open vSwitch match
// fields that ofswitch knows by name and does not match on (see doc.go):
// xxreg0-3.
func unsupportedField(key string) bool {
	_, ok := regNumber(key, "xxreg", 4)
	return ok
}

// connTrackField reports whether key is one of Open vSwitch's connection
// tracking fields, which ofswitch does not support (see doc.go).
func connTrackField(key string) bool {
	switch key {
	case "ct_state", "ct_zone", "ct_mark", "ct_label", "ct_nw_proto", "ct_nw_src", "ct_nw_dst",
		"ct_ipv6_src", "ct_ipv6_dst", "ct_tp_src", "ct_tp_dst":
		return true
	}
	return false
}

// splitLines splits a file's text into lines, without a last empty one.
func splitLines(data []byte) []string {
	s := string(data)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

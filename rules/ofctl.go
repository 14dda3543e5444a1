package rules

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// DefaultPriority is the priority ovs-ofctl gives a flow that names none
// (OFP_DEFAULT_PRIORITY).
const DefaultPriority = 0x8000

// FlowParseOptions tune ParseFlows.
type FlowParseOptions struct {
	// FixPrereqs adds missing match prerequisites (see Match.FixPrereqs)
	// instead of rejecting the flow with OFPBMC_BAD_PREREQ; a flow whose
	// ports lack a protocol becomes two flows.
	FixPrereqs bool
	// NoActions accepts lines without actions= (ClassBench-ng's OpenFlow
	// sets); such flows get no instructions (drop).
	NoActions bool
}

// ParseFlows parses a flow file in ovs-ofctl add-flows syntax (fields are
// separated by commas and/or spaces, so ClassBench-ng's ", " works too). It
// returns the
// flows of the good lines and one *ParseError per bad line; blank lines and
// lines starting with # are skipped. Each Update's ID is its 1-based line
// number.
func ParseFlows(name string, data []byte, opt *FlowParseOptions) ([]Update, []error) {
	var o FlowParseOptions
	if opt != nil {
		o = *opt
	}
	lines := splitLines(data)
	// One flow a line, as a rule: growing the slice instead copied
	// 300-byte Updates over and over, in copies too long for the garbage
	// collector to interrupt (0.65 of the 0.9 s that 100K lines took).
	ups := make([]Update, 0, len(lines))
	var errs []error
	for i, line := range lines {
		trim := strings.TrimSpace(line)
		if trim == "" || trim[0] == '#' {
			continue
		}
		var err error
		if ups, err = parseFlowLine(ups, name, i+1, line, &o); err != nil {
			errs = append(errs, err)
		}
	}
	return ups, errs
}

// ParseFlow parses one flow in ovs-ofctl syntax.
func ParseFlow(s string) (Update, error) {
	us, err := parseFlowLine(nil, "flow", 1, s, &FlowParseOptions{})
	if err != nil {
		return Update{}, err
	}
	return us[0], nil
}

type flowParser struct {
	c   cursor
	opt *FlowParseOptions
}

func (p *flowParser) errAt(col int, format string, a ...any) *ParseError {
	return &ParseError{File: p.c.file, Line: p.c.line, Col: col + 1, Msg: fmt.Sprintf(format, a...)}
}

// parseFlowLine appends the flow of one line to dst (two flows when
// FixPrereqs splits it), or returns dst as it was and the line's error.
func parseFlowLine(dst []Update, name string, line int, s string, opt *FlowParseOptions) ([]Update, error) {
	p := &flowParser{c: cursor{file: name, line: line, s: s}, opt: opt}
	u := Update{Command: CmdAdd, Priority: DefaultPriority, ID: line}
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
		return dst, p.errAt(len(strings.TrimRight(s, " \t\r")), "expected actions=")
	}
	var m Match
	fieldCol := map[Field]int{}
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
		if err := p.field(&u, &m, fieldCol, key, val, hasVal, start, valCol); err != nil {
			return dst, err
		}
	}
	if actPos >= 0 {
		_, rest, _ := strings.Cut(s[actPos:], "=")
		col := actPos + strings.Index(s[actPos:], "=") + 1
		inst, err := p.actions(rest, col, &m)
		if err != nil {
			return dst, err
		}
		u.Instructions = inst
	}
	u.Match = m
	if err := m.Validate(); err != nil {
		var e *Error
		if opt.FixPrereqs && errors.As(err, &e) && e.Code == BadMatchBadPrereq && e.Type == ErrTypeBadMatch {
			ms, ferr := m.FixPrereqs()
			if ferr == nil {
				for _, fm := range ms {
					v := u
					v.Match = fm
					dst = append(dst, v)
				}
				return dst, nil
			}
		}
		col := 0
		if errors.As(err, &e) {
			for f, c := range fieldCol {
				if f.String() == e.Field {
					col = c
				}
			}
		}
		pe := p.errAt(col, "%v", err)
		pe.Err = err
		return dst, pe
	}
	return append(dst, u), nil
}

// indexKeyword finds kw at a token start (beginning, or after ',' or space).
func indexKeyword(s, kw string) int {
	for i := 0; i+len(kw) <= len(s); i++ {
		if s[i:i+len(kw)] == kw && (i == 0 || s[i-1] == ',' || s[i-1] == ' ' || s[i-1] == '\t') {
			return i
		}
	}
	return -1
}

func (p *flowParser) num(val string, col int, bits int, what string) (uint64, error) {
	base := 10
	s := val
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		base, s = 16, s[2:]
	}
	v, err := strconv.ParseUint(s, base, 64)
	if err != nil || s == "" {
		return 0, p.errAt(col, "expected %s (a number), found %q", what, val)
	}
	if bits < 64 && v >= 1<<bits {
		return 0, p.errAt(col, "%s %s does not fit in %d bits", what, val, bits)
	}
	return v, nil
}

func (p *flowParser) numMask(val string, col int, bits int, what string) (uint64, uint64, error) {
	vs, ms, masked := strings.Cut(val, "/")
	num := p.num
	if bits == 64 {
		num = p.num64
	}
	v, err := num(vs, col, bits, what)
	if err != nil {
		return 0, 0, err
	}
	full := uint64(1)<<bits - 1
	if bits == 64 {
		full = ^uint64(0)
	}
	if !masked {
		return v, full, nil
	}
	mk, err := num(ms, col+len(vs)+1, bits, what+" mask")
	return v, mk, err
}

// num64 is num for the 64-bit numbers (cookie, metadata), which ovs-ofctl
// also takes with a minus sign, as strtoull does: -1 is all ones, so
// cookie=0x5/-1 matches cookie 0x5 exactly.
func (p *flowParser) num64(val string, col int, _ int, what string) (uint64, error) {
	if rest, ok := strings.CutPrefix(val, "-"); ok {
		n, err := p.num(rest, col+1, 64, what)
		return -n, err
	}
	return p.num(val, col, 64, what)
}

// tcpFlagNames are the names of the 12 TCP flag bits, lowest first, as
// Open vSwitch writes them; the three reserved bits go by their values.
var tcpFlagNames = [12]string{"fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr", "ns", "[200]", "[400]", "[800]"}

// tcpFlags parses a tcp_flags value as ovs-ofctl does: a number with an
// optional mask (0x012, 0x2/0x12), flag names joined by '|' for an exact
// value (syn|ack), or '+' and '-' before each name for the flags that must
// be set and clear, the others wildcarded (+syn-ack).
func (p *flowParser) tcpFlags(val string, col int) (uint64, uint64, error) {
	if val == "" {
		return 0, 0, p.errAt(col, "expected tcp_flags, found nothing")
	}
	if val[0] >= '0' && val[0] <= '9' {
		return p.numMask(val, col, 12, "tcp_flags")
	}
	bit := func(name string, at int) (uint64, error) {
		for i, n := range tcpFlagNames {
			if n == name {
				return 1 << i, nil
			}
		}
		return 0, p.errAt(at, "unknown TCP flag %q (want fin, syn, rst, psh, ack, urg, ece, cwr, ns)", name)
	}
	if val[0] != '+' && val[0] != '-' {
		var v uint64
		at := col
		for _, name := range strings.Split(val, "|") {
			b, err := bit(name, at)
			if err != nil {
				return 0, 0, err
			}
			v |= b
			at += len(name) + 1
		}
		return v, FieldTCPFlags.FullMask(), nil
	}
	var v, mk uint64
	for i := 0; i < len(val); {
		j := i + 1
		for j < len(val) && val[j] != '+' && val[j] != '-' {
			j++
		}
		b, err := bit(val[i+1:j], col+i+1)
		if err != nil {
			return 0, 0, err
		}
		if mk&b != 0 {
			return 0, 0, p.errAt(col+i+1, "TCP flag %q given twice", val[i+1:j])
		}
		mk |= b
		if val[i] == '+' {
			v |= b
		}
		i = j
	}
	return v, mk, nil
}

func (p *flowParser) mac(val string, col int) (uint64, error) {
	hw, err := parseMAC(val)
	if err != nil {
		return 0, p.errAt(col, "expected an Ethernet address xx:xx:xx:xx:xx:xx, found %q", val)
	}
	return hw, nil
}

func parseMAC(s string) (uint64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 6 {
		return 0, ErrSyntax
	}
	var v uint64
	for _, x := range parts {
		if len(x) == 0 || len(x) > 2 {
			return 0, ErrSyntax
		}
		b, err := strconv.ParseUint(x, 16, 8)
		if err != nil {
			return 0, ErrSyntax
		}
		v = v<<8 | b
	}
	return v, nil
}

func (p *flowParser) macMask(val string, col int) (uint64, uint64, error) {
	vs, ms, masked := strings.Cut(val, "/")
	v, err := p.mac(vs, col)
	if err != nil || !masked {
		return v, 1<<48 - 1, err
	}
	m, err := p.mac(ms, col+len(vs)+1)
	return v, m, err
}

func (p *flowParser) ipv4(val string, col int) (uint64, uint64, error) {
	vs, ms, masked := strings.Cut(val, "/")
	a, err := netip.ParseAddr(vs)
	if err != nil || !a.Is4() {
		return 0, 0, p.errAt(col, "expected an IPv4 address a.b.c.d[/len|/mask], found %q", val)
	}
	b := a.As4()
	v := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	if !masked {
		return v, 0xffffffff, nil
	}
	if n, err := strconv.Atoi(ms); err == nil {
		if n < 0 || n > 32 {
			return 0, 0, p.errAt(col+len(vs)+1, "prefix length %d out of range 0..32", n)
		}
		return v, prefixMask(32, n), nil
	}
	ma, err := netip.ParseAddr(ms)
	if err != nil || !ma.Is4() {
		return 0, 0, p.errAt(col+len(vs)+1, "expected a prefix length or an IPv4 mask, found %q", ms)
	}
	mb := ma.As4()
	return v, uint64(mb[0])<<24 | uint64(mb[1])<<16 | uint64(mb[2])<<8 | uint64(mb[3]), nil
}

func (p *flowParser) ipv6(val string, col int) (hi, lo, mhi, mlo uint64, err error) {
	vs, ms, masked := strings.Cut(val, "/")
	a, perr := netip.ParseAddr(vs)
	if perr != nil || !a.Is6() || a.Is4In6() && false {
		return 0, 0, 0, 0, p.errAt(col, "expected an IPv6 address[/len], found %q", val)
	}
	b := a.As16()
	hi, lo = be64(b[:8]), be64(b[8:])
	mhi, mlo = ^uint64(0), ^uint64(0)
	if masked {
		n, aerr := strconv.Atoi(ms)
		if aerr != nil {
			ma, merr := netip.ParseAddr(ms)
			if merr != nil || !ma.Is6() {
				return 0, 0, 0, 0, p.errAt(col+len(vs)+1, "expected a prefix length or an IPv6 mask, found %q", ms)
			}
			mb := ma.As16()
			mhi, mlo = be64(mb[:8]), be64(mb[8:])
		} else {
			if n < 0 || n > 128 {
				return 0, 0, 0, 0, p.errAt(col+len(vs)+1, "prefix length %d out of range 0..128", n)
			}
			var m Match
			m.SetPrefix128(FieldIPv6Src, 0, 0, n)
			mhi, mlo = m.Mask.Get128(FieldIPv6Src)
		}
	}
	return hi, lo, mhi, mlo, nil
}

func be64(b []byte) uint64 {
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return v
}

var portNames = map[string]uint32{
	"IN_PORT": PortInPort, "TABLE": PortTable, "NORMAL": PortNormal, "FLOOD": PortFlood,
	"ALL": PortAll, "CONTROLLER": PortController, "LOCAL": PortLocal, "ANY": PortAny, "NONE": PortAny,
}

func (p *flowParser) port(val string, col int) (uint32, error) {
	if v, ok := portNames[strings.ToUpper(val)]; ok {
		return v, nil
	}
	v, err := p.num(val, col, 32, "port number")
	return uint32(v), err
}

type shorthand struct {
	eth   uint16
	proto uint8 // 0: none
}

var shorthands = map[string]shorthand{
	"ip": {EthTypeIPv4, 0}, "ipv6": {EthTypeIPv6, 0}, "arp": {EthTypeARP, 0},
	"tcp": {EthTypeIPv4, IPProtoTCP}, "udp": {EthTypeIPv4, IPProtoUDP}, "sctp": {EthTypeIPv4, IPProtoSCTP}, "icmp": {EthTypeIPv4, IPProtoICMP},
	"tcp6": {EthTypeIPv6, IPProtoTCP}, "udp6": {EthTypeIPv6, IPProtoUDP}, "sctp6": {EthTypeIPv6, IPProtoSCTP}, "icmp6": {EthTypeIPv6, IPProtoICMPv6},
}

var flagNames = map[string]FlowFlags{
	"send_flow_rem": FlagSendFlowRem, "check_overlap": FlagCheckOverlap, "reset_counts": FlagResetCounts,
	"no_packet_counts": FlagNoPktCounts, "no_byte_counts": FlagNoBytCounts,
}

func (p *flowParser) field(u *Update, m *Match, cols map[Field]int, key, val string, hasVal bool, col, vcol int) error {
	if !hasVal {
		if sh, ok := shorthands[key]; ok {
			m.SetExact(FieldEthType, uint64(sh.eth))
			cols[FieldEthType] = col
			if sh.proto != 0 {
				m.SetExact(FieldIPProto, uint64(sh.proto))
				cols[FieldIPProto] = col
			}
			return nil
		}
		if f, ok := flagNames[key]; ok {
			u.Flags |= f
			return nil
		}
		return p.errAt(col, "expected field=value, a protocol (ip, tcp, udp, icmp, arp, ipv6, tcp6, udp6, ...) or a flag; found %q", key)
	}
	set := func(f Field, v, mask uint64) {
		m.Set(f, v, mask)
		cols[f] = col
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
		set(FieldInPort, uint64(v), 0xffffffff)
		return err
	case "metadata":
		v, mk, err := p.numMask(val, vcol, 64, "metadata")
		set(FieldMetadata, v, mk)
		return err
	case "dl_src", "eth_src", "dl_dst", "eth_dst":
		v, mk, err := p.macMask(val, vcol)
		f := FieldEthSrc
		if strings.HasSuffix(key, "dst") {
			f = FieldEthDst
		}
		set(f, v, mk)
		return err
	case "dl_type", "eth_type":
		v, err := p.num(val, vcol, 16, key)
		set(FieldEthType, v, 0xffff)
		return err
	case "dl_vlan":
		v, err := p.num(val, vcol, 16, "VLAN id")
		if err != nil {
			return err
		}
		if v == 0xffff {
			set(FieldVLANVID, 0, 0x1fff)
		} else if v >= 4096 {
			return p.errAt(vcol, "VLAN id %d out of range 0..4095 (or 0xffff for no VLAN)", v)
		} else {
			set(FieldVLANVID, VIDPresent|v, 0x1fff)
		}
		return nil
	case "dl_vlan_pcp", "vlan_pcp":
		v, err := p.num(val, vcol, 3, "VLAN priority")
		if err != nil {
			return err
		}
		set(FieldVLANPCP, v, 7)
		if vv, vm := m.Get(FieldVLANVID); vm&VIDPresent == 0 {
			set(FieldVLANVID, vv|VIDPresent, vm|VIDPresent)
		}
		return nil
	case "vlan_tci":
		v, mk, err := p.numMask(val, vcol, 16, "vlan_tci")
		if err != nil {
			return err
		}
		pm := mk >> 13
		if pm != 0 && pm != 7 {
			return p.errAt(vcol, "vlan_tci mask %#x: the priority bits must be all or none", mk)
		}
		set(FieldVLANVID, v&0x1fff, mk&0x1fff)
		if pm != 0 {
			set(FieldVLANPCP, v>>13, 7)
		}
		return nil
	case "vlan_vid":
		v, mk, err := p.numMask(val, vcol, 13, "vlan_vid")
		set(FieldVLANVID, v, mk)
		return err
	case "nw_src", "ip_src", "nw_dst", "ip_dst", "arp_spa", "arp_tpa":
		v, mk, err := p.ipv4(val, vcol)
		f := map[string]Field{"nw_src": FieldIPv4Src, "ip_src": FieldIPv4Src, "nw_dst": FieldIPv4Dst, "ip_dst": FieldIPv4Dst, "arp_spa": FieldARPSPA, "arp_tpa": FieldARPTPA}[key]
		if m.Exact(FieldEthType, EthTypeARP) && (f == FieldIPv4Src || f == FieldIPv4Dst) {
			f = map[Field]Field{FieldIPv4Src: FieldARPSPA, FieldIPv4Dst: FieldARPTPA}[f]
		}
		set(f, v, mk)
		return err
	case "ipv6_src", "ipv6_dst":
		hi, lo, mhi, mlo, err := p.ipv6(val, vcol)
		f := FieldIPv6Src
		if key == "ipv6_dst" {
			f = FieldIPv6Dst
		}
		m.Set128(f, hi, lo, mhi, mlo)
		cols[f] = col
		return err
	case "nw_proto", "ip_proto":
		v, err := p.num(val, vcol, 8, key)
		if m.Exact(FieldEthType, EthTypeARP) {
			set(FieldARPOp, v, 0xffff)
			return err
		}
		set(FieldIPProto, v, 0xff)
		return err
	case "arp_op":
		v, err := p.num(val, vcol, 16, key)
		set(FieldARPOp, v, 0xffff)
		return err
	case "nw_tos":
		v, err := p.num(val, vcol, 8, key)
		if err == nil && v&3 != 0 {
			return p.errAt(vcol, "nw_tos %d has ECN bits set; expected a multiple of 4", v)
		}
		set(FieldIPDSCP, v>>2, 0x3f)
		return err
	case "ip_dscp":
		v, err := p.num(val, vcol, 6, key)
		set(FieldIPDSCP, v, 0x3f)
		return err
	case "nw_ecn", "ip_ecn":
		v, err := p.num(val, vcol, 2, key)
		set(FieldIPECN, v, 3)
		return err
	case "tp_src", "tcp_src", "udp_src", "sctp_src", "tp_dst", "tcp_dst", "udp_dst", "sctp_dst":
		v, mk, err := p.numMask(val, vcol, 16, key)
		f := FieldL4Src
		if strings.HasSuffix(key, "dst") {
			f = FieldL4Dst
		}
		set(f, v, mk)
		return err
	case "icmp_type", "icmpv4_type", "icmpv6_type", "icmp_code", "icmpv4_code", "icmpv6_code":
		v, err := p.num(val, vcol, 8, key)
		f := FieldICMPType
		if strings.HasSuffix(key, "code") {
			f = FieldICMPCode
		}
		set(f, v, 0xff)
		return err
	case "tcp_flags":
		v, mk, err := p.tcpFlags(val, vcol)
		set(FieldTCPFlags, v, mk)
		return err
	case "arp_sha", "arp_tha":
		v, mk, err := p.macMask(val, vcol)
		f := FieldARPSHA
		if key == "arp_tha" {
			f = FieldARPTHA
		}
		set(f, v, mk)
		return err
	}
	return p.errAt(col, "unknown field %q", key)
}

// splitTop splits s at commas outside parentheses, returning each piece
// with its offset.
func splitTop(s string) ([]string, []int) {
	var parts []string
	var offs []int
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' && depth == 0 {
			parts = append(parts, s[start:i])
			offs = append(offs, start)
			start = i + 1
			continue
		}
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	return parts, offs
}

// actions parses an ovs-ofctl action list into instructions.
func (p *flowParser) actions(s string, col int, m *Match) ([]Instruction, error) {
	s = strings.TrimRight(s, " \t\r")
	var apply []Action
	var out []Instruction
	var gotoTable *Instruction
	var meta *Instruction
	var write *Instruction
	clearActs := false
	if strings.TrimSpace(s) == "" {
		return nil, p.errAt(col, "expected an action list (or drop)")
	}
	parts, offs := splitTop(s)
	if len(parts) > 1 {
		for i, a := range parts {
			if strings.TrimSpace(a) == "drop" {
				return nil, p.errAt(col+offs[i], "\"drop\" must not be accompanied by any other action or instruction")
			}
		}
	}
	for i, a := range parts {
		acol := col + offs[i]
		a = strings.TrimSpace(a)
		name, arg, hasArg := strings.Cut(a, ":")
		if po := strings.IndexByte(a, '('); po >= 0 && (!hasArg || po < strings.IndexByte(a, ':')) {
			name, arg, _ = strings.Cut(a, "(")
			arg = strings.TrimSuffix(arg, ")")
			hasArg = true
		}
		lname := strings.ToLower(name)
		switch {
		case lname == "drop" && !hasArg:
		case lname == "output" || lname == "out":
			port, err := p.port(arg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, Action{Kind: ActionOutput, Port: port})
		case lname == "controller":
			ml := uint64(ControllerMaxLenNoBuffer)
			if hasArg {
				v, err := p.num(strings.TrimPrefix(arg, "max_len="), acol+len(name)+1, 16, "controller max_len")
				if err != nil {
					return nil, err
				}
				ml = v
			}
			apply = append(apply, Action{Kind: ActionOutput, Port: PortController, MaxLen: uint16(ml)})
		case !hasArg && (lname == "flood" || lname == "all" || lname == "in_port" || lname == "normal" || lname == "local" || lname == "table"):
			apply = append(apply, Action{Kind: ActionOutput, Port: portNames[strings.ToUpper(name)]})
		case !hasArg && isNumber(a):
			port, err := p.port(a, acol)
			if err != nil {
				return nil, err
			}
			apply = append(apply, Action{Kind: ActionOutput, Port: port})
		case lname == "strip_vlan" || lname == "pop_vlan":
			apply = append(apply, Action{Kind: ActionPopVLAN})
		case lname == "push_vlan":
			v, err := p.num(arg, acol+len(name)+1, 16, "push_vlan ethertype")
			if err != nil {
				return nil, err
			}
			apply = append(apply, Action{Kind: ActionPushVLAN, EthType: uint16(v)})
		case lname == "mod_vlan_vid":
			v, err := p.num(arg, acol+len(name)+1, 12, "VLAN id")
			if err != nil {
				return nil, err
			}
			if vv, vm := m.Get(FieldVLANVID); !(vm&VIDPresent != 0 && vv&VIDPresent != 0) {
				apply = append(apply, Action{Kind: ActionPushVLAN, EthType: EthTypeVLAN})
			}
			apply = append(apply, Action{Kind: ActionSetField, Field: FieldVLANVID, Value: [2]uint64{0, VIDPresent | v}})
		case lname == "dec_ttl":
			apply = append(apply, Action{Kind: ActionDecNwTTL})
		case lname == "group":
			v, err := p.num(arg, acol+len(name)+1, 32, "group id")
			if err != nil {
				return nil, err
			}
			apply = append(apply, Action{Kind: ActionGroup, Group: uint32(v)})
		case lname == "set_queue":
			v, err := p.num(arg, acol+len(name)+1, 32, "queue id")
			if err != nil {
				return nil, err
			}
			apply = append(apply, Action{Kind: ActionSetQueue, Queue: uint32(v)})
		case lname == "set_field" || lname == "load" && false:
			act, err := p.setField(arg, acol+len(name)+1)
			if err != nil {
				return nil, err
			}
			apply = append(apply, act)
		case lname == "goto_table":
			v, err := p.num(arg, acol+len(name)+1, 8, "table")
			if err != nil {
				return nil, err
			}
			gotoTable = &Instruction{Kind: InstGotoTable, Table: uint8(v)}
		case lname == "write_metadata":
			v, mk, err := p.numMask(arg, acol+len(name)+1, 64, "metadata")
			if err != nil {
				return nil, err
			}
			meta = &Instruction{Kind: InstWriteMetadata, Metadata: v, MetadataMask: mk}
		case lname == "clear_actions":
			clearActs = true
		case lname == "write_actions":
			sub, err := p.actions(arg, acol+len(name)+1, m)
			if err != nil {
				return nil, err
			}
			var acts []Action
			for _, in := range sub {
				if in.Kind != InstApplyActions {
					return nil, p.errAt(acol, "write_actions takes actions only")
				}
				acts = append(acts, in.Actions...)
			}
			write = &Instruction{Kind: InstWriteActions, Actions: acts}
		default:
			return nil, p.errAt(acol, "unknown action %q; expected output, drop, CONTROLLER[:len], FLOOD, ALL, IN_PORT, NORMAL, LOCAL, set_field, mod_vlan_vid, strip_vlan, push_vlan, pop_vlan, dec_ttl, group, goto_table, write_metadata, write_actions or clear_actions", a)
		}
	}
	if len(apply) > 0 {
		out = append(out, Instruction{Kind: InstApplyActions, Actions: apply})
	}
	if clearActs {
		out = append(out, Instruction{Kind: InstClearActions})
	}
	if write != nil {
		out = append(out, *write)
	}
	if meta != nil {
		out = append(out, *meta)
	}
	if gotoTable != nil {
		out = append(out, *gotoTable)
	}
	return out, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 0, 32)
	return err == nil
}

var setFieldNames = map[string]Field{
	"eth_dst": FieldEthDst, "eth_src": FieldEthSrc, "dl_dst": FieldEthDst, "dl_src": FieldEthSrc,
	"vlan_vid": FieldVLANVID, "vlan_pcp": FieldVLANPCP, "ip_dscp": FieldIPDSCP, "ip_ecn": FieldIPECN,
	"ip_src": FieldIPv4Src, "ip_dst": FieldIPv4Dst, "nw_src": FieldIPv4Src, "nw_dst": FieldIPv4Dst,
	"ipv6_src": FieldIPv6Src, "ipv6_dst": FieldIPv6Dst,
	"tcp_src": FieldL4Src, "tcp_dst": FieldL4Dst, "udp_src": FieldL4Src, "udp_dst": FieldL4Dst,
	"sctp_src": FieldL4Src, "sctp_dst": FieldL4Dst, "tp_src": FieldL4Src, "tp_dst": FieldL4Dst,
	"metadata": FieldMetadata, "arp_op": FieldARPOp, "arp_spa": FieldARPSPA, "arp_tpa": FieldARPTPA,
	"arp_sha": FieldARPSHA, "arp_tha": FieldARPTHA, "icmp_type": FieldICMPType, "icmp_code": FieldICMPCode,
	"icmpv4_type": FieldICMPType, "icmpv4_code": FieldICMPCode,
}

func (p *flowParser) setField(arg string, col int) (Action, error) {
	vs, fname, ok := strings.Cut(arg, "->")
	if !ok {
		return Action{}, p.errAt(col, "expected set_field:value->field, found %q", arg)
	}
	fcol := col + len(vs) + 2
	f, ok := setFieldNames[fname]
	if !ok {
		return Action{}, p.errAt(fcol, "unknown set_field field %q", fname)
	}
	a := Action{Kind: ActionSetField, Field: f}
	switch f {
	case FieldEthDst, FieldEthSrc, FieldARPSHA, FieldARPTHA:
		v, err := p.mac(vs, col)
		a.Value[1] = v
		return a, err
	case FieldIPv4Src, FieldIPv4Dst, FieldARPSPA, FieldARPTPA:
		v, mk, err := p.ipv4(vs, col)
		if err == nil && mk != 0xffffffff {
			return a, p.errAt(col, "set_field takes an address, not a prefix")
		}
		a.Value[1] = v
		return a, err
	case FieldIPv6Src, FieldIPv6Dst:
		hi, lo, _, _, err := p.ipv6(vs, col)
		a.Value = [2]uint64{hi, lo}
		return a, err
	}
	v, err := p.num(vs, col, f.Bits(), fname+" value")
	a.Value[1] = v
	return a, err
}

// --- printing ---

// FormatMatch returns the match and priority the way ovs-ofctl dump-flows
// prints them: "priority=N," (omitted for the default priority), a protocol
// shorthand, then the fields in Open vSwitch's order, joined by commas.
func FormatMatch(m *Match, priority uint16) string {
	var parts []string
	if priority != DefaultPriority {
		parts = append(parts, fmt.Sprintf("priority=%d", priority))
	}
	eth, ethMask := m.Get(FieldEthType)
	proto, protoMask := m.Get(FieldIPProto)
	skipType, skipProto := false, false
	if ethMask == 0xffff {
		var sh string
		switch eth {
		case EthTypeIPv4:
			sh = "ip"
			if protoMask == 0xff {
				switch proto {
				case IPProtoICMP:
					sh, skipProto = "icmp", true
				case IPProtoTCP:
					sh, skipProto = "tcp", true
				case IPProtoUDP:
					sh, skipProto = "udp", true
				case IPProtoSCTP:
					sh, skipProto = "sctp", true
				}
			}
		case EthTypeIPv6:
			sh = "ipv6"
			if protoMask == 0xff {
				switch proto {
				case IPProtoICMPv6:
					sh, skipProto = "icmp6", true
				case IPProtoTCP:
					sh, skipProto = "tcp6", true
				case IPProtoUDP:
					sh, skipProto = "udp6", true
				case IPProtoSCTP:
					sh, skipProto = "sctp6", true
				}
			}
		case EthTypeARP:
			sh = "arp"
		}
		if sh != "" {
			parts = append(parts, sh)
			skipType = true
		}
	}
	if v, mk := m.Get(FieldMetadata); mk != 0 {
		parts = append(parts, "metadata="+hexMasked(v, mk, ^uint64(0)))
	}
	if v, mk := m.Get(FieldInPort); mk != 0 {
		parts = append(parts, "in_port="+portString(uint32(v)))
	}
	vid, vidMask := m.Get(FieldVLANVID)
	pcp, pcpMask := m.Get(FieldVLANPCP)
	if vidMask != 0 || pcpMask != 0 {
		tci, tciMask := pcp<<13|vid, pcpMask<<13|vidMask
		vm, cfi := vidMask&0xfff, vidMask&VIDPresent
		if cfi != 0 && vid&VIDPresent != 0 && (vm == 0 || vm == 0xfff) && (vm != 0 || pcpMask != 0) {
			if vm != 0 {
				parts = append(parts, fmt.Sprintf("dl_vlan=%d", vid&0xfff))
			}
			if pcpMask != 0 {
				parts = append(parts, fmt.Sprintf("dl_vlan_pcp=%d", pcp))
			}
		} else if tciMask == 0xffff {
			parts = append(parts, fmt.Sprintf("vlan_tci=0x%04x", tci))
		} else {
			parts = append(parts, fmt.Sprintf("vlan_tci=0x%04x/0x%04x", tci, tciMask))
		}
	}
	if v, mk := m.Get(FieldEthSrc); mk != 0 {
		parts = append(parts, "dl_src="+macMasked(v, mk))
	}
	if v, mk := m.Get(FieldEthDst); mk != 0 {
		parts = append(parts, "dl_dst="+macMasked(v, mk))
	}
	if ethMask != 0 && !skipType {
		parts = append(parts, fmt.Sprintf("dl_type=0x%04x", eth))
	}
	isARP := ethMask == 0xffff && eth == EthTypeARP
	if m.Has(FieldIPv6Src) {
		parts = append(parts, "ipv6_src="+ipv6Masked(m, FieldIPv6Src))
	}
	if m.Has(FieldIPv6Dst) {
		parts = append(parts, "ipv6_dst="+ipv6Masked(m, FieldIPv6Dst))
	}
	if v, mk := m.Get(FieldIPv4Src); mk != 0 {
		parts = append(parts, "nw_src="+ipv4Masked(v, mk))
	}
	if v, mk := m.Get(FieldIPv4Dst); mk != 0 {
		parts = append(parts, "nw_dst="+ipv4Masked(v, mk))
	}
	if v, mk := m.Get(FieldARPSPA); mk != 0 {
		parts = append(parts, "arp_spa="+ipv4Masked(v, mk))
	}
	if v, mk := m.Get(FieldARPTPA); mk != 0 {
		parts = append(parts, "arp_tpa="+ipv4Masked(v, mk))
	}
	if isARP {
		if v, mk := m.Get(FieldARPOp); mk != 0 {
			parts = append(parts, fmt.Sprintf("arp_op=%d", v))
		}
	} else if protoMask != 0 && !skipProto {
		parts = append(parts, fmt.Sprintf("nw_proto=%d", proto))
	}
	if !isARP {
		if v, mk := m.Get(FieldARPOp); mk != 0 {
			parts = append(parts, fmt.Sprintf("arp_op=%d", v))
		}
	}
	if v, mk := m.Get(FieldARPSHA); mk != 0 {
		parts = append(parts, "arp_sha="+macMasked(v, mk))
	}
	if v, mk := m.Get(FieldARPTHA); mk != 0 {
		parts = append(parts, "arp_tha="+macMasked(v, mk))
	}
	if v, mk := m.Get(FieldIPDSCP); mk != 0 {
		parts = append(parts, fmt.Sprintf("nw_tos=%d", v<<2))
	}
	if v, mk := m.Get(FieldIPECN); mk != 0 {
		parts = append(parts, fmt.Sprintf("nw_ecn=%d", v))
	}
	if v, mk := m.Get(FieldICMPType); mk != 0 {
		parts = append(parts, fmt.Sprintf("icmp_type=%d", v))
	}
	if v, mk := m.Get(FieldICMPCode); mk != 0 {
		parts = append(parts, fmt.Sprintf("icmp_code=%d", v))
	}
	if v, mk := m.Get(FieldL4Src); mk != 0 {
		parts = append(parts, "tp_src="+portMasked(v, mk))
	}
	if v, mk := m.Get(FieldL4Dst); mk != 0 {
		parts = append(parts, "tp_dst="+portMasked(v, mk))
	}
	if v, mk := m.Get(FieldTCPFlags); mk != 0 {
		parts = append(parts, "tcp_flags="+tcpFlagsMasked(v, mk))
	}
	return strings.Join(parts, ",")
}

// tcpFlagsMasked writes TCP flags as Open vSwitch does: an exact value as
// the names of its flags joined by '|' (0 for none), a masked one as +name
// or -name for each flag of the mask, lowest first.
func tcpFlagsMasked(v, mk uint64) string {
	var b strings.Builder
	if mk == FieldTCPFlags.FullMask() {
		if v == 0 {
			return "0"
		}
		for i, n := range tcpFlagNames {
			if v&(1<<i) != 0 {
				if b.Len() > 0 {
					b.WriteByte('|')
				}
				b.WriteString(n)
			}
		}
		return b.String()
	}
	for i, n := range tcpFlagNames {
		if mk&(1<<i) == 0 {
			continue
		}
		if v&(1<<i) != 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		b.WriteString(n)
	}
	return b.String()
}

func hexMasked(v, mk, full uint64) string {
	if mk == full {
		return fmt.Sprintf("%#x", v)
	}
	return fmt.Sprintf("%#x/%#x", v, mk)
}

func portMasked(v, mk uint64) string {
	if mk == 0xffff {
		return strconv.FormatUint(v, 10)
	}
	return fmt.Sprintf("%#x/%#x", v, mk)
}

func macString(v uint64) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func macMasked(v, mk uint64) string {
	if mk == 1<<48-1 {
		return macString(v)
	}
	return macString(v) + "/" + macString(mk)
}

func ipv4String(v uint64) string {
	return fmt.Sprintf("%d.%d.%d.%d", byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func ipv4Masked(v, mk uint64) string {
	if mk == 0xffffffff {
		return ipv4String(v)
	}
	for n := 0; n <= 32; n++ {
		if prefixMask(32, n) == mk {
			return fmt.Sprintf("%s/%d", ipv4String(v), n)
		}
	}
	return ipv4String(v) + "/" + ipv4String(mk)
}

func ipv6Addr(hi, lo uint64) netip.Addr {
	var b [16]byte
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	return netip.AddrFrom16(b)
}

func ipv6Masked(m *Match, f Field) string {
	hi, lo := m.Key.Get128(f)
	mhi, mlo := m.Mask.Get128(f)
	a := ipv6Addr(hi, lo).String()
	if mhi == ^uint64(0) && mlo == ^uint64(0) {
		return a
	}
	for n := 0; n <= 128; n++ {
		var t Match
		t.SetPrefix128(f, 0, 0, n)
		if thi, tlo := t.Mask.Get128(f); thi == mhi && tlo == mlo {
			return fmt.Sprintf("%s/%d", a, n)
		}
	}
	return a + "/" + ipv6Addr(mhi, mlo).String()
}

func portString(p uint32) string {
	for name, v := range map[string]uint32{"IN_PORT": PortInPort, "TABLE": PortTable, "NORMAL": PortNormal,
		"FLOOD": PortFlood, "ALL": PortAll, "CONTROLLER": PortController, "LOCAL": PortLocal, "ANY": PortAny} {
		if v == p {
			return name
		}
	}
	return strconv.FormatUint(uint64(p), 10)
}

// FormatActions returns the instructions the way ovs-ofctl prints them
// after "actions=" ("drop" for none).
func FormatActions(ins []Instruction) string {
	var parts []string
	order := []InstructionKind{InstMeter, InstApplyActions, InstClearActions, InstWriteActions, InstWriteMetadata, InstGotoTable}
	for _, kind := range order {
		for _, in := range ins {
			if in.Kind != kind {
				continue
			}
			switch kind {
			case InstMeter:
				parts = append(parts, fmt.Sprintf("meter:%d", in.Meter))
			case InstApplyActions:
				for _, a := range in.Actions {
					parts = append(parts, formatAction(&a))
				}
			case InstClearActions:
				parts = append(parts, "clear_actions")
			case InstWriteActions:
				var sub []string
				for _, a := range in.Actions {
					sub = append(sub, formatAction(&a))
				}
				parts = append(parts, "write_actions("+strings.Join(sub, ",")+")")
			case InstWriteMetadata:
				parts = append(parts, "write_metadata:"+hexMasked(in.Metadata, in.MetadataMask, ^uint64(0)))
			case InstGotoTable:
				parts = append(parts, fmt.Sprintf("goto_table:%d", in.Table))
			}
		}
	}
	if len(parts) == 0 {
		return "drop"
	}
	return strings.Join(parts, ",")
}

var setFieldPrint = map[Field]string{
	FieldEthDst: "eth_dst", FieldEthSrc: "eth_src", FieldVLANVID: "vlan_vid", FieldVLANPCP: "vlan_pcp",
	FieldIPDSCP: "ip_dscp", FieldIPECN: "ip_ecn", FieldIPv4Src: "ip_src", FieldIPv4Dst: "ip_dst",
	FieldIPv6Src: "ipv6_src", FieldIPv6Dst: "ipv6_dst", FieldL4Src: "tcp_src", FieldL4Dst: "tcp_dst",
	FieldMetadata: "metadata", FieldARPOp: "arp_op", FieldARPSPA: "arp_spa", FieldARPTPA: "arp_tpa",
	FieldARPSHA: "arp_sha", FieldARPTHA: "arp_tha", FieldICMPType: "icmp_type", FieldICMPCode: "icmp_code",
}

func formatAction(a *Action) string {
	switch a.Kind {
	case ActionOutput:
		switch a.Port {
		case PortController:
			return fmt.Sprintf("CONTROLLER:%d", a.MaxLen)
		case PortInPort, PortTable, PortNormal, PortFlood, PortAll, PortLocal:
			return portString(a.Port)
		}
		return fmt.Sprintf("output:%d", a.Port)
	case ActionGroup:
		return fmt.Sprintf("group:%d", a.Group)
	case ActionSetQueue:
		return fmt.Sprintf("set_queue:%d", a.Queue)
	case ActionPushVLAN:
		return fmt.Sprintf("push_vlan:0x%04x", a.EthType)
	case ActionPopVLAN:
		return "pop_vlan"
	case ActionDecNwTTL:
		return "dec_ttl"
	case ActionSetField:
		var v string
		switch a.Field {
		case FieldEthDst, FieldEthSrc, FieldARPSHA, FieldARPTHA:
			v = macString(a.Value[1])
		case FieldIPv4Src, FieldIPv4Dst, FieldARPSPA, FieldARPTPA:
			v = ipv4String(a.Value[1])
		case FieldIPv6Src, FieldIPv6Dst:
			v = ipv6Addr(a.Value[0], a.Value[1]).String()
		case FieldMetadata:
			v = fmt.Sprintf("%#x", a.Value[1])
		default:
			v = strconv.FormatUint(a.Value[1], 10)
		}
		return "set_field:" + v + "->" + setFieldPrint[a.Field]
	}
	return fmt.Sprintf("action(%d)", a.Kind)
}

// FlowStats are the counters dump-flows prints for a flow.
type FlowStats struct {
	Duration time.Duration
	Packets  uint64
	Bytes    uint64
}

// FormatFlow returns one line as ovs-ofctl -O OpenFlow13 dump-flows prints
// it for a flow in table, with its leading space:
//
//	cookie=0x0, duration=1.234s, table=0, n_packets=0, n_bytes=0, priority=5,ip actions=drop
func FormatFlow(table uint8, m *Match, priority uint16, cookie uint64, idle, hard uint16, flags FlowFlags, ins []Instruction, st FlowStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, " cookie=%#x, duration=%.3fs, table=%d, n_packets=%d, n_bytes=%d, ", cookie, st.Duration.Seconds(), table, st.Packets, st.Bytes)
	if cookie == 0 {
		b.Reset()
		fmt.Fprintf(&b, " cookie=0x0, duration=%.3fs, table=%d, n_packets=%d, n_bytes=%d, ", st.Duration.Seconds(), table, st.Packets, st.Bytes)
	}
	if idle != 0 {
		fmt.Fprintf(&b, "idle_timeout=%d, ", idle)
	}
	if hard != 0 {
		fmt.Fprintf(&b, "hard_timeout=%d, ", hard)
	}
	for _, f := range []struct {
		f    FlowFlags
		name string
	}{{FlagSendFlowRem, "send_flow_rem"}, {FlagCheckOverlap, "check_overlap"}, {FlagResetCounts, "reset_counts"}, {FlagNoPktCounts, "no_packet_counts"}, {FlagNoBytCounts, "no_byte_counts"}} {
		if flags&f.f != 0 {
			b.WriteString(f.name + " ")
		}
	}
	if ms := FormatMatch(m, priority); ms != "" {
		b.WriteString(ms + " ")
	}
	b.WriteString("actions=" + FormatActions(ins))
	return b.String()
}

// FormatRule is FormatFlow for a rule in a table, with its counters and its
// duration at now.
func FormatRule(r *Rule, now time.Time) string {
	st := FlowStats{Packets: r.Packets(), Bytes: r.Bytes()}
	if c := r.Created(); !c.IsZero() {
		st.Duration = now.Sub(c)
	}
	return FormatFlow(r.table, &r.Match, r.Priority, r.Cookie, r.IdleTimeout, r.HardTimeout, r.Flags, r.Instructions, st)
}

// FormatUpdate prints an ADD update in ovs-ofctl add-flows syntax (the
// dump-flows text without the statistics), which ParseFlow reads back.
func FormatUpdate(u *Update) string {
	var parts []string
	if u.Cookie != 0 {
		parts = append(parts, fmt.Sprintf("cookie=%#x", u.Cookie))
	}
	if u.Table != 0 {
		parts = append(parts, fmt.Sprintf("table=%d", u.Table))
	}
	if u.IdleTimeout != 0 {
		parts = append(parts, fmt.Sprintf("idle_timeout=%d", u.IdleTimeout))
	}
	if u.HardTimeout != 0 {
		parts = append(parts, fmt.Sprintf("hard_timeout=%d", u.HardTimeout))
	}
	if u.Importance != 0 {
		parts = append(parts, fmt.Sprintf("importance=%d", u.Importance))
	}
	for _, f := range []struct {
		f    FlowFlags
		name string
	}{{FlagSendFlowRem, "send_flow_rem"}, {FlagCheckOverlap, "check_overlap"}, {FlagResetCounts, "reset_counts"}, {FlagNoPktCounts, "no_packet_counts"}, {FlagNoBytCounts, "no_byte_counts"}} {
		if u.Flags&f.f != 0 {
			parts = append(parts, f.name)
		}
	}
	if ms := FormatMatch(&u.Match, u.Priority); ms != "" {
		parts = append(parts, ms)
	}
	parts = append(parts, "actions="+FormatActions(u.Instructions))
	return strings.Join(parts, ",")
}

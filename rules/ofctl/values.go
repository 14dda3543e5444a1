package ofctl

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/ofswitch/ofswitch/rules"
)

func (p *flowParser) num(val string, col int, bits int, what string) (uint64, error) {
	if v, ok := shortDecimal(val); ok && (bits >= 64 || v < 1<<bits) {
		return v, nil
	}
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

// shortDecimal reads s, up to 19 decimal digits and nothing else, as
// strconv.ParseUint(s, 10, 64) does; it reports false for anything else,
// which num then reads or refuses.
func shortDecimal(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + uint64(c)
	}
	return v, true
}

func (p *flowParser) numMask(val string, col int, bits int, what string) (uint64, uint64, error) {
	if v, ok := shortDecimal(val); ok && bits < 64 && v < 1<<bits {
		return v, 1<<bits - 1, nil
	}
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
		return v, rules.FieldTCPFlags.FullMask(), nil
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
	if v, ok := dottedQuad(val); ok {
		return v, 0xffffffff, nil
	}
	vs, ms, masked := strings.Cut(val, "/")
	v, ok := dottedQuad(vs)
	if !ok {
		a, err := netip.ParseAddr(vs)
		if err != nil || !a.Is4() {
			return 0, 0, p.errAt(col, "expected an IPv4 address a.b.c.d[/len|/mask], found %q", val)
		}
		b := a.As4()
		v = uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	}
	if !masked {
		return v, 0xffffffff, nil
	}
	if n, err := strconv.Atoi(ms); err == nil {
		if n < 0 || n > 32 {
			return 0, 0, p.errAt(col+len(vs)+1, "prefix length %d out of range 0..32", n)
		}
		return v, rules.FieldIPv4Src.PrefixMask(n), nil
	}
	ma, err := netip.ParseAddr(ms)
	if err != nil || !ma.Is4() {
		return 0, 0, p.errAt(col+len(vs)+1, "expected a prefix length or an IPv4 mask, found %q", ms)
	}
	mb := ma.As4()
	return v, uint64(mb[0])<<24 | uint64(mb[1])<<16 | uint64(mb[2])<<8 | uint64(mb[3]), nil
}

// dottedQuad reads the plain form of an IPv4 address, four decimal bytes
// without leading zeros, which netip.ParseAddr reads the same, at a
// fraction of its cost; it reports false for anything else, which
// netip.ParseAddr then reads or refuses.
func dottedQuad(s string) (uint64, bool) {
	if len(s) < len("0.0.0.0") || len(s) > len("255.255.255.255") {
		return 0, false
	}
	// One pass, a byte a step: b is the part being read, n its digits.
	var v, b uint64
	n, dots := 0, 0
	for i := 0; i < len(s); i++ {
		if d := uint64(s[i] - '0'); d <= 9 {
			if n == 1 && b == 0 {
				return 0, false // a leading zero
			}
			b = b*10 + d
			n++
			continue
		}
		if s[i] != '.' || n == 0 || b > 255 || dots == 3 {
			return 0, false
		}
		v = v<<8 | b
		b, n = 0, 0
		dots++
	}
	if dots != 3 || n == 0 || b > 255 {
		return 0, false
	}
	return v<<8 | b, true
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
			var m rules.Match
			m.SetPrefix128(rules.FieldIPv6Src, 0, 0, n)
			mhi, mlo = m.Mask.Get128(rules.FieldIPv6Src)
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
	"IN_PORT": rules.PortInPort, "TABLE": rules.PortTable, "NORMAL": rules.PortNormal, "FLOOD": rules.PortFlood,
	"ALL": rules.PortAll, "CONTROLLER": rules.PortController, "LOCAL": rules.PortLocal, "ANY": rules.PortAny, "NONE": rules.PortAny,
}

func (p *flowParser) port(val string, col int) (uint32, error) {
	if v, ok := portNames[strings.ToUpper(val)]; ok {
		return v, nil
	}
	v, err := p.num(val, col, 32, "port number")
	return uint32(v), err
}

// fragNames are Open vSwitch's names of ip_frag (nw_frag) values with their
// value and mask over rules.IPFragAny and rules.IPFragLater
// (lib/meta-flow.c all_frags), read without regard to case.
var fragNames = [...]struct {
	name     string
	val, msk uint64
}{
	{"no", 0, rules.IPFragAny | rules.IPFragLater},
	{"yes", rules.IPFragAny, rules.IPFragAny},
	{"first", rules.IPFragAny, rules.IPFragAny | rules.IPFragLater},
	{"later", rules.IPFragAny | rules.IPFragLater, rules.IPFragAny | rules.IPFragLater},
	{"not_later", 0, rules.IPFragLater},
}

// fragValue returns the value and mask of an ip_frag name.
func fragValue(s string) (v, mk uint64, ok bool) {
	for _, f := range fragNames {
		if strings.EqualFold(s, f.name) {
			return f.val, f.msk, true
		}
	}
	return 0, 0, false
}

// fragString returns the name Open vSwitch prints for ip_frag v under mask
// mk (lib/match.c), or "" for a mask of neither bit.
func fragString(v, mk uint64) string {
	switch mk & (rules.IPFragAny | rules.IPFragLater) {
	case rules.IPFragAny | rules.IPFragLater:
		switch v & mk {
		case rules.IPFragAny | rules.IPFragLater:
			return "later"
		case rules.IPFragAny:
			return "first"
		case rules.IPFragLater:
			return "<error>"
		}
		return "no"
	case rules.IPFragAny:
		if v&rules.IPFragAny != 0 {
			return "yes"
		}
		return "no"
	case rules.IPFragLater:
		if v&rules.IPFragLater != 0 {
			return "later"
		}
		return "not_later"
	}
	return ""
}

// tunFlags reads tun_flags as Open vSwitch's parse_flags does, with oam
// (rules.TunFlagOAM) the one flag a flow may match: a number with a mask
// ("0x1/0x1"), flags each preceded by + (set) or - (not set) ("+oam"), or
// flags joined by '|', or a number, which match exactly.
func (p *flowParser) tunFlags(val string, col int) (uint64, uint64, error) {
	switch {
	case val == "":
		return 0, 0, p.errAt(col, "expected tun_flags, found nothing")
	case val[0] >= '0' && val[0] <= '9':
		v, mk, err := p.numMask(val, col, 16, "tun_flags")
		if err == nil && (v|mk)&^rules.TunFlagOAM != 0 {
			err = p.errAt(col, "tun_flags %s: only the oam flag (0x1) can be matched", val)
		}
		if !strings.Contains(val, "/") {
			mk = rules.TunFlagOAM
		}
		return v, mk, err
	case val == "+oam":
		return rules.TunFlagOAM, rules.TunFlagOAM, nil
	case val == "-oam":
		return 0, rules.TunFlagOAM, nil
	case val == "oam":
		return rules.TunFlagOAM, rules.TunFlagOAM, nil
	}
	return 0, 0, p.errAt(col, "tun_flags %q: expected +oam, -oam, oam or a number (the tunnel flag oam is the one to match)", val)
}

package ofctl

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

// groupTypes are the type= names ovs-ofctl reads; it prints the first of
// each.
var groupTypes = map[string]groups.Type{
	"all": groups.TypeAll, "select": groups.TypeSelect, "indirect": groups.TypeIndirect,
	"ff": groups.TypeFF, "fast_failover": groups.TypeFF,
}

var groupTypeNames = [...]string{"all", "select", "indirect", "ff"}

// ParseGroup parses one group in ovs-ofctl add-group syntax:
//
//	group_id=1,type=all,bucket=output:2,bucket=output:3
//	group_id=2,type=select,selection_method=hash,bucket=weight:50,actions=output:1,bucket=weight:50,output:2
//	group_id=3,type=ff,bucket=watch_port:1,output:1,bucket=watch_group:4,actions=group:4
//
// A bucket runs from bucket= to the next bucket=; in it weight, watch_port
// and watch_group (each with ':' or '=') come first, then the actions,
// after actions= or straight away. As ovs-ofctl requires, type= comes
// before the buckets, each bucket needs actions ("actions=drop" for
// none), only SELECT buckets have weights (default 1), fast failover
// buckets watch something and an indirect group has at most one bucket. selection_method (hash
// or dp_hash), selection_method_param and fields are OpenFlow 1.5
// extensions that OpenFlow 1.3 cannot carry: they are read and dropped,
// as ovs-ofctl -O OpenFlow13 drops them (this switch's SELECT always
// hashes the flow's addresses and ports). With cmd groups.Delete only
// group_id is read (group_id=all or none: every group).
func ParseGroup(s string, cmd groups.Command) (groups.Mod, error) {
	m, err := parseGroupLine("group", 1, s, cmd, nil)
	return m, err
}

// ParseGroupTLV is ParseGroup with the switch's TLV table layout, which
// places the fields tun_metadata0-63 that the buckets' actions set, load,
// move or output (as ParseOptions.TunMetadata does for a flow's); without
// it, or for a field it does not map, tun_metadataN is an error.
func ParseGroupTLV(s string, cmd groups.Command, layout rules.TunMetadataLayout) (groups.Mod, error) {
	return parseGroupLine("group", 1, s, cmd, layout)
}

// ParseGroups parses a file of groups in ParseGroup's syntax, one a line,
// as ovs-ofctl add-groups, mod-group and del-groups read them; blank lines
// and lines starting with # are skipped. It returns the groups of the good
// lines and one *ParseError per bad line.
func ParseGroups(name string, data []byte, cmd groups.Command) ([]groups.Mod, []error) {
	var out []groups.Mod
	var errs []error
	for i, line := range splitLines(data) {
		trim := strings.TrimSpace(line)
		if trim == "" || trim[0] == '#' {
			continue
		}
		m, err := parseGroupLine(name, i+1, line, cmd, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, m)
	}
	return out, errs
}

// parseGroupLine parses a group; tun places the fields tun_metadata0-63
// (nil: none).
func parseGroupLine(name string, line int, s string, cmd groups.Command, tun rules.TunMetadataLayout) (groups.Mod, error) {
	p := &flowParser{file: name, line: line, opt: &ParseOptions{TunMetadata: tun}}
	m := groups.Mod{Command: cmd, ID: groups.All}
	parts, offs := splitTop(s)
	hasType, hasID := false, false
	var b *groups.Bucket
	var acts []string // the actions of bucket b, item by item
	var actCol int
	inActs, weightSet := false, false
	finish := func() error {
		if b == nil {
			return nil
		}
		if len(acts) == 0 {
			return p.errAt(actCol, "bucket must specify actions")
		}
		switch {
		case weightSet && m.Type != groups.TypeSelect:
			return p.errAt(actCol, "only select groups can have bucket weights")
		case !weightSet && m.Type == groups.TypeSelect:
			b.Weight = 1
		case m.Type == groups.TypeFF && b.WatchPort == groups.PortAny && b.WatchGroup == groups.Any:
			return p.errAt(actCol, "fast failover bucket requires watch_port or watch_group")
		case m.Type == groups.TypeIndirect && len(m.Buckets) > 0:
			return p.errAt(actCol, "indirect groups can have at most one bucket")
		}
		as, err := p.bucketActions(strings.Join(acts, ","), actCol)
		if err != nil {
			return err
		}
		b.Actions = as
		m.Buckets = append(m.Buckets, *b)
		b, acts, inActs, weightSet = nil, nil, false, false
		return nil
	}
	for i, part := range parts {
		col := offs[i]
		item := strings.TrimSpace(part)
		if item == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(item, "bucket="); ok {
			if err := finish(); err != nil {
				return m, err
			}
			b = &groups.Bucket{WatchPort: groups.PortAny, WatchGroup: groups.Any}
			actCol = col + len("bucket=")
			item, col = rest, actCol
			if item == "" {
				continue
			}
		}
		key, val, hasVal := strings.Cut(item, "=")
		if b != nil {
			if inActs {
				acts = append(acts, item)
				continue
			}
			if !hasVal || strings.ContainsAny(key, ":(") {
				key, val, _ = strings.Cut(item, ":")
			}
			vcol := col + len(key) + 1
			switch strings.ToLower(key) {
			case "weight":
				v, err := p.num(val, vcol, 16, "bucket weight")
				if err != nil {
					return m, err
				}
				b.Weight, weightSet = uint16(v), true
				continue
			case "watch_port":
				v, err := p.num(val, vcol, 32, "watch_port")
				if err != nil {
					return m, p.errAt(vcol, "%s: invalid watch_port", val)
				}
				b.WatchPort = uint32(v)
				continue
			case "watch_group":
				v, err := p.num(val, vcol, 32, "watch_group")
				if err != nil {
					return m, err
				}
				b.WatchGroup = uint32(v)
				continue
			case "actions":
				inActs, actCol = true, vcol
				if val != "" {
					acts = append(acts, val)
				}
				continue
			}
			// Anything else starts the actions.
			inActs, actCol = true, col
			acts = append(acts, item)
			continue
		}
		if !hasVal {
			return m, p.errAt(col, "%q: expected group_id=, type= or bucket=", item)
		}
		vcol := col + len(key) + 1
		switch strings.ToLower(key) {
		case "group_id":
			hasID = true
			if strings.EqualFold(val, "all") {
				m.ID = groups.All
				continue
			}
			v, err := p.num(val, vcol, 32, "group id")
			if err != nil {
				return m, err
			}
			m.ID = uint32(v)
		case "type":
			t, ok := groupTypes[strings.ToLower(val)]
			if !ok {
				return m, p.errAt(vcol, "%q: unknown group type; expected all, select, indirect, ff or fast_failover", val)
			}
			m.Type, hasType = t, true
		case "selection_method":
			if val != "hash" && val != "dp_hash" {
				return m, p.errAt(vcol, "%q: invalid selection method; expected hash or dp_hash", val)
			}
		case "selection_method_param", "fields":
			// OpenFlow 1.5 only; see ParseGroup.
		default:
			return m, p.errAt(col, "%q: unknown group field; expected group_id, type, selection_method or bucket", key)
		}
	}
	if err := finish(); err != nil {
		return m, err
	}
	if cmd == groups.Delete {
		m.Type, m.Buckets = 0, nil
		return m, nil
	}
	if !hasID {
		return m, p.errAt(0, "must specify a group_id")
	}
	if !hasType {
		return m, p.errAt(0, "must specify a type")
	}
	return m, nil
}

// bucketActions parses a bucket's action list: actions only, no
// instructions.
func (p *flowParser) bucketActions(s string, col int) ([]rules.Action, error) {
	ins, err := p.actions(s, col, &rules.Match{})
	if err != nil {
		return nil, err
	}
	var out []rules.Action
	for _, in := range ins {
		if in.Kind != rules.InstApplyActions {
			return nil, p.errAt(col, "instructions not allowed in a bucket: actions only")
		}
		out = append(out, in.Actions...)
	}
	return out, nil
}

// FormatGroup prints a group as ovs-ofctl -O OpenFlow13 dump-groups does
// (without the leading space): group_id, type, and each bucket with its
// weight (SELECT, when not 1), watch_port and watch_group (when set) and
// actions ("drop" for none).
func FormatGroup(id uint32, typ groups.Type, buckets []groups.Bucket) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "group_id=%d,type=", id)
	if int(typ) < len(groupTypeNames) {
		sb.WriteString(groupTypeNames[typ])
	} else {
		fmt.Fprintf(&sb, "%d", typ)
	}
	for i := range buckets {
		b := &buckets[i]
		sb.WriteString(",bucket=")
		if typ == groups.TypeSelect && b.Weight != 1 {
			fmt.Fprintf(&sb, "weight:%d,", b.Weight)
		}
		if b.WatchPort != groups.PortAny {
			sb.WriteString("watch_port:" + portString(b.WatchPort) + ",")
		}
		if b.WatchGroup != groups.Any {
			fmt.Fprintf(&sb, "watch_group:%d,", b.WatchGroup)
		}
		sb.WriteString("actions=")
		if len(b.Actions) == 0 {
			sb.WriteString("drop")
		}
		for k := range b.Actions {
			if k > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(fieldNamer{}.formatAction(&b.Actions[k]))
		}
	}
	return sb.String()
}

// GroupStats are the counters of one group, as OFPMP_GROUP reports them.
type GroupStats struct {
	ID       uint32
	Duration time.Duration
	RefCount uint32
	Packets  uint64
	Bytes    uint64
	Buckets  [][2]uint64 // packets, bytes of each bucket
}

// FormatGroupStats prints s as ovs-ofctl -O OpenFlow13 dump-group-stats
// does (without the leading space).
func FormatGroupStats(s *GroupStats) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "group_id=%d,duration=%ss,ref_count=%d,packet_count=%d,byte_count=%d",
		s.ID, strconv.FormatFloat(s.Duration.Seconds(), 'f', 3, 64), s.RefCount, s.Packets, s.Bytes)
	for i, b := range s.Buckets {
		fmt.Fprintf(&sb, ",bucket%d:packet_count=%d,byte_count=%d", i, b[0], b[1])
	}
	return sb.String()
}

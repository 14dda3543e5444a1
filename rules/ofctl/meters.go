package ofctl

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ofswitch/ofswitch/meters"
)

// meterIDs names the meters ovs-ofctl names.
var meterIDs = map[string]uint32{"all": meters.All, "controller": meters.Controller, "slowpath": meters.Slowpath}

// ParseMeter reads a meter as ovs-ofctl add-meter and mod-meter take it:
// "meter=ID,FLAG...,bands=type=TYPE,rate=N[,burst_size=N][,prec_level=N]
// [,type=...]...", where ID is a number or all, controller or slowpath,
// the flags kbps, pktps, burst and stats, and the band types drop and
// dscp_remark. It refuses what ovs-ofctl refuses before sending: a meter
// id of 0 or above OFPM_MAX that is not named, a meter with neither kbps
// nor pktps, no bands, a band without a rate, and a burst_size without the
// burst flag or the burst flag without one. Both kbps and pktps, or
// anything the switch checks, pass: the switch answers them
// (meters.Table.Check). With bands false it reads what del-meters,
// dump-meters and meter-stats take: "meter=ID" or nothing (every meter).
func ParseMeter(s string, bands bool) (meters.Config, error) {
	return parseMeterLine("meter", 1, s, bands)
}

// parseMeterLine is ParseMeter for line line of file name.
func parseMeterLine(name string, line int, s string, bands bool) (meters.Config, error) {
	p := &flowParser{file: name, line: line}
	c := meters.Config{ID: meters.All}
	s = strings.TrimSpace(s)
	head, bandStr, hasBands := strings.Cut(s, "bands=")
	if !bands {
		if hasBands {
			return c, p.errAt(len(head), "bands given where only a meter id is taken")
		}
		if s == "" {
			return c, nil
		}
	}
	seenID := false
	col := 0
	for _, f := range strings.Split(head, ",") {
		fcol := col
		col += len(f) + 1
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		key, val, hasVal := strings.Cut(f, "=")
		switch {
		case key == "meter" && hasVal:
			if id, ok := meterIDs[val]; ok {
				c.ID = id
			} else {
				v, err := p.num(val, fcol+6, 32, "meter id")
				if err != nil {
					return c, err
				}
				if v == 0 || v > uint64(meters.Max) {
					return c, p.errAt(fcol+6, "invalid value for meter: %s", val)
				}
				c.ID = uint32(v)
			}
			seenID = true
		case bands && !hasVal && key == "kbps":
			c.Flags |= meters.FlagKBPS
		case bands && !hasVal && key == "pktps":
			c.Flags |= meters.FlagPKTPS
		case bands && !hasVal && key == "burst":
			c.Flags |= meters.FlagBurst
		case bands && !hasVal && key == "stats":
			c.Flags |= meters.FlagStats
		default:
			return c, p.errAt(fcol, "unknown meter field %q", f)
		}
	}
	if !bands {
		return c, nil
	}
	if !seenID {
		return c, p.errAt(0, "must specify a meter id (meter=ID)")
	}
	if c.Flags&(meters.FlagKBPS|meters.FlagPKTPS) == 0 {
		return c, p.errAt(0, "meter must specify either 'kbps' or 'pktps'")
	}
	if !hasBands || strings.TrimSpace(bandStr) == "" {
		return c, p.errAt(len(s), "must specify bands")
	}
	burst := c.Flags&meters.FlagBurst != 0
	col = len(head) + len("bands=")
	var b *meters.Band
	hasRate, hasBurst := false, false
	endBand := func(at int) error {
		if b == nil {
			return nil
		}
		if !hasRate {
			return p.errAt(at, "band must have 'rate'")
		}
		if burst && !hasBurst {
			return p.errAt(at, "band must have 'burst_size' when 'burst' flag is set")
		}
		return nil
	}
	for _, f := range strings.Split(bandStr, ",") {
		fcol := col
		col += len(f) + 1
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		key, val, hasVal := strings.Cut(f, "=")
		if !hasVal {
			return c, p.errAt(fcol, "band field %q without a value", f)
		}
		vcol := fcol + len(key) + 1
		if key == "type" {
			if err := endBand(fcol); err != nil {
				return c, err
			}
			c.Bands = append(c.Bands, meters.Band{})
			b, hasRate, hasBurst = &c.Bands[len(c.Bands)-1], false, false
			switch val {
			case "drop":
				b.Type = meters.BandDrop
			case "dscp_remark":
				b.Type = meters.BandDSCPRemark
			default:
				return c, p.errAt(vcol, "unknown band type %q; expected drop or dscp_remark", val)
			}
			continue
		}
		if b == nil {
			return c, p.errAt(fcol, "band field %q before type=", f)
		}
		switch key {
		case "rate":
			v, err := p.num(val, vcol, 32, "rate")
			if err != nil {
				return c, err
			}
			if v == 0 {
				return c, p.errAt(vcol, "band must have 'rate'")
			}
			b.Rate, hasRate = uint32(v), true
		case "burst_size":
			v, err := p.num(val, vcol, 32, "burst_size")
			if err != nil {
				return c, err
			}
			if !burst {
				return c, p.errAt(fcol, "band may have 'burst_size' only when 'burst' flag is set")
			}
			b.BurstSize, hasBurst = uint32(v), v != 0
		case "prec_level":
			v, err := p.num(val, vcol, 8, "prec_level")
			if err != nil {
				return c, err
			}
			b.PrecLevel = uint8(v)
		default:
			return c, p.errAt(fcol, "unknown band field %q", key)
		}
	}
	if err := endBand(col); err != nil {
		return c, err
	}
	if len(c.Bands) == 0 {
		return c, p.errAt(len(s), "must specify bands")
	}
	return c, nil
}

// meterName prints a meter id as ovs-ofctl does.
func meterName(id uint32) string {
	for n, v := range meterIDs {
		if v == id {
			return n
		}
	}
	return strconv.FormatUint(uint64(id), 10)
}

// FormatMeter prints a meter as ovs-ofctl dump-meters prints an entry of
// an OFPMP_METER_CONFIG reply: "meter=1 kbps burst stats bands=" and one
// line per band, each line ending in a newline.
func FormatMeter(c *meters.Config) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "meter=%s", meterName(c.ID))
	for _, f := range []struct {
		bit  uint16
		name string
	}{{meters.FlagKBPS, "kbps"}, {meters.FlagPKTPS, "pktps"}, {meters.FlagBurst, "burst"}, {meters.FlagStats, "stats"}} {
		if c.Flags&f.bit != 0 {
			sb.WriteString(" " + f.name)
		}
	}
	sb.WriteString(" bands=\n")
	for _, b := range c.Bands {
		switch b.Type {
		case meters.BandDrop:
			sb.WriteString("type=drop")
		case meters.BandDSCPRemark:
			sb.WriteString("type=dscp_remark")
		default:
			fmt.Fprintf(&sb, "type=%d", b.Type)
		}
		fmt.Fprintf(&sb, " rate=%d", b.Rate)
		if c.Flags&meters.FlagBurst != 0 {
			fmt.Fprintf(&sb, " burst_size=%d", b.BurstSize)
		}
		if b.Type == meters.BandDSCPRemark {
			fmt.Fprintf(&sb, " prec_level=%d", b.PrecLevel)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// FormatMeterMod prints a meter as ParseMeter reads it (add-meter's
// syntax): FormatMeterMod and ParseMeter round-trip.
func FormatMeterMod(c *meters.Config) string {
	s := strings.ReplaceAll(strings.TrimSuffix(FormatMeter(c), "\n"), " bands=\n", ",bands=")
	s = strings.ReplaceAll(s, "\ntype=", ",type=")
	return strings.ReplaceAll(s, " ", ",")
}

// duration prints d as ovs-ofctl prints a duration: seconds, with the
// nanoseconds' trailing zeros cut.
func duration(d time.Duration) string {
	sec, ns := d/time.Second, d%time.Second
	if ns == 0 {
		return fmt.Sprintf("%ds", sec)
	}
	return fmt.Sprintf("%d.%s", sec, strings.TrimRight(fmt.Sprintf("%09d", ns), "0")) + "s"
}

// FormatMeterStats prints a meter's statistics as ovs-ofctl meter-stats
// prints an entry of an OFPMP_METER reply, each line ending in a newline.
func FormatMeterStats(s *meters.Stats) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "meter:%s flow_count:%d packet_in_count:%d byte_in_count:%d duration:%s bands:\n",
		meterName(s.ID), s.FlowCount, s.PacketInCount, s.ByteInCount, duration(s.Duration))
	for i, b := range s.Bands {
		fmt.Fprintf(&sb, "%d: packet_count:%d byte_count:%d\n", i, b.Packets, b.Bytes)
	}
	return sb.String()
}

// FormatMeterFeatures prints meter features as ovs-ofctl meter-features
// prints the body of an OFPMP_METER_FEATURES reply.
func FormatMeterFeatures(f *meters.Features) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "max_meter:%d max_bands:%d max_color:%d\nband_types:", f.MaxMeter, f.MaxBands, f.MaxColor)
	if f.BandTypes&(1<<meters.BandDrop) != 0 {
		sb.WriteString(" drop")
	}
	if f.BandTypes&(1<<meters.BandDSCPRemark) != 0 {
		sb.WriteString(" dscp_remark")
	}
	sb.WriteString("\ncapabilities:")
	for _, c := range []struct {
		bit  uint16
		name string
	}{{meters.FlagKBPS, "kbps"}, {meters.FlagPKTPS, "pktps"}, {meters.FlagBurst, "burst"}, {meters.FlagStats, "stats"}} {
		if f.Capabilities&uint32(c.bit) != 0 {
			sb.WriteString(" " + c.name)
		}
	}
	sb.WriteString("\n")
	return sb.String()
}

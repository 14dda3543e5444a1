package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/openflow"
)

// parseTLVMaps reads a TLV map list as ovs-ofctl add-tlv-map takes it:
// "{class=C,type=T,len=L}->tun_metadataN", comma-separated, C, T and L
// decimal or 0x hex.
func parseTLVMaps(s string) ([]openflow.TLVMap, error) {
	var maps []openflow.TLVMap
	for rest := strings.TrimSpace(s); rest != ""; {
		if rest[0] != '{' {
			return nil, fmt.Errorf("TLV map %q: want {class=C,type=T,len=L}->tun_metadataN", rest)
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, fmt.Errorf("TLV map %q: no closing }", rest)
		}
		var m openflow.TLVMap
		seen := map[string]bool{}
		for _, kv := range strings.Split(rest[1:end], ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			bits := map[string]int{"class": 16, "type": 8, "len": 8}[k]
			if !ok || bits == 0 || seen[k] {
				return nil, fmt.Errorf("TLV map %q: %q: want class=, type= and len= once each", rest[:end+1], kv)
			}
			seen[k] = true
			n, err := strconv.ParseUint(strings.TrimSpace(v), 0, bits)
			if err != nil {
				return nil, fmt.Errorf("TLV map %q: %s=%s: a number of %d bits", rest[:end+1], k, v, bits)
			}
			switch k {
			case "class":
				m.OptionClass = uint16(n)
			case "type":
				m.OptionType = uint8(n)
			case "len":
				m.OptionLen = uint8(n)
			}
		}
		if len(seen) != 3 {
			return nil, fmt.Errorf("TLV map %q: want class=, type= and len=", rest[:end+1])
		}
		tail, ok := strings.CutPrefix(strings.TrimSpace(rest[end+1:]), "->")
		if !ok {
			return nil, fmt.Errorf("TLV map %q: want ->tun_metadataN after it", rest[:end+1])
		}
		field, after, _ := strings.Cut(tail, ",")
		idx, ok := strings.CutPrefix(strings.TrimSpace(field), "tun_metadata")
		n, err := strconv.ParseUint(idx, 10, 8)
		if !ok || err != nil || n >= openflow.TLVMaxFields {
			return nil, fmt.Errorf("TLV map %q: %q is not tun_metadata0-%d", rest[:end+1], field, openflow.TLVMaxFields-1)
		}
		m.Index = uint16(n)
		if err := m.Check(); err != nil {
			return nil, fmt.Errorf("TLV map %q: %w", rest[:end+1], err)
		}
		maps = append(maps, m)
		rest = strings.TrimSpace(after)
	}
	return maps, nil
}

// tlvTableOf returns the table of the TLV map list s, as a switch of
// ofswitch's option space would make it from add-tlv-map s; an error if
// s does not parse or a mapping does not fit (or repeats an index or an
// option).
func tlvTableOf(s string) (*push.TLVLayout, error) {
	maps, err := parseTLVMaps(s)
	if err != nil {
		return nil, err
	}
	t, left := push.NewTLVLayout(maps)
	if len(left) > 0 {
		return nil, fmt.Errorf("TLV map: tun_metadata%d does not fit in %d bytes of option space, or repeats an index or an option", left[0], push.OptionSpace)
	}
	return t, nil
}

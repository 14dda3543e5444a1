package ofctl

import (
	"github.com/ofswitch/ofswitch/rules"
)

// slabChunk is the length of a slab's chunks: the instructions or actions
// of some hundreds of flows in one allocation.
const slabChunk = 1024

// slab hands out short slices of T carved from chunks, so that the
// instructions and actions of a file's flows cost an allocation per
// chunk, not per flow. A slice it gives has its length as its capacity:
// appending to it copies, never writes into a neighbour. reset makes the
// chunks' memory available again, to be overwritten: what take gave
// before belongs to the slab again.
type slab[T any] struct {
	chunks [][]T
	c, off int // the chunk being carved and the offset in it
}

// take returns a zeroed slice of n Ts.
func (s *slab[T]) take(n int) []T {
	if n > slabChunk {
		return make([]T, n)
	}
	for {
		if s.c < len(s.chunks) {
			ch := s.chunks[s.c]
			if s.off+n <= len(ch) {
				out := ch[s.off : s.off+n : s.off+n]
				s.off += n
				clear(out)
				return out
			}
			s.c, s.off = s.c+1, 0
			continue
		}
		s.chunks = append(s.chunks, make([]T, slabChunk))
	}
}

// reset makes every chunk available again.
func (s *slab[T]) reset() { s.c, s.off = 0, 0 }

// maxFastActions bounds the actions fastActions reads; longer lists go to
// actions.
const maxFastActions = 8

// fastActions reads the common action lists without allocating: drop
// alone, or outputs (output:N, out:N, N, a reserved port by name,
// CONTROLLER[:N]) with at most one goto_table:N. It reports false for
// anything else, and for any list it would refuse, which actions then
// reads, errors and all: fastActions gives what actions gives where it
// answers, and it answers only where that is plain.
func (p *flowParser) fastActions(s string) ([]rules.Instruction, bool) {
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	// A single output:N, most flows' actions, as the loop below reads
	// it, without its checks of every byte and its list of actions.
	if len(s) > len("output:") && s[:len("output:")] == "output:" {
		if v, ok := decimal(s[len("output:"):], 1<<32); ok {
			a := p.acts.take(1)
			a[0] = rules.Action{Kind: rules.ActionOutput, Port: uint32(v)}
			ins := p.ins.take(1)
			ins[0] = rules.Instruction{Kind: rules.InstApplyActions, Actions: a}
			return ins, true
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':' || c == ',') {
			return nil, false
		}
	}
	if s == "drop" {
		return nil, true
	}
	var acts [maxFastActions]rules.Action
	n, gotoTable := 0, -1
	for len(s) > 0 {
		part := s
		if i := indexComma(s); i >= 0 {
			part, s = s[:i], s[i+1:]
			if s == "" {
				return nil, false // a last empty action
			}
		} else {
			s = ""
		}
		name, arg, hasArg := part, "", false
		for i := 0; i < len(part); i++ {
			if part[i] == ':' {
				name, arg, hasArg = part[:i], part[i+1:], true
				break
			}
		}
		if name == "goto_table" {
			v, ok := decimal(arg, 1<<8)
			if !ok || gotoTable >= 0 {
				return nil, false
			}
			gotoTable = int(v)
			continue
		}
		if n == maxFastActions {
			return nil, false
		}
		var port uint32
		switch {
		case (name == "output" || name == "out") && hasArg:
			v, ok := decimal(arg, 1<<32)
			if !ok {
				return nil, false
			}
			port = uint32(v)
		case hasArg && (name == "controller" || name == "CONTROLLER"):
			v, ok := decimal(arg, 1<<16)
			if !ok {
				return nil, false
			}
			acts[n] = rules.Action{Kind: rules.ActionOutput, Port: rules.PortController, MaxLen: uint16(v)}
			n++
			continue
		case hasArg:
			return nil, false
		case name == "controller" || name == "CONTROLLER":
			acts[n] = rules.Action{Kind: rules.ActionOutput, Port: rules.PortController, MaxLen: rules.ControllerMaxLenNoBuffer}
			n++
			continue
		default:
			if v, ok := reservedPort(name); ok {
				port = v
				break
			}
			v, ok := decimal(name, 1<<32)
			if !ok {
				return nil, false
			}
			port = uint32(v)
		}
		acts[n] = rules.Action{Kind: rules.ActionOutput, Port: port}
		n++
	}
	k := 0
	if n > 0 {
		k++
	}
	if gotoTable >= 0 {
		k++
	}
	if k == 0 {
		return nil, false
	}
	ins := p.ins.take(k)
	if n > 0 {
		a := p.acts.take(n)
		copy(a, acts[:n])
		ins[0] = rules.Instruction{Kind: rules.InstApplyActions, Actions: a}
	}
	if gotoTable >= 0 {
		ins[k-1] = rules.Instruction{Kind: rules.InstGotoTable, Table: uint8(gotoTable)}
	}
	return ins, true
}

// indexComma is strings.IndexByte(s, ','), inlined.
func indexComma(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return i
		}
	}
	return -1
}

// reservedPort returns the port of the action names FLOOD, ALL, IN_PORT,
// NORMAL, LOCAL and TABLE, lower or upper case.
func reservedPort(name string) (uint32, bool) {
	switch name {
	case "flood", "FLOOD":
		return rules.PortFlood, true
	case "all", "ALL":
		return rules.PortAll, true
	case "in_port", "IN_PORT":
		return rules.PortInPort, true
	case "normal", "NORMAL":
		return rules.PortNormal, true
	case "local", "LOCAL":
		return rules.PortLocal, true
	case "table", "TABLE":
		return rules.PortTable, true
	}
	return 0, false
}

// decimal reads s as a decimal number below limit, without a leading
// zero (so that each reader of numbers agrees on it: base 10, 8 and 0
// alike), no sign and no base prefix.
func decimal(s string, limit uint64) (uint64, bool) {
	if len(s) == 0 || len(s) > 10 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, v < limit
}

// FlowParser parses flow files as ParseFlows does, into memory it keeps
// from call to call: parsing file after file (or chunk after chunk) into
// the same slice allocates nothing per line for ordinary flows (fields,
// then outputs and goto_table). The zero FlowParser is ready to use.
//
// The flows of a call share the parser's memory for their instructions
// and actions, which the next call overwrites: copy what must outlive it
// (rules.Update's Instructions, and their Actions).
type FlowParser struct {
	// Options apply as in ParseFlows.
	Options ParseOptions
	p       flowParser
}

// AppendFlows appends the flows of data, a flow file named name, to dst
// and returns it with one *ParseError per bad line, as ParseFlows does.
// The instructions and actions of the flows the call before returned are
// overwritten.
func (fp *FlowParser) AppendFlows(dst []rules.Update, name string, data []byte) ([]rules.Update, []error) {
	fp.p.file = name
	fp.p.ins.reset()
	fp.p.acts.reset()
	return fp.p.appendFlows(dst, data, &fp.Options)
}

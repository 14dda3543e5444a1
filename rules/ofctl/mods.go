package ofctl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// Mods is a file of flow, group and meter mods as ParseMods reads it. Each
// kind is in line order; Ops puts them back in file order.
type Mods struct {
	// Flows are the flow updates, each one's ID its 1-based line number
	// (a line that ParseOptions.FixPrereqs splits gives two).
	Flows []rules.Update
	// Where names the line of Flows[i] as "name:line", the form
	// push.Config.Lines takes.
	Where  []string
	Groups []GroupMod
	Meters []MeterMod
}

// GroupMod is a group mod of a line of a mods file.
type GroupMod struct {
	Line int // 1-based
	groups.Mod
}

// MeterMod is a meter mod of a line of a mods file.
type MeterMod struct {
	Line int // 1-based
	meters.Mod
}

// OpKind says which list of a Mods an Op indexes.
type OpKind uint8

// Kinds of operation.
const (
	OpFlow  OpKind = iota // Mods.Flows
	OpGroup               // Mods.Groups
	OpMeter               // Mods.Meters
)

// Op is one operation of a mods file: Mods.Flows[Index],
// Mods.Groups[Index] or Mods.Meters[Index], as Kind says.
type Op struct {
	Kind  OpKind
	Index int
	Line  int // 1-based
}

// Ops returns m's operations in file order (line order; the two flows of
// a line that FixPrereqs split keep their order).
func (m *Mods) Ops() []Op {
	ops := make([]Op, 0, len(m.Flows)+len(m.Groups)+len(m.Meters))
	f, g, e := 0, 0, 0
	for f < len(m.Flows) || g < len(m.Groups) || e < len(m.Meters) {
		line := func(k OpKind) int {
			switch {
			case k == OpFlow && f < len(m.Flows):
				return m.Flows[f].ID
			case k == OpGroup && g < len(m.Groups):
				return m.Groups[g].Line
			case k == OpMeter && e < len(m.Meters):
				return m.Meters[e].Line
			}
			return int(^uint(0) >> 1)
		}
		k := OpFlow
		for _, c := range []OpKind{OpGroup, OpMeter} {
			if line(c) < line(k) {
				k = c
			}
		}
		switch k {
		case OpFlow:
			ops = append(ops, Op{OpFlow, f, m.Flows[f].ID})
			f++
		case OpGroup:
			ops = append(ops, Op{OpGroup, g, m.Groups[g].Line})
			g++
		default:
			ops = append(ops, Op{OpMeter, e, m.Meters[e].Line})
			e++
		}
	}
	return ops
}

// line forms of a mods file (lineForm.kind).
const (
	formFlow = iota
	formGroup
	formMeter
	formPacketOut
)

// lineForm is what classify found at the start of a line.
type lineForm struct {
	kind   int
	bundle bool   // the line starts with flow, group or meter (ovs-ofctl bundle)
	cmd    string // the command word, "" if none
	cmdAt  int    // the offset of the command word (or of the keyword if none)
	body   int    // the offset of the flow, group or meter itself
}

// The command words of each kind, as ovs-ofctl spells them.
var (
	flowCmds  = []string{"add", "modify", "modify_strict", "delete", "delete_strict"}
	groupCmds = []string{"add", "modify", "add_or_mod", "delete", "insert_bucket", "remove_bucket"}
)

// isCmd reports whether w is a command word of any kind (meters take
// add, modify and delete).
func isCmd(w string) bool {
	return slices.Contains(flowCmds, w) || slices.Contains(groupCmds, w)
}

// word returns the end of the word of l at i: up to a space, tab, comma
// or '='.
func word(l string, i int) int {
	for i < len(l) && l[i] != ' ' && l[i] != '\t' && l[i] != ',' && l[i] != '=' && l[i] != '\r' {
		i++
	}
	return i
}

// skipSpace returns the offset of the first byte at or after i that is no
// space or tab.
func skipSpace(l string, i int) int {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

// spaceAt reports whether l ends at i or has a space there.
func spaceAt(l string, i int) bool {
	return i >= len(l) || l[i] == ' ' || l[i] == '\t' || l[i] == '\r'
}

// classify reads the keyword and command word a line of a mods file may
// start with; a line with neither, or a flow's command word, is a flow.
func classify(l string) lineForm {
	i := skipSpace(l, 0)
	e := word(l, i)
	w := l[i:e]
	f := lineForm{kind: formFlow, cmdAt: i, body: i}
	switch {
	case w == "packet-out" && spaceAt(l, e):
		return lineForm{kind: formPacketOut, bundle: true, cmdAt: i, body: i}
	case (w == "flow" || w == "group" || w == "meter") && spaceAt(l, e):
		f = lineForm{kind: map[string]int{"flow": formFlow, "group": formGroup, "meter": formMeter}[w], bundle: true, cmdAt: i}
		j := skipSpace(l, e)
		k := word(l, j)
		if isCmd(l[j:k]) && spaceAt(l, k) {
			f.cmd, f.cmdAt, f.body = l[j:k], j, skipSpace(l, k)
		} else {
			f.body = j
		}
		return f
	case isCmd(w) && spaceAt(l, e):
		j := skipSpace(l, e)
		f.cmd, f.body = w, j
	}
	switch rest := l[f.body:]; {
	case strings.HasPrefix(rest, "group_id="):
		f.kind = formGroup
	case strings.HasPrefix(rest, "meter="):
		f.kind = formMeter
	}
	return f
}

// plainFlow reports whether l is a flow line that ParseFlowMods reads
// as it is, without looking further than its first word or two.
func plainFlow(l string) bool {
	f := classify(l)
	return f.kind == formFlow && !f.bundle && (f.cmd == "" || slices.Contains(flowCmds, f.cmd))
}

// ParseMods parses a file of flow, group and meter mods, as ofswitch push
// and rules lint read it. Each line is one of:
//
//   - a flow, as ParseFlowMods reads it: ovs-ofctl add-flows syntax,
//     optionally after add, modify, modify_strict, delete or
//     delete_strict;
//   - a group, as ovs-ofctl add-groups reads it: a line whose first field
//     is group_id= (ParseGroup's syntax), optionally after add, modify or
//     delete;
//   - a meter, as ovs-ofctl add-meter takes it: a line whose first field
//     is meter= (ParseMeter's syntax), optionally after add, modify or
//     delete (a delete reads the meter id alone; "delete meter=all"
//     deletes every meter);
//   - a line of an ovs-ofctl bundle file: flow or group, optionally
//     followed by a command word, then the flow or group; and, as this
//     package's own addition, meter followed by add, modify or delete, then
//     the meter. A bare "group delete" deletes every group, a bare "flow
//     delete" every flow.
//
// Blank lines and lines starting with # are skipped. Group commands that
// OpenFlow 1.3 lacks (add_or_mod, an Open vSwitch extension, and
// insert_bucket and remove_bucket, OpenFlow 1.5's) and packet-out lines
// are refused, each with its own error. ParseOptions apply to the flows
// as in ParseFlowMods.
//
// ParseMods returns the mods of the good lines and one *ParseError per bad
// line, in line order, saying file:line:column (the column counts in the
// line as written). A file of flows alone, the usual case, is read by
// ParseFlowMods' own code, whatever its size. ParseOptions.Check, if set,
// refuses the mods it fails, each as its line's error at column 1.
func ParseMods(name string, data []byte, opt *ParseOptions) (*Mods, []error) {
	m, errs := parseMods(name, data, opt)
	m.Where = whereOf(name, m.Flows)
	return m, errs
}

// parseMods is ParseMods without Mods.Where.
func parseMods(name string, data []byte, opt *ParseOptions) (*Mods, []error) {
	m := &Mods{}
	errs := parseModsInto(name, data, opt, m, nil)
	return m, errs
}

// parseModsInto is parseMods into m. With p, a file of adds alone is read
// into m's slices with p's memory, after p's reset (see NextInto); without,
// or for any other file, m gets slices of its own.
func parseModsInto(name string, data []byte, opt *ParseOptions, m *Mods, p *flowParser) []error {
	var errs []error
	if p != nil && flowsOnly(data) && !hasVerb(data) {
		p.file = name
		p.ins.reset()
		p.acts.reset()
		// Sized once for the chunk, as ParseFlows sizes its slice: grown
		// by appends, the slice's copies are garbage that, for a small
		// file, makes the process's first garbage collection, which
		// costs more than the whole parse (it scans the binary's
		// globals).
		if n := countLines(data); cap(m.Flows) < n {
			m.Flows = make([]rules.Update, 0, n)
		}
		m.Flows, errs = p.appendFlows(m.Flows[:0], data, opt)
		m.Groups, m.Meters = m.Groups[:0], m.Meters[:0]
	} else {
		var mm *Mods
		mm, errs = parseModsUnchecked(name, data, opt)
		m.Flows, m.Groups, m.Meters = mm.Flows, mm.Groups, mm.Meters
	}
	if opt != nil && opt.Check != nil {
		errs = checkMods(name, m, errs, opt.Check)
	}
	return errs
}

// checkMods refuses the mods of m that chk fails: they leave m and their
// errors join errs, in line order.
func checkMods(name string, m *Mods, errs []error, chk *ModCheck) []error {
	n := len(errs)
	refuse := func(line int, err error) {
		errs = append(errs, &ParseError{File: name, Line: line, Col: 1, Msg: err.Error(), Err: err})
	}
	if chk.Flow != nil {
		kept := m.Flows[:0]
		for i := range m.Flows {
			if err := chk.Flow(&m.Flows[i]); err != nil {
				refuse(m.Flows[i].ID, err)
				continue
			}
			if len(kept) < i {
				kept = append(kept, m.Flows[i])
			} else {
				kept = kept[:i+1]
			}
		}
		clear(m.Flows[len(kept):])
		m.Flows = kept
	}
	if chk.Group != nil {
		m.Groups = slices.DeleteFunc(m.Groups, func(g GroupMod) bool {
			if err := chk.Group(&g.Mod); err != nil {
				refuse(g.Line, err)
				return true
			}
			return false
		})
	}
	if chk.Meter != nil {
		m.Meters = slices.DeleteFunc(m.Meters, func(e MeterMod) bool {
			if err := chk.Meter(&e.Mod); err != nil {
				refuse(e.Line, err)
				return true
			}
			return false
		})
	}
	if len(errs) > n {
		slices.SortStableFunc(errs, func(a, b error) int { return errLine(a) - errLine(b) })
	}
	return errs
}

// parseModsUnchecked is parseMods without ParseOptions.Check.
func parseModsUnchecked(name string, data []byte, opt *ParseOptions) (*Mods, []error) {
	if flowsOnly(data) {
		ups, errs := parseFlowMods(name, data, opt)
		return &Mods{Flows: ups}, errs
	}
	m := &Mods{}
	var errs []error
	lines := strings.SplitAfter(string(data), "\n")
	flows := make([]string, len(lines)) // the flow lines as ParseFlowMods reads them, the others blank
	for i, raw := range lines {
		l := strings.TrimRight(raw, "\n")
		flows[i] = raw[len(l):]
		trim := strings.TrimSpace(l)
		if trim == "" || trim[0] == '#' {
			continue
		}
		f := classify(l)
		line := i + 1
		perr := func(col int, format string, a ...any) {
			errs = append(errs, &ParseError{File: name, Line: line, Col: col + 1, Msg: fmt.Sprintf(format, a...)})
		}
		switch f.kind {
		case formPacketOut:
			perr(f.cmdAt, "packet-out lines are not supported: push sends flow, group and meter mods only")
		case formFlow:
			if f.cmd != "" && !slices.Contains(flowCmds, f.cmd) {
				perr(f.cmdAt, "%s is no flow command: expected add, modify, modify_strict, delete or delete_strict", f.cmd)
				continue
			}
			if f.bundle && strings.TrimSpace(l[f.body:]) == "" && f.cmd != "delete" && f.cmd != "delete_strict" {
				perr(len(strings.TrimRight(l, " \t\r")), "expected a flow after %q", strings.TrimSpace(l))
				continue
			}
			// The bundle keyword is blanked out, so that columns hold;
			// ParseFlowMods reads the command word.
			if f.bundle {
				l = strings.Repeat(" ", f.cmdAt) + l[f.cmdAt:]
				if f.cmd == "" {
					l = strings.Repeat(" ", f.body) + l[f.body:]
				}
			}
			flows[i] = l + flows[i]
		case formGroup:
			var cmd groups.Command
			switch f.cmd {
			case "", "add":
				cmd = groups.Add
			case "modify":
				cmd = groups.Modify
			case "delete":
				cmd = groups.Delete
			case "add_or_mod":
				perr(f.cmdAt, "group command add_or_mod is not supported: it is an Open vSwitch extension; OpenFlow 1.3 has add, modify and delete")
				continue
			case "insert_bucket", "remove_bucket":
				perr(f.cmdAt, "group command %s is not supported: it is OpenFlow 1.5's; OpenFlow 1.3 has add, modify and delete", f.cmd)
				continue
			default:
				perr(f.cmdAt, "%s is no group command: expected add, modify or delete", f.cmd)
				continue
			}
			var tun rules.TunMetadataLayout
			if opt != nil {
				tun = opt.TunMetadata
			}
			g, err := parseGroupLine(name, line, l[f.body:], cmd, tun)
			if err != nil {
				errs = append(errs, shift(err, f.body))
				continue
			}
			m.Groups = append(m.Groups, GroupMod{Line: line, Mod: g})
		case formMeter:
			var cmd meters.Command
			switch f.cmd {
			case "", "add":
				cmd = meters.Add
			case "modify":
				cmd = meters.Modify
			case "delete":
				cmd = meters.Delete
			default:
				perr(f.cmdAt, "%s is no meter command: expected add, modify or delete", f.cmd)
				continue
			}
			c, err := parseMeterLine(name, line, l[f.body:], cmd != meters.Delete)
			if err != nil {
				errs = append(errs, shift(err, f.body))
				continue
			}
			m.Meters = append(m.Meters, MeterMod{Line: line, Mod: meters.Mod{Command: cmd, Config: c}})
		}
	}
	ups, ferrs := parseFlowMods(name, []byte(strings.Join(flows, "")), opt)
	m.Flows = ups
	errs = append(errs, ferrs...)
	slices.SortStableFunc(errs, func(a, b error) int { return errLine(a) - errLine(b) })
	return m, errs
}

// shift moves the column of a *ParseError by off bytes: the error of a
// group or meter parsed from offset off of its line.
func shift(err error, off int) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.Col += off
	}
	return err
}

// flowsOnly reports whether every line of data is a flow in ParseFlowMods'
// syntax: no group, meter, bundle or packet-out line. It reads only the
// first word or two of each line.
func flowsOnly(data []byte) bool {
	// Read in place: nothing of s outlives the call.
	s := unsafe.String(unsafe.SliceData(data), len(data))
	for len(s) > 0 {
		var l string
		l, s = cutLine(s)
		// Most flow lines start with their priority: a plain flow.
		if !strings.HasPrefix(l, "priority=") && !plainFlow(l) {
			return false
		}
	}
	return true
}

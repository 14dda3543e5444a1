package ofctl

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ofswitch/ofswitch/groups"

	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// LintReport is what Lint and LintFiles found.
type LintReport struct {
	// Flows counts the flows read: those that parsed (a line that
	// FixPrereqs splits counts twice) and the other lines that did not
	// parse (packet-out lines among them).
	Flows int
	// OK counts the flows that parsed and that the pipeline took.
	OK int
	// Groups and Meters count the group and meter lines read, GroupsOK
	// and MetersOK those that parsed and that the group and meter tables
	// took.
	Groups, GroupsOK int
	Meters, MetersOK int
	// Errors holds one error per line that failed, each a *ParseError
	// that says file:line:column, in file and line order: a line that did
	// not parse says where it went wrong; a mod that the pipeline, the
	// group table or the meter table refused is at column 1 and unwraps
	// to its *rules.Error or *meters.Error.
	Errors []error
}

// LintFile is a file for LintFiles: its name, for errors, and its text.
type LintFile struct {
	Name string
	Data []byte
}

// Lint is LintFiles of one file.
func Lint(name string, data []byte, opt *ParseOptions, cfg *rules.Config) (*LintReport, error) {
	return LintFiles([]LintFile{{name, data}}, opt, cfg)
}

// LintFiles checks files of flows, groups and meters (ParseMods' syntax)
// as ofswitch push would send them, one file after the other, to an empty
// switch with a pipeline of cfg: it parses every line (ParseMods with
// opt), which checks each match against the OpenFlow 1.3 prerequisites,
// then applies the mods in order as the switch would. Flows load into the
// pipeline, which checks them against FLOW_MOD rules (table ids,
// goto_table, output ports, actions the match cannot promise, ...); groups
// go into a group table (groups.Table: buckets per type, weights, watches,
// chaining to groups defined before, loops), their buckets' actions
// checked as a flow's are where no match is needed (output ports,
// fields set_field cannot write); meters go into a meter table
// (meters.Table). A group or meter delete removes the flows that use it.
//
// A flow that sends to a group the group table lacks is refused with
// OFPBAC_BAD_OUT_GROUP, and one that names a meter the meter table lacks
// with OFPMMFC_INVALID_METER, as the switch refuses them: but only when
// the files add at least one group (for groups) or one meter (for
// meters). Files of flows alone are often pushed to a switch whose groups
// and meters were given apart, so then any group id up to OFPG_MAX and
// any meter id (1 to OFPM_MAX, and the virtual meters) passes.
//
// Each file is parsed and applied a chunk of lines at a time
// (ModsReader), so that its size costs the memory of the flows it leaves
// in the pipeline, not of its lines.
//
// LintFiles fails only if cfg makes no pipeline; a bad line is an error
// of the report.
func LintFiles(files []LintFile, opt *ParseOptions, cfg *rules.Config) (*LintReport, error) {
	// Nothing looks up while the linter applies: removed rules may leave
	// the index at once and their memory be reused (a file that
	// replaces its flows over and over stays the size of its flows).
	var pc rules.Config
	if cfg != nil {
		pc = *cfg
	}
	pc.Recycle, pc.UnlinkAfter = true, -1
	p, err := rules.New(&pc)
	if err != nil {
		return nil, err
	}
	l := &linter{p: p, gt: groups.New(time.Now), mt: meters.NewTable(nil), rep: &LintReport{}}
	for _, f := range files {
		g, m := addsGroupsOrMeters(f.Name, f.Data)
		l.anyGroups, l.anyMeters = l.anyGroups || g, l.anyMeters || m
	}
	p.SetMeterCheck(func(id uint32) bool {
		if l.anyMeters {
			return l.mt.Lookup(id) != nil
		}
		return id != 0 && (id <= meters.Max || id == meters.Controller || id == meters.Slowpath)
	})
	// A chunk of lines at a time, applied as it is parsed: a file of any
	// size costs the memory of a chunk's mods and of the rules it leaves.
	for i, f := range files {
		mr := NewModsReader(f.Name, bytes.NewReader(f.Data), lintBurst, opt)
		mr.noWhere = true
		var starts []int // the offsets of f's lines, once a line fails
		for {
			m, errs, err := mr.Next()
			if err == io.EOF {
				break
			}
			if err != nil { // a bytes.Reader does not fail
				return nil, err
			}
			l.rep.Flows += len(m.Flows)
			l.rep.Groups += len(m.Groups)
			l.rep.Meters += len(m.Meters)
			if len(errs) > 0 && starts == nil {
				starts = lineStarts(f.Data)
			}
			for _, err := range errs {
				kind := formFlow
				if n := errLine(err); n >= 1 && n <= len(starts) {
					kind = classify(lineAt(f.Data, starts, n)).kind
				}
				switch kind {
				case formGroup:
					l.rep.Groups++
					l.badGroups++
				case formMeter:
					l.rep.Meters++
					l.badMeters++
				default:
					l.rep.Flows++
					l.badFlows++
				}
				l.errs = append(l.errs, lintErr{i, errLine(err), err})
			}
			l.file(i, f.Name, m)
		}
	}
	rep := l.rep
	rep.OK = rep.Flows - l.badFlows
	rep.GroupsOK = rep.Groups - l.badGroups
	rep.MetersOK = rep.Meters - l.badMeters
	slices.SortStableFunc(l.errs, func(a, b lintErr) int {
		if a.file != b.file {
			return a.file - b.file
		}
		return a.line - b.line
	})
	for _, e := range l.errs {
		rep.Errors = append(rep.Errors, e.err)
	}
	return rep, nil
}

// addsGroupsOrMeters reports whether the file name, data, adds or
// modifies a group, and a meter, on a line that parses: what ParseMods
// would find, read from the few lines that are not plain flows.
func addsGroupsOrMeters(name string, data []byte) (anyGroups, anyMeters bool) {
	s := string(data)
	for n := 1; len(s) > 0; n++ {
		var l string
		l, s = cutLine(s)
		if plainFlow(l) {
			continue
		}
		switch f := classify(l); {
		case f.kind == formGroup && !anyGroups && (f.cmd == "" || f.cmd == "add" || f.cmd == "modify"):
			cmd := groups.Add
			if f.cmd == "modify" {
				cmd = groups.Modify
			}
			_, err := parseGroupLine(name, n, l[f.body:], cmd, nil)
			anyGroups = err == nil
		case f.kind == formMeter && !anyMeters && (f.cmd == "" || f.cmd == "add" || f.cmd == "modify"):
			_, err := parseMeterLine(name, n, l[f.body:], true)
			anyMeters = err == nil
		}
	}
	return anyGroups, anyMeters
}

// lineStarts returns the offset of each line of data.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineAt returns line n (1-based) of data, whose lines start at starts.
func lineAt(data []byte, starts []int, n int) string {
	l := data[starts[n-1]:]
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	return string(l)
}

// lintErr is an error of line line of file number file.
type lintErr struct {
	file, line int
	err        error
}

// linter applies the mods of LintFiles to a pipeline, a group table and a
// meter table, as the switch's tables' owner does.
type linter struct {
	p                   *rules.Pipeline
	gt                  *groups.Table
	mt                  *meters.Table
	anyGroups           bool // the files add or modify a group
	anyMeters           bool // the files add or modify a meter
	rep                 *LintReport
	errs                []lintErr
	badFlows, badGroups int
	badMeters           int
}

// refuse records err as the error of line of file number fi.
func (l *linter) refuse(fi int, name string, line int, err error) {
	l.errs = append(l.errs, lintErr{fi, line, &ParseError{File: name, Line: line, Col: 1, Msg: err.Error(), Err: err}})
}

// file applies the mods of m, file number fi, in order: each run of flows
// as one burst.
func (l *linter) file(fi int, name string, m *Mods) {
	ops := m.Ops()
	for i := 0; i < len(ops); {
		switch op := ops[i]; op.Kind {
		case OpFlow:
			j := i
			for j < len(ops) && ops[j].Kind == OpFlow {
				j++
			}
			l.flows(fi, name, m.Flows[op.Index:op.Index+j-i])
			i = j
		case OpGroup:
			l.group(fi, name, &m.Groups[op.Index])
			i++
		case OpMeter:
			l.meter(fi, name, &m.Meters[op.Index])
			i++
		}
	}
}

// flows applies ups as one burst, after refusing, when the files add
// groups, the adds and modifies that send to a group the table lacks
// (as tables.Owner does).
func (l *linter) flows(fi int, name string, ups []rules.Update) {
	kept := ups
	if l.anyGroups {
		gs := l.gt.Load()
		kept = make([]rules.Update, 0, len(ups))
		for i := range ups {
			if u := &ups[i]; u.Command <= rules.CmdModifyStrict && !groupsExist(u.Instructions, gs) {
				l.refuse(fi, name, u.ID, groups.ErrBadOutGroup)
				l.badFlows++
				continue
			}
			kept = append(kept, ups[i])
		}
	}
	// In bursts of lintBurst: the memory of the rules a burst removes is
	// reused by the next.
	var res rules.BurstResult
	for len(kept) > 0 {
		n := min(len(kept), lintBurst)
		l.p.ApplyBurstTo(&res, kept[:n], true, nil)
		for i, err := range res.Errs {
			if err != nil {
				l.refuse(fi, name, kept[i].ID, err)
				l.badFlows++
			}
		}
		kept = kept[n:]
	}
}

// lintBurst is the most flows the linter applies as one burst.
const lintBurst = 1 << 16

// groupsExist reports whether every group action of ins names a group of
// gs.
func groupsExist(ins []rules.Instruction, gs *groups.Snapshot) bool {
	for i := range ins {
		for _, a := range ins[i].Actions {
			if a.Kind == rules.ActionGroup && gs.Get(a.Group) == nil {
				return false
			}
		}
	}
	return true
}

// group applies g to the group table, after checking its buckets'
// actions; a delete removes the flows that send to the groups it
// deleted.
func (l *linter) group(fi int, name string, g *GroupMod) {
	err := checkBuckets(g.Buckets)
	var deleted []uint32
	if err == nil {
		deleted, err = l.gt.Apply(&g.Mod)
	}
	if err != nil {
		l.refuse(fi, name, g.Line, err)
		l.badGroups++
		return
	}
	if len(deleted) > 0 {
		ups := make([]rules.Update, len(deleted))
		for i, id := range deleted {
			ups[i] = rules.Update{Command: rules.CmdDelete, Table: rules.TableAll, OutPort: rules.PortAny, OutGroup: id}
		}
		l.p.ApplyBurst(ups, true)
	}
}

// checkBuckets checks the actions of buckets as a flow's are checked
// where no match is needed: output to a port that exists in OpenFlow
// (OFPBAC_BAD_OUT_PORT), set_field of a field the switch writes
// (OFPBAC_BAD_SET_TYPE, OFPBAC_BAD_SET_ARGUMENT for in_port). A bucket
// has no match: whether a set_field's prerequisites hold is the packet's
// to say, as in Open vSwitch.
func checkBuckets(bs []groups.Bucket) error {
	for i := range bs {
		for _, a := range bs[i].Actions {
			switch {
			case a.Kind == rules.ActionOutput && (a.Port == 0 || a.Port == rules.PortAny || (a.Port > rules.PortMax && a.Port < rules.PortInPort)):
				return &rules.Error{Type: rules.ErrTypeBadAction, Code: rules.BadActionBadOutPort, Field: "output",
					Why: fmt.Sprintf("bucket %d: port %#x", i, a.Port)}
			case a.Kind == rules.ActionSetField && !a.Field.Writable():
				code := rules.BadActionBadSetType
				if a.Field == rules.FieldInPort {
					code = rules.BadActionBadSetArg
				}
				return &rules.Error{Type: rules.ErrTypeBadAction, Code: code, Field: "set_field",
					Why: fmt.Sprintf("bucket %d: set_field of a field the switch does not write", i)}
			}
		}
	}
	return nil
}

// meter applies e to the meter table; a delete removes the flows that use
// the meters it deleted.
func (l *linter) meter(fi int, name string, e *MeterMod) {
	deleted, err := l.mt.Apply(&e.Mod)
	if err != nil {
		l.refuse(fi, name, e.Line, err)
		l.badMeters++
		return
	}
	var ups []rules.Update
	for _, id := range deleted {
		for t := range l.p.NumTables() {
			for _, r := range l.p.Rules(uint8(t)) {
				if r.UsesMeter(id) {
					ups = append(ups, rules.Update{Command: rules.CmdDeleteStrict, Table: uint8(t), Match: r.Match,
						Priority: r.Priority, OutPort: rules.PortAny, OutGroup: rules.GroupAny})
				}
			}
		}
	}
	if len(ups) > 0 {
		l.p.ApplyBurst(ups, true)
	}
}

// ParseActions parses the actions of a flow in ovs-ofctl syntax, the text
// after actions= ("output:2", "drop", "goto_table:1", ...), as ParseFlow
// reads the line "actions=" + s: an error says where in that line.
func ParseActions(s string) ([]rules.Instruction, error) {
	u, err := ParseFlow("actions=" + s)
	if err != nil {
		return nil, err
	}
	return u.Instructions, nil
}

// WriteFlows writes ups to w in ovs-ofctl add-flows syntax, one
// FormatUpdate line each, which ParseFlows reads back.
func WriteFlows(w io.Writer, ups []rules.Update) error {
	for i := range ups {
		if _, err := fmt.Fprintln(w, FormatUpdate(&ups[i])); err != nil {
			return err
		}
	}
	return nil
}

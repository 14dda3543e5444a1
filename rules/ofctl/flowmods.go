package ofctl

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ofswitch/ofswitch/rules"
)

// The regexps below are compiled at their first use, not at init: every
// command of the binary links this package, few parse flow files.

// verb matches the command word a line of an ovs-ofctl --bundle file may
// start with.
var verb = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(add|modify_strict|modify|delete_strict|delete)(\s+|$)`)
})

// tableSet matches a table= field of a flow.
var tableSet = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[\s,])table=`) })

// importanceSet matches an importance= field, which only adds may have
// (ovs-ofctl: "unknown keyword importance" on the others).
var importanceSet = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[\s,])importance=`) })

// ParseFlowMods parses a flow file whose lines may start with the command
// words add, modify, modify_strict, delete or delete_strict, as ovs-ofctl
// --bundle add-flows reads it; a line without a word adds.
// ParseOptions.Strict makes modify and delete lines strict
// (MODIFY_STRICT, DELETE_STRICT); the other options apply as in
// ParseFlows. As in ovs-ofctl, deletes need no actions (and carry none), a
// modify sets the actions its line gives, a delete without table= deletes
// from every table (rules.TableAll), "delete" alone deletes every flow,
// and importance= is accepted on add lines only.
//
// The updates come in line order; each one's ID is its 1-based line number
// and where[i] names the line of ups[i] as "name:line", the form
// push.Config.Lines takes. Errors name file:line:column, the column
// counting in the line as written (the command word included); every bad
// line is reported, joined into one error. ParseMods reads the same lines
// among group and meter lines.
func ParseFlowMods(name string, data []byte, opt *ParseOptions) (ups []rules.Update, where []string, err error) {
	ups, errs := parseFlowMods(name, data, opt)
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return ups, whereOf(name, ups), nil
}

// whereOf names the line of each update as "name:line".
func whereOf(name string, ups []rules.Update) []string {
	where := make([]string, len(ups))
	for i := range ups {
		where[i] = name + ":" + strconv.Itoa(ups[i].ID)
	}
	return where
}

// parseFlowMods is ParseFlowMods with one *ParseError per bad line, in
// line order, and the updates of the good lines.
func parseFlowMods(name string, data []byte, opt *ParseOptions) ([]rules.Update, []error) {
	var o ParseOptions
	if opt != nil {
		o = *opt
	}
	if !hasVerb(data) {
		// Adds alone: the lines as ParseFlows reads them, without the
		// copies and the sort the verbs need.
		return ParseFlows(name, data, &o)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cmds := make([]rules.Command, len(lines)+1) // by 1-based line number
	var all []rules.Update                      // deletes with nothing after the word
	var errs []error
	for i, l := range lines {
		m := verb().FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		switch l[m[2]:m[3]] {
		case "modify":
			cmds[i+1] = rules.CmdModify
			if o.Strict {
				cmds[i+1] = rules.CmdModifyStrict
			}
		case "modify_strict":
			cmds[i+1] = rules.CmdModifyStrict
		case "delete":
			cmds[i+1] = rules.CmdDelete
			if o.Strict {
				cmds[i+1] = rules.CmdDeleteStrict
			}
		case "delete_strict":
			cmds[i+1] = rules.CmdDeleteStrict
		}
		if c := cmds[i+1]; c != rules.CmdAdd {
			if at := importanceSet().FindStringIndex(l); at != nil {
				col := at[0] + strings.Index(l[at[0]:], "importance")
				errs = append(errs, &ParseError{File: name, Line: i + 1, Col: col + 1,
					Msg: fmt.Sprintf("importance is for add lines only (a %s keeps the flow's)", l[m[2]:m[3]])})
				lines[i] = blankLine(l)
				continue
			}
		}
		// The word is blanked out, not removed, so that error columns
		// still point into the line as written.
		lines[i] = strings.Repeat(" ", m[3]) + l[m[3]:]
		if c := cmds[i+1]; (c == rules.CmdDelete || c == rules.CmdDeleteStrict) && strings.TrimSpace(l[m[3]:]) == "" {
			all = append(all, rules.Update{Command: c, Table: rules.TableAll, ID: i + 1})
		}
	}
	// Deletes need no actions; adds and modifies do, as in ovs-ofctl.
	// Each pass sees the other's lines as blank, so line numbers hold.
	var dels, rest []string
	for i, l := range lines {
		isDel := cmds[i+1] == rules.CmdDelete || cmds[i+1] == rules.CmdDeleteStrict
		if isDel {
			dels, rest = append(dels, l), append(rest, blankLine(l))
		} else {
			dels, rest = append(dels, blankLine(l)), append(rest, l)
		}
	}
	delOpt := o
	delOpt.NoActions = true
	ups, perrs := ParseFlows(name, []byte(strings.Join(rest, "")), &o)
	dups, derrs := ParseFlows(name, []byte(strings.Join(dels, "")), &delOpt)
	if errs = append(append(errs, perrs...), derrs...); len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b error) int { return errLine(a) - errLine(b) })
	}
	ups = append(append(ups, dups...), all...)
	slices.SortStableFunc(ups, func(a, b rules.Update) int { return a.ID - b.ID })
	for i := range ups {
		if c := cmds[ups[i].ID]; c != rules.CmdAdd {
			// A modify keeps its actions: they are what it sets.
			ups[i].Command = c
			if c == rules.CmdDelete || c == rules.CmdDeleteStrict {
				ups[i].Instructions = nil
				if !tableSet().MatchString(lines[ups[i].ID-1]) {
					ups[i].Table = rules.TableAll
				}
			}
		}
	}
	return ups, errs
}

// hasVerb reports whether a line of data starts with a word verb matches
// (add, modify, delete, and their _strict forms), without allocating.
func hasVerb(data []byte) bool {
	// Read in place: nothing of s outlives the call.
	s := unsafe.String(unsafe.SliceData(data), len(data))
	for len(s) > 0 {
		var line string
		line, s = cutLine(s)
		if strings.HasPrefix(line, "priority=") {
			continue // no verb: most flow lines start so
		}
		line = strings.TrimLeft(line, " \t\r\f") // \s of package regexp
		end := 0
		for end < len(line) && (line[end] >= 'a' && line[end] <= 'z' || line[end] == '_') {
			end++
		}
		switch line[:end] {
		case "add", "modify", "modify_strict", "delete", "delete_strict":
			if end == len(line) || strings.IndexByte(" \t\r\f", line[end]) >= 0 {
				return true
			}
		}
	}
	return false
}

// blankLine returns l as spaces, its line end kept.
func blankLine(l string) string {
	body := strings.TrimRight(l, "\n")
	return strings.Repeat(" ", len(body)) + l[len(body):]
}

// errLine is the line of a *ParseError, 0 for any other error.
func errLine(err error) int {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe.Line
	}
	return 0
}

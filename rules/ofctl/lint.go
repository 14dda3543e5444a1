package ofctl

import (
	"fmt"
	"io"

	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// LintReport is what Lint found.
type LintReport struct {
	// Flows counts the flows read: those that parsed (a line that
	// FixPrereqs splits counts twice) and the lines that did not.
	Flows int
	// OK counts the flows that parsed and that the pipeline took.
	OK int
	// Errors holds one error per flow that failed, each a *ParseError
	// that says file:line:column: the lines that did not parse, in line
	// order, then the flows the pipeline refused (column 1), in line
	// order, each unwrapping to its *rules.Error.
	Errors []error
}

// Lint checks a flow file in ovs-ofctl add-flows syntax: it parses every
// line (ParseFlows with opt), which checks each match against the
// OpenFlow 1.3 prerequisites, and loads the flows into an empty pipeline
// of cfg as one burst, which checks them against FLOW_MOD rules (table
// ids, goto_table, output ports, ...). The meters a flow file's meter
// instructions name are given to a switch apart (add-meter), so any meter
// id a switch may have passes: 1 to OFPM_MAX, and the virtual meters.
// Lint fails only if cfg makes no pipeline; a bad flow is an error of the
// report.
func Lint(name string, data []byte, opt *ParseOptions, cfg *rules.Config) (*LintReport, error) {
	p, err := rules.New(cfg)
	if err != nil {
		return nil, err
	}
	p.SetMeterCheck(func(id uint32) bool {
		return id != 0 && (id <= meters.Max || id == meters.Controller || id == meters.Slowpath)
	})
	ups, errs := ParseFlows(name, data, opt)
	rep := &LintReport{Flows: len(ups) + len(errs), OK: len(ups), Errors: errs}
	for i, err := range p.ApplyBurst(ups, true).Errs {
		if err != nil {
			rep.OK--
			rep.Errors = append(rep.Errors, &ParseError{File: name, Line: ups[i].ID, Col: 1, Msg: err.Error(), Err: err})
		}
	}
	return rep, nil
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

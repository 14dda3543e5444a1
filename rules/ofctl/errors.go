package ofctl

import (
	"errors"
	"fmt"
)

// ErrSyntax is the sentinel every ParseError of a malformed line unwraps to.
var ErrSyntax = errors.New("ofctl: syntax error")

// ErrNotMapped is what the ParseError of a line that names a
// tun_metadataN field ParseOptions.TunMetadata does not map (or with no
// TunMetadata) unwraps to; it unwraps to ErrSyntax. A client that parses
// without the switch's TLV table learns from it that it needs the table
// (ofswitch push asks the switch for it then, and parses again).
var ErrNotMapped = fmt.Errorf("%w: tun_metadata field not mapped", ErrSyntax)

// ParseError says where a flow failed to parse and what was expected.
type ParseError struct {
	File string
	Line int // 1-based
	Col  int // 1-based byte column
	Msg  string
	Err  error // ErrSyntax, ErrNotMapped, or the *rules.Error of a flow OpenFlow refuses (a match's, or the pipeline's in Lint)
}

// Error formats the error as file:line:column: message.
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap returns the sentinel or the underlying error.
func (e *ParseError) Unwrap() error {
	if e.Err == nil {
		return ErrSyntax
	}
	return e.Err
}

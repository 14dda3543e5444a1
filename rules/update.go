package rules

import (
	"fmt"
	"time"
)

// Command is a FLOW_MOD command (enum ofp_flow_mod_command).
type Command uint8

// Commands.
const (
	CmdAdd          Command = 0 // OFPFC_ADD
	CmdModify       Command = 1 // OFPFC_MODIFY
	CmdModifyStrict Command = 2 // OFPFC_MODIFY_STRICT
	CmdDelete       Command = 3 // OFPFC_DELETE
	CmdDeleteStrict Command = 4 // OFPFC_DELETE_STRICT
)

// String returns the OpenFlow name's suffix, e.g. "add".
func (c Command) String() string {
	switch c {
	case CmdAdd:
		return "add"
	case CmdModify:
		return "modify"
	case CmdModifyStrict:
		return "modify_strict"
	case CmdDelete:
		return "delete"
	case CmdDeleteStrict:
		return "delete_strict"
	}
	return fmt.Sprintf("command(%d)", uint8(c))
}

// Update is one FLOW_MOD, already translated from the wire.
//
// The zero Update adds a priority-0 match-all rule with no instructions (a
// drop-all table-miss entry) to table 0.
type Update struct {
	Command      Command
	Table        uint8 // TableAll (0xff) selects all tables for DELETE
	Match        Match
	Ranges       Ranges // port ranges, Go API only (see Ranges, SetPortRange); zero from OpenFlow
	Priority     uint16
	Cookie       uint64
	CookieMask   uint64 // MODIFY/DELETE: only rules with cookie&mask == Cookie&mask
	IdleTimeout  uint16
	HardTimeout  uint16
	Flags        FlowFlags
	Importance   uint16 // ADD: the rule's Importance (OpenFlow 1.4); MODIFY keeps the rule's
	OutPort      uint32 // DELETE: only rules that output to it; 0 or PortAny means no filter
	OutGroup     uint32 // DELETE: only rules that use it; 0 or GroupAny means no filter
	Meter        uint32 // DELETE: only rules whose meter instruction names it; 0 means no filter
	Instructions []Instruction
	ID           int // copied into Rule.ID by ADD
}

// RemovedReason says why a rule left its table (enum ofp_flow_removed_reason).
type RemovedReason uint8

// Reasons.
const (
	RemovedIdleTimeout RemovedReason = 0 // OFPRR_IDLE_TIMEOUT
	RemovedHardTimeout RemovedReason = 1 // OFPRR_HARD_TIMEOUT
	RemovedDelete      RemovedReason = 2 // OFPRR_DELETE
	RemovedGroupDelete RemovedReason = 3 // OFPRR_GROUP_DELETE: its group was deleted
)

// FlowRemoved is the record of a rule that left its table with
// OFPFF_SEND_FLOW_REM set: what the controller gets as OFPT_FLOW_REMOVED.
// The record may be read at any time: in a pipeline that recycles
// (Config.Recycle), whose removed rules' memory goes to later adds, Rule
// is a copy of the removed rule made for the record (its flow and table,
// without counters: the record has them).
type FlowRemoved struct {
	Rule     *Rule
	Reason   RemovedReason
	Duration time.Duration
	Packets  uint64
	Bytes    uint64
}

// BurstResult is what ApplyBurstTo (or ApplyBurst) did.
type BurstResult struct {
	Errs    []error // one per update; nil where it succeeded
	Removed []FlowRemoved
	// Changes lists every rule the burst added, modified or removed, in
	// order, when the pipeline watches (Pipeline.Watch); empty otherwise.
	Changes []Change
	Version uint64 // the published version after the burst
}

// UpdateCost is what applying one update of a burst cost (DESIGN.md,
// "Update latency during bursts").
type UpdateCost struct {
	// Time is from the end of the update before (or the start of the
	// burst) to the end of this one, on the real clock.
	Time time.Duration
	// Iterations is the filter iterations of the insertions the update
	// made (the paper's count: 1 for a key placed at once); 0 if it made
	// none, as a delete, an update of a present key or a table without a
	// filter. An insertion that found the filter full counts the walk that
	// failed and not the rebuild after it.
	Iterations int
}

// ChangeKind says what a Change did to a rule.
type ChangeKind uint8

// Change kinds.
const (
	ChangeAdded    ChangeKind = iota // an add put the rule in (replacing an identical one, or not)
	ChangeModified                   // a modify gave the rule new instructions
	ChangeRemoved                    // a delete, a timeout, or a group or meter delete took it out
)

// Change is one change of the flow tables, recorded while the pipeline
// watches (Pipeline.Watch), for flow monitoring: Open vSwitch reports
// each to the controllers that monitor flows (OpenFlow 1.4.1 §7.3.5.19).
//
// Rule is the rule added, the new version of a modified one, or the rule
// removed; a pipeline that recycles rule memory records a copy, which
// its reader may keep. OldInstructions are those a modify replaced, and
// Replaced tells an add that took an identical rule's place. Update is
// the index in its burst of the update that made the change, -1 for a
// timeout.
type Change struct {
	Kind            ChangeKind
	Reason          RemovedReason // ChangeRemoved
	Replaced        bool
	Update          int
	Rule            *Rule
	OldInstructions []Instruction
}

package rules

import (
	"slices"
	"sync/atomic"
	"time"
)

// Reserved port numbers (enum ofp_port_no).
const (
	PortMax        = 0xffffff00 // OFPP_MAX
	PortInPort     = 0xfffffff8 // OFPP_IN_PORT
	PortTable      = 0xfffffff9 // OFPP_TABLE
	PortNormal     = 0xfffffffa // OFPP_NORMAL
	PortFlood      = 0xfffffffb // OFPP_FLOOD
	PortAll        = 0xfffffffc // OFPP_ALL
	PortController = 0xfffffffd // OFPP_CONTROLLER
	PortLocal      = 0xfffffffe // OFPP_LOCAL
	PortAny        = 0xffffffff // OFPP_ANY

	GroupAny = 0xffffffff // OFPG_ANY
	TableAll = 0xff       // OFPTT_ALL

	// ControllerMaxLenNoBuffer is OFPCML_NO_BUFFER.
	ControllerMaxLenNoBuffer = 0xffff
)

// ActionKind is the type of an Action (enum ofp_action_type).
type ActionKind uint8

// Action kinds.
const (
	ActionOutput   ActionKind = iota // OFPAT_OUTPUT: Port, MaxLen
	ActionGroup                      // OFPAT_GROUP: Group
	ActionSetQueue                   // OFPAT_SET_QUEUE: Queue
	ActionSetField                   // OFPAT_SET_FIELD: Field, Value
	ActionPushVLAN                   // OFPAT_PUSH_VLAN: EthType
	ActionPopVLAN                    // OFPAT_POP_VLAN
	ActionDecNwTTL                   // OFPAT_DEC_NW_TTL

	ActionPushMPLS   // OFPAT_PUSH_MPLS: EthType (0x8847 or 0x8848)
	ActionPopMPLS    // OFPAT_POP_MPLS: EthType (of what follows the label)
	ActionSetMPLSTTL // OFPAT_SET_MPLS_TTL: TTL
	ActionDecMPLSTTL // OFPAT_DEC_MPLS_TTL
	ActionPushPBB    // OFPAT_PUSH_PBB: EthType (0x88e7)
	ActionPopPBB     // OFPAT_POP_PBB
	ActionCopyTTLOut // OFPAT_COPY_TTL_OUT: next-to-outermost TTL to the outermost
	ActionCopyTTLIn  // OFPAT_COPY_TTL_IN: outermost TTL to the next-to-outermost
	ActionSetNwTTL   // OFPAT_SET_NW_TTL: TTL

	// Open vSwitch's Nicira extension actions.
	ActionNote       // NXAST_NOTE: Ext.Note; does nothing
	ActionExit       // NXAST_EXIT: ends the translation of the packet's action lists
	ActionController // NXAST_CONTROLLER: MaxLen, Reason, CtlID
	// ActionResubmit (NXAST_RESUBMIT, NXAST_RESUBMIT_TABLE) looks the
	// packet up in table Table (TableAll: the current table) with
	// in_port Port (PortInPort: the packet's) and runs the entry it
	// finds, if any, before the actions after it. Reason is 1 if it
	// came as NXAST_RESUBMIT (sent back so), 0 for NXAST_RESUBMIT_TABLE.
	ActionResubmit
	// ActionLoad (NXAST_REG_LOAD, NXAST_REG_LOAD2, and set_field of
	// part of a field) writes the bits Value[0] of field Field
	// with those of Value[1], leaving the others; of a 128-bit field,
	// the bits Ext.LoadMask with those of Ext.LoadValue (NewLoad,
	// Action.Load128).
	// Reason is its wire form: 0 for NXAST_REG_LOAD (printed load:),
	// 1 for NXAST_REG_LOAD2 (printed set_field:), LoadSetField for a
	// set_field of a whole register (LoadWire masks these), plus
	// LoadXReg when it names the 64-bit register (OXM_OF_PKT_REG).
	ActionLoad
	// ActionMove (NXAST_REG_MOVE) copies the bits of Ext.Src to those of
	// Ext.Dst, which are as wide.
	ActionMove
	// ActionOutputReg (NXAST_OUTPUT_REG, NXAST_OUTPUT_REG2) outputs to
	// the port whose number is the bits Ext.Src, as ActionOutput does
	// (MaxLen for the controller). Reason is its wire form: 0
	// NXAST_OUTPUT_REG, 1 NXAST_OUTPUT_REG2.
	ActionOutputReg
)

// LoadSetField is the Reason of an ActionLoad that came as an
// OFPAT_SET_FIELD of a 32-bit register (NXM_NX_REG0-15), which Open
// vSwitch sends back so and prints as set_field:V->regN.
const LoadSetField = 2

// SetFieldNwTOS is the Reason of an ActionSetField of FieldIPDSCP that
// came as a set_field of nw_tos (NXM_OF_IP_TOS: the DSCP bits in place in
// a TOS byte, Value[1] holding the DSCP), which Open vSwitch sends back
// so and prints as set_field:TOS->nw_tos.
const SetFieldNwTOS = 1

// LoadWire masks an ActionLoad's Reason to its wire form (0, 1 or
// LoadSetField); LoadXReg is set in a load that names the 64-bit register
// xregN (OXM_OF_PKT_REGn), which Open vSwitch prints and sends by that
// name whatever bits it writes.
const (
	LoadWire = 3
	LoadXReg = 4
)

// Action is one action of an action list or set, as a tagged struct: Kind
// says which of the other fields mean something.
type Action struct {
	Kind    ActionKind
	Port    uint32    // ActionOutput
	MaxLen  uint16    // ActionOutput to PortController
	Group   uint32    // ActionGroup
	Queue   uint32    // ActionSetQueue
	Field   Field     // ActionSetField
	Value   [2]uint64 // ActionSetField: Value[1] for fields up to 64 bits; Value[0], Value[1] = high, low for IPv6; ActionLoad: mask, value
	EthType uint16    // ActionPushVLAN, ActionPushMPLS, ActionPopMPLS, ActionPushPBB
	TTL     uint8     // ActionSetMPLSTTL, ActionSetNwTTL
	Reason  uint8     // ActionController: the packet-in's ofp_packet_in_reason; ActionResubmit, ActionLoad, ActionOutputReg, ActionSetField (SetFieldNwTOS): its wire form
	Table   uint8     // ActionResubmit
	CtlID   uint16    // ActionController: the controller id it goes to
	// Ext holds what few actions need, so that the others stay small:
	// nil but for ActionNote, an ActionDecNwTTL with controller ids,
	// ActionMove and ActionOutputReg.
	Ext *ActionExt
}

// ActionExt is the rarely used part of an Action.
type ActionExt struct {
	// Note is an ActionNote's bytes, as they came (Open vSwitch keeps
	// the padding of the wire action in them).
	Note []byte
	// IDs, when not nil, are the controller ids of an ActionDecNwTTL
	// written dec_ttl(id,...) (NXAST_DEC_TTL_CNT_IDS): an expiry sends a
	// packet-in to each. A plain dec_ttl (nil IDs) sends one to id 0.
	IDs []uint16
	// Src and Dst are ActionMove's source and destination,
	// ActionOutputReg's Src the bits that name the port.
	Src, Dst Subfield
	// TunMetadata, when not 0, says that an ActionLoad of a word of the
	// tunnel metadata option space (FieldTunOpts0-3) is part of a
	// set_field of tun_metadata<TunMetadata-1> (OFPAT_SET_FIELD or
	// NXAST_REG_LOAD2): one load for each word the field's written bytes
	// are in, TunFirst on the first of them, which follow each other.
	TunMetadata uint8
	TunFirst    bool
	// SrcTun and DstTun, when not 0, say that an ActionMove's Src or Dst
	// (an ActionOutputReg's Src) are bits of tun_metadata<SrcTun-1> or
	// <DstTun-1>: of the option space word the field's bits are in
	// (TunMetadataSubfield), named so on the wire.
	SrcTun, DstTun uint8
	// LoadMask and LoadValue are the mask and value of an ActionLoad
	// of a 128-bit field, high word first: Action.Value holds 64 bits
	// of each; or of a packed row (SubfieldField.Pack), counted in the
	// packed value.
	LoadMask, LoadValue [2]uint64
	// LoadRow is, for an ActionLoad of a packed row, the row of
	// SubfieldFields plus one; 0 otherwise.
	LoadRow uint8
}

// NewLoad returns the ActionLoad that writes bits mask of field f with
// those of value, both 128-bit numbers high word first (of a field of at
// most 64 bits, only their low words count), and reason as its Reason.
// A load of a 128-bit field keeps them in Ext, one of a narrower field in
// Value, so that the loads the data plane runs most stay without Ext.
func NewLoad(f Field, mask, value [2]uint64, reason uint8) Action {
	a := Action{Kind: ActionLoad, Field: f, Reason: reason}
	if f.Bits() > 64 {
		a.Ext = &ActionExt{LoadMask: mask, LoadValue: value}
		return a
	}
	a.Value = [2]uint64{mask[1], value[1]}
	return a
}

// Load128 returns the mask and value of ActionLoad a as 128-bit numbers,
// high word first, whatever the width of its field.
func (a *Action) Load128() (mask, value [2]uint64) {
	if a.Ext != nil && (a.Field.Bits() > 64 || a.Ext.LoadRow != 0) {
		return a.Ext.LoadMask, a.Ext.LoadValue
	}
	return [2]uint64{0, a.Value[0]}, [2]uint64{0, a.Value[1]}
}

// Equal reports whether a and b are the same action, Ext compared by
// content.
func (a *Action) Equal(b *Action) bool {
	x, y := *a, *b
	x.Ext, y.Ext = nil, nil
	if x != y || (a.Ext == nil) != (b.Ext == nil) {
		return false
	}
	if a.Ext == nil {
		return true
	}
	return string(a.Ext.Note) == string(b.Ext.Note) && (a.Ext.IDs == nil) == (b.Ext.IDs == nil) &&
		slices.Equal(a.Ext.IDs, b.Ext.IDs) && a.Ext.Src == b.Ext.Src && a.Ext.Dst == b.Ext.Dst &&
		a.Ext.LoadMask == b.Ext.LoadMask && a.Ext.LoadValue == b.Ext.LoadValue && a.Ext.LoadRow == b.Ext.LoadRow &&
		a.Ext.TunMetadata == b.Ext.TunMetadata && a.Ext.TunFirst == b.Ext.TunFirst &&
		a.Ext.SrcTun == b.Ext.SrcTun && a.Ext.DstTun == b.Ext.DstTun
}

// InstructionKind is the type of an Instruction (enum ofp_instruction_type).
type InstructionKind uint8

// Instruction kinds.
const (
	InstGotoTable     InstructionKind = 1 // OFPIT_GOTO_TABLE: Table
	InstWriteMetadata InstructionKind = 2 // OFPIT_WRITE_METADATA: Metadata, MetadataMask
	InstWriteActions  InstructionKind = 3 // OFPIT_WRITE_ACTIONS: Actions
	InstApplyActions  InstructionKind = 4 // OFPIT_APPLY_ACTIONS: Actions
	InstClearActions  InstructionKind = 5 // OFPIT_CLEAR_ACTIONS
	InstMeter         InstructionKind = 6 // OFPIT_METER: Meter
)

// Instruction is one instruction of a flow entry, as a tagged struct.
type Instruction struct {
	Kind         InstructionKind
	Table        uint8    // InstGotoTable
	Metadata     uint64   // InstWriteMetadata
	MetadataMask uint64   // InstWriteMetadata
	Actions      []Action // InstWriteActions, InstApplyActions
	Meter        uint32   // InstMeter
}

// FlowFlags are the flags of a flow entry (enum ofp_flow_mod_flags).
type FlowFlags uint16

// Flow flags.
const (
	FlagSendFlowRem  FlowFlags = 1 << 0 // OFPFF_SEND_FLOW_REM
	FlagCheckOverlap FlowFlags = 1 << 1 // OFPFF_CHECK_OVERLAP
	FlagResetCounts  FlowFlags = 1 << 2 // OFPFF_RESET_COUNTS
	FlagNoPktCounts  FlowFlags = 1 << 3 // OFPFF_NO_PKT_COUNTS
	FlagNoBytCounts  FlowFlags = 1 << 4 // OFPFF_NO_BYT_COUNTS
)

// Rule is a flow entry. Its exported fields are the entry as the controller
// set it and do not change once the rule is in a table: a MODIFY replaces
// the rule by a new one that shares its counters.
//
// Layout: the fields are in the order that leaves no padding (Priority with
// the other 16-bit fields, table and exact in their last word), since every
// add zeroes a Rule.
type Rule struct {
	Match Match
	// Ranges are the rule's port ranges (see Ranges): zero but for a
	// rule added with them through the Go API.
	Ranges       Ranges
	Priority     uint16
	IdleTimeout  uint16 // seconds, 0 = none
	HardTimeout  uint16 // seconds, 0 = none
	Flags        FlowFlags
	Cookie       uint64
	Instructions []Instruction

	// ID is a caller's tag carried along unchanged (ClassBench loads store
	// the rule's line index here).
	ID int

	seq     uint64 // insertion order; ties between equal priorities go to the lower seq (see rankOf)
	added   uint64 // first version at which the rule is visible
	removed atomic.Uint64
	st      *subtable
	node    *inode // writer only: the index node holding r
	stats   *ruleStats
	table   uint8
	exact   bool // r's mask is its subtable's: no full-match check needed
	// recycle says that r's memory goes back to the rule slab once no
	// index node reaches it (Config.Recycle): set by add, which took it
	// from the slab, cleared when a FlowRemoved record or a modified rule
	// (its counters) keeps it.
	recycle bool
	// shared says that r's counters live in the slab slot of an earlier
	// version of its flow (a MODIFY keeps them; see successor), and that
	// r holds that slot: r is the last version that uses them.
	shared bool
	// refs, when not 0, is how many holders r's slot has left: r itself
	// and the last version using its counters (see successor); the slot
	// goes back to the slab when both let it go.
	refs uint8
	// early says that a copy of r's node left r out before cleanup's
	// turn to unlink it (see Table.prunable): r has left the index, and
	// its memory waits for that turn.
	early bool

	// Importance is the rule's eviction precedence (OpenFlow 1.4's
	// importance): set by the ADD that made the rule, kept by MODIFY,
	// reported in OpenFlow 1.4 flow statistics. Nothing evicts rules, so
	// it changes no lookup. (Last, in the padding after table and exact,
	// so that a Rule stays 400 bytes.)
	Importance uint16
}

// ruleStats are a rule's counters and times. The times are stamps (see
// stamp), not time.Times: 8 bytes each instead of 24, and no pointer for
// the garbage collector to scan.
type ruleStats struct {
	packets atomic.Uint64
	bytes   atomic.Uint64
	created int64 // stamp
	// the writer's view for idle timeouts
	lastPackets uint64
	lastActive  int64 // stamp
}

// clockEpoch is the origin of stamps.
var clockEpoch = time.Now()

// stamp returns t as nanoseconds since clockEpoch. Differences of stamps
// are those of the times (on the monotonic clock when both times have a
// monotonic reading, as time.Now's do) for times within 292 years of the
// package's initialization; the clock of a Config is assumed to be.
func stamp(t time.Time) int64 { return int64(t.Sub(clockEpoch)) }

// unstamp returns the time of stamp s.
func unstamp(s int64) time.Time { return clockEpoch.Add(time.Duration(s)) }

const never = ^uint64(0)

// Table returns the number of the flow table holding r.
func (r *Rule) Table() uint8 { return r.table }

// Seq returns r's insertion sequence number: among rules of equal priority
// that match a packet, the one with the lowest Seq wins.
func (r *Rule) Seq() uint64 { return r.seq }

// Visible reports whether r is part of the table at version v.
func (r *Rule) Visible(v uint64) bool { return r.added <= v && v < r.removed.Load() }

// Versions returns the versions at which r was added and removed (removed is
// the maximum uint64 while r is in the table).
func (r *Rule) Versions() (added, removed uint64) { return r.added, r.removed.Load() }

// Hit counts one packet of n bytes against r, except the counters its
// NO_PKT_COUNTS / NO_BYT_COUNTS flags turn off. Safe from any goroutine.
func (r *Rule) Hit(n int) {
	if r.stats == nil {
		return
	}
	if r.Flags&FlagNoPktCounts == 0 {
		r.stats.packets.Add(1)
	}
	if r.Flags&FlagNoBytCounts == 0 {
		r.stats.bytes.Add(uint64(n))
	}
}

// Packets returns the packet counter.
func (r *Rule) Packets() uint64 {
	if r.stats == nil {
		return 0
	}
	return r.stats.packets.Load()
}

// Bytes returns the byte counter.
func (r *Rule) Bytes() uint64 {
	if r.stats == nil {
		return 0
	}
	return r.stats.bytes.Load()
}

// Created returns when the rule (or the entry it replaced without resetting)
// was installed, on the table's clock.
func (r *Rule) Created() time.Time {
	if r.stats == nil {
		return time.Time{}
	}
	return unstamp(r.stats.created)
}

// OutputsTo reports whether r's instructions output to port (in an apply or
// write action list), the out_port filter of FLOW_MOD DELETE. PortAny
// matches every rule; a controller(...) action outputs to PortController,
// as in Open vSwitch (its ofpact_outputs_to_port).
func (r *Rule) OutputsTo(port uint32) bool {
	if port == PortAny {
		return true
	}
	for i := range r.Instructions {
		for _, a := range r.Instructions[i].Actions {
			if a.Kind == ActionOutput && a.Port == port || a.Kind == ActionController && port == PortController {
				return true
			}
		}
	}
	return false
}

// UsesGroup reports whether r's instructions send to group g (OFPG_ANY
// matches every rule).
func (r *Rule) UsesGroup(g uint32) bool {
	if g == GroupAny {
		return true
	}
	for i := range r.Instructions {
		for _, a := range r.Instructions[i].Actions {
			if a.Kind == ActionGroup && a.Group == g {
				return true
			}
		}
	}
	return false
}

// rankOf returns r's priority and seq in one number: higher wins. It is
// computed, not stored, to keep Rule small; entries store it.
func (r *Rule) rankOf() uint64 { return makeRank(r.Priority, r.seq) }

func makeRank(pri uint16, seq uint64) uint64 {
	return uint64(pri)<<rankSeqBits | (1<<rankSeqBits - 1 - seq&(1<<rankSeqBits-1))
}

// rankSeqBits is the width of a rank's sequence part, below its priority.
const rankSeqBits = 47

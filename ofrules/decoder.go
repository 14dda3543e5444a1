package ofrules

import (
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Decoder translates the FLOW_MODs of one connection into rules.Updates,
// keeping what makes the next FLOW_MOD cheap to translate: the last
// instruction list and its translation, and the shape of the last match
// (see doc.go, "Ingest"). A FLOW_MOD of the connection's usual shape takes
// the fast path, from its bytes to the Update in one pass; any other takes
// the full path, as FlowMod translates it. Both give the same Update, or
// the same error.
//
// Decode leaves the checks of rules.Match.Validate (ValidateStrict with
// Options.StrictPorts) to the flow tables, which make them when the update
// is applied and refuse a failure with the same error (WireError): a
// burst checks each update once.
//
// A Decoder is not safe for concurrent use.
type Decoder struct {
	tables int
	strict bool
	tlv    *TLVTables
	fm     openflow.FlowMod // the full path decodes into it
	ins    insCache
	shape  matchShape // of the last match that passed the checks
}

// insCache is the last instruction list a Decoder translated: its wire
// bytes, the table of its FLOW_MOD and the translation.
type insCache struct {
	raw   []byte
	table uint8
	ins   []rules.Instruction
	// perMatch says that ins must be checked against each match
	// (matchDependent): such instructions take the full path.
	perMatch bool
}

// NewDecoder returns a Decoder for a switch with these options (nil means
// the zero Options).
func NewDecoder(opt *Options) *Decoder {
	d := &Decoder{tables: opt.tables(), strict: opt.strict()}
	if opt != nil {
		d.tlv = opt.TLV
	}
	return d
}

// Decode translates the FLOW_MOD msg into *u, which must be the zero
// Update. A failure is the OFPT_ERROR to answer msg with (an
// openflow.ErrorMsg, or an *openflow.DecodeError that maps to one); *u is
// then partly written. The Update's instructions may be shared with other
// Updates of the same Decoder: they are only to be read.
func (d *Decoder) Decode(u *rules.Update, msg []byte) error {
	if fastFlowMod(u, msg, d.tables, &d.shape.wire, &d.ins) {
		return nil
	}
	return d.full(u, msg)
}

// full is the full path of Decode: msg is decoded into d.fm, checked and
// translated into *u. A FLOW_MOD it accepts makes its instructions, unless
// it is a delete, the cached ones, and its match the wire shape if the
// match has the shape of the one before (so that FLOW_MODs whose shapes
// keep changing pay nothing for it).
func (d *Decoder) full(u *rules.Update, msg []byte) error {
	fm := &d.fm
	if err := fm.UnmarshalBinary(msg); err != nil {
		return err
	}
	// Controllers send long runs of FLOW_MODs with the same instructions:
	// those share one translation, which rules never modifies.
	raw := openflow.FlowModView(msg).InstructionBytes()
	ic := &d.ins
	var ins []rules.Instruction
	if ic.ins != nil && ic.table == fm.TableID && string(ic.raw) == string(raw) {
		ins = ic.ins
	}
	if err := translate(u, fm, d.tables, d.strict, false, ins, &d.shape, d.tlv.Load()); err != nil {
		return err
	}
	// A set_field of a tunnel metadata field is translated anew each
	// time: the TLV table may have moved the field since.
	if ins == nil && u.Instructions != nil && !usesTunMetadata(u.Instructions) {
		ic.raw, ic.table, ic.ins = append(ic.raw[:0], raw...), fm.TableID, u.Instructions
		ic.perMatch = matchDependent(u.Instructions)
	}
	if d.shape.repeat {
		d.shape.wire.set(msg[openflow.FlowModMatchOffset:])
	}
	return nil
}

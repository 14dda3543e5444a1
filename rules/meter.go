package rules

import "fmt"

// OpenFlow 1.3.5 OFPET_METER_MOD_FAILED, with the code a flow entry's
// meter instruction is refused with (enum ofp_meter_mod_failed_code).
const (
	ErrTypeMeterModFailed = 12 // OFPET_METER_MOD_FAILED
	MeterModInvalidMeter  = 2  // OFPMMFC_INVALID_METER
)

// SetMeterCheck makes fn the test of a meter instruction's meter: an add
// or modify whose meter instruction names a meter for which fn returns
// false is refused with OFPMMFC_INVALID_METER (the code Open vSwitch
// answers a FLOW_MOD naming an unknown meter with). Without it, every
// meter instruction is refused so: a pipeline whose switch has no meter
// table cannot meter. Call it before the pipeline is used, or from its
// writer.
func (p *Pipeline) SetMeterCheck(fn func(id uint32) bool) { p.meterOK = fn }

// checkMeter checks instruction i of ins, a meter instruction: it must
// come first (the data plane runs it first, as OpenFlow 1.3.5 §5.9
// orders instructions, and looks for it there only) and name a meter
// that exists.
func (p *Pipeline) checkMeter(ins []Instruction, i int) error {
	if i != 0 {
		return &Error{Type: ErrTypeBadInstruction, Code: BadInstUnsupported, Field: "meter",
			Why: fmt.Sprintf("meter instruction at position %d, not first", i)}
	}
	if id := ins[i].Meter; p.meterOK == nil || !p.meterOK(id) {
		return &Error{Type: ErrTypeMeterModFailed, Code: MeterModInvalidMeter, Field: "meter",
			Why: fmt.Sprintf("meter %d does not exist", id)}
	}
	return nil
}

// UsesMeter reports whether r's instructions include meter id.
func (r *Rule) UsesMeter(id uint32) bool {
	return len(r.Instructions) > 0 && r.Instructions[0].Kind == InstMeter && r.Instructions[0].Meter == id
}

package tables

import (
	"time"

	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// SetMeters makes mt the switch's meter table, whose one writer the owner
// becomes, and lets flow entries use its meters: from then on an add or
// modify whose meter instruction names a meter mt lacks is refused with
// OFPMMFC_INVALID_METER (rules.Pipeline.SetMeterCheck). Without it, every
// meter instruction is refused so. Call it before the owner is used.
func (o *Owner) SetMeters(mt *meters.Table) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.meters = mt
	o.pipe.SetMeterCheck(func(id uint32) bool { return mt.Lookup(id) != nil })
}

// Meters returns the meter table (nil without SetMeters).
func (o *Owner) Meters() *meters.Table { return o.meters }

// noMeters refuses meter mods on an owner without a meter table.
var noMeters = &meters.Error{Code: meters.CodeInvalidMeter, Why: "the switch has no meter table"}

// ApplyMeter applies a meter mod as the meter table's one writer. A
// delete also removes, in one burst, the flow entries whose instructions
// use a meter it deleted (OpenFlow 1.3.5 §7.3.4.4: "the flows that use
// it are removed"; Open vSwitch does the same); their FLOW_REMOVED
// records are returned, with reason DELETE, the only one OpenFlow 1.3
// has for it. A refused mod returns its *meters.Error.
func (o *Owner) ApplyMeter(mod *meters.Mod) ([]rules.FlowRemoved, error) {
	var res rules.BurstResult
	err := o.ApplyMeterTo(&res, mod)
	return res.Removed, err
}

// ApplyMeterTo is ApplyMeter with the flows' removal in res: the
// FLOW_REMOVED records in res.Removed and, while the tables are watched
// (Watch), their changes in res.Changes.
func (o *Owner) ApplyMeterTo(res *rules.BurstResult, mod *meters.Mod) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	res.Removed, res.Changes, res.Errs = res.Removed[:0], res.Changes[:0], res.Errs[:0]
	if o.meters == nil {
		return noMeters
	}
	deleted, err := o.meters.Apply(mod)
	if err != nil || len(deleted) == 0 {
		return err
	}
	var ups []rules.Update
	for t := range o.pipe.NumTables() {
		for _, r := range o.pipe.Rules(uint8(t)) {
			if len(r.Instructions) == 0 || r.Instructions[0].Kind != rules.InstMeter {
				continue
			}
			if mod.ID != meters.All && !r.UsesMeter(mod.ID) {
				continue
			}
			ups = append(ups, rules.Update{Command: rules.CmdDeleteStrict, Table: uint8(t), Match: r.Match,
				Priority: r.Priority, OutPort: rules.PortAny, OutGroup: rules.GroupAny})
		}
	}
	if len(ups) == 0 {
		return nil
	}
	o.pipe.ApplyBurstTo(res, ups, true, nil)
	o.lastBurst.Store(int64(time.Since(o.epoch)) + 1)
	return nil
}

// MeterStats returns the statistics of meter id, or of every meter for
// meters.All, with the number of flow entries that use each (walked
// under the writer lock); an unknown meter is OFPMMFC_UNKNOWN_METER, as
// Open vSwitch answers it.
func (o *Owner) MeterStats(id uint32) ([]meters.Stats, error) {
	ms, err := o.selectMeters(id)
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	flows := map[uint32]uint32{}
	for t := range o.pipe.NumTables() {
		for _, r := range o.pipe.Rules(uint8(t)) {
			if len(r.Instructions) > 0 && r.Instructions[0].Kind == rules.InstMeter {
				flows[r.Instructions[0].Meter]++
			}
		}
	}
	now := o.meters.Now()
	out := make([]meters.Stats, len(ms))
	for i, m := range ms {
		out[i] = m.Stats(now)
		out[i].FlowCount = flows[m.ID()]
	}
	return out, nil
}

// MeterConfigs returns the configuration of meter id, or of every meter
// for meters.All; an unknown meter is OFPMMFC_UNKNOWN_METER.
func (o *Owner) MeterConfigs(id uint32) ([]meters.Config, error) {
	ms, err := o.selectMeters(id)
	if err != nil {
		return nil, err
	}
	out := make([]meters.Config, len(ms))
	for i, m := range ms {
		out[i] = m.Config()
	}
	return out, nil
}

func (o *Owner) selectMeters(id uint32) ([]*meters.Meter, error) {
	if o.meters == nil {
		if id == meters.All {
			return nil, nil
		}
		return nil, &meters.Error{Code: meters.CodeUnknownMeter, Why: "the switch has no meter table"}
	}
	if id == meters.All {
		return o.meters.Meters(), nil
	}
	m := o.meters.Lookup(id)
	if m == nil {
		return nil, &meters.Error{Code: meters.CodeUnknownMeter, Why: "no such meter"}
	}
	return []*meters.Meter{m}, nil
}

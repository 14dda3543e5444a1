package push

import (
	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/rules"
)

// Fits holds the checks that a push can send a mod: each refuses one
// whose FLOW_MOD, GROUP_MOD or METER_MOD would not fit in one OpenFlow
// message (ofrules.CheckFlowMod and co), with an error that unwraps to
// openflow.ErrTooLong.
type Fits struct {
	Flow  func(*rules.Update) error
	Group func(*groups.Mod) error
	Meter func(*meters.Mod) error
}

// FitsOneMessage returns the checks of the mods a push sends, inside a
// bundle add message if bundle (Config.Bundle). ofswitch push and rules
// lint give them to the parser (rules/ofctl's ParseOptions.Check), so
// that a line too long is refused, file:line, before anything is sent.
func FitsOneMessage(bundle bool) Fits {
	return Fits{
		Flow:  func(u *rules.Update) error { return ofrules.CheckFlowMod(u, bundle) },
		Group: func(m *groups.Mod) error { return ofrules.CheckGroupMod(m, bundle) },
		Meter: func(m *meters.Mod) error { return ofrules.CheckMeterMod(m, bundle) },
	}
}

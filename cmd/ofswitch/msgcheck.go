package main

import (
	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// fitsOneMessage is the ParseOptions.Check of ofswitch push and rules
// lint: each flow's, group's and meter's OpenFlow message must fit in one
// (65535 bytes; inside a bundle add message if bundled), as ofrules
// encodes it. A line beyond is refused before anything is sent: the
// encoder could not write it, and no switch could read it.
func fitsOneMessage(bundled bool) *ofctl.ModCheck {
	return &ofctl.ModCheck{
		Flow:  func(u *rules.Update) error { return ofrules.CheckFlowMod(u, bundled) },
		Group: func(m *groups.Mod) error { return ofrules.CheckGroupMod(m, bundled) },
		Meter: func(m *meters.Mod) error { return ofrules.CheckMeterMod(m, bundled) },
	}
}

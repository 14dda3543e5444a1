package main

import (
	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// fitsOneMessage is the ParseOptions.Check of ofswitch push and rules
// lint: each flow's, group's and meter's OpenFlow message must fit in one
// (65535 bytes; inside a bundle add message if bundled), as push encodes
// it. A line beyond is refused before anything is sent: the encoder
// could not write it, and no switch could read it.
func fitsOneMessage(bundled bool) *ofctl.ModCheck {
	f := push.FitsOneMessage(bundled)
	return &ofctl.ModCheck{Flow: f.Flow, Group: f.Group, Meter: f.Meter}
}

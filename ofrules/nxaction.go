package ofrules

import (
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// nxAction translates a Nicira extension action (vendor 0x2320) other
// than connection tracking's: resubmit, note, exit, controller(...),
// dec_ttl(ids), set_tunnel and set_tunnel64. Open vSwitch answers a
// subtype it does not know with OFPBAC_BAD_EXPERIMENTER_TYPE, and so does
// this for one ofswitch does not run (load, move, learn...), which
// openflow.DecodeNXAction refuses.
//
// A resubmit's 16-bit in_port widens as in Open vSwitch (0xff00 and up
// are the reserved ports); any port and table are taken, as Open vSwitch
// takes them: a table the switch lacks is a miss, which does nothing.
//
// set_tunnel and set_tunnel64 become a set_field of tunnel_id: Open
// vSwitch sends them back over OpenFlow 1.2 and later as that set_field
// (its encode_SET_TUNNEL), so a dump of the flow reads the same from
// either switch.
func nxAction(a *openflow.Action) (rules.Action, error) {
	x, err := openflow.DecodeNXAction(a)
	if err != nil {
		return rules.Action{}, err
	}
	switch x.Subtype {
	case openflow.NXResubmit, openflow.NXResubmitTable:
		a := rules.Action{Kind: rules.ActionResubmit, Port: openflow.Port32(x.InPort), Table: x.Table}
		if x.Subtype == openflow.NXResubmit {
			a.Reason = 1
		}
		return a, nil
	case openflow.NXSetTunnel, openflow.NXSetTunnel64:
		return rules.Action{Kind: rules.ActionSetField, Field: rules.FieldTunnelID, Value: [2]uint64{0, x.TunID}}, nil
	case openflow.NXNote:
		return rules.Action{Kind: rules.ActionNote, Ext: &rules.ActionExt{Note: x.Note}}, nil
	case openflow.NXExit:
		return rules.Action{Kind: rules.ActionExit}, nil
	case openflow.NXController:
		return rules.Action{Kind: rules.ActionController, MaxLen: x.MaxLen, Reason: x.Reason, CtlID: x.ControllerID}, nil
	case openflow.NXDecTTLCntIDs:
		return rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{IDs: x.IDs}}, nil
	}
	return rules.Action{}, openflow.ErrNXBadSubtype
}

// nxActionToWire encodes a Nicira extension action of the rules: as it
// came in, so that ovs-ofctl prints the flow as Open vSwitch prints it.
func nxActionToWire(a *rules.Action) openflow.Action {
	var x openflow.NXAction
	switch a.Kind {
	case rules.ActionResubmit:
		// NXAST_RESUBMIT only as it came, and only if it has no table
		// (Open vSwitch's encode_RESUBMIT).
		x = openflow.NXAction{Subtype: openflow.NXResubmitTable, InPort: openflow.Port16(a.Port), Table: a.Table}
		if a.Reason == 1 && a.Table == rules.TableAll {
			x.Subtype = openflow.NXResubmit
		}
	case rules.ActionNote:
		x = openflow.NXAction{Subtype: openflow.NXNote}
		if a.Ext != nil {
			x.Note = a.Ext.Note
		}
	case rules.ActionExit:
		x = openflow.NXAction{Subtype: openflow.NXExit}
	case rules.ActionController:
		x = openflow.NXAction{Subtype: openflow.NXController, MaxLen: a.MaxLen, ControllerID: a.CtlID, Reason: a.Reason}
	case rules.ActionDecNwTTL:
		x = openflow.NXAction{Subtype: openflow.NXDecTTLCntIDs}
		if a.Ext != nil {
			x.IDs = a.Ext.IDs
		}
	}
	return x.Action()
}

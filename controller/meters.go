package controller

import (
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// onMeterMod applies OFPT_METER_MOD (OpenFlow 1.3.5 §7.3.4.4) through the
// flow tables' owner, the meter table's one writer: a refusal is answered
// with its OFPMMFC_* code, and the flows a delete removed go out as
// FLOW_REMOVED to whoever asked for them.
func (c *conn) onMeterMod(msg []byte) error {
	var m openflow.MeterMod
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	mod := ofrules.MeterMod(&m)
	var res rules.BurstResult
	if err := c.a.tables.ApplyMeterTo(&res, &mod); err != nil {
		return ofrules.WireError(err)
	}
	c.a.flowsRemoved(res.Removed)
	xid := xidOf(msg)
	c.a.flowsChanged(c, func(int) uint32 { return xid }, res.Version, res.Changes)
	return nil
}

// onMeterMultipart answers OFPMP_METER, OFPMP_METER_CONFIG (one meter, or
// every meter for OFPM_ALL; a meter that is not there is
// OFPMMFC_UNKNOWN_METER, as Open vSwitch answers) and
// OFPMP_METER_FEATURES (what the meter table supports; all zero without
// one).
func (c *conn) onMeterMultipart(msg []byte, req *openflow.MultipartRequest, rep *openflow.MultipartReply) error {
	o := c.a.tables
	switch req.Part {
	case openflow.MultipartMeter:
		st, err := o.MeterStats(req.MeterID)
		if err != nil {
			return ofrules.WireError(err)
		}
		for i := range st {
			rep.Meters = append(rep.Meters, ofrules.WireMeterStats(&st[i]))
		}
	case openflow.MultipartMeterConfig:
		cs, err := o.MeterConfigs(req.MeterID)
		if err != nil {
			return ofrules.WireError(err)
		}
		for i := range cs {
			rep.MeterConfigs = append(rep.MeterConfigs, ofrules.WireMeterConfig(&cs[i]))
		}
	case openflow.MultipartMeterFeatures:
		if mt := o.Meters(); mt != nil {
			rep.MeterFeatures = ofrules.WireMeterFeatures(mt.Features())
		}
		return out(c.reply(msg, rep, openflow.TypeMultipartReply))
	}
	return c.sendParts(msg, rep)
}

// defaultMeters is the meter table of flow tables the agent makes itself.
func defaultMeters() *meters.Table { return meters.NewTable(nil) }

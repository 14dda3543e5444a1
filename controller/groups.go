package controller

import (
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// onGroupMod applies OFPT_GROUP_MOD (OpenFlow 1.3.5 §7.3.4.2) to the
// group table through the flow tables' owner, which also removes the flows
// of a deleted group (their FLOW_REMOVED go out with reason
// OFPRR_GROUP_DELETE). Earlier FLOW_MODs of the connection have been
// applied (handle flushes them first), so a group mod sees them and later
// ones see it.
func (c *conn) onGroupMod(msg []byte) error {
	var gm openflow.GroupMod
	if err := gm.UnmarshalBinary(msg); err != nil {
		return err
	}
	var m groups.Mod
	if err := ofrules.GroupModTLV(&m, &gm, c.a.tlv.Load()); err != nil {
		return err
	}
	res := &c.res
	if err := c.a.tables.ApplyGroup(res, &m); err != nil {
		return ofrules.WireError(err)
	}
	c.a.flowsRemoved(res.Removed)
	xid := xidOf(msg)
	c.a.flowsChanged(c, func(int) uint32 { return xid }, res.Version, res.Changes)
	return nil
}

// serveGroups answers the group multiparts: OFPMP_GROUP_DESC (every
// group), OFPMP_GROUP (one group or OFPG_ALL; an unknown group gives an
// empty list, as in Open vSwitch) and OFPMP_GROUP_FEATURES.
func (c *conn) serveGroups(msg []byte, req *openflow.MultipartRequest, rep *openflow.MultipartReply) error {
	gs := c.a.tables.Groups().Load()
	switch req.Part {
	case openflow.MultipartGroupDesc:
		for _, g := range gs.Groups() {
			rep.GroupDescs = append(rep.GroupDescs, ofrules.GroupDesc(g))
		}
		return c.sendParts(msg, rep)
	case openflow.MultipartGroup:
		var sel []*groups.Group
		if req.GroupID == groups.All {
			sel = gs.Groups()
		} else if g := gs.Get(req.GroupID); g != nil {
			sel = []*groups.Group{g}
		}
		refs := c.a.groupRefs(sel)
		now := time.Now()
		for i, g := range sel {
			rep.Groups = append(rep.Groups, ofrules.GroupStats(g, refs[i], now))
		}
		return c.sendParts(msg, rep)
	default: // MultipartGroupFeatures
		rep.GroupFeatures = ofrules.GroupFeatures()
		return out(c.reply(msg, rep, openflow.TypeMultipartReply))
	}
}

// groupRefs returns, for each group of sel, the number of flow entries
// whose actions send packets to it (ofp_group_stats.ref_count): a walk of
// the flow tables, paid by the statistics request only.
func (a *Agent) groupRefs(sel []*groups.Group) []uint32 {
	refs := make([]uint32, len(sel))
	if len(sel) == 0 {
		return refs
	}
	idx := make(map[uint32]int, len(sel))
	for i, g := range sel {
		idx[g.ID] = i
	}
	a.tables.Read(func(p *rules.Pipeline) {
		for t := range p.NumTables() {
			for _, r := range p.Rules(uint8(t)) {
				for i := range r.Instructions {
					seen := false
					for _, act := range r.Instructions[i].Actions {
						if act.Kind != rules.ActionGroup || seen {
							continue
						}
						if k, ok := idx[act.Group]; ok {
							refs[k]++
							seen = true
						}
					}
				}
			}
		}
	})
	return refs
}

// missingGroup reports whether acts send packets to a group the table
// lacks (a PACKET_OUT's are then refused with OFPBAC_BAD_OUT_GROUP).
func (a *Agent) missingGroup(acts []rules.Action) bool {
	gs := a.tables.Groups().Load()
	for _, act := range acts {
		if act.Kind == rules.ActionGroup && gs.Get(act.Group) == nil {
			return true
		}
	}
	return false
}

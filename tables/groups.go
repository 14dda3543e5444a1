package tables

import (
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

// Groups returns the group table. The data plane reads it (Load) at any
// time; only the owner changes it (ApplyGroup).
func (o *Owner) Groups() *groups.Table { return o.groups }

// ApplyGroup applies a group mod as the writer of the group and flow
// tables: a DELETE also removes, in one burst, every flow entry whose
// instructions send packets to a deleted group (OpenFlow 1.3.5 §6.7),
// into res.Removed with reason rules.RemovedGroupDelete. The group goes
// first: a packet that meets a flow of a deleted group before the flow
// goes finds no group and is dropped, as the flow's own removal would
// have it. A failure is the *rules.Error to answer with; nothing changed.
func (o *Owner) ApplyGroup(res *rules.BurstResult, m *groups.Mod) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	res.Removed = res.Removed[:0]
	res.Errs = res.Errs[:0]
	deleted, err := o.groups.Apply(m)
	if err != nil || len(deleted) == 0 {
		return err
	}
	ups := make([]rules.Update, len(deleted))
	for i, id := range deleted {
		ups[i] = rules.Update{Command: rules.CmdDelete, Table: rules.TableAll, OutPort: rules.PortAny, OutGroup: id}
	}
	o.pipe.ApplyBurstTo(res, ups, true, nil)
	for i := range res.Removed {
		res.Removed[i].Reason = rules.RemovedGroupDelete
	}
	for i := range res.Changes {
		res.Changes[i].Reason = rules.RemovedGroupDelete
	}
	// The removed flows leave the index in the idle work after a burst,
	// as a burst's do (see maintain).
	o.lastBurst.Store(int64(time.Since(o.epoch)) + 1)
	if o.maintWaits.Load() && o.maintWaits.CompareAndSwap(true, false) {
		select {
		case o.burst <- struct{}{}:
		default:
		}
	}
	return nil
}

// applyChecked applies ups as Apply does, after refusing with
// OFPBAC_BAD_OUT_GROUP the adds and modifies whose actions name a group
// the group table lacks (Open vSwitch answers the same). Bursts that name
// none, the usual case, go to the pipeline unchanged.
func (o *Owner) applyChecked(res *rules.BurstResult, ups []rules.Update, atomic bool, costs []rules.UpdateCost) {
	gs := o.groups.Load()
	o.badIdx = o.badIdx[:0]
	for i := range ups {
		if u := &ups[i]; u.Command <= rules.CmdModifyStrict && !groupsExist(u.Instructions, gs) {
			o.badIdx = append(o.badIdx, i)
		}
	}
	if len(o.badIdx) == 0 {
		o.pipe.ApplyBurstTo(res, ups, atomic, costs)
		return
	}
	kept := o.kept[:0]
	for i := range ups {
		if !containsInt(o.badIdx, i) {
			kept = append(kept, ups[i])
		}
	}
	var kc []rules.UpdateCost
	if costs != nil {
		kc = costs[:len(kept)]
	}
	o.pipe.ApplyBurstTo(res, kept, atomic, kc)
	clear(kept)
	o.kept = kept[:0]
	// Spread the kept updates' errors and costs back to their places.
	errs := res.Errs
	if cap(errs) < len(ups) {
		errs = append(errs, make([]error, len(ups)-len(errs))...)
	}
	errs = errs[:len(ups)]
	for i, k := len(ups)-1, len(kept)-1; i >= 0; i-- {
		if containsInt(o.badIdx, i) {
			errs[i] = groups.ErrBadOutGroup
			if costs != nil {
				costs[i] = rules.UpdateCost{}
			}
			continue
		}
		errs[i] = errs[k]
		if costs != nil {
			costs[i] = costs[k]
		}
		k--
	}
	res.Errs = errs
	// The changes name their update in kept: give them its place in ups.
	for i := range res.Changes {
		c := &res.Changes[i]
		for k, j := c.Update, 0; j < len(ups); j++ {
			if containsInt(o.badIdx, j) {
				continue
			}
			if k == 0 {
				c.Update = j
				break
			}
			k--
		}
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// groupsExist reports whether every group action of ins names a group of
// gs.
func groupsExist(ins []rules.Instruction, gs *groups.Snapshot) bool {
	for i := range ins {
		for _, a := range ins[i].Actions {
			if a.Kind == rules.ActionGroup && gs.Get(a.Group) == nil {
				return false
			}
		}
	}
	return true
}

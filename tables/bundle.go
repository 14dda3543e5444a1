package tables

import (
	"fmt"
	"slices"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// BundleMod is a group mod or a meter mod of a bundle (exactly one of
// Group and Meter is set), placed before the bundle's flow update At (At
// equal to the number of flow updates: after the last). A bundle's mods
// come in their order, so with At never decreasing.
type BundleMod struct {
	At    int
	Group *groups.Mod
	Meter *meters.Mod
}

// BundleError is why a bundle failed: the message that failed, as the
// index of its flow update (Flow) or of its group or meter mod (Mod; the
// other is -1), and its error (a *rules.Error or a *meters.Error).
type BundleError struct {
	Flow, Mod int
	Err       error
}

func (e *BundleError) Error() string {
	if e.Flow >= 0 {
		return fmt.Sprintf("tables: bundle: flow mod %d: %v", e.Flow, e.Err)
	}
	return fmt.Sprintf("tables: bundle: mod %d: %v", e.Mod, e.Err)
}

func (e *BundleError) Unwrap() error { return e.Err }

// ApplyBundle applies a bundle (OpenFlow 1.4.1 §7.3.9) as the one writer
// of the flow, group and meter tables: the flow updates ups and the group
// and meter mods mods, in order, whole or not at all. On success res holds
// the burst's result, with the FLOW_REMOVED records of the flows it
// removed (reason GROUP_DELETE for those of a group it deleted); on
// failure nothing changed, and the *BundleError names the first message
// that failed. The burst is recorded as Apply's are; start and startLks
// are as there.
//
// A bundle of flow updates only is one rules.Pipeline.ApplyAllTo burst,
// with the check that the groups its flows name exist (Apply's). With
// group or meter mods, every message is first checked in order against
// staged tables (groups.Table.Next; a meter stage over the meter table):
// a flow may name a group or meter an earlier mod adds, and a group or
// meter delete becomes, at its place, a DELETE of the flows that use it.
// Then, publishing so that no reader meets a flow naming a group or meter
// that is not there:
//
//  1. the flow burst is applied (ApplyAllTo); a failure undoes it, and
//     nothing else was published (with a message the stage refused, the
//     burst of the messages before it runs and is undone, so that the
//     first message to fail, in order, is answered);
//  2. just before the burst is published, the groups the bundle adds or
//     modifies (with those it deletes still present: groups.Snapshot.Union)
//     and the meters it adds or modifies;
//  3. the burst (its new flows, the removal of the flows of deleted groups
//     and meters);
//  4. the group table without the deleted groups, and the meter deletes.
//
// A meter the bundle deletes and adds again is replaced (fresh buckets and
// counters) in step 2: flows that still name it drop their frames
// meanwhile, as those of a deleted meter do (they are being removed).
func (o *Owner) ApplyBundle(res *rules.BurstResult, ups []rules.Update, mods []BundleMod, start time.Time, startLks uint64) *BundleError {
	o.mu.Lock()
	defer o.mu.Unlock()
	t0 := time.Now()
	if len(mods) == 0 {
		gs := o.groups.Load()
		var later *BundleError // the first flow that names a missing group
		run := ups
		for i := range ups {
			if u := &ups[i]; u.Command <= rules.CmdModifyStrict && !groupsExist(u.Instructions, gs) {
				later, run = &BundleError{Flow: i, Mod: -1, Err: groups.ErrBadOutGroup}, ups[:i]
				break
			}
		}
		costs := o.costsFor(len(run))
		at := o.pipe.ApplyAllTo(res, run, costs, later.hook())
		o.record(res, len(run), costs, t0, start, startLks)
		switch {
		case at < 0:
			return nil
		case at < len(run):
			return &BundleError{Flow: at, Mod: -1, Err: res.Errs[at]}
		}
		return later
	}

	// Stage every message in order, up to the first that fails there.
	gs := o.groups.Load()
	g := gs
	ms := meterStage{t: o.meters}
	if o.meters != nil {
		ms.n = o.meters.Len()
	}
	burst := make([]rules.Update, 0, len(ups)+len(mods))
	origin := make([]int, 0, len(ups)+len(mods)) // flow index, or -1-mod index
	var delGroups []uint32
	later := o.stage(ups, mods, &g, &ms, &burst, &origin, &delGroups)

	// Every meter instruction was checked against the stage, at its
	// place; the pipeline's own check would see the meter table as it is.
	o.pipe.SetMeterCheck(func(uint32) bool { return true })
	defer o.pipe.SetMeterCheck(o.meterCheck())
	union := g
	costs := o.costsFor(len(burst))
	// With a message that failed in the stage, the messages before it
	// still run (and are taken back), so that the first message to fail
	// is the one answered, as when they are applied one by one.
	at := o.pipe.ApplyAllTo(res, burst, costs, func() error {
		if later != nil {
			return later
		}
		if g != gs {
			union = g.Union(gs)
			o.groups.Publish(union)
		}
		ms.publish(false)
		if o.beforePublish != nil {
			o.beforePublish()
		}
		return nil
	})
	if at >= 0 {
		// Recorded as a burst that failed: the rules it inserted and
		// took back leave the index in the idle work after it.
		o.record(res, len(burst), costs, t0, start, startLks)
		if at == len(burst) {
			return later
		}
		e := &BundleError{Flow: origin[at], Mod: -1, Err: res.Errs[at]}
		if e.Flow < 0 {
			e.Flow, e.Mod = -1, -1-origin[at]
		}
		return e
	}
	if union != g {
		o.groups.Publish(g)
	}
	ms.publish(true)
	for i := range res.Removed {
		for _, id := range delGroups {
			if res.Removed[i].Rule.UsesGroup(id) {
				res.Removed[i].Reason = rules.RemovedGroupDelete
				break
			}
		}
	}
	for i := range res.Changes {
		c := &res.Changes[i]
		for _, id := range delGroups {
			if c.Kind == rules.ChangeRemoved && c.Rule.UsesGroup(id) {
				c.Reason = rules.RemovedGroupDelete
				break
			}
		}
	}
	o.record(res, len(burst), costs, t0, start, startLks)
	return nil
}

// hook is the ApplyAllTo hook that fails the burst with e, or nil (no
// hook) for a nil e.
func (e *BundleError) hook() func() error {
	if e == nil {
		return nil
	}
	return func() error { return e }
}

// stage checks the messages of a bundle in order against the staged group
// table *g and meter table ms, and appends to *burst the flow updates,
// with the DELETEs of the flows of each group or meter deleted at its
// place (origin says which message each comes from: a flow's index, or
// -1 minus a mod's), up to the first message that fails, whose error it
// returns.
func (o *Owner) stage(ups []rules.Update, mods []BundleMod, g **groups.Snapshot, ms *meterStage,
	burst *[]rules.Update, origin *[]int, delGroups *[]uint32) *BundleError {
	k := 0
	for i := 0; i <= len(ups); i++ {
		for ; k < len(mods) && mods[k].At <= i; k++ {
			var del []uint32
			var err error
			m := &mods[k]
			switch {
			case m.Group != nil:
				var ng *groups.Snapshot
				ng, del, err = o.groups.Next(*g, m.Group)
				*g = ng
				for _, id := range del {
					*burst = append(*burst, rules.Update{Command: rules.CmdDelete, Table: rules.TableAll,
						OutPort: rules.PortAny, OutGroup: id})
					*origin = append(*origin, -1-k)
				}
				*delGroups = append(*delGroups, del...)
			case m.Meter != nil:
				del, err = ms.apply(m.Meter)
				for _, id := range del {
					*burst = append(*burst, rules.Update{Command: rules.CmdDelete, Table: rules.TableAll,
						OutPort: rules.PortAny, OutGroup: rules.GroupAny, Meter: id})
					*origin = append(*origin, -1-k)
				}
			}
			if err != nil {
				return &BundleError{Flow: -1, Mod: k, Err: err}
			}
		}
		if i == len(ups) {
			return nil
		}
		u := &ups[i]
		if u.Command <= rules.CmdModifyStrict {
			if !groupsExist(u.Instructions, *g) {
				return &BundleError{Flow: i, Mod: -1, Err: groups.ErrBadOutGroup}
			}
			if len(u.Instructions) > 0 && u.Instructions[0].Kind == rules.InstMeter && !ms.exists(u.Instructions[0].Meter) {
				return &BundleError{Flow: i, Mod: -1, Err: &rules.Error{Type: rules.ErrTypeMeterModFailed,
					Code: rules.MeterModInvalidMeter, Field: "meter",
					Why: fmt.Sprintf("meter %d does not exist", u.Instructions[0].Meter)}}
			}
		}
		*burst = append(*burst, *u)
		*origin = append(*origin, i)
	}
	return nil
}

// costsFor returns the owner's buffer of n update costs, or nil with
// Config.NoUpdateCosts. The caller holds mu.
func (o *Owner) costsFor(n int) []rules.UpdateCost {
	if o.cfg.NoUpdateCosts {
		return nil
	}
	if cap(o.costs) < n {
		o.costs = make([]rules.UpdateCost, n)
	}
	return o.costs[:n]
}

// meterCheck is the pipeline's test of a meter instruction's meter
// (rules.Pipeline.SetMeterCheck): the meter table has it; nil without a
// meter table, which refuses every one.
func (o *Owner) meterCheck() func(uint32) bool {
	mt := o.meters
	if mt == nil {
		return nil
	}
	return func(id uint32) bool { return mt.Lookup(id) != nil }
}

// meterStage is the meter table as a bundle's meter mods leave it, over
// the table t, which it changes only in publish. It answers each mod
// with the code meters.Table.Apply would.
type meterStage struct {
	t     *meters.Table
	set   map[uint32]*meters.Config // staged meters by id; nil: deleted
	fresh map[uint32]bool           // deleted, then added again: replaced, not modified
	ids   []uint32                  // the ids set holds, in the order first staged
	n     int                       // meters once the mods so far are applied
}

// exists reports whether meter id is there once the mods so far are
// applied.
func (s *meterStage) exists(id uint32) bool {
	if c, ok := s.set[id]; ok {
		return c != nil
	}
	return s.t != nil && s.t.Lookup(id) != nil
}

func (s *meterStage) put(id uint32, c *meters.Config) {
	if s.set == nil {
		s.set, s.fresh = map[uint32]*meters.Config{}, map[uint32]bool{}
	}
	if _, ok := s.set[id]; !ok {
		s.ids = append(s.ids, id)
	}
	s.set[id] = c
}

// apply stages mod and returns the ids of the meters it deletes.
func (s *meterStage) apply(mod *meters.Mod) ([]uint32, error) {
	if s.t == nil {
		return nil, noMeters
	}
	switch mod.Command {
	case meters.Add, meters.Modify:
		if err := s.t.Check(&mod.Config); err != nil {
			return nil, err
		}
		ex := s.exists(mod.ID)
		switch {
		case mod.Command == meters.Add && ex:
			return nil, &meters.Error{Code: meters.CodeMeterExists, Why: fmt.Sprintf("meter %d exists", mod.ID)}
		case mod.Command == meters.Modify && !ex:
			return nil, &meters.Error{Code: meters.CodeUnknownMeter, Why: fmt.Sprintf("meter %d does not exist", mod.ID)}
		case !ex && s.n >= int(s.t.Features().MaxMeter):
			return nil, &meters.Error{Code: meters.CodeOutOfMeters, Why: fmt.Sprintf("%d meters", s.n)}
		}
		if !ex {
			s.n++
			if s.t.Lookup(mod.ID) != nil {
				s.fresh[mod.ID] = true // deleted earlier in the bundle
			}
		}
		s.put(mod.ID, &mod.Config)
		return nil, nil
	case meters.Delete:
		var del []uint32
		if mod.ID == meters.All {
			for _, m := range s.t.Meters() {
				if _, staged := s.set[m.ID()]; !staged {
					del = append(del, m.ID())
				}
			}
			for _, id := range s.ids {
				if s.set[id] != nil {
					del = append(del, id)
				}
			}
			slices.Sort(del)
		} else if s.exists(mod.ID) {
			del = []uint32{mod.ID}
		}
		for _, id := range del {
			s.put(id, nil)
			s.n--
		}
		return del, nil
	}
	return nil, &meters.Error{Code: meters.CodeBadCommand, Why: fmt.Sprintf("command %d", mod.Command)}
}

// publish applies the stage to the meter table: the adds and modifies
// (deletes false), before the flows that use them are published, or the
// deletes (deletes true), after the flows that used them are gone. The
// stage was checked: the table refuses none of it, except an add for
// which the table has room only once the bundle's deletes are done; those
// are then done first (the flows of a deleted meter drop their frames
// until they go, as with ApplyMeter).
func (s *meterStage) publish(deletes bool) {
	for _, id := range s.ids {
		c := s.set[id]
		live := s.t.Lookup(id) != nil
		switch {
		case deletes && c == nil && live:
			s.t.Apply(&meters.Mod{Command: meters.Delete, Config: meters.Config{ID: id}})
		case !deletes && c != nil:
			cmd := meters.Add
			if live && s.fresh[id] {
				s.t.Apply(&meters.Mod{Command: meters.Delete, Config: meters.Config{ID: id}})
			} else if live {
				cmd = meters.Modify
			}
			if _, err := s.t.Apply(&meters.Mod{Command: cmd, Config: *c}); err != nil && cmd == meters.Add {
				s.publish(true)
				s.t.Apply(&meters.Mod{Command: cmd, Config: *c})
			}
		}
	}
}

package tables

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

func groupAdd(id uint32, acts ...rules.Action) *groups.Mod {
	if len(acts) == 0 {
		acts = []rules.Action{{Kind: rules.ActionOutput, Port: 1}}
	}
	return &groups.Mod{Command: groups.Add, Type: groups.TypeAll, ID: id,
		Buckets: []groups.Bucket{{WatchPort: groups.PortAny, WatchGroup: groups.Any, Actions: acts}}}
}

func meterAdd(id uint32) *meters.Mod {
	return &meters.Mod{Command: meters.Add, Config: meters.Config{ID: id, Flags: meters.FlagPKTPS,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 100}}}}
}

func bundleOwner(t *testing.T) (*Owner, *rules.Pipeline) {
	t.Helper()
	p, err := rules.New(&rules.Config{Tables: 2})
	if err != nil {
		t.Fatal(err)
	}
	o := New(p, nil)
	o.SetMeters(meters.NewTable(nil))
	return o, p
}

// state is what a bundle may change: the flows (by in_port), groups and
// meters.
func state(o *Owner) (flows []uint64, gs []uint32, ms []uint32) {
	o.Read(func(p *rules.Pipeline) {
		for tb := range p.NumTables() {
			for _, r := range p.Rules(uint8(tb)) {
				v, _ := r.Match.Get(rules.FieldInPort)
				flows = append(flows, uint64(tb)<<32|v)
			}
		}
	})
	slices.Sort(flows)
	for _, g := range o.Groups().Load().Groups() {
		gs = append(gs, g.ID)
	}
	for _, m := range o.Meters().Meters() {
		ms = append(ms, m.ID())
	}
	return
}

func ruleCode(err error) (int, int) {
	var re *rules.Error
	if errors.As(err, &re) {
		return re.Type, re.Code
	}
	var me *meters.Error
	if errors.As(err, &me) {
		return rules.ErrTypeMeterModFailed, int(me.Code)
	}
	return -1, -1
}

// TestBundleGroupsAndFlows: a group and the flows that use it in one
// bundle; flows in the order of the messages; then a bundle that deletes
// the group removes its flows, with reason GROUP_DELETE.
func TestBundleGroupsAndFlows(t *testing.T) {
	o, _ := bundleOwner(t)
	var res rules.BurstResult
	ups := []rules.Update{groupFlow(1, 1, false), groupFlow(2, 2, true)}
	ups[0].Flags = rules.FlagSendFlowRem
	mods := []BundleMod{{At: 0, Group: groupAdd(1)}, {At: 1, Group: groupAdd(2, rules.Action{Kind: rules.ActionGroup, Group: 1})}}
	if err := o.ApplyBundle(&res, ups, mods, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	fl, gs, _ := state(o)
	if !slices.Equal(fl, []uint64{1, 2}) || !slices.Equal(gs, []uint32{1, 2}) {
		t.Fatalf("flows %v groups %v, want [1 2] [1 2]", fl, gs)
	}
	// A flow before the group it names is refused: the order counts.
	err := o.ApplyBundle(&res, []rules.Update{groupFlow(3, 3, false)}, []BundleMod{{At: 1, Group: groupAdd(3)}}, time.Now(), 0)
	if err == nil || err.Flow != 0 || !errors.Is(err.Err, groups.ErrBadOutGroup) {
		t.Fatalf("flow before its group: %v", err)
	}
	// Deleting group 2 then group 1 removes both flows.
	del := func(id uint32) *groups.Mod { return &groups.Mod{Command: groups.Delete, ID: id} }
	if err := o.ApplyBundle(&res, nil, []BundleMod{{Group: del(2)}, {Group: del(1)}}, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	fl, gs, _ = state(o)
	if len(fl) != 0 || len(gs) != 0 {
		t.Fatalf("after the deletes: flows %v groups %v", fl, gs)
	}
	if len(res.Removed) != 1 || res.Removed[0].Reason != rules.RemovedGroupDelete {
		t.Fatalf("records %+v, want one with reason GROUP_DELETE", res.Removed)
	}
}

// TestBundleAllOrNothing: a bundle whose last message fails changes
// nothing, and the error names that message with its own code.
func TestBundleAllOrNothing(t *testing.T) {
	o, _ := bundleOwner(t)
	var res rules.BurstResult
	if err := o.ApplyBundle(&res, []rules.Update{groupFlow(1, 1, false), meteredFlow(0, 2, 1)},
		[]BundleMod{{Group: groupAdd(1)}, {Meter: meterAdd(1)}}, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	f0, g0, m0 := state(o)
	bad := meteredFlow(0, 9, 1)
	bad.Instructions = append(bad.Instructions, rules.Instruction{Kind: rules.InstGotoTable, Table: 0})
	for _, tc := range []struct {
		name      string
		ups       []rules.Update
		mods      []BundleMod
		flow, mod int
		typ, code int
	}{
		{"flow naming a group the bundle deleted",
			[]rules.Update{groupFlow(7, 2, false), groupFlow(8, 1, false)},
			[]BundleMod{{At: 0, Group: groupAdd(2)}, {At: 1, Group: &groups.Mod{Command: groups.Delete, ID: 1}}},
			1, -1, 2, 9}, // OFPBAC_BAD_OUT_GROUP
		{"group loop",
			[]rules.Update{groupFlow(7, 6, false)},
			[]BundleMod{{Group: groupAdd(6, rules.Action{Kind: rules.ActionOutput, Port: 1})}, {Group: groupAdd(5, rules.Action{Kind: rules.ActionGroup, Group: 6})},
				{At: 1, Group: &groups.Mod{Command: groups.Modify, Type: groups.TypeAll, ID: 6, Buckets: []groups.Bucket{{WatchPort: groups.PortAny, WatchGroup: groups.Any, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: 5}}}}}}},
			-1, 2, 6, 7}, // OFPGMFC_LOOP
		{"duplicate group add",
			[]rules.Update{groupFlow(7, 1, false)},
			[]BundleMod{{At: 1, Group: groupAdd(1)}},
			-1, 0, 6, 0}, // OFPGMFC_GROUP_EXISTS
		{"flow refused by the tables, last",
			[]rules.Update{groupFlow(7, 1, false), {Command: rules.CmdDelete, Table: rules.TableAll}, bad},
			[]BundleMod{{At: 0, Meter: &meters.Mod{Command: meters.Delete, Config: meters.Config{ID: meters.All}}}, {At: 0, Meter: meterAdd(1)}},
			2, -1, 3, 2}, // OFPBIC_BAD_TABLE_ID
		{"flow naming a meter the bundle deleted",
			[]rules.Update{meteredFlow(0, 7, 1)},
			[]BundleMod{{At: 0, Meter: &meters.Mod{Command: meters.Delete, Config: meters.Config{ID: 1}}}},
			0, -1, rules.ErrTypeMeterModFailed, int(meters.CodeInvalidMeter)},
		{"duplicate meter add",
			nil,
			[]BundleMod{{Meter: meterAdd(3)}, {Meter: meterAdd(3)}},
			-1, 1, rules.ErrTypeMeterModFailed, int(meters.CodeMeterExists)},
		// The first message to fail is answered, whichever check finds it.
		{"flow refused by the tables before a duplicate group add",
			[]rules.Update{bad},
			[]BundleMod{{At: 1, Group: groupAdd(1)}},
			0, -1, 3, 2},
		{"flows only, refused by the tables before one naming a missing group",
			[]rules.Update{groupFlow(7, 1, false), bad, groupFlow(8, 99, false)},
			nil,
			1, -1, 3, 2},
		{"flows only, one naming a missing group",
			[]rules.Update{groupFlow(7, 1, false), groupFlow(8, 99, false), bad},
			nil,
			1, -1, 2, 9},
		{"flows only, the last refused",
			[]rules.Update{groupFlow(7, 1, false), {Command: rules.CmdDelete, Table: rules.TableAll}, bad},
			nil,
			2, -1, 3, 2},
	} {
		err := o.ApplyBundle(&res, tc.ups, tc.mods, time.Now(), 0)
		if err == nil {
			t.Errorf("%s: taken", tc.name)
			continue
		}
		typ, code := ruleCode(err.Err)
		if err.Flow != tc.flow || err.Mod != tc.mod || typ != tc.typ || code != tc.code {
			t.Errorf("%s: %v (flow %d mod %d, %d/%d), want flow %d mod %d, %d/%d", tc.name, err, err.Flow, err.Mod, typ, code, tc.flow, tc.mod, tc.typ, tc.code)
		}
		f, g, m := state(o)
		if !slices.Equal(f, f0) || !slices.Equal(g, g0) || !slices.Equal(m, m0) {
			t.Errorf("%s: state changed: flows %v groups %v meters %v, want %v %v %v", tc.name, f, g, m, f0, g0, m0)
		}
	}
}

// TestBundleMeters: a meter and a flow that uses it in one bundle; a
// meter deleted and added again in one bundle keeps flows added after.
func TestBundleMeters(t *testing.T) {
	o, _ := bundleOwner(t)
	var res rules.BurstResult
	if err := o.ApplyBundle(&res, []rules.Update{meteredFlow(0, 1, 1)}, []BundleMod{{Meter: meterAdd(1)}}, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	m1 := o.Meters().Lookup(1)
	err := o.ApplyBundle(&res, []rules.Update{meteredFlow(0, 2, 1)},
		[]BundleMod{{Meter: &meters.Mod{Command: meters.Delete, Config: meters.Config{ID: 1}}}, {Meter: meterAdd(1)}}, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	f, _, m := state(o)
	if !slices.Equal(f, []uint64{2}) || !slices.Equal(m, []uint32{1}) || o.Meters().Lookup(1) == m1 {
		t.Fatalf("flows %v meters %v (replaced: %v), want [2] [1] and a new meter 1", f, m, o.Meters().Lookup(1) != m1)
	}
	if len(res.Removed) != 1 || res.Removed[0].Reason != rules.RemovedDelete {
		t.Fatalf("records %+v, want flow 1's with reason DELETE", res.Removed)
	}
	// A modify in a bundle keeps the meter; a delete of all removes the
	// flows.
	mod := meterAdd(1)
	mod.Command = meters.Modify
	mod.Bands[0].Rate = 5
	if err := o.ApplyBundle(&res, nil, []BundleMod{{Meter: mod}}, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	if c := o.Meters().Lookup(1).Config(); c.Bands[0].Rate != 5 {
		t.Fatalf("modify: %+v", c)
	}
	if err := o.ApplyBundle(&res, nil, []BundleMod{{Meter: &meters.Mod{Command: meters.Delete, Config: meters.Config{ID: meters.All}}}}, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	if f, _, m := state(o); len(f) != 0 || len(m) != 0 {
		t.Fatalf("after deleting all meters: flows %v meters %v", f, m)
	}
}

// TestBundleReadersConsistent: while bundles add groups with flows that
// use them and delete them again, a reader that finds a flow and then
// loads the groups finds the flow's group, unless the flow was removed
// in between (the data plane's order of reads).
func TestBundleReadersConsistent(t *testing.T) {
	o, p := bundleOwner(t)
	var k rules.Key
	k.Set(rules.FieldInPort, 1)
	var stop atomic.Bool
	var bad atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			r := p.Table(0).Lookup(&k)
			if r == nil {
				continue
			}
			for _, a := range r.Instructions[0].Actions {
				if a.Kind == rules.ActionGroup && o.Groups().Load().Get(a.Group) == nil && p.Table(0).Lookup(&k) == r {
					bad.Add(1)
				}
			}
		}
	})
	var res rules.BurstResult
	for i := range 300 {
		id := uint32(i%7 + 1)
		mods := []BundleMod{{Group: groupAdd(id)}}
		if i > 0 {
			mods = append(mods, BundleMod{At: 1, Group: &groups.Mod{Command: groups.Delete, ID: uint32((i-1)%7 + 1)}})
		}
		if err := o.ApplyBundle(&res, []rules.Update{groupFlow(1, id, false)}, mods, time.Now(), 0); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d lookups met a flow whose group was not there", n)
	}
}

// TestBundlePublishOrder checks, at the moment just before a bundle's
// flows are published and after, that every flow lookups can see names a
// group and a meter that are there: the groups and meters a bundle adds
// are published before its flows, and those it deletes after the flows
// that use them are gone.
func TestBundlePublishOrder(t *testing.T) {
	o, p := bundleOwner(t)
	check := func(when string) {
		t.Helper()
		gs, mt := o.Groups().Load(), o.Meters()
		for tb := range p.NumTables() {
			for _, r := range p.Rules(uint8(tb)) {
				for _, in := range r.Instructions {
					if in.Kind == rules.InstMeter && mt.Lookup(in.Meter) == nil {
						t.Errorf("%s: a flow names meter %d, which is not there", when, in.Meter)
					}
					for _, a := range in.Actions {
						if a.Kind == rules.ActionGroup && gs.Get(a.Group) == nil {
							t.Errorf("%s: a flow names group %d, which is not there", when, a.Group)
						}
					}
				}
			}
		}
	}
	o.beforePublish = func() { check("before publication") }
	var res rules.BurstResult
	for i := range 6 {
		id := uint32(i + 1)
		f := groupFlow(1, id, false)
		f.Instructions = append([]rules.Instruction{{Kind: rules.InstMeter, Meter: id}}, f.Instructions...)
		mods := []BundleMod{{Group: groupAdd(id)}, {Meter: meterAdd(id)}}
		if i > 0 {
			mods = append(mods, BundleMod{At: 1, Group: &groups.Mod{Command: groups.Delete, ID: id - 1}},
				BundleMod{At: 1, Meter: &meters.Mod{Command: meters.Delete, Config: meters.Config{ID: id - 1}}})
		}
		if err := o.ApplyBundle(&res, []rules.Update{f}, mods, time.Now(), 0); err != nil {
			t.Fatal(err)
		}
		check("after the bundle")
		if fl, gs, ms := state(o); len(fl) != 1 || len(gs) != 1 || len(ms) != 1 {
			t.Fatalf("bundle %d: flows %v groups %v meters %v, want one of each", i, fl, gs, ms)
		}
	}
}

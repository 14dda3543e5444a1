package tables

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

func meteredFlow(table uint8, port uint64, meter uint32) rules.Update {
	var m rules.Match
	m.Set(rules.FieldInPort, port, ^uint64(0))
	u := rules.Update{Command: rules.CmdAdd, Table: table, Match: m, Priority: 10, Flags: rules.FlagSendFlowRem,
		Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}}
	if meter != 0 {
		u.Instructions = append([]rules.Instruction{{Kind: rules.InstMeter, Meter: meter}}, u.Instructions...)
	}
	return u
}

func addMeter(t *testing.T, o *Owner, id uint32) {
	t.Helper()
	mod := meters.Mod{Command: meters.Add, Config: meters.Config{ID: id, Flags: meters.FlagPKTPS,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 100}}}}
	if _, err := o.ApplyMeter(&mod); err != nil {
		t.Fatal(err)
	}
}

func TestMeterFlows(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 2})
	if err != nil {
		t.Fatal(err)
	}
	o := New(p, nil)
	// Without a meter table a meter instruction is refused.
	if res := applyNow(o, []rules.Update{meteredFlow(0, 1, 1)}); !errors.Is(res.Errs[0], &rules.Error{Type: rules.ErrTypeMeterModFailed, Code: rules.MeterModInvalidMeter}) {
		t.Fatalf("no meter table: %v", res.Errs[0])
	}
	if _, err := o.ApplyMeter(&meters.Mod{Command: meters.Add}); err == nil {
		t.Fatal("meter mod taken without a meter table")
	}
	o.SetMeters(meters.NewTable(nil))
	addMeter(t, o, 1)
	addMeter(t, o, 2)
	ups := []rules.Update{meteredFlow(0, 1, 1), meteredFlow(0, 2, 1), meteredFlow(1, 3, 1), meteredFlow(0, 4, 2),
		meteredFlow(0, 5, 0), meteredFlow(0, 6, 9)}
	res := applyNow(o, ups)
	for i, err := range res.Errs {
		if i == 5 {
			if !errors.Is(err, &rules.Error{Type: rules.ErrTypeMeterModFailed, Code: rules.MeterModInvalidMeter}) {
				t.Errorf("flow with meter 9: %v", err)
			}
		} else if err != nil {
			t.Errorf("flow %d: %v", i, err)
		}
	}
	// A meter instruction after another one is refused.
	bad := meteredFlow(0, 7, 0)
	bad.Instructions = append(bad.Instructions, rules.Instruction{Kind: rules.InstMeter, Meter: 1})
	if res := applyNow(o, []rules.Update{bad}); !errors.Is(res.Errs[0], &rules.Error{Type: rules.ErrTypeBadInstruction, Code: rules.BadInstUnsupported}) {
		t.Errorf("meter not first: %v", res.Errs[0])
	}
	st, err := o.MeterStats(meters.All)
	if err != nil || len(st) != 2 || st[0].FlowCount != 3 || st[1].FlowCount != 1 {
		t.Fatalf("stats %+v %v", st, err)
	}
	if _, err := o.MeterStats(7); !errors.As(err, new(*meters.Error)) {
		t.Errorf("stats of meter 7: %v", err)
	}
	if cs, err := o.MeterConfigs(2); err != nil || len(cs) != 1 || cs[0].ID != 2 {
		t.Errorf("configs %+v %v", cs, err)
	}
	// Deleting meter 1 removes its three flows, with FLOW_REMOVED records.
	removed, err := o.ApplyMeter(&meters.Mod{Command: meters.Delete, Config: meters.Config{ID: 1}})
	if err != nil || len(removed) != 3 {
		t.Fatalf("delete meter 1: %d removed, %v", len(removed), err)
	}
	if n := len(p.Rules(0)) + len(p.Rules(1)); n != 2 {
		t.Errorf("%d flows left, want 2", n)
	}
	removed, err = o.ApplyMeter(&meters.Mod{Command: meters.Delete, Config: meters.Config{ID: meters.All}})
	if err != nil || len(removed) != 1 || len(p.Rules(0)) != 1 {
		t.Fatalf("delete all: %d removed, %v, %d flows left", len(removed), err, len(p.Rules(0)))
	}
}

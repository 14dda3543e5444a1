package ofrules

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

func TestMeterModRoundTrip(t *testing.T) {
	mm := openflow.MeterMod{Command: openflow.MeterModify, Flags: 0b1101, MeterID: 5, Bands: []openflow.MeterBand{
		{Type: openflow.MeterBandDrop, Rate: 1000, BurstSize: 100}, {Type: openflow.MeterBandDSCPRemark, Rate: 10, PrecLevel: 2}}}
	mod := MeterMod(&mm)
	want := meters.Mod{Command: meters.Modify, Config: meters.Config{ID: 5, Flags: 0b1101, Bands: []meters.Band{
		{Type: meters.BandDrop, Rate: 1000, BurstSize: 100}, {Type: meters.BandDSCPRemark, Rate: 10, PrecLevel: 2}}}}
	if diff := cmp.Diff(want, mod); diff != "" {
		t.Errorf("MeterMod (-want +got):\n%s", diff)
	}
	if back := WireMeterMod(&mod); !cmp.Equal(back, mm) {
		t.Errorf("WireMeterMod = %+v, want %+v", back, mm)
	}
	_, err := meters.NewTable(nil).Apply(&meters.Mod{Command: meters.Add, Config: meters.Config{ID: 1, Flags: meters.FlagKBPS}})
	var em openflow.ErrorMsg
	if !errors.As(WireError(err), &em) || em.Type != openflow.ErrTypeMeterModFailed || em.Code != uint16(openflow.MeterModFailedOutOfBands) {
		t.Errorf("WireError(%v) = %v", err, WireError(err))
	}
}

func TestMeterInstructionFirst(t *testing.T) {
	ins, err := instructionsFromWire([]openflow.Instruction{openflow.ApplyActions(openflow.Output(2, 0)),
		{Type: openflow.InstructionMeter, MeterID: 3}}, 0, 1, nil)
	if err != nil || len(ins) != 2 || ins[0].Kind != rules.InstMeter || ins[0].Meter != 3 {
		t.Fatalf("instructions %+v, %v", ins, err)
	}
}

package ofrules

import (
	"errors"
	"time"

	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/openflow"
)

// MeterMod translates an OFPT_METER_MOD into a meters.Mod. The meter
// table checks it when it is applied (meters.Table.Apply); its
// *meters.Error becomes the OFPT_ERROR to send through WireError.
func MeterMod(mm *openflow.MeterMod) meters.Mod {
	mod := meters.Mod{Command: meters.Command(mm.Command), Config: meters.Config{ID: mm.MeterID, Flags: mm.Flags}}
	if len(mm.Bands) > 0 {
		mod.Bands = make([]meters.Band, len(mm.Bands))
		for i, b := range mm.Bands {
			mod.Bands[i] = meters.Band{Type: b.Type, Rate: b.Rate, BurstSize: b.BurstSize, PrecLevel: b.PrecLevel}
		}
	}
	return mod
}

// WireMeterMod is MeterMod backwards, for a client that sends meters.
func WireMeterMod(mod *meters.Mod) openflow.MeterMod {
	return openflow.MeterMod{Command: uint16(mod.Command), Flags: mod.Flags, MeterID: mod.ID, Bands: wireBands(mod.Bands)}
}

func wireBands(bs []meters.Band) []openflow.MeterBand {
	out := make([]openflow.MeterBand, len(bs))
	for i, b := range bs {
		out[i] = openflow.MeterBand{Type: b.Type, Rate: b.Rate, BurstSize: b.BurstSize, PrecLevel: b.PrecLevel}
	}
	return out
}

// meterError is the OFPT_ERROR of a refused meter mod.
func meterError(err error) (openflow.ErrorMsg, bool) {
	var me *meters.Error
	if !errors.As(err, &me) {
		return openflow.ErrorMsg{}, false
	}
	return openflow.ErrorMsg{Type: openflow.ErrTypeMeterModFailed, Code: uint16(me.Code)}, true
}

// WireMeterConfig is the OFPMP_METER_CONFIG entry of a meter.
func WireMeterConfig(c *meters.Config) openflow.MeterConfig {
	return openflow.MeterConfig{Flags: c.Flags, MeterID: c.ID, Bands: wireBands(c.Bands)}
}

// WireMeterStats is the OFPMP_METER entry of a meter's statistics.
func WireMeterStats(s *meters.Stats) openflow.MeterStats {
	out := openflow.MeterStats{MeterID: s.ID, FlowCount: s.FlowCount, PacketInCount: s.PacketInCount,
		ByteInCount: s.ByteInCount, DurationSec: uint32(s.Duration / time.Second),
		DurationNsec: uint32(s.Duration % time.Second), BandStats: make([]openflow.Counter, len(s.Bands))}
	for i, b := range s.Bands {
		out.BandStats[i] = openflow.Counter{PacketCount: b.Packets, ByteCount: b.Bytes}
	}
	return out
}

// WireMeterFeatures is the OFPMP_METER_FEATURES body of a meter table's
// features.
func WireMeterFeatures(f meters.Features) openflow.MeterFeatures {
	return openflow.MeterFeatures{MaxMeter: f.MaxMeter, BandTypes: f.BandTypes, Capabilities: f.Capabilities,
		MaxBands: f.MaxBands, MaxColor: f.MaxColor}
}

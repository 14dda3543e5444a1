package dataplane

import (
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// Meters (OpenFlow 1.3.5 §5.7). A flow entry's meter instruction runs
// before its other instructions (§5.9): the worker looks the meter up in
// the switch's meters.Table (atomic loads along a probe of its index) and charges it the frame (one compare-and-swap per band, on the
// table's clock, read once per vector by the first metered frame). The
// band that applies, if any, acts: DROP ends the frame's way through the
// pipeline there (counted as MeterDrops), DSCP_REMARK raises the drop
// precedence of an IPv4 or IPv6 DSCP (meters.RemarkDSCP) as set_field
// would rewrite it, checksum included (counted as a rewrite; a frame
// without an IP header, or whose code point has no drop precedence, is
// left as it is). Nothing is allocated and no lock is taken.
//
// A flow entry whose meter no longer exists is being removed with it
// (tables.Owner.ApplyMeter): its frames are dropped meanwhile.
//
// The Controller meter, when there is one, is charged for each frame
// output to the controller, on the clock read then; a frame its DROP band
// drops sends no packet-in (counted as MeterDrops), and the frame's other
// actions go on.

// meter runs meter instruction id on parsed frame j and reports whether
// the frame goes on through the pipeline.
func (w *Worker) meter(j int, id uint32) bool {
	var m *meters.Meter
	mt := w.sw.meters
	if mt != nil {
		m = mt.Lookup(id)
	}
	if m != nil {
		if !w.mclock {
			w.mnow, w.mclock = mt.Now(), true
		}
		b := m.Charge(w.mnow, len(w.pkt[j].data))
		if b < 0 {
			return true
		}
		if band := m.Band(b); band.Type == meters.BandDSCPRemark {
			w.remark(j, band.PrecLevel)
			return true
		}
	}
	w.stats.MeterDrops++
	w.pkt[j].dropped = true
	w.next[j] = 0xff
	return false
}

// meterPacketIn charges the Controller meter, if any, for a packet-in of
// a frame of n bytes and reports whether it goes out.
func (w *Worker) meterPacketIn(n int) bool {
	mt := w.sw.meters
	m := mt.Controller()
	if m == nil {
		return true
	}
	if m.Charge(mt.Now(), n) < 0 {
		return true
	}
	w.stats.MeterDrops++ // the Controller meter has DROP bands only
	return false
}

// remark raises the drop precedence of frame j's DSCP by prec levels.
func (w *Worker) remark(j int, prec uint8) {
	fs := &w.pkt[j]
	if fs.ethType != EtherTypeIPv4 && fs.ethType != EtherTypeIPv6 {
		w.stats.Skipped++
		return
	}
	old := uint8(w.keys[j].Get(rules.FieldIPDSCP))
	dscp := meters.RemarkDSCP(old, prec)
	if dscp == old {
		w.stats.Skipped++
		return
	}
	a := &w.mact
	a.Kind, a.Field, a.Value = rules.ActionSetField, rules.FieldIPDSCP, [2]uint64{0, uint64(dscp)}
	if w.setField(j, a) {
		w.stats.Rewrites++
	} else {
		w.stats.Skipped++
	}
}

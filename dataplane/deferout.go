package dataplane

import "github.com/ofswitch/ofswitch/rules"

// Deferred outputs (deferOut). Open vSwitch translates a packet's whole
// pipeline into one list of datapath actions and executes it only when
// the translation succeeds: a translation that reaches a resubmit limit
// (MaxResubmitDepth, MaxResubmits) clears the list, so the packet goes
// nowhere, not even to the ports and controllers that actions before the
// limit named. ofswitch runs actions as it goes, so to do the same it
// must hold a frame's outputs and packet-ins until its translation ends
// (the action set has run) and drop them if it failed.
//
// Only a resubmit can make a translation fail (goto_table only goes
// forward, so at most 254 of them count against MaxResubmits), so the
// worker defers only while the pipeline or the group table may hold a
// resubmit action (rules.Pipeline.MayResubmit, groups.Table.MayResubmit,
// read once a vector, or a PACKET_OUT's own actions): a switch without
// resubmits sends as its actions run and pays one predictable branch an
// output. The flags count the entries and groups that hold one, so that
// deleting the last makes a switch send at once again. (A vector that starts before the first resubmit entry is
// published may find it in a later table: its frames send at once, as
// before.)
//
// Deferring, an output keeps the frame's bytes as they are when it runs:
// the capture's bytes if no action has written to them (they stay put
// until the vector is done), otherwise a copy in the worker's arena,
// made once for every output until the next write (frameState.snap).
// The arena and the queue grow to the largest vector's needs and are
// reused: steady state allocates nothing. They are sent in the order
// their actions ran, once the vector's action sets have run, with the
// port's and the Controller meter's checks made then.

// deferred is one output (pin false: to port index pi, -1 for none) or
// packet-in (pin true: reason, max_len, entry r of table t, metadata and
// tunnel ID as they were) of parsed frame j, with the frame's bytes as
// its action found them.
type deferred struct {
	data      []byte
	r         *rules.Rule
	meta, tun uint64
	pi        int32
	j         uint8
	pin       bool
	reason, t uint8
	maxLen    uint16
}

// mayResubmit reports whether a resubmit may run in this vector: outputs
// are deferred if so.
func (w *Worker) mayResubmit() bool {
	s := w.sw
	return s.pipe.MayResubmit() || s.groups != nil && s.groups.MayResubmit()
}

// frameState.snap's values that are not arena offsets.
const (
	snapData = -1 // data is kept as it is: the capture's bytes
	snapNone = -2 // data has no copy since its last write
)

// snapshot returns frame j's bytes as they are now, in memory that stays
// unchanged until sendDeferred has run. (A copy stays valid when the
// arena grows: the slice keeps the old array, which nothing writes to.)
func (w *Worker) snapshot(j int) []byte {
	fs := &w.pkt[j]
	switch fs.snap {
	case snapData:
		return fs.data
	case snapNone:
		fs.snap = int32(len(w.darena))
		w.darena = append(w.darena, fs.data...)
	}
	off := int(fs.snap)
	end := off + len(fs.data)
	return w.darena[off:end:end]
}

// sendDeferred sends the deferred outputs and packet-ins of the frames
// whose translation did not fail, in order, and empties the queue.
func (w *Worker) sendDeferred() {
	for k := 0; k < len(w.dq); {
		k = w.sendDeferredFrom(k)
	}
	clear(w.dq) // no frame or entry stays reachable from here
	w.dq, w.darena = w.dq[:0], w.darena[:0]
}

// sendDeferredFrom sends w.dq[k:]; after a panic (in a port's Transmit
// or the PacketIn callback) it returns the index after the one that
// panicked.
func (w *Worker) sendDeferredFrom(k int) (next int) {
	defer func() {
		if r := recover(); r != nil {
			w.stats.Panics++
			next = k + 1
		}
	}()
	for ; k < len(w.dq); k++ {
		d := &w.dq[k]
		if w.pkt[d.j].xerr {
			continue
		}
		if d.pin {
			w.sendPacketIn(d)
		} else {
			w.send(int(d.pi), d.data)
		}
	}
	return k
}

package dataplane

import (
	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

// Groups (OpenFlow 1.3.5 §5.6). A group action looks its group up in the
// snapshot the group table publishes (one atomic load, no lock), counts
// the packet against the group and the buckets it takes, and runs each
// bucket on a copy of the packet as the group found it: ALL every bucket,
// SELECT the bucket of the packet's flow hash (groups.FlowHash), INDIRECT
// its bucket, FAST_FAILOVER its first live one. What a bucket's actions
// rewrite is its own: the packet leaves the group as it entered it (sent,
// if some bucket output it), and the actions after the group action see
// it unchanged.
//
// A group deepens the translation as Open vSwitch's does
// (xlate_group_action, xlate_group_bucket): the resubmit limits are
// checked before the group is looked up, and its buckets run one level
// deeper (frameState.depth), so that groups and resubmits nested in
// each other reach MaxResubmitDepth together.
//
// The copy costs no allocation: each worker keeps one saved frame per
// level of translation depth, a group's at the depth it runs at (depth
// grows by one into each bucket, so no two groups under way share one,
// whether chained directly or through resubmits), with a buffer for
// frames the worker had already rewritten (the others are the
// capture's, never written). Frames without a group action never touch
// any of it.

// savedFrame is a frame as a group action found it.
type savedFrame struct {
	fs    frameState
	key   rules.Key
	next  uint8
	owned bool   // the worker owned the frame's bytes: buf holds them
	buf   []byte // the frame's bytes when the worker owned them
}

// PortLive reports whether port number pn is up for the liveness of group
// buckets (groups.Ports): the switch has it and SetPortLive did not mark
// it down. Safe from any goroutine.
func (s *Switch) PortLive(pn uint32) bool {
	i := s.index(pn)
	return i >= 0 && !s.portDown[i].Load()
}

// SetPortLive marks port number pn up or down for the liveness of group
// buckets (its link is down, or OFPPC_PORT_DOWN is set: FAST_FAILOVER
// moves to its next bucket) and reports whether the switch has that port.
// Ports start up. It may be called at any time, from any goroutine.
func (s *Switch) SetPortLive(pn uint32, live bool) bool {
	i := s.index(pn)
	if i < 0 {
		return false
	}
	s.portDown[i].Store(!live)
	return true
}

// group runs group action a on parsed frame j, at chaining level depth
// (groups in buckets, up to groups.MaxDepth); r and t are the entry and
// table that asked for it.
func (w *Worker) group(j int, a *rules.Action, r *rules.Rule, t uint8, depth int) {
	if fs := &w.pkt[j]; fs.depth >= MaxResubmitDepth || fs.nresub >= MaxResubmits {
		w.xlateError(j)
		return
	}
	gt := w.sw.groups
	if gt == nil || depth >= groups.MaxDepth {
		w.stats.GroupDrops++
		return
	}
	s := gt.Load()
	g := s.Get(a.Group)
	if g == nil {
		w.stats.GroupDrops++
		return
	}
	n := len(w.pkt[j].data)
	g.Count(n)
	if g.Type != groups.TypeAll {
		b := s.Pick(g, groups.FlowHash(&w.keys[j]), w.sw)
		if b < 0 {
			w.stats.GroupDrops++
			return
		}
		g.CountBucket(b, n)
		sv := w.save(j)
		sent := w.bucket(j, g.BucketActions(b), r, t, depth)
		w.restore(j, sv, sent)
		return
	}
	if len(g.Buckets) == 0 {
		return
	}
	sv := w.save(j)
	sent := false
	for i := range g.Buckets {
		if i > 0 {
			w.reset(j, sv)
			if w.pkt[j].xerr {
				break
			}
		}
		g.CountBucket(i, n)
		sent = w.bucket(j, g.BucketActions(i), r, t, depth) || sent
	}
	w.restore(j, sv, sent)
}

// bucket runs the actions of a group's bucket, acts (Group.BucketActions:
// the bucket's action set in the order it executes), on frame j and
// reports whether it was sent anywhere. Chained groups run one level
// deeper. The bucket runs one level of translation depth deeper; reset and
// restore give the depth back.
func (w *Worker) bucket(j int, acts []rules.Action, r *rules.Rule, t uint8, depth int) bool {
	fs := &w.pkt[j]
	fs.sent = false
	fs.depth++
	for k := range acts {
		a := &acts[k]
		if a.Kind == rules.ActionGroup {
			w.group(j, a, r, t, depth+1)
		} else {
			w.act(j, a, r, t)
		}
		if fs.dropped || fs.exit { // exit (of a resubmitted flow) ends the bucket only: restore clears it
			break
		}
	}
	return fs.sent
}

// save keeps frame j as the group at its translation depth found it, and
// leaves frame j reading the kept bytes (the capture's or the saved
// copy), so that the first rewrite copies them again.
func (w *Worker) save(j int) *savedFrame {
	fs := &w.pkt[j]
	sv := &w.gsave[fs.depth]
	sv.fs, sv.key, sv.next, sv.owned = *fs, w.keys[j], w.next[j], fs.owned
	if fs.owned {
		sv.buf = append(sv.buf[:0], fs.data...)
		sv.fs.data, sv.fs.owned = sv.buf, false
		fs.data, fs.owned = sv.buf, false
	}
	return sv
}

// reset gives frame j back the state sv kept, for the next bucket. The
// resubmit count is the translation's, not the bucket's, and a
// translation error (xlateError) in a bucket ends the frame's: both stay.
func (w *Worker) reset(j int, sv *savedFrame) {
	fs := &w.pkt[j]
	n, xerr := fs.nresub, fs.xerr
	*fs, w.keys[j], w.next[j] = sv.fs, sv.key, sv.next
	fs.nresub = n
	if xerr {
		fs.xerr, fs.dropped = true, true
		w.next[j] = 0xff
	}
}

// restore gives frame j back the state sv kept after the group ran, as
// the worker's own bytes again if they were, marked sent if a bucket sent
// it.
func (w *Worker) restore(j int, sv *savedFrame, sent bool) {
	w.reset(j, sv)
	fs := &w.pkt[j]
	if sv.owned {
		buf := append(w.bufs[j][:0], sv.buf...)
		w.bufs[j], fs.data, fs.owned = buf, buf, true
	}
	fs.sent = fs.sent || sent
}

package push

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/internal/oftarget"
	"github.com/ofswitch/ofswitch/internal/quietconn"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Config sets up Flows. The zero value of a field means its default.
type Config struct {
	// Batch is the number of FLOW_MODs between barriers; default 1024.
	Batch int
	// Window is the number of batches in flight: the next batch is sent
	// before the barrier replies of the Window-1 before it have arrived,
	// so that the switch applies one while the client encodes the next
	// and the next after it is already on its way. Default 4; 1 waits for
	// every barrier reply before sending more. A batch's barrier latency
	// counts the time it waits behind those before it.
	Window int
	// Timeout bounds the wait for each barrier reply; default 10 s.
	Timeout time.Duration
	// Lines, if set, names the file a flow came from: Lines[i] describes
	// updates[i] in errors (e.g. "acl.flows:12"). Flows only: Stream's
	// Msgs carry their own.
	Lines []string
	// Bundle sends each batch as one bundle, atomic and ordered, as
	// ovs-ofctl --bundle does: OpenFlow 1.4 bundle messages, or the ONF
	// extension (EXT-230) where the switch speaks only OpenFlow 1.3. A
	// batch is applied whole or not at all; the commit reply takes the
	// place of the barrier reply.
	Bundle bool
	// Mods are GROUP_MODs and METER_MODs to send among the FLOW_MODs, in
	// increasing order of Mod.Before. Each counts in its batch as a
	// FLOW_MOD does, and goes inside the bundle with Bundle. Flows only:
	// a Source gives its own among its flows.
	Mods []Mod
	// Conn, if set, is the connection to push over, made by the caller
	// (one from inside a network namespace, say); Flows closes it, and
	// does not use its target.
	Conn net.Conn
	// Importance tells Stream that an add of its source has an
	// importance, which only OpenFlow 1.4 carries: it then offers 1.4 as
	// well as 1.3 (Flows finds out from its updates).
	Importance bool
	// TLV is the switch's TLV table (TLVTable), through which flows
	// that match or set tun_metadataN were parsed: the FLOW_MODs carry
	// those fields as it maps them, at the mapped length. Nil: none.
	TLV *ofrules.TLVTable
}

// Msg is one mod of a streamed push (Stream): a flow update, a group mod
// or a meter mod, exactly one of the four set (counting Wire), and where
// it came from, for errors (e.g. "acl.txt:12"): Where, or else File and
// Line, which Stream joins into "File:Line" only for a mod the switch
// refuses, so that a source names its mods without a string each.
type Msg struct {
	Flow  *rules.Update
	Group *groups.Mod // a GROUP_MOD (ofrules.WireGroupMod)
	Meter *meters.Mod // a METER_MOD (ofrules.WireMeterMod)
	// Wire is a FLOW_MOD, GROUP_MOD or METER_MOD already encoded, one
	// whole message whose header's type says which, sent as it is but for
	// its xid, which Stream sets: a source that encoded its mods while it
	// checked them sends them without translating them again. Its version
	// must be the one the push negotiates, and the push must not bundle
	// (Config.Bundle): Stream fails otherwise. A push that offers only
	// OpenFlow 1.3 (no Bundle, no Importance) negotiates 1.3 or fails.
	Wire  []byte
	Where string
	File  string // with Line, where Where is empty
	Line  int    // 1-based; 0: none
}

// Source gives Stream its mods, in the order they go out.
type Source interface {
	// Next returns the next mods, or io.EOF after the last; any other
	// error ends the push. The slice, and what its Msgs point to, may be
	// reused once Next is called again: Stream has encoded them by then.
	Next() ([]Msg, error)
}

// Mod is a GROUP_MOD or a METER_MOD that a push sends among its
// FLOW_MODs.
type Mod struct {
	// Before is the index of the update the mod goes before:
	// len(updates) sends it after them all.
	Before int
	Group  *groups.Mod // a GROUP_MOD (ofrules.WireGroupMod), or
	Meter  *meters.Mod // a METER_MOD (ofrules.WireMeterMod)
	Where  string      // names the mod in errors, e.g. "acl.txt:3"
}

// Error is an OFPT_ERROR the switch sent for one FLOW_MOD, GROUP_MOD or
// METER_MOD, or for the commit of a bundle (Config.Bundle).
type Error struct {
	// Index is the FLOW_MOD's index into the updates pushed, or the
	// GROUP_MOD's or METER_MOD's into Config.Mods, as Type says (for
	// Stream: the flows, or the group and meter mods, the source gave
	// before it). The error of a commit names the bundle's first message
	// so.
	Index int
	Type  openflow.Type // TypeFlowMod, TypeGroupMod or TypeMeterMod
	Where string        // Config.Lines[Index] or Config.Mods[Index].Where, if given
	XID   uint32
	Err   openflow.ErrorMsg
	// Commit is set for the error of a bundle's commit: none of the
	// bundle's flows was applied.
	Commit bool
	// Flows is the number of messages of the bundle (Commit only):
	// flow, group and meter mods.
	Flows int
}

func (e *Error) Error() string {
	where := e.Where
	if where == "" {
		switch e.Type {
		case openflow.TypeGroupMod, openflow.TypeMeterMod:
			where = fmt.Sprintf("mod %d", e.Index+1)
		default:
			where = fmt.Sprintf("flow %d", e.Index+1)
		}
	}
	if e.Commit {
		return fmt.Sprintf("%s: switch refused to commit the bundle of %d mods from here, xid=%d: %s", where, e.Flows, e.XID, e.Err.Error())
	}
	name := "FLOW_MOD"
	switch e.Type {
	case openflow.TypeGroupMod:
		name = "GROUP_MOD"
	case openflow.TypeMeterMod:
		name = "METER_MOD"
	}
	return fmt.Sprintf("%s: switch refused %s xid=%d: %s", where, name, e.XID, e.Err.Error())
}

// Result is what Flows measured.
type Result struct {
	Flows  int `json:"flows"`
	Groups int `json:"groups"` // GROUP_MODs sent (Config.Mods)
	Meters int `json:"meters"` // METER_MODs sent (Config.Mods)
	// Batches counts the barriers (or bundles) that ended a batch.
	Batches int           `json:"batches"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// PerSec is the mods sent per second: flows, and groups and meters.
	PerSec   float64  `json:"flows_per_sec"`
	Version  uint8    `json:"version"`
	Errors   []*Error `json:"-"`
	ErrCount int      `json:"errors"`
	// NotApplied counts the mods the switch refused: one per FLOW_MOD,
	// GROUP_MOD or METER_MOD error, and every mod of a bundle whose
	// commit failed.
	NotApplied int `json:"not_applied"`
	// Barrier latency of each batch: from its first FLOW_MOD written to
	// its BARRIER_REPLY read (with a Window over 1, a batch may wait for
	// the switch to finish the one before it).
	LatencyP50 time.Duration `json:"latency_p50_ns"`
	LatencyP99 time.Duration `json:"latency_p99_ns"`
	LatencyMax time.Duration `json:"latency_max_ns"`
	// Histogram lists (latency in µs, count) pairs, one per distinct
	// latency, in increasing order.
	Histogram [][2]int64 `json:"latency_histogram_us"`
	// ImportanceDropped is set when an added flow had an importance and
	// the switch speaks only OpenFlow 1.3, which has no field for it: the
	// flow was added without it.
	ImportanceDropped bool `json:"-"`
}

// Flows sends updates to the switch at target ("tcp:IP[:PORT]" or
// "unix:PATH"), or over cfg.Conn, as FLOW_MODs, Batch at a time followed
// by a BARRIER_REQUEST (or each batch as one bundle), with up to Window
// batches in flight.
// Errors the switch answers are collected in the Result, not fatal; Flows
// fails only if the connection does, or ctx is done.
func Flows(ctx context.Context, target string, updates []rules.Update, cfg *Config) (*Result, error) {
	var mods []Mod
	if cfg != nil {
		mods = cfg.Mods
	}
	if err := checkMods(mods, len(updates)); err != nil {
		return nil, err
	}
	src := &sliceSource{ups: updates, mods: mods}
	c := Config{}
	if cfg != nil {
		c = *cfg
		src.lines = cfg.Lines
	}
	c.Importance = anyImportance(updates)
	return Stream(ctx, target, src, &c)
}

// Stream is Flows of the mods src gives: flows, groups and meters, batch
// by batch as they come. It ignores Config.Lines and Config.Mods (each
// Msg names itself) and offers OpenFlow 1.4 if Config.Importance says
// so. A push of a file of any size holds the chunk it encodes and the
// batches in flight, not the file. An error of src ends the push after
// the switch has answered the batches before it: a source that must be
// all or nothing checks its input first.
func Stream(ctx context.Context, target string, src Source, cfg *Config) (*Result, error) {
	if cfg != nil && cfg.Conn != nil {
		return flowsOver(ctx, cfg.Conn, src, cfg)
	}
	nc, err := Dial(ctx, target, nil)
	if err != nil {
		return nil, err
	}
	res, err := flowsOver(ctx, nc, src, cfg)
	if err != nil {
		return res, fmt.Errorf("push to %s: %w", target, err)
	}
	return res, nil
}

// Dial connects to the switch at target ("tcp:IP[:PORT]" or
// "unix:PATH") with d (nil: a zero net.Dialer) as Stream does, and sends
// nothing: a caller that has work to do before it pushes (checking its
// file, say) dials first and hands the connection to Stream in
// Config.Conn, so that the connection is made, and the switch has sent
// its HELLO, by the time the push starts.
func Dial(ctx context.Context, target string, d *net.Dialer) (net.Conn, error) {
	t, err := oftarget.Parse(target)
	if err != nil {
		return nil, err
	}
	if t.Passive {
		return nil, fmt.Errorf("push to %s: want an active target (tcp:IP[:PORT] or unix:PATH)", target)
	}
	if d == nil {
		d = &net.Dialer{}
	}
	nc, err := d.DialContext(ctx, t.Network(), t.Addr())
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	return nc, nil
}

// flowsOver is Stream over nc, which it closes.
func flowsOver(ctx context.Context, nc net.Conn, src Source, cfg *Config) (*Result, error) {
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	p := newPusher(quietconn.Wrap(nc), cfg)
	p.src = src
	return p.run(ctx)
}

// sliceSource is the Source of Flows: updates, with Config.Mods among
// them (mod j before update mods[j].Before), a chunk at a time.
type sliceSource struct {
	ups   []rules.Update
	lines []string
	mods  []Mod
	i, j  int // the next update, the next mod
	buf   []Msg
}

func (s *sliceSource) Next() ([]Msg, error) {
	s.buf = s.buf[:0]
	for len(s.buf) < 1024 {
		switch {
		case s.j < len(s.mods) && s.mods[s.j].Before <= s.i:
			m := &s.mods[s.j]
			s.buf = append(s.buf, Msg{Group: m.Group, Meter: m.Meter, Where: m.Where})
			s.j++
		case s.i < len(s.ups):
			msg := Msg{Flow: &s.ups[s.i]}
			if s.i < len(s.lines) {
				msg.Where = s.lines[s.i]
			}
			s.buf = append(s.buf, msg)
			s.i++
		default:
			if len(s.buf) == 0 {
				return nil, io.EOF
			}
			return s.buf, nil
		}
	}
	return s.buf, nil
}

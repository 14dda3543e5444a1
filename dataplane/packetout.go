package dataplane

import (
	"errors"
	"fmt"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// PacketOut errors; a *PacketOutError unwraps to one of them.
var (
	ErrBadOutPort = errors.New("dataplane: no such output port") // OFPBAC_BAD_OUT_PORT
	ErrBadAction  = errors.New("dataplane: unsupported action")  // OFPBAC_BAD_TYPE
	ErrFrameSize  = errors.New("dataplane: bad frame length")    // OFPBRC_BAD_LEN
	// ErrTranslation: the actions' translation failed on a resubmit
	// limit (MaxResubmitDepth, MaxResubmits), in the actions or in the
	// pipeline an output:TABLE ran; nothing was sent. Open vSwitch
	// answers such a PACKET_OUT with OFPFMFC_UNKNOWN.
	ErrTranslation = errors.New("dataplane: action translation failed") // OFPFMFC_UNKNOWN
)

// PacketOutError says which action of a PACKET_OUT was refused and why.
type PacketOutError struct {
	Action int    // index in the action list; -1 for the frame itself
	Port   uint32 // the output port, for ErrBadOutPort
	Err    error  // a sentinel of this package
}

func (e *PacketOutError) Error() string {
	if errors.Is(e.Err, ErrTranslation) {
		return fmt.Sprintf("packet_out: %v", e.Err)
	}
	if e.Action < 0 {
		return fmt.Sprintf("packet_out: frame: %v", e.Err)
	}
	if errors.Is(e.Err, ErrBadOutPort) {
		return fmt.Sprintf("packet_out: action[%d]: output to %#x: %v", e.Action, e.Port, e.Err)
	}
	return fmt.Sprintf("packet_out: action[%d]: %v", e.Action, e.Err)
}

func (e *PacketOutError) Unwrap() error { return e.Err }

// MaxFrame is the largest frame PacketOut accepts.
const MaxFrame = 65535

// PacketOut executes a PACKET_OUT (OpenFlow 1.3.5 §7.3.7): actions, in
// order, on an Ethernet frame as if it had been received on inPort
// (rules.PortController when the controller names none). Output to
// rules.PortTable runs the frame through the flow tables from table 0, as
// received on inPort; FLOOD and ALL exclude inPort; NORMAL switches it
// through the learning table; CONTROLLER sends it back as a packet-in of
// reason action. Later actions see the frame as the earlier ones left it,
// not as the pipeline of an output:TABLE did.
//
// The actions are checked before any runs: an output to a port the
// switch does not have, an action the data plane does not model
// (groups), or one the frame cannot take (rules.CheckActions with the
// frame as the match: set_field of eth_type, of an IPv6 field on an IPv4
// frame, ...; the *PacketOutError then wraps the *rules.Error) refuses
// the whole PACKET_OUT with a *PacketOutError. frame is not modified nor
// retained.
//
// A translation that fails on a resubmit limit sends nothing and returns
// a *PacketOutError wrapping ErrTranslation, as Open vSwitch translates a
// PACKET_OUT's actions, an output:TABLE's pipeline included, as one and
// answers OFPFMFC_UNKNOWN when that fails.
//
// PacketOut is safe to call from any goroutine while the workers run:
// calls are serialised on a worker of their own, and frames go out
// through the same Port.Transmit as the workers'. Its counters are merged
// into Stats and PortStats.
func (s *Switch) PacketOut(inPort uint32, actions []rules.Action, frame []byte) error {
	if len(frame) < 14 || len(frame) > MaxFrame {
		return &PacketOutError{Action: -1, Err: ErrFrameSize}
	}
	resub := false
	for i := range actions {
		a := &actions[i]
		resub = resub || a.Kind == rules.ActionResubmit
		switch a.Kind {
		case rules.ActionOutput:
			switch a.Port {
			case rules.PortTable, rules.PortNormal, rules.PortFlood, rules.PortAll, rules.PortController, rules.PortInPort:
			default:
				if s.index(a.Port) < 0 {
					return &PacketOutError{Action: i, Port: a.Port, Err: ErrBadOutPort}
				}
			}
		case rules.ActionSetField, rules.ActionPushVLAN, rules.ActionPopVLAN, rules.ActionDecNwTTL, rules.ActionSetNwTTL, rules.ActionSetQueue,
			rules.ActionPushMPLS, rules.ActionPopMPLS, rules.ActionSetMPLSTTL, rules.ActionDecMPLSTTL,
			rules.ActionPushPBB, rules.ActionPopPBB, rules.ActionCopyTTLOut, rules.ActionCopyTTLIn,
			rules.ActionNote, rules.ActionExit, rules.ActionController, rules.ActionResubmit,
			rules.ActionLoad, rules.ActionMove, rules.ActionOutputReg:
		default:
			return &PacketOutError{Action: i, Err: ErrBadAction}
		}
	}
	s.pktMu.Lock()
	defer s.pktMu.Unlock()
	w := s.pktout
	defer w.Quiesce()
	w.clock, w.open = false, false
	w.load(0, frame, inPort)
	if err := w.checkPacketOut(actions); err != nil {
		return &PacketOutError{Action: -1, Err: err}
	}
	// A resubmit limit reached in the actions drops what they sent
	// (deferOut). output:TABLE runs the pipeline on a vector of its own:
	// while the pipeline may resubmit, what the actions before it
	// deferred stays queued as the frame's, and the pipeline's run sends
	// it, or drops it with the run's own outputs if the run fails, as one
	// translation; otherwise the run cannot fail, and it goes out first.
	// (What an output:TABLE sent is out before the actions after it run:
	// a limit reached in those drops only their own.)
	xerrs := w.stats.XlateErrors
	dfr := resub || w.mayResubmit()
	w.dfr = dfr
	for i := range actions {
		a := &actions[i]
		if a.Kind == rules.ActionOutput && a.Port == rules.PortTable {
			if !w.mayResubmit() {
				w.sendDeferred()
			}
			w.table(inPort)
			w.dfr = dfr
			if w.stats.XlateErrors != xerrs {
				break
			}
			continue
		}
		w.act(0, a, nil, 0xff)
		if w.pkt[0].dropped || w.pkt[0].exit {
			break
		}
	}
	w.sendDeferred()
	w.flush()
	w.publish()
	if w.stats.XlateErrors != xerrs {
		return &PacketOutError{Action: -1, Err: ErrTranslation}
	}
	return nil
}

// load makes frame the parsed frame j of w, received on inPort.
func (w *Worker) load(j int, frame []byte, inPort uint32) {
	fs := &w.pkt[j]
	*fs = frameState{data: frame, snap: snapData, eth: true, inPort: inPort}
	w.set[j].n = 0
	w.next[j] = 0xff
	h, ok := w.parser.Parse(frame, layers.LinkTypeEthernet, inPort)
	if !ok {
		w.keys[j] = rules.Key{}
		return
	}
	h.Key(&w.keys[j])
	fs.l3, fs.l4, fs.vlans, fs.ethType, fs.proto = int(h.L3Off), int(h.L4Off), int(h.VLANs), h.EthType, h.IPProto
}

// checkPacketOut checks the actions of a PACKET_OUT against frame 0 as
// load parsed it, as Open vSwitch checks them against the packet's flow:
// the flow tables' checks of a flow entry's actions (rules.CheckActions)
// with a match that is the frame's key, exact in every bit. The error is
// a *rules.Error.
func (w *Worker) checkPacketOut(actions []rules.Action) error {
	m := rules.Match{Key: w.keys[0]}
	for i := range m.Mask {
		m.Mask[i] = ^uint64(0)
	}
	ins := [1]rules.Instruction{{Kind: rules.InstApplyActions, Actions: actions}}
	return rules.CheckActions(&m, ins[:])
}

// table runs frame 0 of the PACKET_OUT worker through the pipeline, then
// restores it for the actions after output:TABLE.
func (w *Worker) table(inPort uint32) {
	s := w.sw
	s.pktBuf = append(s.pktBuf[:0], w.pkt[0].data...)
	v := &w.vec
	v.N = 1
	v.Frames[0], v.Link[0], v.InPort[0] = s.pktBuf, layers.LinkTypeEthernet, inPort
	w.Process(v)
	v.Frames[0] = nil
	w.load(0, s.pktBuf, inPort)
}

//go:build linux

package bridge

import (
	"errors"
	"sync"
	"time"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Port description bits (OpenFlow 1.3.5 §7.2.1, enums ofp_port_config,
// ofp_port_state and ofp_port_features) that ofswitch sets.
const (
	ofppcPortDown = 1 << 0 // OFPPC_PORT_DOWN: administratively down

	ofppsLinkDown = 1 << 0 // OFPPS_LINK_DOWN: no physical link
	ofppsLive     = 1 << 2 // OFPPS_LIVE: live for fast-failover groups

	ofppf10MbFD  = 1 << 1  // OFPPF_10MB_FD
	ofppf100MbFD = 1 << 3  // OFPPF_100MB_FD
	ofppf1GbFD   = 1 << 5  // OFPPF_1GB_FD
	ofppf10GbFD  = 1 << 6  // OFPPF_10GB_FD
	ofppf40GbFD  = 1 << 7  // OFPPF_40GB_FD
	ofppf100GbFD = 1 << 8  // OFPPF_100GB_FD
	ofppf1TbFD   = 1 << 9  // OFPPF_1TB_FD
	ofppfOther   = 1 << 10 // OFPPF_OTHER: a rate not in the list
	ofppfCopper  = 1 << 11 // OFPPF_COPPER
)

// speedFeature maps a link rate in kbit/s to its OFPPF_* rate bit. The
// kernel reports the rate but not always the duplex of a virtual link;
// like Open vSwitch for veth and tap ports, ofswitch reports full duplex.
func speedFeature(kbps uint32) uint32 {
	switch kbps {
	case 0:
		return 0
	case 10_000:
		return ofppf10MbFD
	case 100_000:
		return ofppf100MbFD
	case 1_000_000:
		return ofppf1GbFD
	case 10_000_000:
		return ofppf10GbFD
	case 40_000_000:
		return ofppf40GbFD
	case 100_000_000:
		return ofppf100GbFD
	case 1_000_000_000:
		return ofppf1TbFD
	}
	return ofppfOther
}

// portDesc is the OpenFlow description (ofp_port) of a port as netlink
// reports its interface, with the config bits ofcfg that PORT_MOD set
// (NO_RECV, NO_FWD, NO_PACKET_IN). config says OFPPC_PORT_DOWN when the
// interface is administratively down; state says OFPPS_LINK_DOWN without a carrier
// and OFPPS_LIVE when the port can forward (up and with a carrier).
// curr_speed is the rate the driver reports; max_speed stays 0 (unknown):
// netlink tells no maximum. Advertised, supported and peer features are
// not known either and stay 0, as Open vSwitch reports them for veth.
func portDesc(p *dataplane.PortInfo, ofcfg uint32) openflow.Port {
	d := openflow.Port{PortNo: p.No, HWAddr: p.HWAddr, CurrSpeed: p.SpeedKbps, Config: ofcfg}
	copy(d.Name[:len(d.Name)-1], p.Name)
	if !p.AdminUp {
		d.Config |= ofppcPortDown
	}
	switch {
	case !p.LinkUp:
		d.State |= ofppsLinkDown
	case p.AdminUp:
		d.State |= ofppsLive
	}
	if f := speedFeature(p.SpeedKbps); f != 0 {
		d.Curr = f | ofppfCopper
	}
	return d
}

// portCounters is what the port table needs of the data plane: it fills
// the counters of one port into s (the table sets port_no and duration).
// It is called without the table's lock, from connection goroutines.
type portCounters interface {
	Counters(info *dataplane.PortInfo, s *openflow.PortStats)
}

// portTable is the switch's ports as the OpenFlow channel sees them: their
// netlink descriptions, kept current by port events, and the data plane's
// per-port counters. It implements controller.Ports.
//
// # Concurrency
//
// Its methods are safe for concurrent use: connections read it while the
// port watcher updates it.
type portTable struct {
	counters portCounters // nil: all counters zero
	// setAdmin brings the interface called name administratively up or
	// down (PORT_MOD's OFPPC_PORT_DOWN); nil: PORT_MOD cannot.
	setAdmin func(name string, up bool) error
	// setConfig gives the data plane port no's NO_RECV, NO_FWD and
	// NO_PACKET_IN bits (dataplane.Switch.SetPortConfig); nil: PORT_MOD
	// cannot set them.
	setConfig func(no, bits uint32)

	// mu guards the fields below.
	mu    sync.Mutex
	ports []portEntry // by port number - 1
	// announce sends a PORT_STATUS (OFPPR_MODIFY) for a change PORT_MOD
	// made that netlink does not report; nil until the agent runs.
	announce func(desc openflow.Port)
}

// portEntry is one port of the table.
type portEntry struct {
	info    dataplane.PortInfo
	ofcfg   uint32    // config bits set by PORT_MOD (NO_RECV, NO_FWD, NO_PACKET_IN)
	present bool      // the interface exists
	since   time.Time // when it (last) appeared: duration in PORT_STATS
}

var (
	_ controller.Ports      = (*portTable)(nil)
	_ controller.PortModder = (*portTable)(nil)
)

// newPortTable returns a table of infos, numbered 1..len(infos) in order,
// whatever their No says.
func newPortTable(infos []dataplane.PortInfo, counters portCounters) *portTable {
	now := time.Now()
	t := &portTable{counters: counters, ports: make([]portEntry, len(infos))}
	for i := range infos {
		t.ports[i] = portEntry{info: infos[i], present: true, since: now}
		t.ports[i].info.No = uint32(i + 1)
	}
	return t
}

// Descs appends the description of every present port to dst, in port
// number order.
func (t *portTable) Descs(dst []openflow.Port) []openflow.Port {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.ports {
		if t.ports[i].present {
			dst = append(dst, portDesc(&t.ports[i].info, t.ports[i].ofcfg))
		}
	}
	return dst
}

// Stats appends the counters of port (every present port for
// openflow.PortAny) to dst, with the time since the port appeared.
func (t *portTable) Stats(dst []openflow.PortStats, port uint32) ([]openflow.PortStats, bool) {
	now := time.Now()
	start := len(dst)
	var infos [16]dataplane.PortInfo
	sel := infos[:0]
	t.mu.Lock()
	for i := range t.ports {
		e := &t.ports[i]
		if !e.present || (port != openflow.PortAny && port != e.info.No) {
			continue
		}
		d := now.Sub(e.since)
		dst = append(dst, openflow.PortStats{PortNo: e.info.No, DurationSec: uint32(d / time.Second), DurationNsec: uint32(d % time.Second)})
		sel = append(sel, e.info)
	}
	t.mu.Unlock()
	if t.counters != nil {
		for i := range sel {
			t.counters.Counters(&sel[i], &dst[start+i])
		}
	}
	return dst, len(sel) > 0
}

// Port config bits that PORT_MOD may name (OpenFlow 1.3.5 §7.2.1) besides
// OFPPC_PORT_DOWN.
const (
	ofppcNoRecv     = 1 << 2 // OFPPC_NO_RECV
	ofppcNoFwd      = 1 << 5 // OFPPC_NO_FWD
	ofppcNoPacketIn = 1 << 6 // OFPPC_NO_PACKET_IN
	ofppcAll        = ofppcPortDown | ofppcNoRecv | ofppcNoFwd | ofppcNoPacketIn
)

// ModPort takes a PORT_MOD, as Open vSwitch does for its ports: the port
// must be present (OFPPMFC_BAD_PORT) and hwAddr its address
// (OFPPMFC_BAD_HW_ADDR). OFPPC_PORT_DOWN brings the interface
// administratively down or up through netlink, and the port watcher then
// announces the change as a PORT_STATUS, as for a change made with ip
// link. OFPPC_NO_RECV, OFPPC_NO_FWD and OFPPC_NO_PACKET_IN go to the data
// plane (setConfig) and into the port's description, and a change of them
// is announced as a PORT_STATUS here. Unknown bits are OFPPMFC_BAD_CONFIG;
// advertising features, which netlink does not set, is
// OFPPMFC_BAD_ADVERTISE; a netlink failure, or a switch without a data
// plane for the bits, OFPPMFC_EPERM.
func (t *portTable) ModPort(no uint32, hwAddr [6]byte, config, mask, advertise uint32) error {
	fail := func(code openflow.PortModFailedCode) error {
		return openflow.ErrorMsg{Type: openflow.ErrTypePortModFailed, Code: uint16(code)}
	}
	info, ok := t.Info(no)
	switch {
	case !ok:
		return fail(openflow.PortModFailedBadPort)
	case hwAddr != info.HWAddr:
		return fail(openflow.PortModFailedBadHWAddr)
	case mask&^ofppcAll != 0:
		return fail(openflow.PortModFailedBadConfig)
	case advertise != 0:
		return fail(openflow.PortModFailedBadAdvertise)
	}
	if m := mask &^ ofppcPortDown; m != 0 {
		if t.setConfig == nil {
			return fail(openflow.PortModFailedEPerm)
		}
		t.mu.Lock()
		e := &t.ports[no-1]
		old := e.ofcfg
		e.ofcfg = old&^m | config&m
		t.setConfig(no, e.ofcfg)
		changed, desc, announce := e.ofcfg != old, portDesc(&e.info, e.ofcfg), t.announce
		t.mu.Unlock()
		if changed && announce != nil {
			announce(desc)
		}
	}
	if mask&ofppcPortDown == 0 {
		return nil
	}
	if t.setAdmin == nil {
		return fail(openflow.PortModFailedEPerm)
	}
	if err := t.setAdmin(info.Name, config&ofppcPortDown == 0); err != nil {
		return &wrappedOFError{msg: openflow.ErrorMsg{Type: openflow.ErrTypePortModFailed, Code: uint16(openflow.PortModFailedEPerm)}, err: err}
	}
	return nil
}

// setAnnounce makes fn receive the descriptions of the changes ModPort
// makes that no port event reports.
func (t *portTable) setAnnounce(fn func(desc openflow.Port)) {
	t.mu.Lock()
	t.announce = fn
	t.mu.Unlock()
}

// Info returns the current information of port number no.
func (t *portTable) Info(no uint32) (dataplane.PortInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if no == 0 || no > uint32(len(t.ports)) || !t.ports[no-1].present {
		return dataplane.PortInfo{}, false
	}
	return t.ports[no-1].info, true
}

// Update applies a port event to the table and returns the PORT_STATUS
// reason and description that announce it. Events of port numbers
// outside the table are ignored (ok false).
func (t *portTable) Update(ev dataplane.PortEvent) (reason uint8, desc openflow.Port, ok bool) {
	no := ev.Info.No
	t.mu.Lock()
	defer t.mu.Unlock()
	if no == 0 || no > uint32(len(t.ports)) {
		return 0, openflow.Port{}, false
	}
	e := &t.ports[no-1]
	switch ev.Reason {
	case dataplane.PortAdded:
		reason = openflow.PortAdd
		e.present, e.since = true, time.Now()
	case dataplane.PortDeleted:
		reason = openflow.PortDelete
		e.present = false
	case dataplane.PortModified:
		reason = openflow.PortModify
		e.present = true
	default:
		return 0, openflow.Port{}, false
	}
	e.info = ev.Info
	return reason, portDesc(&e.info, e.ofcfg), true
}

// datapathID derives a datapath id from the ports' Ethernet addresses as
// Open vSwitch does for a bridge without other-config:datapath-id: the
// numerically lowest unicast, non-zero address, in the low 48 bits. It
// returns def when no port has such an address.
func datapathID(infos []dataplane.PortInfo, def uint64) uint64 {
	best, found := uint64(0), false
	for i := range infos {
		a := infos[i].HWAddr
		if a[0]&1 != 0 || a == [6]byte{} {
			continue // multicast or none
		}
		v := uint64(a[0])<<40 | uint64(a[1])<<32 | uint64(a[2])<<24 | uint64(a[3])<<16 | uint64(a[4])<<8 | uint64(a[5])
		if !found || v < best {
			best, found = v, true
		}
	}
	if !found {
		return def
	}
	return best
}

// packetOutError turns the data plane's refusal of a PACKET_OUT into the
// OFPT_ERROR the agent sends for it, keeping the data plane's message.
func packetOutError(err error) error {
	var m openflow.ErrorMsg
	var re *rules.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, dataplane.ErrBadOutPort):
		m = openflow.ErrorMsg{Type: openflow.ErrTypeBadAction, Code: uint16(openflow.BadActionBadOutPort)}
	case errors.Is(err, dataplane.ErrBadAction):
		m = openflow.ErrorMsg{Type: openflow.ErrTypeBadAction, Code: uint16(openflow.BadActionBadType)}
	case errors.Is(err, dataplane.ErrFrameSize):
		m = openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadLen)}
	case errors.Is(err, dataplane.ErrTranslation): // as Open vSwitch's packet_xlate answers
		m = openflow.ErrorMsg{Type: openflow.ErrTypeFlowModFailed, Code: uint16(openflow.FlowModFailedUnknown)}
	case errors.As(err, &re): // an action the frame cannot take
		m = openflow.ErrorMsg{Type: openflow.ErrorType(re.Type), Code: uint16(re.Code)}
	default:
		return err
	}
	return &wrappedOFError{msg: m, err: err}
}

// wrappedOFError is an OFPT_ERROR that still reads as, and unwraps to,
// the data plane's error: openflow.ErrorFor finds the ErrorMsg through
// errors.As, a log line shows the cause.
type wrappedOFError struct {
	msg openflow.ErrorMsg
	err error
}

func (e *wrappedOFError) Error() string { return e.msg.Error() + ": " + e.err.Error() }

// Unwrap returns both: errors.As finds the ErrorMsg, errors.Is the cause.
func (e *wrappedOFError) Unwrap() []error { return []error{e.msg, e.err} }

// packetIn converts a data plane packet-in into the agent's.
func packetIn(dst *controller.PacketIn, p *dataplane.PacketIn) {
	*dst = controller.PacketIn{
		InPort: p.InPort, Reason: p.Reason, Table: p.Table, Cookie: p.Cookie,
		MaxLen: p.MaxLen, Frame: p.Frame, Metadata: p.Metadata, TunnelID: p.TunnelID,
	}
}

// portNumbers returns 1..n.
func portNumbers(n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i + 1)
	}
	return out
}

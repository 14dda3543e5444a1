//go:build linux

package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// ErrNoInterface is returned when a named network interface does not exist.
var ErrNoInterface = errors.New("dataplane: no such interface")

// PortInfo describes one switch port as netlink reports its interface:
// what an OpenFlow port description (ofp_port) is made of.
//
// The zero PortInfo is port number 0 (not a valid OpenFlow port), with no
// name, no address, down.
type PortInfo struct {
	No      uint32  // OpenFlow port number (set by the caller; 0 when unknown)
	Name    string  // interface name
	Index   int     // kernel ifindex
	HWAddr  [6]byte // Ethernet address (zero if the interface has none)
	MTU     int     // bytes
	AdminUp bool    // IFF_UP: the administrator enabled it (OFPPC_PORT_DOWN when false)
	LinkUp  bool    // IFF_RUNNING / oper state up: a carrier (OFPPS_LINK_DOWN when false)
	// SpeedKbps is the current bit rate in kbit/s as the driver reports it in
	// /sys/class/net/NAME/speed, or 0 when the driver reports none (veth,
	// loopback, a link that is down) or sysfs belongs to another namespace.
	SpeedKbps uint32
}

// String formats p on one line.
func (p PortInfo) String() string {
	return fmt.Sprintf("port %d %s ifindex %d %s mtu %d admin %v link %v speed %d kbps",
		p.No, p.Name, p.Index, net.HardwareAddr(p.HWAddr[:]), p.MTU, p.AdminUp, p.LinkUp, p.SpeedKbps)
}

// PortReason says what happened to a port (ofp_port_reason).
type PortReason uint8

// Port event reasons.
const (
	PortAdded    PortReason = 0 // OFPPR_ADD
	PortDeleted  PortReason = 1 // OFPPR_DELETE
	PortModified PortReason = 2 // OFPPR_MODIFY
)

// String returns the OpenFlow name of r.
func (r PortReason) String() string {
	switch r {
	case PortAdded:
		return "ADD"
	case PortDeleted:
		return "DELETE"
	case PortModified:
		return "MODIFY"
	}
	return "PortReason(" + strconv.Itoa(int(r)) + ")"
}

// PortEvent is a change of one watched port (an OFPT_PORT_STATUS to be).
type PortEvent struct {
	Reason PortReason
	Info   PortInfo // the port after the change (before it, for PortDeleted)
}

// PortInfoByName reads the interface called name from netlink in the
// network namespace of the calling thread. The returned No is 0. The
// error unwraps to ErrNoInterface when there is no such interface.
func PortInfoByName(name string) (PortInfo, error) {
	l, err := netlink.LinkByName(name)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			return PortInfo{}, fmt.Errorf("port %q: %w", name, ErrNoInterface)
		}
		return PortInfo{}, fmt.Errorf("port %q: netlink: %w", name, err)
	}
	p := portInfo(l.Attrs())
	p.SpeedKbps = sysfsSpeed(name)
	return p, nil
}

// portInfo converts netlink link attributes (No and SpeedKbps stay 0).
func portInfo(a *netlink.LinkAttrs) PortInfo {
	p := PortInfo{Name: a.Name, Index: a.Index, MTU: a.MTU, AdminUp: a.Flags&net.FlagUp != 0}
	copy(p.HWAddr[:], a.HardwareAddr)
	switch a.OperState {
	case netlink.OperUp:
		p.LinkUp = true
	case netlink.OperUnknown: // drivers without carrier reporting (lo, tun)
		p.LinkUp = a.RawFlags&unix.IFF_RUNNING != 0
	}
	return p
}

// sysfsSpeed reads the interface speed (Mbit/s) from sysfs: a cheap
// substitute for ETHTOOL_GLINKSETTINGS. 0 when unavailable.
func sysfsSpeed(name string) uint32 {
	if strings.ContainsAny(name, "/.") {
		return 0
	}
	b, err := os.ReadFile("/sys/class/net/" + name + "/speed")
	if err != nil {
		return 0
	}
	mbps, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || mbps <= 0 || mbps > 1<<32/1000-1 {
		return 0
	}
	return uint32(mbps) * 1000
}

// WatchConfig selects what WatchPorts watches.
type WatchConfig struct {
	// Ports maps the interface names to watch to their port numbers.
	// Links of other names are ignored.
	Ports map[string]uint32
	// Namespace, if not nil, is the network namespace whose links are
	// watched; nil means that of the calling thread.
	Namespace *netns.NsHandle
}

// WatchPorts reports changes of the watched links to fn until ctx ends,
// then returns ctx's error; it returns earlier with an error if the
// netlink subscription fails or breaks. fn runs on WatchPorts' goroutine.
//
// A watched name that appears is PortAdded, one that disappears
// PortDeleted, and a change of address, MTU, admin or link state is
// PortModified (notifications that change none of these are dropped).
// The state before the first notification is read at subscription time,
// so an event always describes a change. WatchPorts leaves no goroutine
// behind when it returns.
func WatchPorts(ctx context.Context, cfg *WatchConfig, fn func(PortEvent)) error {
	if cfg == nil || fn == nil {
		panic("dataplane: WatchPorts with nil config or callback")
	}
	ch := make(chan netlink.LinkUpdate, 64)
	done := make(chan struct{})
	errc := make(chan error, 1)
	opts := netlink.LinkSubscribeOptions{
		Namespace:    cfg.Namespace,
		ListExisting: true,
		ErrorCallback: func(err error) {
			select {
			case errc <- err:
			default:
			}
		},
	}
	if err := netlink.LinkSubscribeWithOptions(ch, done, opts); err != nil {
		return fmt.Errorf("watch ports: subscribe: %w", err)
	}
	w := newPortWatcher(cfg.Ports)
	err := w.run(ctx, ch, errc, fn)
	close(done)
	for range ch { // the subscription closes ch once its goroutine ends
	}
	return err
}

// portWatcher turns link updates into port events.
type portWatcher struct {
	ports map[string]uint32
	known map[int]PortInfo // by ifindex: the last state reported
}

func newPortWatcher(ports map[string]uint32) *portWatcher {
	return &portWatcher{ports: ports, known: make(map[int]PortInfo)}
}

// run consumes updates until ctx ends, ch closes or errc reports. Links
// listed at subscription (the dump, flagged NLM_F_MULTI) set the initial
// state without an event.
func (w *portWatcher) run(ctx context.Context, ch <-chan netlink.LinkUpdate, errc <-chan error, fn func(PortEvent)) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			return fmt.Errorf("watch ports: %w", err)
		case u, ok := <-ch:
			if !ok {
				return fmt.Errorf("watch ports: %w", errSubscriptionClosed)
			}
			if ev, ok := w.update(u); ok {
				fn(ev)
			}
		}
	}
}

var errSubscriptionClosed = errors.New("netlink subscription closed")

// update applies one link update and returns the event it makes, if any.
func (w *portWatcher) update(u netlink.LinkUpdate) (PortEvent, bool) {
	if u.Link == nil || u.Link.Attrs() == nil {
		return PortEvent{}, false
	}
	a := u.Link.Attrs()
	idx := int(u.IfInfomsg.Index)
	if idx == 0 {
		idx = a.Index
	}
	old, had := w.known[idx]
	if u.Header.Type == unix.RTM_DELLINK {
		if !had {
			return PortEvent{}, false
		}
		delete(w.known, idx)
		return PortEvent{Reason: PortDeleted, Info: old}, true
	}
	no, watched := w.ports[a.Name]
	if !watched {
		if had { // renamed away from a watched name
			delete(w.known, idx)
			return PortEvent{Reason: PortDeleted, Info: old}, true
		}
		return PortEvent{}, false
	}
	p := portInfo(a)
	p.No = no
	if had {
		p.SpeedKbps = old.SpeedKbps
	} else {
		p.SpeedKbps = sysfsSpeed(a.Name)
	}
	w.known[idx] = p
	switch {
	case !had && u.Header.Flags&unix.NLM_F_MULTI != 0:
		return PortEvent{}, false // part of the initial listing
	case !had:
		return PortEvent{Reason: PortAdded, Info: p}, true
	case old == p:
		return PortEvent{}, false
	}
	return PortEvent{Reason: PortModified, Info: p}, true
}

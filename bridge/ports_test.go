//go:build linux

package bridge

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

func portName(s string) (n [16]byte) {
	copy(n[:], s)
	return n
}

func TestPortDesc(t *testing.T) {
	mac := [6]byte{2, 0x5e, 0, 0, 0, 1}
	for _, tt := range []struct {
		name string
		in   dataplane.PortInfo
		want openflow.Port
	}{
		{"veth up", dataplane.PortInfo{No: 1, Name: "s1", HWAddr: mac, AdminUp: true, LinkUp: true, SpeedKbps: 10_000_000},
			openflow.Port{PortNo: 1, HWAddr: mac, Name: portName("s1"), State: ofppsLive, Curr: ofppf10GbFD | ofppfCopper, CurrSpeed: 10_000_000}},
		{"admin down", dataplane.PortInfo{No: 2, Name: "s2", HWAddr: mac, LinkUp: false},
			openflow.Port{PortNo: 2, HWAddr: mac, Name: portName("s2"), Config: ofppcPortDown, State: ofppsLinkDown}},
		{"up without carrier", dataplane.PortInfo{No: 3, Name: "eth3", AdminUp: true, SpeedKbps: 1_000_000},
			openflow.Port{PortNo: 3, Name: portName("eth3"), State: ofppsLinkDown, Curr: ofppf1GbFD | ofppfCopper, CurrSpeed: 1_000_000}},
		{"odd rate", dataplane.PortInfo{No: 4, Name: "x", AdminUp: true, LinkUp: true, SpeedKbps: 2_500_000},
			openflow.Port{PortNo: 4, Name: portName("x"), State: ofppsLive, Curr: ofppfOther | ofppfCopper, CurrSpeed: 2_500_000}},
		{"name of 16 bytes keeps its NUL", dataplane.PortInfo{No: 5, Name: "abcdefghijklmnopq", AdminUp: true, LinkUp: true},
			openflow.Port{PortNo: 5, Name: portName("abcdefghijklmno"), State: ofppsLive}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, portDesc(&tt.in, 0)); diff != "" {
				t.Errorf("portDesc (-want +got):\n%s", diff)
			}
		})
	}
	for kbps, want := range map[uint32]uint32{10_000: ofppf10MbFD, 100_000: ofppf100MbFD, 40_000_000: ofppf40GbFD,
		100_000_000: ofppf100GbFD, 1_000_000_000: ofppf1TbFD} {
		if got := speedFeature(kbps); got != want {
			t.Errorf("speedFeature(%d) = %#x, want %#x", kbps, got, want)
		}
	}
}

func TestDatapathID(t *testing.T) {
	infos := []dataplane.PortInfo{
		{HWAddr: [6]byte{0x02, 0x5e, 0, 0, 0, 9}},
		{HWAddr: [6]byte{0x01, 0, 0x5e, 0, 0, 1}}, // multicast: never
		{}, // no address
		{HWAddr: [6]byte{0x02, 0x5e, 0, 0, 0, 2}},
		{HWAddr: [6]byte{0x0a, 0, 0, 0, 0, 1}},
	}
	if got := datapathID(infos, 7); got != 0x025e00000002 {
		t.Errorf("datapathID = %#x, want the lowest unicast MAC 0x025e00000002", got)
	}
	if got := datapathID(infos[1:3], 7); got != 7 {
		t.Errorf("datapathID without a usable MAC = %#x, want the default 7", got)
	}
	if got := datapathID(nil, 1); got != 1 {
		t.Errorf("datapathID of no ports = %#x, want 1", got)
	}
}

// fakeCounters gives port n the counters at index n-1.
type fakeCounters []openflow.PortStats

func (f fakeCounters) Counters(info *dataplane.PortInfo, s *openflow.PortStats) {
	c := f[info.No-1]
	c.PortNo, c.DurationSec, c.DurationNsec = s.PortNo, s.DurationSec, s.DurationNsec
	*s = c
}

func TestPortTable(t *testing.T) {
	infos := []dataplane.PortInfo{
		{No: 9, Name: "s1", HWAddr: [6]byte{2, 0, 0, 0, 0, 1}, AdminUp: true, LinkUp: true},
		{No: 9, Name: "s2", HWAddr: [6]byte{2, 0, 0, 0, 0, 2}, AdminUp: true, LinkUp: true},
	}
	counts := fakeCounters{{RxPackets: 3, RxBytes: 300, TxPackets: 4, TxBytes: 400, RxDropped: 1}, {RxPackets: 5}}
	pt := newPortTable(infos, counts)

	descs := pt.Descs(nil)
	if len(descs) != 2 || descs[0].PortNo != 1 || descs[0].NameString() != "s1" || descs[1].PortNo != 2 || descs[1].NameString() != "s2" {
		t.Fatalf("Descs numbers the ports in order: %+v", descs)
	}
	st, ok := pt.Stats(nil, 1)
	if !ok || len(st) != 1 || st[0].PortNo != 1 || st[0].RxPackets != 3 || st[0].RxBytes != 300 || st[0].TxPackets != 4 || st[0].TxBytes != 400 || st[0].RxDropped != 1 {
		t.Fatalf("Stats(1) = %+v, %v", st, ok)
	}
	st, ok = pt.Stats(nil, openflow.PortAny)
	if !ok || len(st) != 2 || st[1].RxPackets != 5 {
		t.Fatalf("Stats(ANY) = %+v, %v", st, ok)
	}
	if _, ok := pt.Stats(nil, 3); ok {
		t.Error("Stats(3) of a two-port switch reports a port")
	}

	// Port 2 goes down, then away, then comes back.
	down := infos[1]
	down.No, down.LinkUp, down.AdminUp = 2, false, false
	for _, tt := range []struct {
		ev     dataplane.PortEvent
		reason uint8
		ports  int
	}{
		{dataplane.PortEvent{Reason: dataplane.PortModified, Info: down}, openflow.PortModify, 2},
		{dataplane.PortEvent{Reason: dataplane.PortDeleted, Info: down}, openflow.PortDelete, 1},
		{dataplane.PortEvent{Reason: dataplane.PortAdded, Info: down}, openflow.PortAdd, 2},
	} {
		reason, desc, ok := pt.Update(tt.ev)
		if !ok || reason != tt.reason || desc.PortNo != 2 || desc.Config != ofppcPortDown || desc.State != ofppsLinkDown {
			t.Fatalf("Update(%v) = %d, %+v, %v; want reason %d, port 2 down", tt.ev.Reason, reason, desc, ok, tt.reason)
		}
		if got := len(pt.Descs(nil)); got != tt.ports {
			t.Fatalf("after %v: %d ports described, want %d", tt.ev.Reason, got, tt.ports)
		}
	}
	if _, _, ok := pt.Update(dataplane.PortEvent{Reason: dataplane.PortAdded, Info: dataplane.PortInfo{No: 3}}); ok {
		t.Error("Update of port 3, not in the table, was applied")
	}
	if info, ok := pt.Info(2); !ok || info.AdminUp {
		t.Errorf("Info(2) = %v, %v; want the port, down", info, ok)
	}
}

func TestPacketOutError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		typ  openflow.ErrorType
		code uint16
	}{
		{&dataplane.PacketOutError{Action: 0, Port: 7, Err: dataplane.ErrBadOutPort}, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadOutPort)},
		{&dataplane.PacketOutError{Action: 1, Err: dataplane.ErrBadAction}, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadType)},
		{&dataplane.PacketOutError{Action: -1, Err: dataplane.ErrFrameSize}, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen)},
		{&dataplane.PacketOutError{Action: -1, Err: dataplane.ErrTranslation}, openflow.ErrTypeFlowModFailed, uint16(openflow.FlowModFailedUnknown)},
		{&dataplane.PacketOutError{Action: -1, Err: &rules.Error{Type: rules.ErrTypeBadAction, Code: rules.BadActionMatchInconsistent}},
			openflow.ErrTypeBadAction, uint16(openflow.BadActionMatchInconsistent)},
	} {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			err := packetOutError(tt.err)
			m := openflow.ErrorFor(err, nil)
			if m.Type != tt.typ || m.Code != tt.code {
				t.Errorf("ErrorFor(packetOutError(%v)) = %v/%d, want %v/%d", tt.err, m.Type, m.Code, tt.typ, tt.code)
			}
			var pe *dataplane.PacketOutError
			if !errors.As(err, &pe) {
				t.Errorf("packetOutError(%v) lost the data plane's error", tt.err)
			}
		})
	}
	if packetOutError(nil) != nil {
		t.Error("packetOutError(nil) != nil")
	}
}

// TestPacketInAllocs: handing a worker's packet-in to the agent costs the
// worker no allocation of its own (the agent encodes only for connected
// controllers, and there are none here).
func TestPacketInAllocs(t *testing.T) {
	a, err := controller.New(&controller.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ls := &liveSwitch{agent: a}
	p := &dataplane.PacketIn{InPort: 1, Reason: dataplane.PacketInNoMatch, MaxLen: 128, Frame: make([]byte, 64)}
	if n := testing.AllocsPerRun(100, func() { ls.packetIn(p) }); n != 0 {
		t.Errorf("packetIn allocates %.1f times per frame, want 0", n)
	}
	var pin controller.PacketIn
	packetIn(&pin, &dataplane.PacketIn{InPort: 3, Reason: 1, Table: 2, Cookie: 9, MaxLen: 5, Frame: []byte{1}})
	if pin.InPort != 3 || pin.Reason != 1 || pin.Table != 2 || pin.Cookie != 9 || pin.MaxLen != 5 || len(pin.Frame) != 1 {
		t.Errorf("packetIn conversion: %+v", pin)
	}
}

// TestPortTableModPort: PORT_MOD as the port table takes it: the port and
// its address are checked, OFPPC_PORT_DOWN brings the interface down or up
// (here a recording fake of netlink), NO_RECV, NO_FWD and NO_PACKET_IN go
// to the data plane (a recording fake) and into the description, with a
// PORT_STATUS when they change; unknown bits, advertising and failures are
// refused with their codes.
func TestPortTableModPort(t *testing.T) {
	infos := []dataplane.PortInfo{{Name: "s1", HWAddr: [6]byte{2, 0, 0, 0, 0, 1}, AdminUp: true, LinkUp: true}}
	pt := newPortTable(infos, nil)
	var calls []string
	var fail error
	pt.setAdmin = func(name string, up bool) error {
		calls = append(calls, fmt.Sprintf("%s up=%v", name, up))
		return fail
	}
	pt.setConfig = func(no, bits uint32) { calls = append(calls, fmt.Sprintf("port %d config %#x", no, bits)) }
	pt.setAnnounce(func(d openflow.Port) { calls = append(calls, fmt.Sprintf("status config %#x", d.Config)) })
	hw := infos[0].HWAddr
	code := func(err error) int {
		var em openflow.ErrorMsg
		if err == nil {
			return -1
		}
		if !errors.As(err, &em) || em.Type != openflow.ErrTypePortModFailed {
			t.Fatalf("%v: not an OFPET_PORT_MOD_FAILED", err)
		}
		return int(em.Code)
	}
	for _, c := range []struct {
		name                    string
		no                      uint32
		hw                      [6]byte
		config, mask, advertise uint32
		want                    int // error code, -1 for none
		calls                   string
		desc                    uint32 // port 1's described config after it
	}{
		{"down", 1, hw, ofppcPortDown, ofppcPortDown, 0, -1, "s1 up=false", 0},
		{"up", 1, hw, 0, ofppcPortDown, 0, -1, "s1 up=true", 0},
		{"nothing", 1, hw, 0, 0, 0, -1, "", 0},
		{"no-receive", 1, hw, ofppcNoRecv, ofppcNoRecv, 0, -1, "port 1 config 0x4,status config 0x4", ofppcNoRecv},
		{"no-receive again", 1, hw, ofppcNoRecv, ofppcNoRecv, 0, -1, "port 1 config 0x4", ofppcNoRecv},
		{"no-forward and up", 1, hw, ofppcNoFwd, ofppcNoFwd | ofppcPortDown, 0, -1, "port 1 config 0x24,status config 0x24,s1 up=true", ofppcNoRecv | ofppcNoFwd},
		{"receive, packet-in off", 1, hw, ofppcNoPacketIn, ofppcNoRecv | ofppcNoPacketIn, 0, -1, "port 1 config 0x60,status config 0x60", ofppcNoFwd | ofppcNoPacketIn},
		{"unknown bit", 1, hw, 0, 1 << 9, 0, int(openflow.PortModFailedBadConfig), "", ofppcNoFwd | ofppcNoPacketIn},
		{"advertise", 1, hw, 0, 0, 1 << 5, int(openflow.PortModFailedBadAdvertise), "", ofppcNoFwd | ofppcNoPacketIn},
		{"port 2", 2, hw, 0, ofppcPortDown, 0, int(openflow.PortModFailedBadPort), "", ofppcNoFwd | ofppcNoPacketIn},
		{"another address", 1, [6]byte{2, 0, 0, 0, 0, 9}, 0, ofppcPortDown, 0, int(openflow.PortModFailedBadHWAddr), "", ofppcNoFwd | ofppcNoPacketIn},
	} {
		calls = nil
		if got := code(pt.ModPort(c.no, c.hw, c.config, c.mask, c.advertise)); got != c.want || strings.Join(calls, ",") != c.calls {
			t.Errorf("%s: code %d, calls %q; want %d, %q", c.name, got, calls, c.want, c.calls)
		}
		if d := pt.Descs(nil); d[0].Config != c.desc {
			t.Errorf("%s: port 1 described with config %#x, want %#x", c.name, d[0].Config, c.desc)
		}
	}
	fail = errors.New("operation not permitted")
	if got := code(pt.ModPort(1, hw, ofppcPortDown, ofppcPortDown, 0)); got != int(openflow.PortModFailedEPerm) {
		t.Errorf("netlink failure: code %d, want OFPPMFC_EPERM", got)
	}
	pt.setConfig = nil
	if got := code(pt.ModPort(1, hw, ofppcNoFwd, ofppcNoFwd, 0)); got != int(openflow.PortModFailedEPerm) {
		t.Errorf("no data plane: code %d, want OFPPMFC_EPERM", got)
	}
}

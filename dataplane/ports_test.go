//go:build linux

package dataplane

import (
	"context"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

func linkUpdate(typ uint16, flags uint16, name string, index int, up bool, oper netlink.LinkOperState, mtu int) netlink.LinkUpdate {
	a := netlink.LinkAttrs{Name: name, Index: index, MTU: mtu, OperState: oper,
		HardwareAddr: net.HardwareAddr{2, 0, 0, 0, 0, byte(index)}}
	if up {
		a.Flags = net.FlagUp
	}
	return netlink.LinkUpdate{Header: unix.NlMsghdr{Type: typ, Flags: flags}, Link: &netlink.Dummy{LinkAttrs: a}}
}

func TestPortWatcherEvents(t *testing.T) {
	info := func(no uint32, name string, index int, admin, link bool, mtu int) PortInfo {
		return PortInfo{No: no, Name: name, Index: index, HWAddr: [6]byte{2, 0, 0, 0, 0, byte(index)}, MTU: mtu, AdminUp: admin, LinkUp: link}
	}
	stream := []netlink.LinkUpdate{
		linkUpdate(unix.RTM_NEWLINK, unix.NLM_F_MULTI, "p1", 5, true, netlink.OperUp, 1500),   // listing: initial state
		linkUpdate(unix.RTM_NEWLINK, unix.NLM_F_MULTI, "eth9", 6, true, netlink.OperUp, 1500), // not watched
		linkUpdate(unix.RTM_NEWLINK, 0, "p1", 5, true, netlink.OperUp, 1500),                  // no change
		linkUpdate(unix.RTM_NEWLINK, 0, "p1", 5, false, netlink.OperDown, 1500),               // admin down
		linkUpdate(unix.RTM_NEWLINK, 0, "p2", 7, true, netlink.OperLowerLayerDown, 1500),      // appears
		linkUpdate(unix.RTM_NEWLINK, 0, "p2", 7, true, netlink.OperUp, 9000),                  // carrier + MTU
		linkUpdate(unix.RTM_NEWLINK, 0, "eth9", 6, false, netlink.OperDown, 1500),             // not watched
		linkUpdate(unix.RTM_DELLINK, 0, "p1", 5, false, netlink.OperDown, 1500),               // removed
		linkUpdate(unix.RTM_DELLINK, 0, "p1", 5, false, netlink.OperDown, 1500),               // twice
		linkUpdate(unix.RTM_NEWLINK, 0, "renamed", 7, true, netlink.OperUp, 9000),             // renamed away
	}
	want := []PortEvent{
		{PortModified, info(1, "p1", 5, false, false, 1500)},
		{PortAdded, info(2, "p2", 7, true, false, 1500)},
		{PortModified, info(2, "p2", 7, true, true, 9000)},
		{PortDeleted, info(1, "p1", 5, false, false, 1500)},
		{PortDeleted, info(2, "p2", 7, true, true, 9000)},
	}
	ch := make(chan netlink.LinkUpdate, len(stream))
	for _, u := range stream {
		ch <- u
	}
	close(ch)
	w := newPortWatcher(map[string]uint32{"p1": 1, "p2": 2})
	var got []PortEvent
	err := w.run(context.Background(), ch, nil, func(e PortEvent) { got = append(got, e) })
	if !errors.Is(err, errSubscriptionClosed) {
		t.Errorf("run: err = %v, want %v", err, errSubscriptionClosed)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestPortWatcherStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := newPortWatcher(nil)
	if err := w.run(ctx, make(chan netlink.LinkUpdate), nil, func(PortEvent) { t.Error("event") }); !errors.Is(err, context.Canceled) {
		t.Errorf("run: err = %v, want context.Canceled", err)
	}
	errc := make(chan error, 1)
	errc <- unix.ENOBUFS
	if err := w.run(context.Background(), make(chan netlink.LinkUpdate), errc, nil); !errors.Is(err, unix.ENOBUFS) {
		t.Errorf("run: err = %v, want ENOBUFS", err)
	}
}

func TestPortInfoByName(t *testing.T) {
	p, err := PortInfoByName("lo")
	if err != nil {
		t.Skipf("no loopback in this namespace: %v", err)
	}
	if p.Index < 1 || p.MTU <= 0 || !p.AdminUp || p.HWAddr != ([6]byte{}) {
		t.Errorf("lo = %v", p)
	}
	if _, err := PortInfoByName("nonexistent0"); !errors.Is(err, ErrNoInterface) {
		t.Errorf("missing interface: err = %v, want ErrNoInterface", err)
	}
	if s := (PortEvent{Reason: PortModified}).Reason.String(); s != "MODIFY" {
		t.Errorf("PortModified.String() = %q", s)
	}
}

// TestWatchPortsLeavesNoGoroutine subscribes in the test's namespace,
// stops, and checks that the subscription's goroutines are gone.
func TestWatchPortsLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- WatchPorts(ctx, &WatchConfig{Ports: map[string]uint32{"lo": 1}}, func(PortEvent) {}) }()
		time.Sleep(20 * time.Millisecond) // let it subscribe; the check below does not depend on it
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("WatchPorts: %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("WatchPorts did not return after its context ended")
		}
	}
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > before; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > before {
		t.Errorf("%d goroutines after 3 watches, %d before", n, before)
	}
}

//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestFlowMonitorPauseAsOVS: a monitoring controller that stops reading
// while many flows change is paused and resumed, by ofswitch run as by
// Open vSwitch, over OpenFlow 1.3 (ONF notices) and 1.4 (PAUSED and
// RESUMED updates). The monitor's connection has a small receive buffer;
// while it does not read, 20,000 flows are added, 50 older ones modified
// and 50 deleted, and 100 of the new ones deleted again. Then it reads:
// a PAUSED notice comes, after it only removals of older flows, then
// ADDED and MODIFIED updates, then RESUMED; and the table the monitor
// builds from its updates (initial, added, modified, removed) is the
// switch's, as dump-flows shows it.
func TestFlowMonitorPauseAsOVS(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	// Both switches run in Open vSwitch's namespace, whose TCP buffers
	// are made small, so that a monitor's unread updates stay queued in
	// the switch (where the pause threshold counts them) instead of in
	// the kernel.
	for _, kv := range []string{"net.ipv4.tcp_wmem=4096 8192 16384", "net.ipv4.tcp_rmem=4096 8192 16384"} {
		if out, err := ovs.Exec("sysctl", "-w", kv).CombinedOutput(); err != nil {
			t.Fatalf("sysctl %s: %v\n%s", kv, err, out)
		}
	}
	addr := "127.0.0.1:" + strconv.Itoa(ovstest.Port+1)
	// The monitor answers no echo request while it does not read: a long
	// inactivity probe keeps a slow machine's add-flows (tens of seconds
	// under -race and load) from closing its connection before it reads.
	run := ovs.Exec(ofswitchBinary(t), "run", "--listen", "ptcp:"+strconv.Itoa(ovstest.Port+1), "--inactivity-probe", "2m")
	var runLog testutil.LockedBuffer
	run.Stdout, run.Stderr = &runLog, &runLog
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		run.Process.Signal(os.Interrupt)
		run.Wait()
		if t.Failed() {
			t.Logf("ofswitch run:\n%s", runLog.String())
			if b, err := os.ReadFile(filepath.Join(ovs.Dir, "log", "ovs-vswitchd.log")); err == nil {
				t.Logf("ovs-vswitchd.log:\n%s", b)
			}
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := ovs.Ofctl("tcp:"+addr, "show"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ofswitch run not answering on %s in Open vSwitch's namespace:\n%s", addr, runLog.String())
		}
	}
	dir := t.TempDir()
	write := func(name string, lines func(add func(string, ...any))) string {
		var b strings.Builder
		lines(func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) })
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old := write("old", func(add func(string, ...any)) {
		for i := range 100 {
			add("priority=5,ip,nw_dst=10.1.0.%d,actions=output:1", i)
		}
	})
	burst := write("burst", func(add func(string, ...any)) {
		for i := range 20000 {
			add("priority=7,tcp,nw_src=10.2.%d.%d,nw_dst=10.3.%d.%d,tp_dst=80,actions=output:2", i>>8, i&0xff, i>>8, i&0xff)
		}
	})
	mods := write("mods", func(add func(string, ...any)) {
		for i := range 50 {
			add("modify_strict priority=5,ip,nw_dst=10.1.0.%d,actions=output:3", i)
		}
	})
	dels := write("dels", func(add func(string, ...any)) {
		for i := 50; i < 100; i++ {
			add("delete_strict priority=5,ip,nw_dst=10.1.0.%d", i)
		}
		for _, i := range append(seq(0, 50), seq(19950, 20000)...) {
			add("delete_strict priority=7,tcp,nw_src=10.2.%d.%d,nw_dst=10.3.%d.%d,tp_dst=80", i>>8, i&0xff, i>>8, i&0xff)
		}
	})
	for _, v := range []struct {
		flag string
		ver  uint8
	}{{"OpenFlow13", openflow.Version13}, {"OpenFlow14", openflow.Version14}} {
		t.Run(v.flag, func(t *testing.T) {
			for _, side := range []struct {
				name   string
				target string
				run    func(string, ...string) *exec.Cmd
				dial   func(func() error) error
			}{
				{"Open vSwitch", ovs.Target(), ovs.Exec, ovs.Do},
				{"ofswitch", "tcp:" + addr, ovs.Exec, ovs.Do},
			} {
				do := func(args ...string) {
					t.Helper()
					a := []string{"-O", "OpenFlow13"}
					for len(args) > 0 && strings.HasPrefix(args[0], "--") {
						a, args = append(a, args[0]), args[1:]
					}
					a = append(append(a, args[0], side.target), args[1:]...)
					if out, err := side.run(ofctl, a...).CombinedOutput(); err != nil {
						t.Fatalf("%s: ovs-ofctl %s: %v\n%s", side.name, strings.Join(args, " "), err, out)
					}
				}
				do("del-flows")
				do("add-flows", old)
				var c *pauseClient
				if err := side.dial(func() (err error) {
					c, err = dialPauseClient(strings.TrimPrefix(side.target, "tcp:"), v.ver)
					return err
				}); err != nil {
					t.Fatalf("%s: %v", side.name, err)
				}
				defer c.nc.Close()
				table := c.monitor(t)
				// The monitor reads nothing while the flows change.
				do("add-flows", burst)
				do("add-flows", mods)
				do("add-flows", dels)
				events := c.readUntilResumed(t, 60*time.Second)
				out, err := side.run(ofctl, "-O", "OpenFlow13", "dump-flows", side.target, "--no-stats").CombinedOutput()
				if err != nil {
					t.Fatalf("%s: dump-flows: %v\n%s", side.name, err, out)
				}
				want := map[string]string{}
				for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
					if m, a, ok := strings.Cut(strings.TrimSpace(l), " actions="); ok {
						want[m] = a
					}
				}
				counts := checkPauseEvents(t, side.name, events, table)
				// The pause comes after the first 50 flows of the burst
				// and before its last 50: their removals are reported,
				// the last ones' are not, nor were they ever added.
				if counts[openflow.FlowUpdateAdded] != 19950 || counts[openflow.FlowUpdateModified] != 50 ||
					counts[openflow.FlowUpdateRemoved] != 100 {
					t.Errorf("%s: %d added, %d modified, %d removed; want 19950, 50, 100", side.name,
						counts[openflow.FlowUpdateAdded], counts[openflow.FlowUpdateModified], counts[openflow.FlowUpdateRemoved])
				}
				if len(table) != len(want) {
					t.Errorf("%s: the monitor knows %d flows, the switch holds %d", side.name, len(table), len(want))
				}
				if diff := cmp.Diff(want, pauseTableText(t, table)); diff != "" && len(diff) < 4000 {
					t.Errorf("%s: the monitor's table (-switch +monitor):\n%s", side.name, diff)
				} else if diff != "" {
					t.Errorf("%s: the monitor's table differs from the switch's (%d bytes of diff)", side.name, len(diff))
				}
			}
		})
	}
}

// pauseClient is a monitoring controller that reads only when told.
type pauseClient struct {
	nc  net.Conn
	r   *openflow.Reader
	ver uint8
}

// dialPauseClient connects with a 4 KiB receive buffer, so that what the
// switch sends stays queued in the switch, and says HELLO.
func dialPauseClient(addr string, ver uint8) (*pauseClient, error) {
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	h := openflow.NewHello(1, ver)
	b, err := h.MarshalBinary()
	if err == nil {
		_, err = nc.Write(b)
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &pauseClient{nc: nc, r: openflow.NewReader(nc, openflow.MaxMessageLen), ver: ver}, nil
}

// next returns the next message other than HELLO and ECHO, answering
// echo requests, or nil if none comes within timeout.
func (c *pauseClient) next(t *testing.T, timeout time.Duration) openflow.Message {
	t.Helper()
	for {
		c.nc.SetReadDeadline(time.Now().Add(timeout))
		b, err := c.r.Next()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return nil
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		switch openflow.Type(b[1]) {
		case openflow.TypeHello, openflow.TypeEchoReply:
			continue
		case openflow.TypeEchoRequest:
			rep := append([]byte(nil), b...)
			rep[1] = byte(openflow.TypeEchoReply)
			c.nc.Write(rep)
			continue
		}
		m, err := openflow.Decode(b)
		if err != nil {
			t.Fatalf("decode %x: %v", b, err)
		}
		return m
	}
}

// pauseEvent is one update or notice the monitor read, in order.
type pauseEvent struct {
	event uint16
	u     openflow.FlowUpdate
}

// monitor asks for every event of every table, with the initial entries
// and instructions, and returns the initial table.
func (c *pauseClient) monitor(t *testing.T) map[string]openflow.FlowUpdate {
	t.Helper()
	req := &openflow.FlowMonitorRequest{Header: openflow.Header{Version: c.ver, XID: 42}, Monitors: []openflow.FlowMonitor{{
		ID: 1, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, TableID: openflow.TableAll,
		Flags: openflow.FlowMonitorInitial | openflow.FlowMonitorAdded | openflow.FlowMonitorRemoved |
			openflow.FlowMonitorModified | openflow.FlowMonitorInstructions}}}
	b, err := req.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.nc.Write(b); err != nil {
		t.Fatal(err)
	}
	table := map[string]openflow.FlowUpdate{}
	for {
		m := c.next(t, 10*time.Second)
		if m == nil {
			t.Fatal("no answer to the flow monitor request within 10 s")
		}
		rep, ok := m.(*openflow.FlowMonitorReply)
		if !ok {
			t.Fatalf("monitor request answered with %T %+v", m, m)
		}
		if rep.XID != 42 {
			continue
		}
		for _, u := range rep.Updates {
			table[pauseKey(u)] = u
		}
		if rep.Flags&openflow.MultipartReplyMore == 0 {
			return table
		}
	}
}

// readUntilResumed reads updates until a RESUMED notice and then until
// the connection is quiet for a second.
func (c *pauseClient) readUntilResumed(t *testing.T, limit time.Duration) []pauseEvent {
	t.Helper()
	var evs []pauseEvent
	deadline := time.Now().Add(limit)
	resumed := false
	for time.Now().Before(deadline) {
		m := c.next(t, time.Second)
		if m == nil {
			if resumed {
				return evs
			}
			continue
		}
		switch m := m.(type) {
		case *openflow.FlowMonitorPause:
			ev := openflow.FlowUpdatePaused
			if m.Resumed {
				ev, resumed = openflow.FlowUpdateResumed, true
			}
			evs = append(evs, pauseEvent{event: ev})
		case *openflow.FlowMonitorReply:
			for _, u := range m.Updates {
				evs = append(evs, pauseEvent{u.Event, u})
				resumed = resumed || u.Event == openflow.FlowUpdateResumed
			}
		}
	}
	t.Fatalf("no RESUMED within %v (%d events)", limit, len(evs))
	return nil
}

// checkPauseEvents checks the order of events around the pause and
// applies them to table.
func checkPauseEvents(t *testing.T, side string, evs []pauseEvent, table map[string]openflow.FlowUpdate) map[uint16]int {
	t.Helper()
	const (
		before = iota
		removals
		refresh
		after
	)
	phase := before
	counts := map[uint16]int{}
	for i, e := range evs {
		counts[e.event]++
		switch e.event {
		case openflow.FlowUpdatePaused:
			if phase != before {
				t.Errorf("%s: event %d: a second PAUSED", side, i)
			}
			phase = removals
			continue
		case openflow.FlowUpdateResumed:
			if phase != removals && phase != refresh {
				t.Errorf("%s: event %d: RESUMED without PAUSED", side, i)
			}
			phase = after
			continue
		case openflow.FlowUpdateRemoved:
			if phase == refresh {
				t.Errorf("%s: event %d: a removal among the resume's updates", side, i)
			}
			delete(table, pauseKey(e.u))
		case openflow.FlowUpdateAdded, openflow.FlowUpdateModified:
			if phase == removals {
				phase = refresh
			}
			table[pauseKey(e.u)] = e.u
		default:
			t.Errorf("%s: event %d: %d", side, i, e.event)
		}
	}
	if counts[openflow.FlowUpdatePaused] != 1 || counts[openflow.FlowUpdateResumed] != 1 {
		t.Errorf("%s: %d PAUSED and %d RESUMED, want one each", side, counts[openflow.FlowUpdatePaused], counts[openflow.FlowUpdateResumed])
	}
	at := slices.IndexFunc(evs, func(e pauseEvent) bool { return e.event == openflow.FlowUpdatePaused })
	t.Logf("%s: %d events, PAUSED at %d: %d added, %d modified, %d removed", side, len(evs), at,
		counts[openflow.FlowUpdateAdded], counts[openflow.FlowUpdateModified], counts[openflow.FlowUpdateRemoved])
	return counts
}

// seq returns lo, ..., hi-1.
func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

func pauseKey(u openflow.FlowUpdate) string {
	return fmt.Sprintf("%d/%d/%v", u.TableID, u.Priority, u.Match)
}

// pauseTableText prints the monitor's table as flow lines, the match and
// then the actions ("priority=5,ip,nw_dst=10.1.0.1 actions=output:1", as
// dump-flows prints them), through ofswitch's flow printer.
func pauseTableText(t *testing.T, table map[string]openflow.FlowUpdate) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, u := range table {
		fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version13}, TableID: u.TableID, Priority: u.Priority,
			Match: u.Match, Instructions: u.Instructions, BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}
		var up rules.Update
		if err := ofrules.FlowMod(&up, &fm, nil); err != nil {
			t.Fatalf("update %+v: %v", u, err)
		}
		m, a, _ := strings.Cut(ofctl.FormatUpdate(&up), ",actions=")
		out[m] = a
	}
	return out
}

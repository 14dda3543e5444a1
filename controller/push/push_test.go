package push

import (
	"context"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/internal/ofpeer"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

func TestPush(t *testing.T) {
	a, addr := startAgent(t, &controller.Config{Tables: 2})
	var b strings.Builder
	for i := range 2500 {
		b.WriteString("priority=100,ip,nw_src=10.0." + itoa(i/250) + "." + itoa(i%250) + ",actions=output:2\n")
	}
	b.WriteString("priority=5,tcp,tp_dst=80,actions=goto_table:7\n") // no table 7
	b.WriteString("priority=5,actions=output:1\n")
	ups := parseFlows(t, b.String())
	lines := make([]string, len(ups))
	for i, u := range ups {
		lines[i] = "test.flows:" + itoa(u.ID)
	}
	res, err := Flows(context.Background(), "tcp:"+addr, ups, &Config{Batch: 256, Lines: lines})
	if err != nil {
		t.Fatal(err)
	}
	if res.Flows != 2502 || res.Batches != 10 || res.PerSec <= 0 || res.LatencyMax < res.LatencyP50 {
		t.Fatalf("result %+v", res)
	}
	if len(res.Errors) != 1 || res.Errors[0].Where != "test.flows:2501" || !strings.Contains(res.Errors[0].Error(), "OFPBIC_BAD_TABLE_ID") {
		t.Fatalf("errors %v, want one OFPBIC_BAD_TABLE_ID at test.flows:2501", res.Errors)
	}
	if n := len(a.FlowTables().Pipeline().Rules(0)); n != 2501 {
		t.Fatalf("table 0 holds %d rules, want 2501", n)
	}
	// Every burst is on record, none bigger than a batch.
	total := 0
	for _, bu := range a.FlowTables().Bursts() {
		if bu.Updates > 256 {
			t.Errorf("burst of %d updates, batch is 256", bu.Updates)
		}
		total += bu.Updates
	}
	if total != 2501 {
		t.Errorf("bursts applied %d updates, want 2501 (one was refused before queueing)", total)
	}
}

// TestPushIntoOpenVSwitch pushes the same flow file into ofswitch and into
// Open vSwitch, then compares their dump-flows.
func TestPushIntoOpenVSwitch(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	_, addr := startAgent(t, &controller.Config{Tables: 4})
	data, err := os.ReadFile(testutil.SharedData(t, "openflow-captures", "syntax.flows"))
	if err != nil {
		t.Fatal(err)
	}
	// With tcp_flags, which push sends as Open vSwitch does (an ONF
	// experimenter OXM).
	data = append(data, "priority=310,tcp,tcp_flags=+syn-ack,actions=drop\npriority=311,tcp6,tp_dst=443,tcp_flags=ack|psh,actions=output:2\n"...)
	// Flags kept as Open vSwitch keeps them, and 64-bit numbers with a
	// minus sign, as ovs-ofctl reads them.
	data = append(data, "priority=320,tcp,tp_dst=25,check_overlap,reset_counts,actions=drop\n"+
		"cookie=-3,priority=321,ip,nw_dst=192.0.2.1,actions=drop\npriority=322,metadata=0x5/-1,actions=drop\n"...)
	ups := parseFlows(t, string(data))
	if _, err := Flows(context.Background(), "tcp:"+addr, ups, &Config{Batch: 4}); err != nil {
		t.Fatal(err)
	}
	nc, err := ovs.Dial("127.0.0.1:16653")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Flows(context.Background(), "", ups, &Config{Batch: 4, Conn: nc})
	if err != nil || len(res.Errors) != 0 {
		t.Fatalf("push into Open vSwitch: %v %v", err, res.Errors)
	}
	ours := ovstest.DumpFlows(t, ofctl, "tcp:"+addr)
	theirs, err := ovs.Ofctl("", "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	got, want := ovstest.FlowLines(ours), ovstest.FlowLines(theirs)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != 18 {
		t.Fatalf("after push, ofswitch:\n%s\nOpen vSwitch:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPushWindow keeps several batches in flight: every refused flow is
// still reported against its own line, whatever batch it was in, and every
// good flow lands.
func TestPushWindow(t *testing.T) {
	for _, window := range []int{1, 3, 8} {
		t.Run("window="+itoa(window), func(t *testing.T) {
			a, addr := startAgent(t, &controller.Config{Tables: 2})
			var b strings.Builder
			var bad []string
			for i := range 300 {
				if i%37 == 5 {
					b.WriteString("priority=5,tcp,tp_dst=80,actions=goto_table:7\n") // no table 7
					bad = append(bad, "w.flows:"+itoa(i+1))
					continue
				}
				b.WriteString("priority=100,ip,nw_src=10.1." + itoa(i/250) + "." + itoa(i%250) + ",actions=output:2\n")
			}
			ups := parseFlows(t, b.String())
			lines := make([]string, len(ups))
			for i, u := range ups {
				lines[i] = "w.flows:" + itoa(u.ID)
			}
			res, err := Flows(context.Background(), "tcp:"+addr, ups, &Config{Batch: 7, Window: window, Lines: lines})
			if err != nil {
				t.Fatal(err)
			}
			if res.Batches != 43 {
				t.Errorf("%d batches, want 43", res.Batches)
			}
			var got []string
			for _, e := range res.Errors {
				got = append(got, e.Where)
			}
			if strings.Join(got, " ") != strings.Join(bad, " ") {
				t.Fatalf("errors at %v, want %v", got, bad)
			}
			if n := len(a.FlowTables().Pipeline().Rules(0)); n != 300-len(bad) {
				t.Fatalf("table 0 holds %d rules, want %d", n, 300-len(bad))
			}
		})
	}
}

func TestLatencyFigures(t *testing.T) {
	var res Result
	latencyFigures(&res, []int64{5, 3, 3, 9, 1})
	us := time.Microsecond
	if res.LatencyP50 != 3*us || res.LatencyP99 != 9*us || res.LatencyMax != 9*us {
		t.Errorf("p50 %v, p99 %v, max %v; want 3µs, 9µs, 9µs", res.LatencyP50, res.LatencyP99, res.LatencyMax)
	}
	if diff := cmp.Diff([][2]int64{{1, 1}, {3, 2}, {5, 1}, {9, 1}}, res.Histogram); diff != "" {
		t.Errorf("histogram (-want +got):\n%s", diff)
	}
	// More batches than a selection sorts whole: the histogram still
	// goes up, a bar per value, and the percentiles are by rank.
	var many Result
	var lat []int64
	for i := range 200 {
		lat = append(lat, int64((i*37)%100+1)) // 1 to 100, each twice
	}
	latencyFigures(&many, lat)
	if many.LatencyP50 != 50*us || many.LatencyP99 != 99*us || many.LatencyMax != 100*us {
		t.Errorf("200 batches: p50 %v, p99 %v, max %v; want 50µs, 99µs, 100µs", many.LatencyP50, many.LatencyP99, many.LatencyMax)
	}
	if len(many.Histogram) != 100 {
		t.Fatalf("200 batches of 100 latencies: %d bars", len(many.Histogram))
	}
	for i, bar := range many.Histogram {
		if bar != [2]int64{int64(i + 1), 2} {
			t.Fatalf("200 batches: bar %d is %v, want [%d 2]", i, bar, i+1)
		}
	}
	var empty Result
	latencyFigures(&empty, nil)
	if empty.LatencyMax != 0 || empty.Histogram != nil {
		t.Errorf("no batches: %+v", empty)
	}
}

// bundleFlows returns n exact flows with, at index bad (if in range), one
// whose match lacks its prerequisites (tp_dst without ip_proto), which
// ofswitch and Open vSwitch both refuse.
func bundleFlows(n, bad int) []rules.Update {
	ups := flowgen.Exact(n, 0)
	if bad >= 0 && bad < n {
		var m rules.Match
		m.SetExact(rules.FieldL4Dst, 80)
		ups[bad] = rules.Update{Match: m, Priority: 9, Instructions: ups[bad].Instructions}
	}
	return ups
}

// TestPushBundle: with Bundle each batch is one atomic bundle: a batch
// with a refused flow is applied not at all, and the others whole; the
// refused flow is reported against its line and the failed commit against
// the batch's first. Against ofswitch over OpenFlow 1.4 and, where it runs,
// Open vSwitch, whose tables must end up the same.
func TestPushBundle(t *testing.T) {
	const n, batch, bad = 300, 100, 150
	lines := make([]string, n)
	for i := range lines {
		lines[i] = "b.flows:" + itoa(i+1)
	}
	check := func(t *testing.T, res *Result) {
		t.Helper()
		if res.Batches != 3 || res.Flows != n || res.NotApplied != batch {
			t.Errorf("%d batches, %d flows, %d not applied; want 3, %d, %d", res.Batches, res.Flows, res.NotApplied, n, batch)
		}
		if len(res.Errors) != 2 {
			t.Fatalf("errors %v, want the refused flow's and its bundle's", res.Errors)
		}
		flow, commit := res.Errors[0], res.Errors[1]
		if flow.Commit || flow.Where != "b.flows:151" || flow.Err.Type != openflow.ErrTypeBadMatch {
			t.Errorf("first error %v (%+v), want OFPET_BAD_MATCH at b.flows:151", flow, flow.Err)
		}
		if !commit.Commit || commit.Where != "b.flows:101" || commit.Flows != batch || !strings.Contains(commit.Error(), "commit the bundle of 100 mods") {
			t.Errorf("second error %v, want the commit of the bundle from b.flows:101", commit)
		}
	}

	a, addr := startAgent(t, &controller.Config{Tables: 2})
	res, err := Flows(context.Background(), "tcp:"+addr, bundleFlows(n, bad), &Config{Batch: batch, Bundle: true, Lines: lines})
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != openflow.Version14 {
		t.Errorf("negotiated version %#x, want 1.4 for bundles", res.Version)
	}
	check(t, res)
	rs := a.FlowTables().Pipeline().Rules(0)
	if len(rs) != n-batch {
		t.Fatalf("table 0 holds %d rules, want %d", len(rs), n-batch)
	}
	want := flowgen.Exact(n, 0)
	for _, r := range rs {
		i := slices.IndexFunc(want, func(u rules.Update) bool { return u.Match == r.Match })
		if i < 0 || i/batch == bad/batch {
			t.Fatalf("rule %v: flow %d, of the refused bundle or none", r.Match, i)
		}
	}
	// The two committed bundles were two bursts; the refused one none.
	if bs := a.FlowTables().Bursts(); len(bs) != 2 || bs[0].Updates != batch || bs[1].Updates != batch {
		t.Errorf("bursts %+v, want two of %d", bs, batch)
	}

	// Open vSwitch: the same flows in bundles give the same table. (A
	// bundle with a refused message Open vSwitch commits without it;
	// ofswitch refuses the commit, so that a bundle is applied whole.)
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	good := bundleFlows(n, -1)
	if res, err := Flows(context.Background(), "tcp:"+addr, good, &Config{Batch: batch, Bundle: true}); err != nil || len(res.Errors) != 0 {
		t.Fatalf("push into ofswitch: %v %v", err, res.Errors)
	}
	nc, err := ovs.Dial("127.0.0.1:16653")
	if err != nil {
		t.Fatal(err)
	}
	res, err = Flows(context.Background(), "", good, &Config{Batch: batch, Bundle: true, Conn: nc})
	if err != nil || len(res.Errors) != 0 || res.Batches != 3 {
		t.Fatalf("push into Open vSwitch: %v, %d batches, errors %v", err, res.Batches, res.Errors)
	}
	ours := ovstest.FlowLines(ovstest.DumpFlows(t, ofctl, "tcp:"+addr))
	theirs, err := ovs.Ofctl("", "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ovstest.FlowLines(theirs), ours); d != "" || len(ours) != n {
		t.Errorf("%d flows in ofswitch; dump-flows differ (-Open vSwitch +ofswitch):\n%s", len(ours), d)
	}
	// A bridge that speaks only OpenFlow 1.3 gets the ONF extension's
	// bundle messages, and commits them as well.
	if out, err := ovs.Exec("ovs-vsctl", "set", "bridge", "br0", "protocols=OpenFlow13").CombinedOutput(); err != nil {
		t.Fatalf("ovs-vsctl: %v\n%s", err, out)
	}
	if _, err := ovs.Ofctl("", "del-flows"); err != nil {
		t.Fatal(err)
	}
	var v13 *Result
	for range 50 { // the bridge reconnects its listener after the change
		if nc, err = ovs.Dial("127.0.0.1:16653"); err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if v13, err = Flows(context.Background(), "", good, &Config{Batch: batch, Bundle: true, Conn: nc}); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if v13 == nil || v13.Version != openflow.Version13 || len(v13.Errors) != 0 || v13.Batches != 3 {
		t.Fatalf("push in ONF bundles into an OpenFlow 1.3 bridge: %+v, %v", v13, err)
	}
	if theirs, err = ovs.Ofctl("", "dump-flows"); err != nil || len(ovstest.FlowLines(theirs)) != n {
		t.Fatalf("%d flows after the push in ONF bundles, want %d: %v\n%s", len(ovstest.FlowLines(theirs)), n, err, theirs)
	}
	if _, err := ovs.Exec("ovs-vsctl", "set", "bridge", "br0", "protocols=OpenFlow13,OpenFlow14").CombinedOutput(); err != nil {
		t.Fatal(err)
	}

	// Its refusal of a bundled FLOW_MOD comes back against the flow's line.
	nc, err = ovs.Dial("127.0.0.1:16653")
	if err != nil {
		t.Fatal(err)
	}
	res, err = Flows(context.Background(), "", bundleFlows(n, bad), &Config{Batch: batch, Bundle: true, Lines: lines, Conn: nc})
	if err != nil || res.Batches != 3 || len(res.Errors) == 0 || res.Errors[0].Where != "b.flows:151" || res.Errors[0].Err.Type != openflow.ErrTypeBadMatch {
		t.Fatalf("push of a bad flow into Open vSwitch: %v, %d batches, errors %v", err, res.Batches, res.Errors)
	}
}

// writeCounter counts the writes made on a connection.
type writeCounter struct {
	net.Conn
	writes int
}

func (c *writeCounter) Write(b []byte) (int, error) {
	c.writes++
	return c.Conn.Write(b)
}

// TestPushWritesBatchOnce checks that a batch goes out in one write, which
// costs the switch one wake-up, whatever its size.
func TestPushWritesBatchOnce(t *testing.T) {
	_, addr := startAgent(t, &controller.Config{})
	push := func(ups []rules.Update, batch int) int {
		t.Helper()
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		wc := &writeCounter{Conn: nc}
		res, err := Flows(context.Background(), "", ups, &Config{Batch: batch, Window: 1, Conn: wc})
		if err != nil || len(res.Errors) != 0 {
			t.Fatalf("push: %v %v", err, res)
		}
		return wc.writes
	}
	hello := push(nil, 256) // the handshake's writes
	ups := flowgen.Exact(1024, 0)
	if got := push(ups, 256) - hello; got != 4 {
		t.Errorf("4 batches of 256 FLOW_MODs took %d writes, want 4", got)
	}
	// 1024 FLOW_MODs of 112 bytes are 112 KiB.
	if got := push(ups, 1024) - hello; got != 1 {
		t.Errorf("a batch of 1024 FLOW_MODs took %d writes, want 1", got)
	}
}

// readWatch records, at each read of a push after the handshake, which
// batch the pusher waits for and whether the batch after it is encoded.
type readWatch struct {
	net.Conn
	p     *pusher
	reads map[int]bool // the first update of the batch waited for: next encoded at each read
}

func (c *readWatch) Read(b []byte) (int, error) {
	if p := c.p; len(p.inflight) > 0 {
		lo := p.inflight[0].lo
		ready, seen := c.reads[lo]
		c.reads[lo] = (ready || !seen) && p.w.Buffered() > 0 && p.next.lo > lo
	}
	return c.Conn.Read(b)
}

// TestPushEncodesWhileWaiting checks that with Window 1 each batch but the
// last has the next batch encoded, and not yet written, while its barrier
// reply is awaited: the client encodes while the switch applies.
func TestPushEncodesWhileWaiting(t *testing.T) {
	a, addr := startAgent(t, &controller.Config{})
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	wc := &readWatch{Conn: nc, reads: map[int]bool{}}
	p := newPusher(wc, &Config{Batch: 256, Window: 1})
	wc.p = p
	ups := flowgen.Exact(1024, 0)
	res, err := p.push(context.Background(), ups)
	if err != nil || res.ErrCount != 0 || res.Batches != 4 {
		t.Fatalf("push: %v %+v", err, res)
	}
	if n := a.FlowTables().Pipeline().Table(0).Stats().Flows; n != 1024 {
		t.Fatalf("%d flows installed, want 1024", n)
	}
	for lo := 0; lo < 3*256; lo += 256 {
		ready, seen := wc.reads[lo]
		if !seen || !ready {
			t.Errorf("batch at %d: waited for (%v) without the next batch encoded", lo, seen)
		}
	}
	if ready := wc.reads[3*256]; ready {
		t.Errorf("the last batch waited for with a batch after it encoded")
	}
}

// TestPushImportance: push offers OpenFlow 1.4 when a flow has an
// importance, which ofswitch and Open vSwitch then both keep: dump-flows
// over 1.4 prints the same flows, with importance=N, on both.
func TestPushImportance(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	_, addr := startAgent(t, &controller.Config{Tables: 4})
	ours := "tcp:" + addr
	ups := parseFlows(t, "table=2,importance=11,priority=9,ip,nw_dst=10.0.0.0/8,actions=output:2\ntable=2,importance=12,priority=9,ip,nw_dst=11.0.0.0/8,actions=output:2\n")
	res, err := Flows(context.Background(), ours, ups, nil)
	if err != nil || len(res.Errors) != 0 || res.Version != openflow.Version14 {
		t.Fatalf("push into ofswitch: version %#x, %v %v", res.Version, err, res.Errors)
	}
	nc, err := ovs.Dial("127.0.0.1:16653")
	if err != nil {
		t.Fatal(err)
	}
	if res, err = Flows(context.Background(), "", ups, &Config{Conn: nc}); err != nil || len(res.Errors) != 0 || res.Version != openflow.Version14 {
		t.Fatalf("push into Open vSwitch: version %#x, %v %v", res.Version, err, res.Errors)
	}
	o, err := exec.Command(ofctl, "-O", "OpenFlow14", "dump-flows", ours).CombinedOutput()
	if err != nil {
		t.Fatalf("ovs-ofctl dump-flows on ofswitch: %v\n%s", err, o)
	}
	theirs, err := ovs.Exec("ovs-ofctl", "-O", "OpenFlow14", "dump-flows", ovs.Target()).CombinedOutput()
	if err != nil {
		t.Fatalf("ovs-ofctl dump-flows on Open vSwitch: %v\n%s", err, theirs)
	}
	got, want := ovstest.FlowLines(string(o)), ovstest.FlowLines(string(theirs))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after push: dump-flows -O OpenFlow14 (-Open vSwitch +ofswitch):\n%s", diff)
	}
	dump := strings.Join(got, "\n")
	for _, w := range []string{"importance=11, priority=9,ip,nw_dst=10.0.0.0/8", "importance=12, priority=9,ip,nw_dst=11.0.0.0/8"} {
		if !strings.Contains(dump, w) {
			t.Errorf("after push: no %q in\n%s", w, dump)
		}
	}
}

// TestPushImportanceDropped: a switch that speaks only OpenFlow 1.3 gets
// flows with an importance without it, and the Result says so; one that
// speaks 1.4, or flows without importance, leave it unset.
func TestPushImportanceDropped(t *testing.T) {
	with := parseFlows(t, "importance=7,priority=5,ip,actions=drop\n")
	without := parseFlows(t, "priority=5,ip,actions=drop\n")
	for _, c := range []struct {
		versions []uint8
		ups      []rules.Update
		dropped  bool
	}{
		{[]uint8{openflow.Version13}, with, true},
		{[]uint8{openflow.Version13, openflow.Version14}, with, false},
		{[]uint8{openflow.Version13}, without, false},
	} {
		// Over TCP, not net.Pipe: both sides write their HELLO first.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			if nc, err := ln.Accept(); err == nil {
				ofpeer.ServeBarriers(nc, c.versions...)
			}
		}()
		res, err := Flows(context.Background(), "tcp:"+ln.Addr().String(), c.ups, nil)
		ln.Close()
		if err != nil || res.Flows != 1 {
			t.Fatalf("versions %v: %v %+v", c.versions, err, res)
		}
		if res.ImportanceDropped != c.dropped {
			t.Errorf("versions %v, importance %d: ImportanceDropped %v, want %v", c.versions, c.ups[0].Importance, res.ImportanceDropped, c.dropped)
		}
	}
}

//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/netnstest"
	"github.com/ofswitch/ofswitch/internal/ovstest"
)

// ofPort is the OpenFlow port the switch listens on in its namespace.
const ofPort = 6653

// startSwitch runs `ofswitch run --port s1 --port s2 ... --listen
// ptcp:6653:127.0.0.1 args...` (a --port for each of tp's switch
// interfaces: ports 1, 2, ... in order) in the switch's namespace and
// waits until ovs-ofctl gets an answer from it. At cleanup it stops the
// switch with SIGTERM and fails the test unless it exits cleanly (a data
// race found by a -race binary makes the exit status non-zero).
func startSwitch(t testing.TB, tp *topo, args ...string) *netnstest.Proc {
	t.Helper()
	bin := ofswitchBinary(t)
	run := []string{"run"}
	for _, s := range tp.swIf {
		run = append(run, "--port", s)
	}
	run = append(run, "--listen", "ptcp:"+strconv.Itoa(ofPort)+":127.0.0.1", "--log-level", "debug")
	args = append(run, args...)
	p := netnstest.Start(t, tp.sw, func(err error, log string) {
		if err != nil {
			t.Errorf("ofswitch did not stop cleanly on SIGTERM: %v\n%s", err, log)
		}
	}, bin, args...)
	waitFor(t, "answer from ofswitch", p.Log, func() (bool, string) {
		out, err := ovsOfctl(tp.sw, ofPort, "show")
		return err == nil, out
	})
	return p
}

// counter returns the integer after key= in the first line of text that
// has it and contains all of near, or -1.
func counter(text, key string, near ...string) int {
	re := regexp.MustCompile(regexp.QuoteMeta(key) + `=(\d+)`)
lines:
	for _, l := range strings.Split(text, "\n") {
		for _, n := range near {
			if !strings.Contains(l, n) {
				continue lines
			}
		}
		if m := re.FindStringSubmatch(l); m != nil {
			v, _ := strconv.Atoi(m[1])
			return v
		}
	}
	return -1
}

// TestLiveOfctl: flows added by ovs-ofctl join the two hosts, and
// deleting them parts the hosts again; show, dump-flows and dump-ports
// print the ports and counters; a port going down, then away, reaches a
// monitoring controller as PORT_STATUS and leaves the port list; Prometheus
// shows the port and drop counters.
func TestLiveOfctl(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp, "--metrics", "127.0.0.1:9100", "--stats=100ms")

	show, err := ovsOfctl(tp.sw, ofPort, "show")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"dpid:0000" + strings.ReplaceAll(swMAC(1), ":", ""), // the lowest MAC: port 1's
		" 1(s1): addr:" + swMAC(1), " 2(s2): addr:" + swMAC(2),
		"config:     0", "state:      LIVE", "current:    10GB-FD COPPER", "speed: 10000 Mbps now",
	} {
		if !strings.Contains(show, want) {
			t.Errorf("ovs-ofctl show lacks %q:\n%s", want, show)
		}
	}
	if n := strings.Count(show, "addr:"); n != 2 {
		t.Errorf("ovs-ofctl show lists %d ports, want 2:\n%s", n, show)
	}

	for _, f := range []string{"in_port=1,actions=output:2", "in_port=2,actions=output:1"} {
		if out, err := ovsOfctl(tp.sw, ofPort, "add-flow", f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if out, ok := tp.ping(t, 3); !ok {
		t.Fatalf("h1 cannot ping h2 through flows in_port=1→2, 2→1:\n%s\nswitch log:\n%s", out, sw.Log())
	}
	// PORT_MOD: with port 2 no-forward the echo requests output to it are
	// dropped; forward lets them through again.
	for _, step := range []struct {
		action string
		pings  bool
	}{{"no-forward", false}, {"forward", true}} {
		if out, err := ovsOfctl(tp.sw, ofPort, "mod-port", "2", step.action); err != nil || out != "" {
			t.Fatalf("mod-port 2 %s: %v\n%s", step.action, err, out)
		}
		if out, ok := tp.ping(t, 2); ok != step.pings {
			t.Fatalf("after mod-port 2 %s, h1 pings h2: %v, want %v\n%s", step.action, ok, step.pings, out)
		}
	}
	flows, err := ovsOfctl(tp.sw, ofPort, "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	// 3 echo requests and at least one ARP request each way.
	for _, f := range []string{"in_port=1 actions=output:2", "in_port=2 actions=output:1"} {
		if n := counter(flows, "n_packets", f); n < 4 {
			t.Errorf("flow %s: n_packets=%d, want ≥ 4 after 3 pings:\n%s", f, n, flows)
		}
	}
	ports, err := ovsOfctl(tp.sw, ofPort, "dump-ports")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"1", "2"} {
		// "port  1: rx pkts=4, ..." and on the next line "tx pkts=4, ...".
		block := ""
		if i := strings.Index(ports, "port  "+p+":"); i >= 0 {
			block = ports[i:]
		}
		for _, k := range []string{"rx pkts", "tx pkts"} {
			if n := counter(block, k); n < 4 {
				t.Errorf("dump-ports: port %s %s=%d, want ≥ 4:\n%s", p, k, n, ports)
			}
		}
	}

	if out, err := ovsOfctl(tp.sw, ofPort, "del-flows"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, ok := tp.ping(t, 2); ok || !strings.Contains(out, " 0 received") {
		t.Fatalf("h1 still pings h2 after del-flows:\n%s", out)
	}
	// --stats: the del-flows burst came after the pings, so the data
	// plane looked up frames in the time before it.
	waitFor(t, "--stats report of the del-flows burst", sw.Log, func() (bool, string) {
		return regexp.MustCompile(`msg=bursts .* lookups_per_s\.during=[0-9.]+ lookups_per_s\.before=[0-9]*[1-9]`).MatchString(sw.Log()), ""
	})

	// Port 2 goes down: a controller that monitors the switch hears it.
	mon := startMonitor(t, tp, ofPort)
	// The monitor's is the only lasting connection: wait for it.
	waitFor(t, "ovs-ofctl monitor connected", mon.String, func() (bool, string) {
		m := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
		return strings.Contains(m, "\nofswitch_openflow_connections 1\n"), ""
	})
	sh(t, "ip", "-n", tp.sw, "link", "set", tp.swIf[1], "down")
	waitFor(t, "PORT_STATUS of port 2 going down", mon.String, func() (bool, string) {
		out := mon.String()
		return strings.Contains(out, "OFPT_PORT_STATUS") && strings.Contains(out, "MOD: 2(s2)") &&
			strings.Contains(out, "PORT_DOWN"), ""
	})
	show, err = ovsOfctl(tp.sw, ofPort, "show")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(show, " 2(s2):")
	if i < 0 || !strings.Contains(show[i:], "config:     PORT_DOWN") || !strings.Contains(show[i:], "state:      LINK_DOWN") {
		t.Errorf("ovs-ofctl show after s2 went down:\n%s", show)
	}

	// Port 2 goes away: DELETE, and the switch describes only port 1
	// (and, checked at cleanup, still stops cleanly).
	sh(t, "ip", "-n", tp.sw, "link", "del", tp.swIf[1])
	waitFor(t, "PORT_STATUS of port 2 deleted", mon.String, func() (bool, string) {
		return strings.Contains(mon.String(), "DEL: 2(s2)"), ""
	})
	show, err = ovsOfctl(tp.sw, ofPort, "show")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(show, "2(s2)") || !strings.Contains(show, " 1(s1): addr:") {
		t.Errorf("ovs-ofctl show after s2 was deleted:\n%s", show)
	}

	metrics := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
	for _, re := range []string{
		`ofswitch_port_rx_packets_total\{name="s1",port="1"\} [1-9]`,
		`ofswitch_port_tx_packets_total\{name="s1",port="1"\} [1-9]`,
		`ofswitch_frames_processed_total [1-9]`,
		`ofswitch_frames_dropped_total [2-9]`, // the pings after del-flows
		`ofswitch_table_misses_total [2-9]`,
		`ofswitch_malformed_frames_total\{reason="ipv4-header"\} 0`,
	} {
		if !regexp.MustCompile(re).MatchString(metrics) {
			t.Errorf("metrics lack %s:\n%s", re, metrics)
		}
	}
}

// httpGetIn fetches path from addr inside the switch's namespace.
func httpGetIn(t *testing.T, tp *topo, addr, path string) string {
	t.Helper()
	var body []byte
	err := tp.swNS.Do(func() error {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := fmt.Fprintf(c, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, addr); err != nil {
			return err
		}
		body, err = io.ReadAll(c)
		return err
	})
	if err != nil {
		t.Fatalf("GET http://%s%s in %s: %v", addr, path, tp.sw, err)
	}
	if !bytes.HasPrefix(body, []byte("HTTP/1.0 200")) && !bytes.HasPrefix(body, []byte("HTTP/1.1 200")) {
		t.Fatalf("GET http://%s%s: %.200s", addr, path, body)
	}
	return string(body)
}

// TestLiveTestcontroller: with ovs-testcontroller as the controller (the
// switch connects out), the hosts ping each other (packet-ins from the
// workers, the controller's PACKET_OUTs through the data plane), and the
// flows the controller learned show in dump-flows.
func TestLiveTestcontroller(t *testing.T) {
	needLive(t, "ovs-ofctl", "ovs-testcontroller")
	tp := newTopo(t, "")
	const cport = 6633
	tc := netnstest.Start(t, tp.sw, nil, "ovs-testcontroller", "-O", "OpenFlow13",
		"--unixctl="+filepath.Join(t.TempDir(), "tc.ctl"), "ptcp:"+strconv.Itoa(cport)+":127.0.0.1")
	// Two receive queues (workers) per port, in a fanout group.
	sw := startSwitch(t, tp, "--controller", "tcp:127.0.0.1:"+strconv.Itoa(cport), "--workers", "2")
	log := func() string { return "ovs-testcontroller:\n" + tc.Log() + "\nofswitch:\n" + sw.Log() }
	// The controller's first flow sends table misses to it.
	waitFor(t, "table-miss flow from ovs-testcontroller", log, func() (bool, string) {
		out, _ := ovsOfctl(tp.sw, ofPort, "dump-flows")
		return strings.Contains(out, "priority=0 actions=CONTROLLER:128"), out
	})
	if out, ok := tp.ping(t, 3); !ok {
		t.Fatalf("h1 cannot ping h2 with ovs-testcontroller as the controller:\n%s\n%s", out, log())
	}
	flows, err := ovsOfctl(tp.sw, ofPort, "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	// Learned flows match the frames exactly; the echo requests' flow
	// goes from port 1 to port 2, the replies' back.
	for _, tt := range []struct{ in, src, dst, out string }{
		{"1", hostMAC(1), hostMAC(2), "2"},
		{"2", hostMAC(2), hostMAC(1), "1"},
	} {
		found := false
		for _, l := range strings.Split(flows, "\n") {
			if strings.Contains(l, "icmp,in_port="+tt.in) && strings.Contains(l, "dl_src="+tt.src+",dl_dst="+tt.dst) &&
				strings.HasSuffix(strings.TrimSpace(l), "actions=output:"+tt.out) {
				found = true
			}
		}
		if !found {
			t.Errorf("no learned ICMP flow in_port=%s %s→%s actions=output:%s:\n%s", tt.in, tt.src, tt.dst, tt.out, flows)
		}
	}
}

// TestLiveStandalone: in standalone fail mode with no controller, the
// switch forwards as a learning switch: the hosts ping each other without
// a single flow entry.
func TestLiveStandalone(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp, "--fail-mode", "standalone")
	if out, ok := tp.ping(t, 3); !ok {
		t.Fatalf("h1 cannot ping h2 through a standalone switch:\n%s\nswitch log:\n%s", out, sw.Log())
	}
	flows, err := ovsOfctl(tp.sw, ofPort, "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(flows, "actions=") {
		t.Errorf("standalone forwarding installed flows:\n%s", flows)
	}
}

// TestLiveSecureDrops: in secure fail mode (the default) a switch
// without flows forwards nothing.
func TestLiveSecureDrops(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	startSwitch(t, tp)
	if out, ok := tp.ping(t, 2); ok || !strings.Contains(out, " 0 received") {
		t.Fatalf("h1 pings h2 through a secure switch without flows:\n%s", out)
	}
}

// portBlocks returns the port descriptions of `ovs-ofctl show` output,
// keyed by their "N(name)" heading, each with its indented lines.
func portBlocks(show string) map[string]string {
	blocks := map[string]string{}
	key := ""
	for _, l := range strings.Split(show, "\n") {
		switch {
		case strings.HasPrefix(l, "     ") && key != "":
			blocks[key] += l + "\n"
		case strings.HasPrefix(l, " ") && strings.Contains(l, "): addr:"):
			key = strings.TrimSpace(l[:strings.Index(l, ":")])
			blocks[key] = l + "\n"
		default:
			key = ""
		}
	}
	return blocks
}

// TestLiveShowMatchesOVS: for the same veth ports (same names, numbers
// and MACs), `ovs-ofctl show` prints ofswitch's port descriptions exactly
// as it prints Open vSwitch's.
func TestLiveShowMatchesOVS(t *testing.T) {
	needLive(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	otp := newTopo(t, ovs.NS)
	ovs.AddPort(t, otp.swIf[0], 1)
	ovs.AddPort(t, otp.swIf[1], 2)
	want, err := ovs.Ofctl("", "show")
	if err != nil {
		t.Fatal(err)
	}
	tp := newTopo(t, "")
	startSwitch(t, tp)
	got, err := ovsOfctl(tp.sw, ofPort, "show")
	if err != nil {
		t.Fatal(err)
	}
	wb, gb := portBlocks(want), portBlocks(got)
	for _, p := range []string{"1(s1)", "2(s2)"} {
		if wb[p] == "" || gb[p] != wb[p] {
			t.Errorf("port %s: ofswitch shows\n%sOpen vSwitch shows\n%s", p, gb[p], wb[p])
		}
	}
	if _, ok := gb["LOCAL(br0)"]; ok {
		t.Errorf("ofswitch shows a LOCAL port:\n%s", got)
	}

	// same waits until both switches' show has text in port block's
	// description and then compares the two blocks.
	same := func(what, block, text string) {
		t.Helper()
		for _, sw := range []struct {
			name string
			show func() (string, error)
			out  *string
		}{
			{"Open vSwitch", func() (string, error) { return ovs.Ofctl("", "show") }, &want},
			{"ofswitch", func() (string, error) { return ovsOfctl(tp.sw, ofPort, "show") }, &got},
		} {
			waitFor(t, sw.name+" showing "+what, func() string { return *sw.out }, func() (bool, string) {
				*sw.out, _ = sw.show()
				return strings.Contains(portBlocks(*sw.out)[block], text), *sw.out
			})
		}
		if w, g := portBlocks(want)[block], portBlocks(got)[block]; g != w {
			t.Errorf("%s: ofswitch shows\n%sOpen vSwitch shows\n%s", what, g, w)
		}
	}

	// Port 2 down on both: both descriptions change the same way.
	sh(t, "ip", "-n", ovs.NS, "link", "set", otp.swIf[1], "down")
	sh(t, "ip", "-n", tp.sw, "link", "set", tp.swIf[1], "down")
	same("port 2 down", "2(s2)", "PORT_DOWN")

	// Then through OpenFlow (PORT_MOD, ovs-ofctl mod-port): port 2 up and
	// port 1 down on both, which change their interfaces as ip link did,
	// and port 2's other config bits, which only OpenFlow sets.
	for _, step := range []struct{ port, action, name, want string }{
		{"2", "up", "2(s2)", "LIVE"},
		{"1", "down", "1(s1)", "PORT_DOWN"},
		{"2", "no-forward", "2(s2)", "NO_FWD"},
		{"2", "no-receive", "2(s2)", "NO_RECV"},
		{"2", "no-packet-in", "2(s2)", "NO_PACKET_IN"},
	} {
		if _, err := ovs.Ofctl("", "mod-port", step.port, step.action); err != nil {
			t.Fatal(err)
		}
		if out, err := ovsOfctl(tp.sw, ofPort, "mod-port", step.port, step.action); err != nil || out != "" {
			t.Fatalf("ofswitch: mod-port %s %s: %v\n%s", step.port, step.action, err, out)
		}
		same("mod-port "+step.port+" "+step.action, step.name, step.want)
	}
	if out := sh(t, "ip", "-n", tp.sw, "-o", "link", "show", tp.swIf[0]); !strings.Contains(out, "state DOWN") || strings.Contains(out, ",UP") {
		t.Errorf("after mod-port 1 down, ofswitch's interface: %s", out)
	}
}

// TestLiveStandaloneFailOpen: a standalone switch whose controller is not
// there fails open after three inactivity probes and forwards as a
// learning switch; once the controller comes, the switch closes again and
// the controller's flows forward.
func TestLiveStandaloneFailOpen(t *testing.T) {
	needLive(t, "ovs-ofctl", "ovs-testcontroller")
	tp := newTopo(t, "")
	const cport = 6634
	sw := startSwitch(t, tp, "--fail-mode", "standalone", "--controller", "tcp:127.0.0.1:"+strconv.Itoa(cport),
		"--inactivity-probe", "200ms")
	waitFor(t, "fail-open", sw.Log, func() (bool, string) {
		return strings.Contains(sw.Log(), "open=true"), ""
	})
	if out, ok := tp.ping(t, 2); !ok {
		t.Fatalf("h1 cannot ping h2 through a switch that failed open:\n%s\n%s", out, sw.Log())
	}
	tc := netnstest.Start(t, tp.sw, nil, "ovs-testcontroller", "-O", "OpenFlow13",
		"--unixctl="+filepath.Join(t.TempDir(), "tc.ctl"), "ptcp:"+strconv.Itoa(cport)+":127.0.0.1")
	waitFor(t, "fail-open to end when the controller connects", func() string { return sw.Log() + tc.Log() }, func() (bool, string) {
		return strings.Contains(sw.Log(), "open=false"), ""
	})
	if out, ok := tp.ping(t, 2); !ok {
		t.Fatalf("h1 cannot ping h2 once the controller is back:\n%s\n%s", out, sw.Log())
	}
	flows, err := ovsOfctl(tp.sw, ofPort, "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(flows, "icmp,in_port=1") {
		t.Errorf("no flow learned by the controller once it is back:\n%s", flows)
	}
}

// TestLivePortReattach: port 2's interface is deleted and created again
// under the same name while the switch runs: a monitoring controller
// hears PORT_STATUS DELETE, then ADD with the same port number, and the
// hosts ping each other again through the flows added before, without a
// restart.
func TestLivePortReattach(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp, "--metrics", "127.0.0.1:9100")
	for _, f := range []string{"in_port=1,actions=output:2", "in_port=2,actions=output:1"} {
		if out, err := ovsOfctl(tp.sw, ofPort, "add-flow", f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if out, ok := tp.ping(t, 2); !ok {
		t.Fatalf("h1 cannot ping h2 before s2 goes:\n%s\nswitch log:\n%s", out, sw.Log())
	}

	mon := startMonitor(t, tp, ofPort)
	log := func() string { return "monitor:\n" + mon.String() + "\nofswitch:\n" + sw.Log() }
	waitFor(t, "ovs-ofctl monitor connected", log, func() (bool, string) {
		m := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
		return strings.Contains(m, "\nofswitch_openflow_connections 1\n"), ""
	})

	// The host's end goes with the pair.
	sh(t, "ip", "-n", tp.sw, "link", "del", tp.swIf[1])
	waitFor(t, "PORT_STATUS of port 2 deleted", log, func() (bool, string) {
		return strings.Contains(mon.String(), "DEL: 2(s2)"), ""
	})
	if out, ok := tp.ping(t, 1); ok {
		t.Errorf("h1 pings h2 without s2:\n%s", out)
	}

	tp.link(t, 1) // the same names, MACs and addresses, a new ifindex
	waitFor(t, "PORT_STATUS of port 2 added", log, func() (bool, string) {
		return strings.Contains(mon.String(), "ADD: 2(s2): addr:"+swMAC(2)), ""
	})
	show, err := ovsOfctl(tp.sw, ofPort, "show")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(show, " 2(s2): addr:"+swMAC(2)) || !strings.Contains(show, " 1(s1): addr:"+swMAC(1)) {
		t.Errorf("ovs-ofctl show after s2 came back:\n%s", show)
	}
	// The new pair may take a moment to get a carrier: a bounded retry.
	ok := false
	out := ""
	for i := 0; i < 5 && !ok; i++ {
		out, ok = tp.ping(t, 2)
	}
	if !ok {
		flows, _ := ovsOfctl(tp.sw, ofPort, "dump-flows")
		ports, _ := ovsOfctl(tp.sw, ofPort, "dump-ports")
		links, _ := exec.Command("ip", "-n", tp.sw, "-s", "link").CombinedOutput()
		pk, _ := exec.Command("ip", "netns", "exec", tp.sw, "cat", "/proc/net/packet").CombinedOutput()
		links = append(links, pk...)
		t.Fatalf("h1 cannot ping h2 after s2 came back:\n%s\n%s\n%s\n%s\n%s", out, flows, ports, links, log())
	}
	if !strings.Contains(sw.Log(), "port attached") {
		t.Errorf("no re-attach in the switch's log:\n%s", sw.Log())
	}
	flows, err := ovsOfctl(tp.sw, ofPort, "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	// 2 + 2 echo requests and their replies, and ARP: the same entries
	// forwarded before and after.
	for _, f := range []string{"in_port=1 actions=output:2", "in_port=2 actions=output:1"} {
		if n := counter(flows, "n_packets", f); n < 4 {
			t.Errorf("flow %s: n_packets=%d, want ≥ 4:\n%s", f, n, flows)
		}
	}
	metrics := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
	if !regexp.MustCompile(`ofswitch_port_tx_dropped_total\{name="s2",port="2"\} [1-9]`).MatchString(metrics) {
		t.Errorf("metrics lack the frames dropped while s2 was away:\n%s", metrics)
	}
}

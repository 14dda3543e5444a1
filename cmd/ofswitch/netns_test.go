//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/netnstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// Live tests run `ofswitch run` between network namespaces the test makes:
// hosts h1 (10.0.0.1/24), h2 (10.0.0.2/24) and, for some tests, more, each
// with an interface eth0 joined by a veth pair to interface s1, s2, ... of
// the switch's namespace. The switch binary is built once per test binary,
// with the race detector when the tests have it.

// Fixed addresses make ovs-ofctl's output and the derived datapath id
// predictable: the switch side of host i's pair is 02:5e:00:00:00:0i (so
// the lowest, port 1's, is the datapath id), the host side
// 02:ee:00:00:00:0i.
func swMAC(i int) string   { return fmt.Sprintf("02:5e:00:00:00:%02x", i) }
func hostMAC(i int) string { return fmt.Sprintf("02:ee:00:00:00:%02x", i) }
func hostIP(i int) string  { return fmt.Sprintf("10.0.0.%d", i) }

// needLive skips the test (fails it under CI=true) unless it can make
// network namespaces and run the programs named.
func needLive(t testing.TB, progs ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		testutil.SkipOrFail(t, "live tests need root for network namespaces")
	}
	for _, p := range append([]string{"ip", "ping"}, progs...) {
		if _, err := exec.LookPath(p); err != nil {
			testutil.SkipOrFail(t, p+" is not installed (apt-get install iproute2 iputils-ping openvswitch-switch openvswitch-testcontroller tcpreplay)")
		}
	}
}

var ofswitchBin struct {
	once sync.Once
	path string
	err  error
}

// ofswitchBinary returns the path of an ofswitch binary built from this package,
// built on first use into a folder that TestMain removes.
func ofswitchBinary(t testing.TB) string {
	t.Helper()
	ofswitchBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "ofswitch-bin-")
		if err != nil {
			ofswitchBin.err = err
			return
		}
		binDirs = append(binDirs, dir)
		path := filepath.Join(dir, "ofswitch")
		args := []string{"build", "-o", path}
		cmd := exec.Command("go")
		if raceEnabled {
			args = append(args, "-race")
		} else {
			// As README builds it: static, no libc to load at start.
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		}
		cmd.Args = append(append(cmd.Args, args...), ".")
		out, err := cmd.CombinedOutput()
		if err != nil {
			ofswitchBin.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		ofswitchBin.path = path
	})
	if ofswitchBin.err != nil {
		t.Fatal(ofswitchBin.err)
	}
	return ofswitchBin.path
}

var binDirs []string

func TestMain(m *testing.M) {
	if addr := os.Getenv(floorPeerEnv); addr != "" {
		// BenchmarkPushCLI's floor: this binary, as a process of its own.
		if err := runFloorPeer(addr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	for _, d := range binDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// sh runs a command and fails the test with its output if it fails.
func sh(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// nsExec returns a command running in namespace ns, bounded by ctx.
// startMonitor runs `ovs-ofctl monitor` against the switch listening on
// ofPort in tp's switch namespace until the test ends, and returns what it
// prints.
func startMonitor(t *testing.T, tp *topo, ofPort int) *testutil.LockedBuffer {
	t.Helper()
	mon := new(testutil.LockedBuffer)
	ctx, cancel := context.WithCancel(context.Background())
	m := nsExec(ctx, tp.sw, "ovs-ofctl", "-O", "OpenFlow13", "--unixctl="+filepath.Join(t.TempDir(), "mon.ctl"),
		"monitor", "tcp:127.0.0.1:"+strconv.Itoa(ofPort))
	m.Stdout, m.Stderr = mon, mon
	if err := m.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		m.Wait()
	})
	return mon
}

func nsExec(ctx context.Context, ns, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// topo is hosts joined to a switch namespace by veth pairs.
type topo struct {
	sw    string        // the switch's namespace
	swNS  *netnstest.NS // the switch's namespace if newTopo made it
	hosts []string      // h1, h2, ... namespaces
	swIf  []string      // interface names in sw: s1, s2, ...
}

// newTopo is newTopoN with the two hosts h1 and h2.
func newTopo(t testing.TB, sw string) *topo {
	t.Helper()
	return newTopoN(t, sw, 2)
}

// newTopoN creates namespaces h1..hn and, when sw is empty, the switch's,
// with veth pairs eth0 (host i) to si (switch); the namespaces go at
// cleanup (netnstest), and the pairs with them. IPv6 is off on every
// interface, so that only the test's own traffic (and ARP) crosses the
// switch. n is at most 254 (hostIP's last byte).
func newTopoN(t testing.TB, sw string, n int) *topo {
	t.Helper()
	tp := &topo{sw: sw}
	for i := 1; i <= n; i++ {
		tp.hosts = append(tp.hosts, netnstest.New(t, fmt.Sprintf("ofsh%d-", i)).Name)
		tp.swIf = append(tp.swIf, fmt.Sprintf("s%d", i))
	}
	nss := append([]string(nil), tp.hosts...)
	if sw == "" {
		tp.swNS = netnstest.New(t, "ofssw-")
		tp.sw = tp.swNS.Name
		nss = append(nss, tp.sw)
	}
	for _, ns := range nss {
		sh(t, "ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
	}
	for i := range tp.hosts {
		tp.link(t, i)
	}
	return tp
}

// link creates the veth pair of host i (0-based): eth0 in the host, with
// its address, and swIf[i] in the switch's namespace, both up.
func (tp *topo) link(t testing.TB, i int) {
	t.Helper()
	h := tp.hosts[i]
	sh(t, "ip", "-n", h, "link", "add", "name", "eth0", "address", hostMAC(i+1), "type", "veth",
		"peer", "name", tp.swIf[i], "address", swMAC(i+1), "netns", tp.sw)
	sh(t, "ip", "-n", h, "addr", "add", hostIP(i+1)+"/24", "dev", "eth0")
	sh(t, "ip", "-n", h, "link", "set", "eth0", "up")
	sh(t, "ip", "-n", tp.sw, "link", "set", tp.swIf[i], "up")
}

// ping pings host 2 from host 1 (count packets, 0.2 s apart, 1 s wait
// each) and returns ping's output and whether it succeeded.
func (tp *topo) ping(t testing.TB, count int) (string, bool) {
	t.Helper()
	return tp.pingHost(t, 1, 2, count)
}

// pingHost is ping from host from to host to (1-based).
func (tp *topo) pingHost(t testing.TB, from, to, count int) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(count+5)*time.Second)
	defer cancel()
	out, err := nsExec(ctx, tp.hosts[from-1], "ping", "-c", strconv.Itoa(count), "-i", "0.2", "-W", "1", hostIP(to)).CombinedOutput()
	return string(out), err == nil
}

// ovsOfctl runs "ovs-ofctl -O OpenFlow13 CMD tcp:127.0.0.1:PORT ARGS..." in
// namespace ns, bounded to 10 s.
func ovsOfctl(ns string, port int, cmd string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := nsExec(ctx, ns, "ovs-ofctl", append([]string{"-O", "OpenFlow13", cmd, "tcp:127.0.0.1:" + strconv.Itoa(port)}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ovs-ofctl %s %s: %w\n%s", cmd, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// waitFor polls cond every 50 ms for up to 10 s and fails the test with
// what, cond's last note and log() if it never holds.
func waitFor(t testing.TB, what string, log func() string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, note := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10 s: %s\nlog:\n%s", what, note, log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

//go:build linux

package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/netnstest"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// The adversarial suite replays each attack of docs/robustness.md against
// `ofswitch run` on loopback, every attack bounded in count and time. Each attack gets a switch process of its own, so that its memory
// is measured from an idle baseline and not from what an earlier attack
// left in the heap: a well-behaved client installs a known flow set, the
// switch's resident memory then is the baseline, and after the attack
// ovs-ofctl dump-flows must return exactly that set and the peak resident
// memory during the attack (VmHWM, reset before it) must stay within the
// attack's stated bound above the baseline. The limits that take seconds
// to act are lowered by flags (run_limits.go) so that the suite takes
// seconds; the async backlog limits too, so that their bound is small.
//
// The switch is built without the race detector even when the tests have
// it (advBinary): the bounds are then those of the binary users run, and
// the same in both modes. A race build holds about 3 to 4 times the memory
// (the duplicates: +182 against +44 MB) and takes about 5 times as long;
// the controller's own tests run the same limits under the race detector.

const (
	advKnownFlows = 500 // the flow set the well-behaved client keeps
	advFDLimit    = 256 // RLIMIT_NOFILE of the switch
)

var advBin struct {
	once sync.Once
	path string
	err  error
}

// advBinary returns the path of an ofswitch binary built from this package
// without the race detector: ofswitchBinary's when the tests have none.
func advBinary(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return ofswitchBinary(t)
	}
	advBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "ofswitch-bin-")
		if err != nil {
			advBin.err = err
			return
		}
		binDirs = append(binDirs, dir)
		path := filepath.Join(dir, "ofswitch")
		if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
			advBin.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		advBin.path = path
	})
	if advBin.err != nil {
		t.Fatal(advBin.err)
	}
	return advBin.path
}

// advSwitch is the switch under attack.
type advSwitch struct {
	proc    *netnstest.Proc
	pid     int
	addr    string // ptcp:
	tlsAddr string // pssl:
	pki     string // folder of ca.crt, switch.*, controller.*
	ofctl   string
	known   []string // the known flow set, as ovstest.FlowLines prints it
}

func TestAdversarial(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	if _, err := exec.LookPath("sh"); err != nil {
		testutil.SkipOrFail(t, "no sh to lower the switch's descriptor limit")
	}
	bin := advBinary(t)
	// attack runs one attack as a subtest against a switch of its own that
	// holds the known flow set, then checks the switch: it is running, it
	// serves the known flow set to ovs-ofctl, and its peak RSS during the
	// attack is within boundMB above its idle baseline, the RSS before the
	// attack. args are the switch's flags besides startAdvSwitch's.
	attack := func(name string, boundMB int64, args []string, fn func(s *advSwitch, t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			s := startAdvSwitch(t, bin, ofctl, args...)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("switch log:\n%s", tail(s.proc.Log(), 8000))
				}
			})
			s.installKnown(t, name == "slow-readers")
			idle := s.status(t, "VmRSS")
			peakRSS := s.watchPeak(t)
			start := time.Now()
			fn(s, t)
			elapsed := time.Since(start)
			peak, now := peakRSS(), s.status(t, "VmRSS")
			s.checkServed(t)
			bound := boundMB << 20
			t.Logf("RSS: idle %d MB, peak %d MB (+%d MB, bound +%d MB), after %d MB; %v",
				idle>>20, peak>>20, (peak-idle)>>20, bound>>20, now>>20, elapsed.Round(time.Millisecond))
			if peak-idle > bound {
				t.Errorf("peak RSS %d MB above the idle %d MB, bound %d MB", (peak-idle)>>20, idle>>20, bound>>20)
			}
		})
	}

	// The bundles' 10,000 translated FLOW_MODs, and the collector's
	// headroom (GOGC=200: the heap may reach three times what is live).
	attack("duplicates", 96, nil, (*advSwitch).attackDuplicates)
	attack("fd-exhaustion", 64, nil, (*advSwitch).attackConnFlood)
	// 262,144 FLOW_MODs as they came, the most a connection may hold
	// (about 28 MB), three times over for the collector's headroom. The bundles
	// are fed round robin, but a stall of the sender as long as the idle
	// timeout would expire them all before the last message.
	attack("uncommitted-bundles", 128, []string{"--bundle-idle-timeout", "3s"}, (*advSwitch).attackBundles)
	// 32 MiB of bundled FLOW_MODs as they came (--bundle-max-bytes's
	// default) and the spare room of their buffers, three times over for
	// the collector's headroom, and the translations of the messages
	// refused past it.
	attack("bundle-bytes", 192, nil, (*advSwitch).attackBundleBytes)
	// A dump in flight holds its encoding (about 5 MB for 50,000 flows)
	// until the write timeout drops its reader; all of them together at
	// most --reply-limit-total (32 MiB) and the replies starting, three
	// times over for the
	// collector's headroom, and the flows listed as they are encoded.
	attack("slow-readers", 256, nil, (*advSwitch).attackSlowReaders)
	attack("tls-no-handshake", 32, nil, (*advSwitch).attackTLSSilent)
	// The non-readers send nothing: the inactivity probe must not be
	// what closes them.
	// The backlogs of all of them, 64 MiB at the most (--async-limit-total),
	// about twice that held, and the collector's headroom.
	attack("async-backlog", 192, []string{"--inactivity-probe", "60s"}, (*advSwitch).attackAsyncBacklog)
	attack("invalid-values", 32, nil, (*advSwitch).attackInvalidValues)
	attack("malformed", 32, nil, (*advSwitch).attackMalformed)
	attack("hello-version-0", 32, nil, (*advSwitch).attackHelloV0)
}

// startAdvSwitch starts the switch with its descriptors limited to
// advFDLimit, a ptcp: and a pssl: listener, the short limits and the flags
// extra.
func startAdvSwitch(t *testing.T, bin, ofctl string, extra ...string) *advSwitch {
	s := &advSwitch{ofctl: ofctl, pki: t.TempDir()}
	writePKI(t, s.pki)
	port, tlsPort, mport := freePort(t), freePort(t), freePort(t)
	s.addr, s.tlsAddr = "127.0.0.1:"+strconv.Itoa(port), "127.0.0.1:"+strconv.Itoa(tlsPort)
	args := []string{"-c", `ulimit -n ` + strconv.Itoa(advFDLimit) + ` && exec "$0" "$@"`, bin, "run",
		"--listen", "ptcp:" + strconv.Itoa(port) + ":127.0.0.1", "--listen", "pssl:" + strconv.Itoa(tlsPort) + ":127.0.0.1",
		"--metrics", "127.0.0.1:" + strconv.Itoa(mport), "--tables", "4",
		"--private-key", filepath.Join(s.pki, "switch.key"), "--certificate", filepath.Join(s.pki, "switch.crt"),
		"--ca-cert", filepath.Join(s.pki, "ca.crt"),
		"--bundle-idle-timeout", "1s", "--write-timeout", "2s", "--handshake-timeout", "1s"}
	args = append(args, extra...)
	s.proc = netnstest.Start(t, "", func(err error, log string) {
		if err != nil {
			t.Errorf("switch exit: %v\n%s", err, tail(log, 4000))
		}
	}, "sh", args...)
	s.pid = s.proc.Cmd.Process.Pid // sh execs the switch: the same process
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", s.addr)
		if err == nil {
			c.Close()
			break
		}
		if s.proc.Exited() || time.Now().After(deadline) {
			t.Fatalf("switch not listening on %s: %v\n%s", s.addr, err, s.proc.Log())
		}
	}
	return s
}

// knownFlow0 is the first flow of the known set, as a FLOW_MOD.
func knownFlow0(xid uint32, cmd openflow.FlowModCommand) openflow.FlowMod {
	return openflow.FlowMod{Header: openflow.Header{XID: xid}, Command: cmd, Priority: 1000, BufferID: openflow.NoBuffer,
		OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
		Match:        openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPv4Dst(netip.MustParsePrefix("10.9.9.9/32"))}},
		Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(2, 0))}}
}

// advManyFlows is the size of the flow dump the slow readers ask for: the
// flows of table 3 that installKnown adds with many set.
const advManyFlows = 50000

// installKnown adds the known flow set with ovs-ofctl add-flows and
// records what dump-flows prints of it; with many, advManyFlows flows in
// table 3 besides.
func (s *advSwitch) installKnown(t *testing.T, many bool) {
	var b strings.Builder
	b.WriteString("table=0,priority=1000,ip,nw_dst=10.9.9.9,actions=output:2\n") // knownFlow0
	for i := 1; i < advKnownFlows; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "table=0,priority=%d,ip,nw_src=10.1.%d.%d,actions=output:1\n", 100+i%5, i>>8, i&0xff)
		case 1:
			fmt.Fprintf(&b, "table=1,cookie=0x%x,priority=50,tcp,tp_dst=%d,actions=set_field:10.0.0.9->ip_dst,goto_table:2\n", i, 1000+i)
		default:
			fmt.Fprintf(&b, "table=2,priority=20,udp,nw_dst=192.168.%d.%d,udp_dst=53,actions=CONTROLLER:128\n", i>>8, i&0xff)
		}
	}
	want := advKnownFlows
	if many {
		for i := range advManyFlows {
			fmt.Fprintf(&b, "table=3,cookie=0xbad,priority=10,ip,nw_dst=10.%d.%d.%d,actions=output:1\n", i>>16, (i>>8)&0xff, i&0xff)
		}
		want += advManyFlows
	}
	s.addFlows(t, b.String())
	s.known = s.dump(t)
	if len(s.known) != want {
		t.Fatalf("dump-flows after add-flows: %d flows, want %d", len(s.known), want)
	}
}

// addFlows runs ovs-ofctl add-flows with flows, one per line.
func (s *advSwitch) addFlows(t *testing.T, flows string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "flows")
	if err := os.WriteFile(f, []byte(flows), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(s.ofctl, "-O", "OpenFlow13", "add-flows", "tcp:"+s.addr, f).CombinedOutput(); err != nil {
		t.Fatalf("ovs-ofctl add-flows: %v\n%s", err, out)
	}
}

// checkServed fails the test unless the switch runs and ovs-ofctl dumps
// exactly the known flow set.
func (s *advSwitch) checkServed(t *testing.T) {
	t.Helper()
	if s.proc.Exited() {
		t.Fatalf("the switch has exited:\n%s", tail(s.proc.Log(), 4000))
	}
	got := s.dump(t)
	if !slices.Equal(got, s.known) {
		missing, extra := 0, 0
		for _, l := range s.known {
			if _, ok := slices.BinarySearch(got, l); !ok {
				missing++
			}
		}
		for _, l := range got {
			if _, ok := slices.BinarySearch(s.known, l); !ok {
				extra++
				if extra <= 3 {
					t.Logf("extra: %s", l)
				}
			}
		}
		t.Fatalf("dump-flows: %d flows, %d of the known %d missing, %d not known", len(got), missing, len(s.known), extra)
	}
}

// dump returns the flows ovs-ofctl dump-flows prints, as
// ovstest.FlowLines returns them. Only its standard output is read: under
// load ovs-ofctl warns of long poll intervals on its standard error.
func (s *advSwitch) dump(t *testing.T) []string {
	t.Helper()
	var stderr strings.Builder
	cmd := exec.Command(s.ofctl, "-O", "OpenFlow13", "dump-flows", "tcp:"+s.addr)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ovs-ofctl dump-flows: %v\n%s", err, stderr.String())
	}
	return ovstest.FlowLines(string(out))
}

// status returns a memory field of /proc/PID/status (VmRSS, VmHWM) in
// bytes.
func (s *advSwitch) status(t *testing.T, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", field, l, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, s.pid)
	return 0
}

// watchPeak starts watching the switch's resident memory and returns a
// function that returns its peak since: VmHWM after resetting it to VmRSS
// (proc(5), clear_refs 5), or, where /proc/PID/clear_refs cannot be
// written, the largest VmRSS read every 10 ms.
func (s *advSwitch) watchPeak(t *testing.T) func() int64 {
	t.Helper()
	err := os.WriteFile("/proc/"+strconv.Itoa(s.pid)+"/clear_refs", []byte("5"), 0)
	if err == nil {
		return func() int64 { return s.status(t, "VmHWM") }
	}
	t.Logf("cannot reset VmHWM (%v): sampling VmRSS", err)
	var peak atomic.Int64
	peak.Store(s.status(t, "VmRSS"))
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/status")
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
					if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil && kb<<10 > peak.Load() {
						peak.Store(kb << 10)
					}
				}
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return max(peak.Load(), s.status(t, "VmRSS"))
	}
}

// logCount returns how many lines of the switch's log contain sub.
func (s *advSwitch) logCount(sub string) int { return strings.Count(s.proc.Log(), sub) }

// waitLog waits (at most bound) until the switch's log has n lines
// containing sub.
func (s *advSwitch) waitLog(t *testing.T, sub string, n int, bound time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(bound); s.logCount(sub) < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v the switch logged %q %d times, want %d", bound, sub, s.logCount(sub), n)
		}
	}
}

// ofConn is a raw OpenFlow connection of an attacker.
type ofConn struct {
	t  *testing.T
	nc net.Conn
	r  *openflow.Reader
	w  *bufio.Writer
}

// dialOF connects to addr; rcvBuf, if not zero, is the socket's receive
// buffer, set before the connection is made (a small one makes a peer
// that does not read hold back the switch's writes at once).
func dialOF(t *testing.T, addr string, rcvBuf int) *ofConn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if rcvBuf > 0 {
		d.Control = func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvBuf) })
			return errors.Join(err, serr)
		}
	}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &ofConn{t: t, nc: nc, r: openflow.NewReader(nc, 0), w: bufio.NewWriterSize(nc, 64<<10)}
}

// send encodes m into the write buffer; flush sends it.
func (c *ofConn) send(m openflow.Message) {
	c.t.Helper()
	b, err := m.AppendBinary(nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.w.Write(b)
}

func (c *ofConn) flush() {
	c.t.Helper()
	c.nc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if err := c.w.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

// recv returns the next message other than an ECHO_REQUEST (answered),
// waiting at most bound.
func (c *ofConn) recv(bound time.Duration) []byte {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(bound))
	for {
		msg, err := c.r.Next()
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		if openflow.Type(msg[1]) == openflow.TypeEchoRequest {
			rep := openflow.EchoReply{Header: openflow.Header{Version: msg[0], XID: binary.BigEndian.Uint32(msg[4:])}}
			c.send(&rep)
			c.flush()
			continue
		}
		return msg
	}
}

// handshake exchanges HELLOs offering version v.
func (c *ofConn) handshake(v uint8) {
	c.t.Helper()
	h := openflow.NewHello(1, v)
	c.send(&h)
	c.flush()
	if msg := c.recv(5 * time.Second); openflow.Type(msg[1]) != openflow.TypeHello {
		c.t.Fatalf("got %v, want the switch's HELLO", openflow.Type(msg[1]))
	}
}

// errorOf returns the OFPT_ERROR msg holds, failing the test if it holds
// another message.
func (c *ofConn) errorOf(msg []byte) openflow.ErrorMsg {
	c.t.Helper()
	var em openflow.ErrorMsg
	if openflow.Type(msg[1]) != openflow.TypeError {
		c.t.Fatalf("got %v, want an OFPT_ERROR", openflow.Type(msg[1]))
	}
	if err := em.UnmarshalBinary(msg); err != nil {
		c.t.Fatal(err)
	}
	return em
}

// echo checks that the connection is served: an ECHO_REQUEST is answered.
func (c *ofConn) echo(version uint8, xid uint32) {
	c.t.Helper()
	c.send(&openflow.EchoRequest{Header: openflow.Header{Version: version, XID: xid}, Data: []byte("still there")})
	c.flush()
	for {
		msg := c.recv(10 * time.Second)
		if openflow.Type(msg[1]) == openflow.TypeEchoReply && binary.BigEndian.Uint32(msg[4:]) == xid {
			return
		}
	}
}

// waitClosed reads (and discards) until the switch closes the
// connection, failing the test if it is still open after bound.
func waitClosed(t *testing.T, nc net.Conn, bound time.Duration) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(bound))
	buf := make([]byte, 64<<10)
	for {
		_, err := nc.Read(buf)
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("connection %v still open after %v", nc.LocalAddr(), bound)
		}
		return // EOF or reset: closed
	}
}

// writePKI writes a CA and two certificates it signed, "switch" and
// "controller", as PEM files into dir.
func writePKI(t *testing.T, dir string) {
	t.Helper()
	write := func(name string, block *pem.Block) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "adversarial CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	write("ca.crt", &pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	for i, name := range []string{"switch", "controller"} {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(2 + i)), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			KeyUsage:    x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := x509.MarshalECPrivateKey(key)
		write(name+".crt", &pem.Block{Type: "CERTIFICATE", Bytes: der})
		write(name+".key", &pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	}
}

// errName is "OFPET_TYPE/OFPXXC_CODE" of em.
func errName(em openflow.ErrorMsg) string { return strings.TrimPrefix(em.Error(), "openflow: ") }

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/netnstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// tcpTransferSize is what TestLiveTCP sends from h1 to h2: a few MB, some
// thousands of full-sized segments.
const tcpTransferSize = 4 << 20

// TestLiveTCP: a TCP transfer of a few MB from h1 to h2 through flows
// in_port=1→2, 2→1 arrives complete and intact, and the flows' and ports'
// counters saw its bytes. The hosts' veths have TX checksum offload off
// (ethtool -K eth0 tx off): with it on, the hosts' TCP frames reach the
// switch's AF_PACKET sockets with unfinished checksums, which ofswitch,
// like Open vSwitch's userspace datapath, forwards as they are and the
// receiver drops (README, `run --port`).
func TestLiveTCP(t *testing.T) {
	needLive(t, "ovs-ofctl")
	if _, err := exec.LookPath("ethtool"); err != nil {
		testutil.SkipOrFail(t, "ethtool is not installed (apt-get install ethtool)")
	}
	tp := newTopo(t, "")
	for _, h := range tp.hosts {
		sh(t, "ip", "netns", "exec", h, "ethtool", "-K", "eth0", "tx", "off")
	}
	sw := startSwitch(t, tp, "--metrics", "127.0.0.1:9100")
	for _, f := range []string{"in_port=1,actions=output:2", "in_port=2,actions=output:1"} {
		if out, err := ovsOfctl(tp.sw, ofPort, "add-flow", f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	diag := func() string {
		flows, _ := ovsOfctl(tp.sw, ofPort, "dump-flows")
		ports, _ := ovsOfctl(tp.sw, ofPort, "dump-ports")
		return flows + ports + "switch log:\n" + sw.Log()
	}

	// The server listens in h2 and the client dials from h1: sockets stay
	// in the namespace they were opened in, whichever goroutine uses them.
	h1, h2 := netnstest.Attach(t, tp.hosts[0]), netnstest.Attach(t, tp.hosts[1])
	var ln net.Listener
	if err := h2.Do(func() (err error) {
		ln, err = net.Listen("tcp4", hostIP(2)+":0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	// Every step below has a deadline: a transfer that stalls (frames
	// dropped on the way) fails the test instead of hanging it.
	deadline := time.Now().Add(60 * time.Second)
	type result struct {
		n   int64
		sum [sha256.Size]byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		ln.(*net.TCPListener).SetDeadline(deadline)
		c, err := ln.Accept()
		if err != nil {
			got <- result{err: fmt.Errorf("accept: %w", err)}
			return
		}
		defer c.Close()
		c.SetDeadline(deadline)
		h := sha256.New()
		n, err := io.Copy(h, c)
		var r result
		r.n, r.err = n, err
		copy(r.sum[:], h.Sum(nil))
		got <- r
	}()

	data := make([]byte, tcpTransferSize)
	rand.NewChaCha8([32]byte{'o', 'f', 's'}).Read(data)
	want := sha256.Sum256(data)
	var c net.Conn
	if err := h1.Do(func() (err error) {
		c, err = net.DialTimeout("tcp4", ln.Addr().String(), 10*time.Second)
		return err
	}); err != nil {
		t.Fatalf("h1 cannot connect to h2 through the switch: %v\n%s", err, diag())
	}
	c.SetDeadline(deadline)
	_, werr := io.Copy(c, bytes.NewReader(data))
	c.Close()
	r := <-got // bounded by the server's deadline
	if werr != nil || r.err != nil || r.n != tcpTransferSize || r.sum != want {
		t.Fatalf("TCP transfer h1→h2: sent %d bytes (%v), h2 received %d bytes (%v), sha256 match %v\n%s",
			len(data), werr, r.n, r.err, r.sum == want, diag())
	}

	// Every payload byte crossed flow in_port=1 and port 1 (plus headers);
	// the acknowledgements came back through in_port=2.
	flows, err := ovsOfctl(tp.sw, ofPort, "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	if n := counter(flows, "n_bytes", "in_port=1 actions=output:2"); n < tcpTransferSize {
		t.Errorf("flow in_port=1: n_bytes=%d, want ≥ %d:\n%s", n, tcpTransferSize, flows)
	}
	if n := counter(flows, "n_packets", "in_port=2 actions=output:1"); n < 1 {
		t.Errorf("flow in_port=2: n_packets=%d, want ≥ 1 (the acknowledgements):\n%s", n, flows)
	}
	ports, err := ovsOfctl(tp.sw, ofPort, "dump-ports")
	if err != nil {
		t.Fatal(err)
	}
	// "port  1: rx pkts=2902, bytes=4385820, ..." and on the next line
	// "tx pkts=2034, bytes=134228, ...".
	for _, p := range []struct{ port, dir string }{{"1", "rx"}, {"2", "tx"}} {
		block := ""
		if i := strings.Index(ports, "port  "+p.port+":"); i >= 0 {
			block = ports[i:]
		}
		if n := counter(block, "bytes", p.dir+" pkts"); n < tcpTransferSize {
			t.Errorf("dump-ports: port %s %s bytes=%d, want ≥ %d:\n%s", p.port, p.dir, n, tcpTransferSize, ports)
		}
	}
	metrics := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
	// The data went in at s1 and out at s2 in frames of at most 1500
	// bytes (TSO is off with TX checksum offload).
	for _, m := range []struct{ name, port string }{
		{"ofswitch_port_rx_packets_total", `{name="s1",port="1"} `},
		{"ofswitch_port_tx_packets_total", `{name="s2",port="2"} `},
	} {
		re := m.name + m.port
		i := strings.Index(metrics, re)
		n := -1
		if i >= 0 {
			fmt.Sscan(metrics[i+len(re):], &n)
		}
		if n < tcpTransferSize/1500 {
			t.Errorf("metrics: %s%s= %d, want ≥ %d:\n%s", m.name, m.port, n, tcpTransferSize/1500, metrics)
		}
	}
}

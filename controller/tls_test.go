package controller

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/openflow"
)

// pki writes a CA and two certificates it signed ("switch", "controller")
// as PEM files into dir, and one signed by another CA ("stranger").
func pki(t *testing.T, dir string) {
	t.Helper()
	newCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c, key
	}
	write := func(name string, block *pem.Block) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	issue := func(name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			KeyUsage:    x509.KeyUsageDigitalSignature,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := x509.MarshalECPrivateKey(key)
		write(name+".crt", &pem.Block{Type: "CERTIFICATE", Bytes: der})
		write(name+".key", &pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	}
	ca, caKey := newCA("ofswitch test CA")
	write("ca.crt", &pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})
	issue("switch", ca, caKey)
	issue("controller", ca, caKey)
	other, otherKey := newCA("another CA")
	issue("stranger", other, otherKey)
}

// startTLSAgent runs an agent listening on pssl: with the switch's
// certificate of dir; each of opts may change its Config first.
func startTLSAgent(t *testing.T, dir string, opts ...func(*Config)) string {
	t.Helper()
	cfg, err := LoadTLS(filepath.Join(dir, "switch.key"), filepath.Join(dir, "switch.crt"), filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	port := freeTCPPort(t)
	tgt, _ := ParseTarget("pssl:" + strconv.Itoa(port))
	acfg := &Config{Logger: quiet, TLS: cfg}
	for _, o := range opts {
		o(acfg)
	}
	a, err := New(acfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, []Target{tgt}) }()
	t.Cleanup(func() { cancel(); <-done })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if i > 200 {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func freeTCPPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestTLSMutualAuth(t *testing.T) {
	dir := t.TempDir()
	pki(t, dir)
	addr := startTLSAgent(t, dir)
	load := func(name string) (*tls.Config, error) {
		return LoadTLS(filepath.Join(dir, name+".key"), filepath.Join(dir, name+".crt"), filepath.Join(dir, "ca.crt"))
	}
	cc, err := load("controller")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := tls.Dial("tcp", addr, cc)
	if err != nil {
		t.Fatalf("controller with a certificate from the CA: %v", err)
	}
	if v := nc.ConnectionState().Version; v != tls.VersionTLS13 {
		t.Errorf("TLS version %#x, want 1.3", v)
	}
	c := &client{t: t, nc: nc, r: openflow.NewReader(nc, 0)}
	c.handshake(openflow.Version13)
	c.send(&openflow.Empty{Header: hdr(openflow.TypeFeaturesRequest, 2)})
	c.recv(openflow.TypeFeaturesReply)
	nc.Close()

	// A certificate from another CA, and no certificate, are refused.
	sc, _ := load("stranger")
	sc.RootCAs = nil
	for name, cfg := range map[string]*tls.Config{"stranger": sc, "anonymous": {InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}} {
		nc, err := tls.Dial("tcp", addr, cfg)
		if err == nil {
			nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, err = nc.Read(make([]byte, 8)) // TLS 1.3 reports client auth failure on first read
			nc.Close()
		}
		if err == nil {
			t.Errorf("%s client was accepted", name)
		}
	}
}

// TestTLSHandshakeTimeout checks that a TCP connection to a pssl: target
// that never starts its TLS handshake is closed once HandshakeTimeout
// passes, and that a controller connecting meanwhile is served.
func TestTLSHandshakeTimeout(t *testing.T) {
	dir := t.TempDir()
	pki(t, dir)
	addr := startTLSAgent(t, dir, func(c *Config) { c.HandshakeTimeout = 2 * time.Second })
	var silent []net.Conn
	for range 4 {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		silent = append(silent, nc)
	}
	cc, err := LoadTLS(filepath.Join(dir, "controller.key"), filepath.Join(dir, "controller.crt"), filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := tls.Dial("tcp", addr, cc)
	if err != nil {
		t.Fatalf("controller beside silent connections: %v", err)
	}
	c := &client{t: t, nc: nc, r: openflow.NewReader(nc, 0)}
	c.handshake(openflow.Version13)
	nc.Close()
	for i, nc := range silent {
		// The switch closes it: the read ends (EOF or reset) well before
		// the bound, which is there only so that a switch that keeps the
		// connection fails the test instead of hanging it.
		nc.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err := nc.Read(make([]byte, 1))
		var ne net.Error
		if err == nil || errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("silent connection %d still open after 20 s (read: %v)", i, err)
		}
	}
}

func TestTLSOvsOfctl(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	dir := t.TempDir()
	pki(t, dir)
	addr := startTLSAgent(t, dir)
	out, err := exec.Command(ofctl, "-O", "OpenFlow13",
		"--private-key="+filepath.Join(dir, "controller.key"), "--certificate="+filepath.Join(dir, "controller.crt"),
		"--ca-cert="+filepath.Join(dir, "ca.crt"), "show", "ssl:"+addr).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OFPT_FEATURES_REPLY") {
		t.Fatalf("ovs-ofctl show over ssl: %v\n%s", err, out)
	}
}

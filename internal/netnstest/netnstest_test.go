//go:build linux

package netnstest

import (
	"net"
	"os/exec"
	"strings"
	"testing"
)

func TestVethAcrossNamespaces(t *testing.T) {
	a, b := New(t, "nta"), New(t, "ntb")
	Veth(t, a, "v0", b, "v0")
	a.IP(t, "addr", "add", "10.9.0.1/24", "dev", "v0")
	b.IP(t, "addr", "add", "10.9.0.2/24", "dev", "v0")
	if out, err := a.Exec("ping", "-c", "1", "-W", "2", "10.9.0.2"); err != nil {
		t.Fatalf("ping across the veth: %v\n%s", err, out)
	}
	// Do runs in the namespace: the veth is visible there and not here.
	var inside []string
	if err := a.Do(func() error {
		ifs, err := net.Interfaces()
		for _, i := range ifs {
			inside = append(inside, i.Name)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(inside, " "), "v0") {
		t.Errorf("interfaces in %s: %v, want v0", a.Name, inside)
	}
	if out, _ := exec.Command("ip", "netns", "list").CombinedOutput(); !strings.Contains(string(out), a.Name) {
		t.Errorf("namespace %s not listed:\n%s", a.Name, out)
	}
}

func TestCleanupRemovesNamespace(t *testing.T) {
	var name string
	t.Run("inner", func(t *testing.T) { name = New(t, "ntc").Name })
	if name == "" {
		t.Skip("no namespace was made")
	}
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), name) {
		t.Errorf("namespace %s still exists after its test ended", name)
	}
}

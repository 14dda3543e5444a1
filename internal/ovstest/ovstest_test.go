package ovstest

import (
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

func TestStartAndTalk(t *testing.T) {
	s := Start(t)
	if _, err := s.Ofctl("", "add-flow", "priority=10,ip,nw_src=10.0.0.0/8,actions=output:2"); err != nil {
		t.Fatal(err)
	}
	out, err := s.Ofctl("", "dump-flows")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "priority=10,ip,nw_src=10.0.0.0/8 actions=output:2") {
		t.Fatalf("dump-flows does not show the flow:\n%s", out)
	}
	// The test process reaches the bridge through the namespace.
	c, err := s.Dial("127.0.0.1:16653")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := openflow.NewHello(1, openflow.Version13)
	b, _ := h.AppendBinary(nil)
	c.Write(b)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	msg, err := openflow.NewReader(c, 0).Next()
	if err != nil || openflow.Type(msg[1]) != openflow.TypeHello {
		t.Fatalf("no HELLO from Open vSwitch: %x, %v", msg, err)
	}
}

func TestAddPort(t *testing.T) {
	s := Start(t)
	if out, err := s.Exec("ip", "link", "add", "name", "va", "type", "veth", "peer", "name", "vb").CombinedOutput(); err != nil {
		t.Fatalf("ip link add: %v\n%s", err, out)
	}
	s.AddPort(t, "va", 7)
	out, err := s.Ofctl("", "show")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, " 7(va): addr:") {
		t.Fatalf("show does not list port 7(va):\n%s", out)
	}
}

// TestTables parses dump-tables output as Open vSwitch 3.1 prints it.
func TestTables(t *testing.T) {
	out := `OFPST_TABLE reply (OF1.3) (xid=0x2):
  table 0:
    active=2, lookup=6, matched=5

  table 1: ditto

  table 2:
    active=0, lookup=1, matched=0

  tables 3...253: ditto
`
	got := Tables(out)
	want := map[int]TableLine{0: {2, 6, 5}, 1: {2, 6, 5}, 2: {0, 1, 0}, 253: {0, 1, 0}}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("table %d: %+v, want %+v", id, got[id], w)
		}
	}
	if len(got) != 254 {
		t.Errorf("%d tables, want 254", len(got))
	}
}

package ofrules

import (
	"bytes"
	"encoding/binary"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// captureMeterMod runs ovs-ofctl cmd against a peer of the test's own and
// returns the METER_MOD it sent.
func captureMeterMod(t *testing.T, ofctlPath, cmd, arg string) []byte {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan []byte, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		r, w := openflow.NewReader(nc, 0), openflow.NewWriter(nc)
		hello := openflow.NewHello(0, openflow.Version13)
		w.WriteMessage(&hello)
		var mm []byte
		for {
			msg, err := r.Next()
			if err != nil {
				got <- mm
				return
			}
			switch openflow.Type(msg[1]) {
			case openflow.TypeMeterMod:
				mm = bytes.Clone(msg)
			case openflow.TypeBarrierRequest:
				rep := openflow.Empty{Header: openflow.Header{Version: msg[0], Type: openflow.TypeBarrierReply, XID: binary.BigEndian.Uint32(msg[4:])}}
				w.WriteMessage(&rep)
			}
		}
	}()
	args := []string{"-O", "OpenFlow13", cmd, "tcp:" + l.Addr().String()}
	if arg != "" {
		args = append(args, arg)
	}
	if out, err := exec.Command(ofctlPath, args...).CombinedOutput(); err != nil {
		t.Fatalf("ovs-ofctl %s %s: %v\n%s", cmd, arg, err, out)
	}
	msg := <-got
	if msg == nil {
		t.Fatalf("ovs-ofctl %s %s sent no METER_MOD", cmd, arg)
	}
	return msg
}

// TestMeterModFromOvsOfctl captures the METER_MODs ovs-ofctl sends for
// add-meter, mod-meter and del-meter and checks them both ways: decoded
// and translated, each is what rules/ofctl parses from the same text;
// that Mod translated back and encoded is ovs-ofctl's message, byte for
// byte.
func TestMeterModFromOvsOfctl(t *testing.T) {
	path := ovstest.Tool(t, "ovs-ofctl")
	for _, tt := range []struct{ cmd, arg string }{
		{"add-meter", "meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100"},
		{"add-meter", "meter=2,pktps,bands=type=drop,rate=10,type=dscp_remark,rate=5,prec_level=2"},
		{"add-meter", "meter=controller,pktps,bands=type=drop,rate=100"},
		{"mod-meter", "meter=7,kbps,stats,bands=type=drop,rate=3"},
		{"del-meter", "meter=7"},
		{"del-meters", ""},
	} {
		msg := captureMeterMod(t, path, tt.cmd, tt.arg)
		var mm openflow.MeterMod
		if err := mm.UnmarshalBinary(msg); err != nil {
			t.Fatalf("%s %s: %v\n%x", tt.cmd, tt.arg, err, msg)
		}
		got := MeterMod(&mm)
		c, err := ofctl.ParseMeter(tt.arg, tt.cmd == "add-meter" || tt.cmd == "mod-meter")
		if err != nil {
			t.Fatal(err)
		}
		want := meters.Mod{Command: meters.Add, Config: c}
		switch tt.cmd {
		case "mod-meter":
			want.Command = meters.Modify
		case "del-meter", "del-meters":
			want.Command = meters.Delete
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %s (-ofctl.ParseMeter +ovs-ofctl's message):\n%s", tt.cmd, tt.arg, diff)
		}
		back := WireMeterMod(&got)
		back.Header = openflow.Header{Version: openflow.Version13, XID: mm.XID}
		enc, err := back.MarshalBinary()
		if err != nil || !bytes.Equal(enc, msg) {
			t.Errorf("%s %s: encoded %x, ovs-ofctl sent %x (%v)", tt.cmd, tt.arg, enc, msg, err)
		}
	}
}

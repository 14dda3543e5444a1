package controller

import (
	"context"
	"encoding/hex"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// eventually polls cond every few milliseconds for up to 10 s.
func eventually(t *testing.T, what string, log func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10 s; the peer said:\n%s", what, log())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// udpFrame is a 64-byte Ethernet/IPv4/UDP frame from MAC ...:0a to
// ...:0b, as in testcontroller-of13.pcap; swap exchanges the MACs.
func udpFrame(t *testing.T, swap bool) []byte {
	f, err := hex.DecodeString("02000000000b02000000000a0800" +
		"450000320000000040117cb67f0100017f020001" + "04000009001e0000" + strings.Repeat("00", 22))
	if err != nil {
		t.Fatal(err)
	}
	if swap {
		var a [6]byte
		copy(a[:], f[:6])
		copy(f[:6], f[6:12])
		copy(f[6:12], a[:])
	}
	return f
}

// TestOvsTestcontroller: the agent connects out to Open vSwitch's learning
// controller, which installs its table-miss entry; packet-ins from host A
// to B are flooded with PACKET_OUT, and once the controller has learned
// both hosts it installs an exact-match entry for each direction.
func TestOvsTestcontroller(t *testing.T) {
	bin, err := exec.LookPath("ovs-testcontroller")
	if err != nil {
		testutil.SkipOrFail(t, "ovs-testcontroller is not installed (apt-get install openvswitch-testcontroller)")
	}
	port := freeTCPPort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out testutil.LockedBuffer
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "-O", "OpenFlow13", "--unixctl="+filepath.Join(dir, "tc.ctl"),
		"ptcp:"+strconv.Itoa(port)+":127.0.0.1")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	log := func() string {
		select {
		case <-exited:
			return "(exited: " + cmd.ProcessState.String() + ")\n" + out.String()
		default:
			return out.String()
		}
	}

	rec := &poRecorder{}
	a, err := New(&Config{Logger: quiet, DatapathID: 0x0a0b, PacketOut: rec.packetOut, Ports: fakePorts{},
		MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	runAgent(t, a, Target{Host: "127.0.0.1", Port: port})

	// The controller's first flow: priority 0, match all, CONTROLLER:128.
	table := func() (rs []*rules.Rule) {
		a.FlowTables().Read(func(p *rules.Pipeline) { rs = p.Rules(0) })
		return rs
	}
	eventually(t, "table-miss entry", log, func() bool { return len(table()) >= 1 })
	miss := table()[0]
	wantMiss := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{
		{Kind: rules.ActionOutput, Port: rules.PortController, MaxLen: 128}}}}
	if miss.Priority != 0 || miss.Match != (rules.Match{}) || !cmp.Equal(miss.Instructions, wantMiss) {
		t.Fatalf("table-miss entry: priority %d, %s, %+v", miss.Priority, ofctl.FormatMatch(&miss.Match, miss.Priority), miss.Instructions)
	}

	// takePO waits for the next PACKET_OUT.
	takePO := func() recordedPO {
		t.Helper()
		var got []recordedPO
		eventually(t, "PACKET_OUT", log, func() bool {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.got) > 0 {
				got = append(got, rec.got[0])
				rec.got = rec.got[1:]
				return true
			}
			return false
		})
		return got[0]
	}
	packetIn := func(in uint32, frame []byte) {
		a.PacketIn(&PacketIn{InPort: in, Reason: openflow.PacketInNoMatch, Table: 0, MaxLen: 128, Frame: frame})
	}
	ab, ba := udpFrame(t, false), udpFrame(t, true)

	// A→B: B is unknown, the frame is flooded.
	packetIn(1, ab)
	want := recordedPO{1, []rules.Action{{Kind: rules.ActionOutput, Port: rules.PortFlood}}, ab}
	if diff := cmp.Diff(want, takePO()); diff != "" {
		t.Fatalf("PACKET_OUT for A→B (-want +got):\n%s", diff)
	}
	// B→A: A was learned on port 1: an entry, and the frame to port 1.
	packetIn(2, ba)
	want = recordedPO{2, []rules.Action{{Kind: rules.ActionOutput, Port: 1}}, ba}
	if diff := cmp.Diff(want, takePO()); diff != "" {
		t.Fatalf("PACKET_OUT for B→A (-want +got):\n%s", diff)
	}
	// A→B again: B was learned on port 2.
	packetIn(1, ab)
	want = recordedPO{1, []rules.Action{{Kind: rules.ActionOutput, Port: 2}}, ab}
	if diff := cmp.Diff(want, takePO()); diff != "" {
		t.Fatalf("PACKET_OUT for A→B after learning (-want +got):\n%s", diff)
	}

	// The two learned entries: exact matches on the frames' headers.
	eventually(t, "two learned entries", log, func() bool { return len(table()) == 3 })
	const a0, b0 = 0x02000000000a, 0x02000000000b
	for _, tt := range []struct {
		in, out  uint32
		src, dst uint64
	}{{2, 1, b0, a0}, {1, 2, a0, b0}} {
		var r *rules.Rule
		for _, x := range table() {
			if v, _ := x.Match.Get(rules.FieldInPort); x.Priority == 1 && v == uint64(tt.in) {
				r = x
			}
		}
		if r == nil {
			t.Fatalf("no priority-1 entry for in_port=%d", tt.in)
		}
		text := ofctl.FormatMatch(&r.Match, r.Priority)
		for _, f := range []struct {
			f    rules.Field
			want uint64
		}{
			{rules.FieldInPort, uint64(tt.in)}, {rules.FieldEthSrc, tt.src}, {rules.FieldEthDst, tt.dst},
			{rules.FieldEthType, 0x0800}, {rules.FieldIPProto, 17}, {rules.FieldIPv4Src, 0x7f010001},
			{rules.FieldIPv4Dst, 0x7f020001}, {rules.FieldL4Src, 1024}, {rules.FieldL4Dst, 9},
		} {
			if v, m := r.Match.Get(f.f); v != f.want || m != f.f.FullMask() {
				t.Errorf("entry %s: field %d = %#x/%#x, want %#x exact", text, f.f, v, m, f.want)
			}
		}
		wantIns := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: tt.out}}}}
		if !cmp.Equal(r.Instructions, wantIns) || r.IdleTimeout != 60 {
			t.Errorf("entry %s: idle %d, %+v; want idle 60, output:%d", text, r.IdleTimeout, r.Instructions, tt.out)
		}
	}
}

// TestOvsOfctlMonitor: Open vSwitch's own decoder, ovs-ofctl monitor, is
// the controller, over OpenFlow 1.3 and 1.4: it prints the PACKET_IN and
// PORT_STATUS the switch sends as they should read.
func TestOvsOfctlMonitor(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	for _, v := range []struct {
		flag, name string
	}{{"OpenFlow13", "OF1.3"}, {"OpenFlow14", "OF1.4"}} {
		t.Run(v.flag, func(t *testing.T) {
			a, addr := startAgent(t, nil)
			_, port, _ := net.SplitHostPort(addr)
			var out testutil.LockedBuffer
			cmd := exec.Command(ofctl, "-O", v.flag, "monitor", "tcp:127.0.0.1:"+port, "65534",
				"--unixctl="+filepath.Join(t.TempDir(), "monitor.ctl"))
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Kill()
				cmd.Wait()
			}()
			waitConns(t, a, 1)
			p := openflow.Port{PortNo: 3, HWAddr: [6]byte{2, 0, 0, 0, 0, 3}, CurrSpeed: 1000000}
			copy(p.Name[:], "veth3")
			want := []string{
				"OFPT_PACKET_IN (" + v.name + ") (xid=0x0): cookie=0x9 total_len=64 metadata=0x5,in_port=1 (via no_match) data_len=40 (unbuffered)",
				"dl_src=02:00:00:00:00:0a,dl_dst=02:00:00:00:00:0b", // the rest is cut off
				"OFPT_PORT_STATUS (" + v.name + ") (xid=0x0): ADD: 3(veth3): addr:02:00:00:00:00:03",
				"speed: 1000 Mbps now",
			}
			// ovs-ofctl drops what arrives while it still sets the
			// connection up, so the messages are sent again until they
			// show.
			eventually(t, "monitor output", out.String, func() bool {
				a.PacketIn(&PacketIn{InPort: 1, Reason: openflow.PacketInNoMatch, Cookie: 9, Metadata: 5, MaxLen: 40, Frame: udpFrame(t, false)})
				a.PortStatus(openflow.PortAdd, p)
				time.Sleep(20 * time.Millisecond)
				s := out.String()
				for _, w := range want {
					if !strings.Contains(s, w) {
						return false
					}
				}
				return true
			})
		})
	}
}

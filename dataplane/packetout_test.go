package dataplane

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

func out(port uint32) rules.Action { return rules.Action{Kind: rules.ActionOutput, Port: port} }

func TestPacketOut(t *testing.T) {
	a, b := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}
	setDst := rules.Action{Kind: rules.ActionSetField, Field: rules.FieldEthDst}
	setDst.Value[1] = 0x02000000ffff
	mark := rules.SubfieldByName("pkt_mark")
	loadMark := rules.Action{Kind: rules.ActionLoad, Field: rules.FieldPktMark, Value: [2]uint64{0xffff0000, 0x00030000}}
	outMark := rules.Action{Kind: rules.ActionOutputReg, Ext: &rules.ActionExt{Src: rules.Subfield{Field: rules.FieldPktMark, Ofs: 16, Bits: 16, Row: uint8(mark)}}}
	for _, tt := range []struct {
		name    string
		in      uint32
		actions []rules.Action
		want    []int64
		err     error
		pins    int
	}{
		{name: "output", in: rules.PortController, actions: []rules.Action{out(2)}, want: []int64{0, 1, 0}},
		{name: "flood excludes in_port", in: 1, actions: []rules.Action{out(rules.PortFlood)}, want: []int64{0, 1, 1}},
		{name: "flood from controller", in: rules.PortController, actions: []rules.Action{out(rules.PortFlood)}, want: []int64{1, 1, 1}},
		{name: "all excludes in_port", in: 3, actions: []rules.Action{out(rules.PortAll)}, want: []int64{1, 1, 0}},
		{name: "in_port", in: 3, actions: []rules.Action{out(rules.PortInPort)}, want: []int64{0, 0, 1}},
		{name: "table", in: 1, actions: []rules.Action{out(rules.PortTable)}, want: []int64{0, 0, 1}},
		{name: "table as other port misses", in: 2, actions: []rules.Action{out(rules.PortTable)}, want: []int64{0, 0, 0}},
		{name: "two outputs", in: 1, actions: []rules.Action{out(2), out(rules.PortTable)}, want: []int64{0, 1, 1}},
		{name: "controller", in: 1, actions: []rules.Action{out(rules.PortController)}, want: []int64{0, 0, 0}, pins: 1},
		{name: "normal floods unknown", in: 1, actions: []rules.Action{out(rules.PortNormal)}, want: []int64{0, 1, 1}},
		{name: "set_field then output", in: 1, actions: []rules.Action{setDst, out(2)}, want: []int64{0, 1, 0}},
		{name: "load then output:pkt_mark[16..31]", in: 1, actions: []rules.Action{loadMark, outMark}, want: []int64{0, 0, 1}},
		{name: "no actions drops", in: 1, want: []int64{0, 0, 0}},
		{name: "bad port", in: 1, actions: []rules.Action{out(2), out(7)}, want: []int64{0, 0, 0}, err: ErrBadOutPort},
		{name: "group", in: 1, actions: []rules.Action{{Kind: rules.ActionGroup}}, want: []int64{0, 0, 0}, err: ErrBadAction},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := testPipeline(t, 1, rules.FilterBloomCuckoo, "in_port=1,actions=output:3\n")
			pins := 0
			cfg := &Config{Ports: []uint32{1, 2, 3}, Devices: map[uint32]Port{},
				PacketIn: func(pi *PacketIn) {
					pins++
					if pi.Reason != PacketInAction || pi.InPort != tt.in {
						t.Errorf("packet-in reason %d in_port %d, want %d %d", pi.Reason, pi.InPort, PacketInAction, tt.in)
					}
				}}
			var ports []*countPort
			for i := uint32(1); i <= 3; i++ {
				cp := &countPort{}
				ports = append(ports, cp)
				cfg.Devices[i] = cp
			}
			s := NewSwitch(p, cfg)
			frame := l2frame(t, b, a)
			orig := bytes.Clone(frame)
			err := s.PacketOut(tt.in, tt.actions, frame)
			if !errors.Is(err, tt.err) {
				t.Fatalf("PacketOut: err = %v, want %v", err, tt.err)
			}
			if got := counts(ports); !eq(got, tt.want) {
				t.Errorf("transmitted per port %v, want %v", got, tt.want)
			}
			if pins != tt.pins {
				t.Errorf("%d packet-ins, want %d", pins, tt.pins)
			}
			if !bytes.Equal(frame, orig) {
				t.Error("PacketOut modified the caller's frame")
			}
			if tt.name == "set_field then output" && !bytes.Equal(ports[1].last[:6], []byte{2, 0, 0, 0, 0xff, 0xff}) {
				t.Errorf("sent eth_dst % x, want set_field's", ports[1].last[:6])
			}
		})
	}
}

func TestPacketOutErrors(t *testing.T) {
	s, _ := newTestSwitch(t, "", 2)
	err := s.PacketOut(1, []rules.Action{out(2)}, make([]byte, 10))
	var pe *PacketOutError
	if !errors.Is(err, ErrFrameSize) || !errors.As(err, &pe) || pe.Action != -1 {
		t.Errorf("short frame: err = %v", err)
	}
	err = s.PacketOut(1, []rules.Action{out(1), out(9)}, make([]byte, 60))
	if !errors.As(err, &pe) || pe.Action != 1 || pe.Port != 9 || !errors.Is(err, ErrBadOutPort) {
		t.Errorf("bad port: err = %v", err)
	} else if want := "packet_out: action[1]: output to 0x9: dataplane: no such output port"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
}

// TestPacketOutWhileRunning runs PACKET_OUTs from two goroutines while a
// worker processes vectors (run with -race).
func TestPacketOutWhileRunning(t *testing.T) {
	a, b := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}
	s, ports := newTestSwitch(t, "in_port=1,actions=output:2\nin_port=2,actions=NORMAL\n", 2)
	frame := l2frame(t, b, a)
	var wg sync.WaitGroup
	const n = 200
	wg.Go(func() {
		w := s.Worker(0)
		var vec Vector
		vec.N = 1
		vec.Frames[0], vec.Link[0], vec.InPort[0] = frame, layers.LinkTypeEthernet, 1
		for range n {
			w.Process(&vec)
		}
	})
	for range 2 {
		wg.Go(func() {
			for range n {
				if err := s.PacketOut(2, []rules.Action{out(rules.PortTable)}, frame); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range n {
			_ = s.LivePortStats()
		}
	})
	wg.Wait()
	if lp := s.LivePortStats(); lp[0].TxPackets != 2*n {
		t.Errorf("LivePortStats port 1 tx %d, want %d (PacketOut publishes)", lp[0].TxPackets, 2*n)
	}
	// Worker: n frames 1→2. PACKET_OUTs as from 2 go NORMAL: dst b is
	// never a source, so each is flooded to port 1.
	if got := counts(ports); !eq(got, []int64{2 * n, n}) {
		t.Errorf("transmitted %v, want [%d %d]", got, 2*n, n)
	}
	if st := s.Stats(); st.Packets != 3*n {
		t.Errorf("Stats().Packets = %d, want %d", st.Packets, 3*n)
	}
}

package controller_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/ofswitch/ofswitch/controller"
	"github.com/ofswitch/ofswitch/openflow"
)

// The data plane hands a table miss to the agent, which sends it to the
// controller as an unbuffered PACKET_IN cut to the action's max_len.
func ExampleAgent_PacketIn() {
	a, err := controller.New(&controller.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		panic(err)
	}
	sw, ctl := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.ServeConn(ctx, sw)

	// The controller's side: read the switch's HELLO, answer with ours.
	r := openflow.NewReader(ctl, 0)
	if _, err := r.Next(); err != nil {
		panic(err)
	}
	hello := openflow.NewHello(1, openflow.Version13)
	b, _ := hello.AppendBinary(nil)
	ctl.Write(b)
	// The switch registers the connection once the handshake is done.
	for i := 0; a.Conns() == 0 && i < 5000; i++ {
		time.Sleep(time.Millisecond)
	}

	frame := make([]byte, 1500)
	a.PacketIn(&controller.PacketIn{InPort: 3, Reason: openflow.PacketInNoMatch, MaxLen: 128, Frame: frame})

	msg, err := r.Next()
	if err != nil {
		panic(err)
	}
	var pin openflow.PacketIn
	if err := pin.UnmarshalBinary(msg); err != nil {
		panic(err)
	}
	fmt.Printf("%v buffer_id=%#x total_len=%d data=%d bytes in_port match: %v\n",
		pin.Type, pin.BufferID, pin.TotalLen, len(pin.Data), pin.Match.Fields[0].Field == openflow.FieldInPort)
	// Output:
	// OFPT_PACKET_IN buffer_id=0xffffffff total_len=1500 data=128 bytes in_port match: true
}

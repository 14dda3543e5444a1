package main

import (
	"encoding/binary"
	"net"

	"github.com/ofswitch/ofswitch/openflow"
)

// floorPeerEnv names the environment variable that makes the test binary
// a floor peer listening on its value (see TestMain).
const floorPeerEnv = "OFSWITCH_FLOOR_PEER"

// runFloorPeer is the floor BenchmarkPushCLI measures beside the switches:
// an OpenFlow peer, a process of its own, that frames what it reads with
// the codec's Reader (as ofswitch does), says HELLO and answers each
// BARRIER_REQUEST, and does nothing else. What push measures against it is
// what the client, loopback TCP and framing cost on this machine: no
// switch, however cheap its updates, answers push faster.
func runFloorPeer(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	for {
		nc, err := ln.Accept()
		if err != nil {
			return err
		}
		go serveFloor(nc, openflow.Version13, openflow.Version14)
	}
}

// serveFloor is the floor peer on one connection, offering versions in its
// HELLO.
func serveFloor(nc net.Conn, versions ...uint8) {
	defer nc.Close()
	r, w := openflow.NewReader(nc, 0), openflow.NewWriter(nc)
	hello := openflow.NewHello(0, versions...)
	if w.WriteMessage(&hello) != nil {
		return
	}
	for {
		msg, err := r.Next()
		if err != nil {
			return
		}
		if openflow.Type(msg[1]) == openflow.TypeBarrierRequest {
			rep := openflow.Empty{Header: openflow.Header{Version: msg[0], Type: openflow.TypeBarrierReply, XID: binary.BigEndian.Uint32(msg[4:])}}
			if w.WriteMessage(&rep) != nil {
				return
			}
		}
	}
}

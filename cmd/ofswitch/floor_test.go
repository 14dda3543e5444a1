package main

import (
	"net"

	"github.com/ofswitch/ofswitch/internal/ofpeer"
	"github.com/ofswitch/ofswitch/openflow"
)

// floorPeerEnv names the environment variable that makes the test binary
// a floor peer listening on its value (see TestMain).
const floorPeerEnv = "OFSWITCH_FLOOR_PEER"

// runFloorPeer is the floor BenchmarkPushCLI measures beside the switches:
// an OpenFlow peer, a process of its own, that frames what it reads with
// the codec's Reader (as ofswitch does), says HELLO and answers each
// BARRIER_REQUEST, and does nothing else. What push measures against it is
// what the client, loopback TCP and framing cost: no
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
		go ofpeer.ServeBarriers(nc, openflow.Version13, openflow.Version14)
	}
}

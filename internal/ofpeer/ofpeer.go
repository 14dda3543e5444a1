// Package ofpeer is the least OpenFlow peer, for tests and benchmarks: it
// says HELLO, frames what it reads with the codec's Reader, answers each
// BARRIER_REQUEST and does nothing else. What a client measures against
// it is what the client, loopback TCP and framing cost: no switch,
// however cheap its updates, answers faster.
package ofpeer

import (
	"encoding/binary"
	"net"

	"github.com/ofswitch/ofswitch/openflow"
)

// ServeBarriers is the peer on nc, offering versions in its HELLO, until
// nc fails or closes; it closes nc.
func ServeBarriers(nc net.Conn, versions ...uint8) { Serve(nc, nil, versions...) }

// Serve is ServeBarriers that first hands every message it reads to seen,
// if seen is not nil. msg is the Reader's buffer: valid only during the
// call.
func Serve(nc net.Conn, seen func(msg []byte), versions ...uint8) {
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
		if seen != nil {
			seen(msg)
		}
		if openflow.Type(msg[1]) == openflow.TypeBarrierRequest {
			rep := openflow.Empty{Header: openflow.Header{Version: msg[0], Type: openflow.TypeBarrierReply, XID: binary.BigEndian.Uint32(msg[4:])}}
			if w.WriteMessage(&rep) != nil {
				return
			}
		}
	}
}

//go:build linux

package main

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/openflow"
)

// TestLiveInvalidTTL: a ping with TTL 1 from h1 meets flow
// "ip,in_port=1,actions=dec_ttl,output:2" and reaches a controller
// that asked for OFPR_INVALID_TTL (SET_ASYNC) as a PACKET_IN of that
// reason, with the flow's cookie, in_port 1 and the echo request as h1
// sent it; h2 never sees it. A ping with TTL 2 gets through, its TTL
// decremented.
func TestLiveInvalidTTL(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp)
	for _, f := range []string{"arp,actions=flood", "cookie=0x7,ip,in_port=1,actions=dec_ttl,output:2", "ip,in_port=2,actions=output:1"} {
		if out, err := ovsOfctl(tp.sw, ofPort, "add-flow", f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}

	var nc net.Conn
	if err := tp.swNS.Do(func() error {
		var err error
		nc, err = net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(ofPort))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var mu sync.Mutex // the writer: the test and the reader's echo replies
	w := openflow.NewWriter(nc)
	send := func(m openflow.Message) error {
		mu.Lock()
		defer mu.Unlock()
		return w.WriteMessage(m)
	}
	hello := openflow.NewHello(1, openflow.Version13)
	for _, m := range []openflow.Message{&hello,
		&openflow.AsyncConfig{Header: openflow.Header{Version: openflow.Version13, XID: 2},
			PacketInMask: [2]uint32{1<<openflow.PacketInAction | 1<<openflow.PacketInInvalidTTL, 0}},
		&openflow.SwitchConfig{Header: openflow.Header{Version: openflow.Version13, XID: 3}, MissSendLen: 0xffff},
	} {
		if err := send(m); err != nil {
			t.Fatal(err)
		}
	}
	pins := make(chan openflow.PacketIn, 16)
	go func() {
		r := openflow.NewReader(nc, 0)
		for {
			msg, err := r.Next()
			if err != nil {
				close(pins)
				return
			}
			switch openflow.Type(msg[1]) {
			case openflow.TypePacketIn:
				var p openflow.PacketIn
				if p.UnmarshalBinary(msg) == nil {
					p.Data = bytes.Clone(p.Data)
					pins <- p
				}
			case openflow.TypeEchoRequest:
				var e openflow.EchoRequest
				if e.UnmarshalBinary(msg) == nil {
					send(&openflow.EchoReply{Header: e.Header, Data: bytes.Clone(e.Data)})
				}
			}
		}
	}()
	ping := func(ttl int) (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out, err := nsExec(ctx, tp.hosts[0], "ping", "-c", "1", "-W", "1", "-t", strconv.Itoa(ttl), hostIP(2)).CombinedOutput()
		return string(out), err == nil
	}
	// The SET_ASYNC is applied before anything the switch sends after
	// it; wait for it to be in effect by pinging until a PACKET_IN comes.
	var got openflow.PacketIn
	deadline := time.After(10 * time.Second)
wait:
	for {
		if out, ok := ping(1); ok {
			t.Fatalf("ping with TTL 1 got an answer through dec_ttl:\n%s", out)
		}
		select {
		case p, ok := <-pins:
			if !ok {
				t.Fatalf("connection closed\nswitch log:\n%s", sw.Log())
			}
			got = p
			break wait
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no PACKET_IN for a ping with TTL 1\nswitch log:\n%s", sw.Log())
		}
	}
	if got.Reason != openflow.PacketInInvalidTTL || got.TableID != 0 || got.Cookie != 7 || got.BufferID != openflow.NoBuffer {
		t.Errorf("PACKET_IN reason %d table %d cookie %#x buffer %#x, want reason 2 (invalid ttl) table 0 cookie 0x7, no buffer",
			got.Reason, got.TableID, got.Cookie, got.BufferID)
	}
	if f := got.Match.Field(openflow.FieldInPort); f == nil || f.Uint() != 1 {
		t.Errorf("PACKET_IN match %+v, want in_port 1", got.Match)
	}
	// An IPv4 ICMP echo request from h1 to h2 with TTL 1, untouched.
	d := got.Data
	if len(d) < 34 || int(got.TotalLen) != len(d) || net.HardwareAddr(d[6:12]).String() != hostMAC(1) ||
		d[12] != 0x08 || d[13] != 0x00 || d[14+8] != 1 || d[14+9] != 1 || net.IP(d[30:34]).String() != hostIP(2) {
		t.Errorf("PACKET_IN data %x (total_len %d), want h1's ICMP echo request to h2 with TTL 1", d, got.TotalLen)
	}
	if out, ok := ping(2); !ok {
		t.Errorf("ping with TTL 2 failed through dec_ttl:\n%s", out)
	}
}

package push

import (
	"context"
	"net"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
)

// fakeTLVSwitch serves one connection on a loopback listener: HELLO, an
// echo request and an error of another xid before it answers the TLV
// table request with answer (its XID set to the request's).
func fakeTLVSwitch(t *testing.T, answer func(xid uint32) openflow.Message) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		r, w := openflow.NewReader(nc, 0), openflow.NewWriter(nc)
		h := openflow.NewHello(0, openflow.Version13)
		if w.WriteMessage(&h) != nil {
			return
		}
		if _, err := r.Next(); err != nil { // the client's HELLO
			return
		}
		msg, err := r.Next()
		if err != nil {
			return
		}
		var req openflow.TLVTableRequest
		if req.UnmarshalBinary(msg) != nil {
			t.Errorf("not a TLV table request: %x", msg)
			return
		}
		echo := openflow.EchoRequest{Header: openflow.Header{Version: openflow.Version13, Type: openflow.TypeEchoRequest, XID: req.XID}}
		other := openflow.ErrorMsg{Header: openflow.Header{Version: openflow.Version13, XID: req.XID + 100}, Type: openflow.ErrTypeBadRequest}
		if w.WriteMessage(&echo) != nil || w.WriteMessage(&other) != nil {
			return
		}
		if msg, err := r.Next(); err != nil || openflow.Type(msg[1]) != openflow.TypeEchoReply {
			t.Errorf("echo reply: %x, %v", msg, err)
			return
		}
		w.WriteMessage(answer(req.XID))
	}()
	return "tcp:" + l.Addr().String()
}

// TestTLVTable reads a switch's TLV table reply into a table that maps
// what fits in the option space, and takes an error reply as no table.
func TestTLVTable(t *testing.T) {
	target := fakeTLVSwitch(t, func(xid uint32) openflow.Message {
		return &openflow.TLVTableReply{Header: openflow.Header{Version: openflow.Version13, XID: xid}, MaxOptionSpace: 256, MaxFields: 64,
			Maps: []openflow.TLVMap{{OptionClass: 0xffff, OptionLen: 4, Index: 0}, {OptionClass: 0xffff, OptionType: 1, OptionLen: 124, Index: 9},
				{OptionClass: 0xffff, OptionType: 2, OptionLen: 8, Index: 3}}}
	})
	tab, left, err := TLVTable(context.Background(), target, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != 9 {
		t.Errorf("left out %v, want [9]", left)
	}
	for idx, n := range map[int]int{0: 4, 3: 8, 9: 0, 1: 0} {
		p, ok := tab.TunMetadataPlace(nil, idx)
		if len(p) != n || ok != (n > 0) {
			t.Errorf("tun_metadata%d: %d bytes (%v), want %d", idx, len(p), ok, n)
		}
	}

	target = fakeTLVSwitch(t, func(xid uint32) openflow.Message {
		e := openflow.ErrorMsg{Header: openflow.Header{Version: openflow.Version13, XID: xid}, Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBadExperimenter)}
		return &e
	})
	tab, left, err = TLVTable(context.Background(), target, nil, 0)
	if err != nil || tab != nil || left != nil {
		t.Errorf("error reply: %v, %v, %v; want no table", tab, left, err)
	}

	// ofswitch's agent: an empty table.
	_, addr := startAgent(t, nil)
	tab, _, err = TLVTable(context.Background(), "tcp:"+addr, nil, 0)
	if err != nil || tab == nil || len(tab.Maps()) != 0 {
		t.Errorf("agent: %v, %v", tab, err)
	}
}

package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/ofswitch/ofswitch/internal/quietconn"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
)

// TLVLayout is a switch's TLV table as a client holds it: where each
// mapped tun_metadataN lies in the option space, for the parser
// (rules/ofctl.ParseOptions.TunMetadata) and the encoder (Config.TLV,
// Encoded.SetTLV).
type TLVLayout = ofrules.TLVTable

// OptionSpace is the bytes of option space a TLVLayout places fields in.
const OptionSpace = ofrules.OptionSpace

// NewTLVLayout returns the layout of maps, as a switch of OptionSpace
// bytes allocates them from add-tlv-map, and the indexes of the maps that
// do not fit (or repeat an index or an option).
func NewTLVLayout(maps []openflow.TLVMap) (*TLVLayout, []int) { return ofrules.NewTLVTable(maps) }

// tlvXID is the xid of the TLV table request on its connection.
const tlvXID = 1

// tlvMaxMsgs bounds the messages TLVTable reads before the reply: a
// switch may send others (echo requests, port status) meanwhile.
const tlvMaxMsgs = 1024

// TLVTable asks the switch at target ("tcp:IP[:PORT]" or "unix:PATH")
// for its TLV table, over a connection of its own (d as Dial takes it):
// HELLO for OpenFlow 1.3, then NXT_TLV_TABLE_REQUEST. It returns the
// table made from the reply (ofrules.NewTLVTable: the maps whose fields
// fit in this client's option space) and the indexes of the maps left
// out. A switch that answers the request with an error (one that has no
// TLV table) maps nothing: the table is nil, the error nil. timeout (0:
// 10 s) bounds the whole exchange.
//
// A client that parses flow text naming tun_metadataN gives the table to
// the parser (rules/ofctl.ParseOptions.TunMetadata) and to the encoder
// (Config.TLV, Encoded.SetTLV), so that it sends the fields as
// ovs-ofctl does: NXM_NX_TUN_METADATA<N> of the mapped length.
func TLVTable(ctx context.Context, target string, d *net.Dialer, timeout time.Duration) (*TLVLayout, []int, error) {
	nc, err := Dial(ctx, target, d)
	if err != nil {
		return nil, nil, err
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	nc.SetDeadline(time.Now().Add(timeout))
	maps, err := tlvMaps(quietconn.Wrap(nc))
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	var em openflow.ErrorMsg
	if errors.As(err, &em) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("TLV table of %s: %w", target, err)
	}
	t, left := NewTLVLayout(maps)
	return t, left, nil
}

// tlvMaps runs the handshake over nc and returns the maps of the
// switch's NXT_TLV_TABLE_REPLY, or the openflow.ErrorMsg it answered the
// request with.
func tlvMaps(nc net.Conn) ([]openflow.TLVMap, error) {
	r, w := openflow.NewReader(nc, 0), openflow.NewWriter(nc)
	h := openflow.NewHello(0, openflow.Version13)
	if err := w.WriteMessage(&h); err != nil {
		return nil, err
	}
	msg, err := r.Next()
	if err != nil {
		return nil, fmt.Errorf("read HELLO: %w", err)
	}
	var peer openflow.Hello
	if err := peer.UnmarshalBinary(msg); err != nil {
		return nil, fmt.Errorf("switch HELLO: %w", err)
	}
	v, err := openflow.Negotiate(openflow.VersionBit(openflow.Version13), &peer)
	if err != nil {
		return nil, fmt.Errorf("switch does not speak OpenFlow 1.3 (offers %#x)", peer.Versions())
	}
	req := openflow.TLVTableRequest{Header: openflow.Header{Version: v, XID: tlvXID}}
	if err := w.WriteMessage(&req); err != nil {
		return nil, err
	}
	for range tlvMaxMsgs {
		msg, err := r.Next()
		if err != nil {
			return nil, err
		}
		xid := xidOf(msg)
		switch openflow.Type(msg[1]) {
		case openflow.TypeEchoRequest:
			var e openflow.EchoRequest
			if err := e.UnmarshalBinary(msg); err != nil {
				return nil, err
			}
			rep := openflow.EchoReply{Header: e.Header, Data: bytes.Clone(e.Data)}
			rep.Type = openflow.TypeEchoReply
			if err := w.WriteMessage(&rep); err != nil {
				return nil, err
			}
		case openflow.TypeError:
			if xid != tlvXID {
				continue
			}
			var em openflow.ErrorMsg
			if err := em.UnmarshalBinary(msg); err != nil {
				return nil, err
			}
			return nil, em
		case openflow.TypeExperimenter:
			var rep openflow.TLVTableReply
			if xid != tlvXID || rep.UnmarshalBinary(msg) != nil {
				continue
			}
			return rep.Maps, nil
		}
	}
	return nil, fmt.Errorf("no TLV table reply among %d messages", tlvMaxMsgs)
}

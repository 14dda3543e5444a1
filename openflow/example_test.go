package openflow_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"

	"github.com/ofswitch/ofswitch/openflow"
)

// Encode a FLOW_MOD that sends TCP port 80 traffic from 10.0.0.0/8 out of
// port 2, then read it back through a zero-copy view.
func ExampleFlowMod_AppendBinary() {
	fm := openflow.FlowMod{
		Header:   openflow.Header{XID: 42},
		Command:  openflow.FlowAdd,
		Priority: 400,
		BufferID: openflow.NoBuffer,
		OutPort:  openflow.PortAny,
		OutGroup: openflow.GroupAny,
		Match: openflow.Match{Fields: []openflow.OXM{
			openflow.EthType(0x0800),
			openflow.IPProto(6),
			openflow.IPv4Src(netip.MustParsePrefix("10.0.0.0/8")),
			openflow.TCPDst(80),
		}},
		Instructions: []openflow.Instruction{openflow.ApplyActions(openflow.Output(2, 0))},
	}
	buf := make([]byte, 0, 256) // reuse across messages: AppendBinary allocates nothing
	buf, err := fm.AppendBinary(buf)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", buf[:8])
	v := openflow.FlowModView(buf)
	if err := v.Check(); err != nil {
		panic(err)
	}
	fmt.Println(len(buf), v.Command(), v.Priority())
	// Output:
	// 04 0e 00 70 00 00 00 2a
	// 112 OFPFC_ADD 400
}

// Read messages from a connection: a Reader frames them into one reused
// buffer, Decode turns each into a value.
func ExampleReader() {
	client, switchSide := net.Pipe()
	go func() {
		w := openflow.NewWriter(client)
		hello := openflow.NewHello(1, openflow.Version13)
		fm := openflow.FlowMod{Header: openflow.Header{XID: 2}, Priority: 10, BufferID: openflow.NoBuffer,
			Match: openflow.Match{Fields: []openflow.OXM{openflow.InPort(1)}}}
		barrier := openflow.NewBarrierRequest(3)
		for _, m := range []openflow.Message{&hello, &fm, &barrier} {
			if err := w.Append(m); err != nil {
				panic(err)
			}
		}
		w.Flush()
		client.Close()
	}()
	r := openflow.NewReader(switchSide, 0)
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		m, err := openflow.Decode(b)
		if err != nil {
			em := openflow.ErrorFor(err, b) // the OFPT_ERROR to send back
			fmt.Println("reply", em.Error())
			continue
		}
		switch m := m.(type) {
		case *openflow.FlowMod:
			fmt.Println("xid", m.XID, m.String())
		default:
			fmt.Println("xid", m.MsgHeader().XID, m.MsgHeader().Type)
		}
	}
	// Output:
	// xid 1 OFPT_HELLO
	// xid 2 OFPFC_ADD table:0 priority=10,in_port=1 actions=drop
	// xid 3 OFPT_BARRIER_REQUEST
}

// Build a match from constructors and validate its prerequisites the way
// a switch must before installing a flow entry.
func ExampleMatch_Validate() {
	m := openflow.Match{Fields: []openflow.OXM{
		openflow.EthType(0x0800),
		openflow.IPv4Dst(netip.MustParsePrefix("192.168.1.0/24")),
		openflow.UDPDst(53), // needs ip_proto=17 first
	}}
	err := m.Validate()
	var de *openflow.DecodeError
	if errors.As(err, &de) {
		fmt.Println(de.Field, "->", de.ErrorMsg().Error())
	}
	m.Fields = append(m.Fields, openflow.IPProto(17))
	fmt.Println(m.Validate(), m.String())
	// Output:
	// match.oxm[2].prerequisite -> openflow: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ
	// <nil> eth_type=0x0800,ipv4_dst=192.168.1.0/ffffff00,udp_dst=53,ip_proto=17
}

package openflow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMultipartReplySplit(t *testing.T) {
	r := flowStatsReply(1000)
	r.XID = 77
	if _, err := r.AppendBinary(nil); !errors.Is(err, ErrTooLong) {
		t.Fatalf("1000 flows in one message: err = %v, want ErrTooLong", err)
	}
	wire, n, err := r.AppendSplit(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Fatalf("split into %d messages", n)
	}
	rd := NewReader(bytes.NewReader(wire), 0)
	var flows []FlowStats
	for i := 0; ; i++ {
		b, err := rd.Next()
		if err == io.EOF {
			if i != n {
				t.Fatalf("read %d messages, AppendSplit said %d", i, n)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var part MultipartReply
		if err := part.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if more := part.Flags&MultipartReplyMore != 0; more != (i < n-1) || part.XID != 77 || part.Part != MultipartFlow {
			t.Fatalf("part %d: more=%t xid=%d part=%v", i, more, part.XID, part.Part)
		}
		flows = append(flows, part.Flows...)
	}
	if len(flows) != len(r.Flows) {
		t.Fatalf("reassembled %d flows, want %d", len(flows), len(r.Flows))
	}
	// Encoding is deterministic: equal flows re-encode to the same bytes
	// (cheaper than cmp.Diff of 1000 entries under -race).
	again := &MultipartReply{Header: r.Header, Part: MultipartFlow, Flows: flows}
	if wire2, _, err := again.AppendSplit(nil, 0); err != nil || !bytes.Equal(wire, wire2) {
		t.Fatalf("reassembled flows re-encode differently (%v)", err)
	}
	if diff := cmp.Diff(r.Flows[:3], flows[:3], cmpOpts...); diff != "" {
		t.Fatalf("first flows (-want +got):\n%s", diff)
	}
	// A small limit splits more finely but never below one entry.
	small, n2, err := r.AppendSplit(nil, 1000)
	if err != nil || n2 < 100 || len(small) != len(wire)+16*(n2-n) {
		t.Fatalf("maxLen 1000: %d messages, %d bytes, %v", n2, len(small), err)
	}
	if _, _, err := r.AppendSplit(nil, 50); !errors.Is(err, ErrTooLong) {
		t.Fatalf("entry larger than maxLen: err = %v", err)
	}
	// Non-list bodies go out whole.
	desc := &MultipartReply{Part: MultipartDesc}
	if b, n, err := desc.AppendSplit(nil, 0); err != nil || n != 1 || len(b) != 16+1056 {
		t.Fatalf("desc: %d messages, %d bytes, %v", n, len(b), err)
	}
	buf := make([]byte, 0, len(wire))
	if allocs := testing.AllocsPerRun(20, func() { buf, _, _ = r.AppendSplit(buf[:0], 0) }); allocs != 0 {
		t.Errorf("AppendSplit: %v allocs", allocs)
	}
}

// TestPortReplies14: at OpenFlow 1.4 port statistics and port descriptions
// are in 1.4's layouts (OpenFlow 1.4.1 §7.3.5.7, §7.2.1): 120 bytes a port
// of statistics, the Ethernet counters in an OFPPSPT_ETHERNET property,
// and 72 bytes a description, its Ethernet figures in an OFPPDPT_ETHERNET
// property; both decode back to the same values. Entries of a bad length
// or with another property are refused.
func TestPortReplies14(t *testing.T) {
	stats := []PortStats{
		{PortNo: 1, RxPackets: 1, TxPackets: 2, RxBytes: 3, TxBytes: 4, RxDropped: 5, TxDropped: 6, RxErrors: 7, TxErrors: 8,
			RxFrameErr: 9, RxOverErr: 10, RxCRCErr: 11, Collisions: 12, DurationSec: 13, DurationNsec: 14},
		{PortNo: 2, RxPackets: 100, DurationSec: 1},
	}
	descs := []Port{{PortNo: 1, HWAddr: [6]byte{2, 0, 0, 0, 0, 1}, Config: 1, State: 4, Curr: 0x840, CurrSpeed: 10_000_000, MaxSpeed: 1}}
	copy(descs[0].Name[:], "veth0")
	for _, c := range []struct {
		rep      MultipartReply
		bodyLen  int
		lenAt    int // offset of an entry's length field
		entryLen int
	}{
		{MultipartReply{Header: Header{Version: Version14, Type: TypeMultipartReply, XID: 1}, Part: MultipartPortStats, Ports: stats}, 240, 0, 120},
		{MultipartReply{Header: Header{Version: Version14, Type: TypeMultipartReply, XID: 2}, Part: MultipartPortDesc, PortDescs: descs}, 72, 4, 72},
	} {
		b, err := c.rep.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.BigEndian.Uint16(b[16+c.lenAt:]); len(b)-16 != c.bodyLen || got != uint16(c.entryLen) {
			t.Errorf("%v at 1.4: body of %d bytes, first entry's length %d; want %d and %d", c.rep.Part, len(b)-16, got, c.bodyLen, c.entryLen)
		}
		var back MultipartReply
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("%v: %v", c.rep.Part, err)
		}
		if diff := cmp.Diff(c.rep.Ports, back.Ports); c.rep.Part == MultipartPortStats && diff != "" {
			t.Errorf("port stats round trip (-sent +decoded):\n%s", diff)
		}
		if diff := cmp.Diff(c.rep.PortDescs, back.PortDescs); c.rep.Part == MultipartPortDesc && diff != "" {
			t.Errorf("port descs round trip (-sent +decoded):\n%s", diff)
		}
		// An entry one byte short of its length, and an unknown property.
		short := append([]byte(nil), b[:len(b)-8]...)
		binary.BigEndian.PutUint16(short[2:], uint16(len(short)))
		if err := back.UnmarshalBinary(short); !errors.Is(err, ErrBadLength) {
			t.Errorf("%v with a cut entry: %v, want ErrBadLength", c.rep.Part, err)
		}
		odd := append([]byte(nil), b...)
		propAt := 16 + portStats14Len
		if c.rep.Part == MultipartPortDesc {
			propAt = 16 + port14Len
		}
		binary.BigEndian.PutUint16(odd[propAt:], 0xffff)
		if err := back.UnmarshalBinary(odd); !errors.Is(err, ErrBadProperty) {
			t.Errorf("%v with an experimenter property: %v, want ErrBadProperty", c.rep.Part, err)
		}
	}
}

// TestDescReplies14: OpenFlow 1.4's TABLE_DESC and QUEUE_DESC replies
// round-trip with and without properties, keep their length fields, and
// refuse entries whose length is short, unaligned or beyond the message.
func TestDescReplies14(t *testing.T) {
	prop := []byte{0, 2, 0, 8, 0, 0, 0, 7} // an 8-byte property TLV
	for _, rep := range []MultipartReply{
		{Header: Header{Version: Version14, Type: TypeMultipartReply, XID: 1}, Part: MultipartTableDesc,
			TableDescs: []TableDesc{{TableID: 0}, {TableID: 4, Config: 1 << 2, Properties: prop}}},
		{Header: Header{Version: Version14, Type: TypeMultipartReply, XID: 2}, Part: MultipartQueueDesc,
			QueueDescs: []QueueDesc{{PortNo: 1, QueueID: 7}, {PortNo: 2, QueueID: 0, Properties: prop}}},
	} {
		b, err := rep.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back MultipartReply
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("%v: %v", rep.Part, err)
		}
		rep.Length = uint16(len(b))
		if diff := cmp.Diff(rep, back); diff != "" {
			t.Errorf("%v round trip (-sent +decoded):\n%s", rep.Part, diff)
		}
		lenAt := 16
		if rep.Part == MultipartQueueDesc {
			lenAt += 8
		}
		for _, n := range []uint16{4, 12, 200} {
			bad := append([]byte(nil), b...)
			binary.BigEndian.PutUint16(bad[lenAt:], n)
			if err := back.UnmarshalBinary(bad); !errors.Is(err, ErrBadLength) {
				t.Errorf("%v with a first entry of length %d: %v, want ErrBadLength", rep.Part, n, err)
			}
		}
	}
	req := MultipartRequest{Header: Header{Version: Version14, Type: TypeMultipartRequest, XID: 3}, Part: MultipartQueueDesc, PortNo: 5, QueueID: QueueAll}
	b, err := req.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back MultipartRequest
	if err := back.UnmarshalBinary(b); err != nil || back.PortNo != 5 || back.QueueID != QueueAll || len(b) != 24 {
		t.Errorf("QUEUE_DESC request: %d bytes, decoded port %d queue %#x, %v", len(b), back.PortNo, back.QueueID, err)
	}
}

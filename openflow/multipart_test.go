package openflow

import (
	"bytes"
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

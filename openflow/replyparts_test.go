package openflow

import (
	"bytes"
	"errors"
	"testing"
)

// TestFlowReplyWriter: entries added one at a time make exactly the bytes
// AppendSplit makes of the whole reply, for lists that fill no message,
// one, and several (each a few entries past a message's end), in both
// versions; an entry that cannot be encoded is an error, Bytes's too.
func TestFlowReplyWriter(t *testing.T) {
	for _, n := range []int{0, 1, 2, 500, 501, 1000, 2500} {
		for _, v := range []uint8{Version13, Version14} {
			r := flowStatsReply(n)
			r.Version, r.XID, r.Flags = v, 99, 0
			want, _, err := r.AppendSplit([]byte("prefix"), 0)
			if err != nil {
				t.Fatal(err)
			}
			w := NewFlowReplyWriter([]byte("prefix"), r.Header, 0)
			for i := range r.Flows {
				if err := w.Add(&r.Flows[i]); err != nil {
					t.Fatal(err)
				}
			}
			got, err := w.Bytes()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%d flows, version %d: %d bytes (%v), want AppendSplit's %d", n, v, len(got), err, len(want))
			}
		}
	}
	huge := flowStatsReply(1).Flows[0]
	huge.Instructions = []Instruction{ApplyActions(make([]Action, 5000)...)}
	for i := range huge.Instructions[0].Actions {
		huge.Instructions[0].Actions[i] = Output(1, 0)
	}
	w := NewFlowReplyWriter(nil, Header{Version: Version13}, 0)
	err := w.Add(&huge)
	if err == nil {
		t.Fatal("an entry of 5000 actions was taken")
	}
	if _, err2 := w.Bytes(); !errors.Is(err2, err) {
		t.Fatalf("Bytes after it: %v, want %v", err2, err)
	}
}

package openflow

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// captureMessage is one OpenFlow message found in a capture.
type captureMessage struct {
	file   string
	stream int
	offset int64
	data   []byte
}

var captureCache struct {
	sync.Mutex
	msgs []captureMessage
}

// captureMessages returns every OpenFlow message in the TCP streams of the
// shared Open vSwitch captures, read once per test binary.
func captureMessages(t testing.TB) []captureMessage {
	t.Helper()
	captureCache.Lock()
	defer captureCache.Unlock()
	if captureCache.msgs == nil {
		captureCache.msgs = readCaptureMessages(t)
	}
	return captureCache.msgs
}

func readCaptureMessages(t testing.TB) []captureMessage {
	t.Helper()
	dir := testutil.SharedData(t, "openflow-captures")
	files, err := filepath.Glob(filepath.Join(dir, "*.pcap"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures in %s: %v", dir, err)
	}
	var out []captureMessage
	for _, f := range files {
		streams, err := testutil.ReadTCPStreamsFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range streams {
			if st.Gaps != 0 {
				t.Fatalf("%s stream %d: %d gaps in the TCP sequence", filepath.Base(f), i, st.Gaps)
			}
			r := NewReader(bytes.NewReader(st.Data), 0)
			for {
				b, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s stream %d offset %d: %v", filepath.Base(f), i, r.Offset(), err)
				}
				out = append(out, captureMessage{filepath.Base(f), i, r.Offset(), append([]byte(nil), b...)})
			}
		}
	}
	return out
}

// TestCapturesRoundTrip decodes every OpenFlow message that Open vSwitch
// and ovs-ofctl exchanged in the shared captures and re-encodes each one
// byte for byte.
func TestCapturesRoundTrip(t *testing.T) {
	msgs := captureMessages(t)
	counts := map[string]int{}
	for _, cm := range msgs {
		where := fmt.Sprintf("%s stream %d offset %d", cm.file, cm.stream, cm.offset)
		m, err := Decode(cm.data)
		if err != nil {
			t.Errorf("%s: %v\n%x", where, err, cm.data)
			continue
		}
		buf := bytes.Repeat([]byte{0xff}, len(cm.data))
		out, err := m.AppendBinary(buf[:0])
		if err != nil {
			t.Errorf("%s: encode: %v", where, err)
			continue
		}
		if !bytes.Equal(out, cm.data) {
			t.Errorf("%s: %T re-encoded differently\n got %x\nwant %x", where, m, out, cm.data)
			continue
		}
		name := fmt.Sprintf("v%d %v", cm.data[0], m.MsgHeader().Type)
		switch mm := m.(type) {
		case *MultipartRequest:
			name += " " + mm.Part.String()
		case *MultipartReply:
			name += " " + mm.Part.String()
		case *BundleAddMessage:
			inner, err := mm.Inner()
			if err != nil {
				t.Errorf("%s: inner message: %v", where, err)
				continue
			}
			ib, err := inner.AppendBinary(nil)
			if err != nil || !bytes.Equal(ib, mm.Message) {
				t.Errorf("%s: inner %T re-encoded differently (err %v)", where, inner, err)
			}
			name += fmt.Sprintf(" (%v inside)", inner.MsgHeader().Type)
		}
		counts[name]++
		checkCaptureFacts(t, where, m)
	}
	// Facts from the captures' README: totals per family.
	for name, want := range map[string]int{
		"v4 OFPT_FLOW_MOD": 31, "v4 OFPT_MULTIPART_REPLY OFPMP_TABLE_FEATURES": 20,
		"v4 OFPT_PACKET_IN": 11, "v4 OFPT_PACKET_OUT": 11, "v6 OFPT_HELLO": 15,
		"v5 OFPT_BUNDLE_ADD_MESSAGE (OFPT_FLOW_MOD inside)": 4, "v4 OFPT_ERROR": 1,
		"v4 OFPT_EXPERIMENTER (OFPT_FLOW_MOD inside)": 4,
	} {
		if counts[name] != want {
			t.Errorf("%d × %s, want %d", counts[name], name, want)
		}
	}
	if len(msgs) != 190 {
		t.Errorf("%d messages found in the captures, want 190", len(msgs))
	}
	var names []string
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%4d × %s", counts[n], n)
	}
}

// checkCaptureFacts checks decoded values against what the captures'
// README says was sent.
func checkCaptureFacts(t *testing.T, where string, m Message) {
	switch mm := m.(type) {
	case *ErrorMsg:
		if mm.Type != ErrTypeBadAction || mm.Code != uint16(BadActionBadOutGroup) {
			t.Errorf("%s: error %v, want OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP", where, mm)
		}
		var fm FlowMod
		if err := fm.UnmarshalBinary(mm.Data); err != nil || fm.XID != mm.XID {
			t.Errorf("%s: error data is not the failed FLOW_MOD: %v", where, err)
		}
	case *Hello:
		if mm.Version == Version15 {
			if v, err := Negotiate(VersionBit(Version13), mm); err != nil || v != Version13 || mm.Versions() != 0x72 {
				t.Errorf("%s: OVS hello negotiates %d, %v (bitmap %#x)", where, v, err, mm.Versions())
			}
		}
	case *MultipartReply:
		if mm.Part == MultipartTableFeatures {
			last := mm.TableFeatures[len(mm.TableFeatures)-1].TableID == 253
			if more := mm.Flags&MultipartReplyMore != 0; more == last {
				t.Errorf("%s: REPLY_MORE=%t on the part ending with table %d", where, more, mm.TableFeatures[len(mm.TableFeatures)-1].TableID)
			}
		}
	case *FlowMod:
		if err := mm.Match.Validate(); err != nil {
			t.Errorf("%s: OVS sent a match that fails validation: %v", where, err)
		}
		var v FlowModView
		b, _ := mm.MarshalBinary()
		v = b
		if err := v.Check(); err != nil || v.Priority() != mm.Priority || v.Command() != mm.Command {
			t.Errorf("%s: view disagrees with value: %v", where, err)
		}
	}
}

// TestDecoderReusesValues decodes every capture message twice through one
// Decoder: the results equal Decode's, and a FLOW_MOD/BARRIER stream
// decodes without allocating once the values exist.
func TestDecoderReusesValues(t *testing.T) {
	msgs := captureMessages(t)
	var d Decoder
	for pass := 0; pass < 2; pass++ {
		for _, cm := range msgs {
			got, err := d.Decode(cm.data)
			if err != nil {
				t.Fatalf("%s: %v", cm.file, err)
			}
			if len(cm.data) > 4096 {
				// cmp.Diff of a 60 KB TABLE_FEATURES part is slow; the
				// bytes say enough.
				if out, err := got.AppendBinary(nil); err != nil || !bytes.Equal(out, cm.data) {
					t.Fatalf("%s: Decoder value re-encodes differently (%v)", cm.file, err)
				}
				continue
			}
			want, _ := Decode(cm.data)
			if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
				t.Fatalf("%s: Decoder differs from Decode:\n%s", cm.file, diff)
			}
		}
	}
	var burst [][]byte
	for _, cm := range msgs {
		if t := Type(cm.data[1]); (t == TypeFlowMod || t == TypeBarrierRequest) && cm.data[0] == Version13 {
			burst = append(burst, cm.data)
		}
	}
	if allocs := testing.AllocsPerRun(20, func() {
		for _, b := range burst {
			if _, err := d.Decode(b); err != nil {
				t.Fatal(err)
			}
		}
	}); allocs != 0 {
		t.Errorf("Decoder on %d FLOW_MOD/BARRIER messages: %v allocs", len(burst), allocs)
	}
}

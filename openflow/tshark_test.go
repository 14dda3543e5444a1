package openflow

import (
	"strconv"
	"strings"
	"testing"
)

// TestTshark writes one message of every type as a TCP stream to port 6653
// and has Wireshark's OpenFlow dissector check it: no malformed-packet or
// error expert marks, and the fields it decodes equal what was encoded.
func TestTshark(t *testing.T) {
	msgs := syntheticMessages()
	chunks := encodeAll(t, msgs)
	run := tsharkPcap(t, 40000, chunks)
	verbose := run("-V")
	for n, frame := range strings.Split(verbose, "\nFrame ") {
		for _, bad := range []string{"Malformed", "Expert Info (Error"} {
			if i := strings.Index(frame, bad); i >= 0 && n > 0 {
				t.Errorf("tshark reports %q in frame %d (%T):\n%s", bad, n, msgs[n-1], frame[max(0, i-800):min(len(frame), i+200)])
				break
			}
		}
	}
	fields := []string{"openflow_v4.type", "openflow_v4.xid", "openflow_v5.type", "openflow_v5.xid",
		"openflow_v4.flowmod.priority", "openflow_v4.packet_in.total_len", "openflow_v4.switch_features.n_tables",
		"openflow_v4.error.code", "openflow_v4.multipart_reply.type", "openflow_v4.port.name"}
	args := []string{"-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	lines := strings.Split(strings.TrimRight(run(args...), "\n"), "\n")
	if len(lines) != len(msgs)+1 { // the SYN comes first
		t.Fatalf("tshark printed %d lines for %d messages", len(lines), len(msgs))
	}
	for i, m := range msgs {
		col := strings.Split(lines[i+1], "\t")
		for len(col) < len(fields) {
			col = append(col, "")
		}
		h := m.MsgHeader()
		typ, xid := col[0], col[1]
		if h.Version == Version14 {
			typ, xid = col[2], col[3]
		}
		b := chunks[i]
		wantType := strconv.Itoa(int(b[1]))
		if typ != wantType || xid != strconv.Itoa(int(h.XID)) {
			t.Errorf("message %d (%T): tshark type %q xid %q, want %s %d", i, m, typ, xid, wantType, h.XID)
		}
		want := map[int]string{}
		if h.Version == Version14 {
			continue // the fields below are the 1.3 dissector's
		}
		switch mm := m.(type) {
		case *FlowMod:
			want[4] = strconv.Itoa(int(mm.Priority))
		case *PacketIn:
			want[5] = strconv.Itoa(int(mm.TotalLen))
		case *FeaturesReply:
			want[6] = strconv.Itoa(int(mm.NTables))
		case *ErrorMsg:
			want[7] = strconv.Itoa(int(mm.Code))
		case *MultipartReply:
			want[8] = strconv.Itoa(int(mm.Part))
			if mm.Part == MultipartPortDesc {
				want[9] = mm.PortDescs[0].NameString()
			}
		case *PortStatus:
			want[9] = mm.Desc.NameString()
		}
		for k, v := range want {
			if col[k] != v {
				t.Errorf("message %d (%T): tshark %s = %q, want %q", i, m, fields[k], col[k], v)
			}
		}
	}
}

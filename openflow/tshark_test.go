package openflow

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// TestTshark writes one message of every type as a TCP stream to port 6653
// and has Wireshark's OpenFlow dissector check it: no malformed-packet or
// error expert marks, and the fields it decodes equal what was encoded.
func TestTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		testutil.SkipOrFail(t, "tshark is not installed")
	}
	msgs := syntheticMessages()
	var chunks [][]byte
	for _, m := range msgs {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		chunks = append(chunks, b)
	}
	pcap, err := testutil.TCPStreamPcap(netip.MustParseAddrPort("127.0.0.1:40000"),
		netip.MustParseAddrPort("127.0.0.1:6653"), chunks)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "all.pcap")
	if err := os.WriteFile(file, pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, tshark, append([]string{"-r", file, "-d", "tcp.port==6653,openflow"}, args...)...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark %v: %v", args, err)
		}
		return string(out)
	}
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

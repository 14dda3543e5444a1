package ofpcap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// listing writes the lines Parse returns for file and port to w, up to
// the first failure, which it returns, as ofswitch decode prints them.
func listing(w *bytes.Buffer, file string, port uint16) error {
	lines, err := Parse(file, port)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if l.Err != nil {
			return l.Err
		}
		fmt.Fprintln(w, l.Text)
	}
	return nil
}

func TestDecodeBundles(t *testing.T) {
	file := testutil.SharedData(t, "openflow-captures", "of13-onf-bundle-add-flows.pcap")
	var out bytes.Buffer
	if err := listing(&out, file, 16653); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ONFT_BUNDLE_CONTROL (OF1.3) (xid=0x6): bundle_id=0 type=OPEN_REQUEST flags=0x3",
		"ONFT_BUNDLE_ADD_MESSAGE (OF1.3) (xid=0x5): bundle_id=0 flags=0x3 { OFPT_FLOW_MOD (OF1.3) (xid=0x5): OFPFC_ADD",
		"type=COMMIT_REPLY"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestDecodeEveryCapture(t *testing.T) {
	dir := testutil.SharedData(t, "openflow-captures")
	files, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	total := 0
	for _, f := range files {
		port := uint16(16653)
		if strings.HasPrefix(filepath.Base(f), "testcontroller") {
			port = 6653
		}
		var out bytes.Buffer
		if err := listing(&out, f, port); err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		total += strings.Count(out.String(), "\n")
	}
	if total != 190 {
		t.Errorf("%d messages printed, want 190", total)
	}
}

func TestDecodeReportsWhereItFails(t *testing.T) {
	fm := openflow.FlowMod{Header: openflow.Header{XID: 9}, Priority: 1, BufferID: openflow.NoBuffer,
		Match: openflow.Match{Fields: []openflow.OXM{openflow.InPort(1)}}}
	good, err := fm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good...)
	binary.BigEndian.PutUint16(bad[48:], 0) // match type OFPMT_STANDARD
	hello := openflow.NewHello(1, openflow.Version13)
	hb, _ := hello.MarshalBinary()
	pcap, err := testutil.TCPStreamPcap(netip.MustParseAddrPort("127.0.0.1:40000"),
		netip.MustParseAddrPort("127.0.0.1:6653"), [][]byte{hb, good, bad})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "bad.pcap")
	if err := os.WriteFile(file, pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = listing(&out, file, 6653)
	if !errors.Is(err, openflow.ErrBadMatchType) {
		t.Fatalf("err = %v, want ErrBadMatchType", err)
	}
	wantOffset := "offset " + strconv.Itoa(len(hb)+len(good)) + ":"
	for _, want := range []string{"stream 0", wantOffset, "field match.type", "message offset 48"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if n := strings.Count(out.String(), "\n"); n != 2 {
		t.Errorf("printed %d messages before the bad one, want 2", n)
	}
	if err := listing(&out, file, 1234); err == nil {
		t.Error("no error for a port without streams")
	}
}

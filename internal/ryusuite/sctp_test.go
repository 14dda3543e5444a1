package ryusuite

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// python is the interpreter Debian's python3-os-ken is installed for.
const python = "/usr/bin/python3"

// sctpCases are the suite's files whose tests set an SCTP port.
const sctpCases = "action/25_SET_FIELD/1[78]_SCTP_*.json"

// sctpModels builds the cases of the files given as arguments with
// tester.py's own code, as gen.py in dataplane/testdata/ryu does: for each
// test, one JSON line with the FLOW_MODs, the ingress packet and the
// expected (model) egress packet as tester.py holds them, in hex, and the
// text that os_ken's sctp._checksum ran its CRC32c over for the model
// with the bytes it was given, both caught by wrapping that function.
const sctpModels = `
import json, sys
from os_ken.lib.packet import sctp
from os_ken.ofproto import ofproto_v1_3
from os_ken.tests.switch import tester

texts = []
checksum = sctp.sctp._checksum
def record(self, data):
    texts.append((str(data), bytes(data).hex()))
    return checksum(self, data)
sctp.sctp._checksum = record

tester.OfTester.target_ver = ofproto_v1_3.OFP_VERSION
tester.OfTester.tester_ver = ofproto_v1_3.OFP_VERSION
for path in sys.argv[1:]:
    for index, c in enumerate(json.load(open(path))[1:]):
        del texts[:]
        t = tester.Test(c)
        # Each test serializes its ingress, then its egress.
        assert len(texts) == 2 * len(t.tests), texts
        for i, p in enumerate(t.tests):
            print(json.dumps({"path": path, "index": index,
                "flows": [bytes(m.buf).hex() for m in t.prerequisite],
                "ingress": p["ingress"].hex(), "egress": p["egress"].hex(),
                "hashed": texts[2 * i + 1][0], "data": texts[2 * i + 1][1]}))
`

// sctpModel is one line of sctpModels' output.
type sctpModel struct {
	Path    string
	Index   int
	Flows   []string
	Ingress string
	Egress  string
	Hashed  string // what os_ken ran its CRC32c over: str(data)
	Data    string // the data it was given, in hex
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sctpSegment returns the SCTP segment (header and chunks) of an Ethernet
// frame, a slice of it, and whether it has one.
func sctpSegment(frame []byte) ([]byte, bool) {
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.NoCopy)
	nl := p.NetworkLayer()
	if p.Layer(layers.LayerTypeSCTP) == nil || nl == nil || len(nl.LayerPayload()) < 12 {
		return nil, false
	}
	return nl.LayerPayload(), true
}

// crc32c is the checksum an SCTP segment should carry (RFC 4960 appendix B,
// RFC 3309): the CRC32c of the segment with its checksum field zeroed, sent
// least significant byte first.
func crc32c(seg []byte) uint32 { return crc32.Checksum(zeroed(seg), castagnoli) }

// zeroed is a copy of an SCTP segment with its checksum field zeroed.
func zeroed(seg []byte) []byte {
	s := bytes.Clone(seg)
	binary.LittleEndian.PutUint32(s[8:], 0)
	return s
}

// carried is the checksum field of an SCTP segment, read as the CRC32c
// (least significant byte first); reported is the same field as os_ken
// parses and prints it (network order), the number in the tester's
// "sctp(csum=N)".
func carried(seg []byte) uint32  { return binary.LittleEndian.Uint32(seg[8:]) }
func reported(seg []byte) uint32 { return binary.BigEndian.Uint32(seg[8:]) }

var sctpReason = regexp.MustCompile(`^Received incorrect packet: sctp\(csum=(\d+)\)$`)

// TestTesterSCTPChecksum shows that the tests of Ryu's suite that set an
// SCTP port fail because of the tester: os_ken's sctp._checksum iterates
// over str(data), which on Python 3 is the text "bytearray(b'...')", so
// the checksum of every SCTP packet it builds, the model of the packet it
// expects back included, is the CRC32c of that text and not of the
// segment. For each test of those files it checks, on the packets built
// by tester.py's own code, that the model's checksum is not the segment's
// CRC32c but that of the text; that ofswitch, given the test's FLOW_MODs
// and ingress packet, sends the model with a valid CRC32c and nothing else
// changed; and that every "Received incorrect packet: sctp(csum=N)" of
// ofswitch's recorded results names that valid checksum.
func TestTesterSCTPChecksum(t *testing.T) {
	data := testutil.SharedData(t, "ryu-of13")
	if err := exec.Command(python, "-c", "import os_ken.tests.switch.tester").Run(); err != nil {
		testutil.SkipOrFail(t, fmt.Sprintf("%s with os_ken: %v (apt-get install python3-os-ken)", python, err))
	}
	files, err := filepath.Glob(filepath.Join(data, sctpCases))
	if err != nil || len(files) != 4 {
		t.Fatalf("%s: %d files (%v), want 4", sctpCases, len(files), err)
	}
	for i, f := range files {
		files[i], _ = filepath.Rel(data, f)
	}
	cmd := exec.Command(python, append([]string{"-c", sctpModels}, files...)...)
	cmd.Dir = data
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", python, err)
	}

	sent := map[string]uint32{} // by file and index: the checksum ofswitch sent, as os_ken prints it
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		var m sctpModel
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		n++
		name := fmt.Sprintf("%s#%d", m.Path, m.Index)
		model := unhex(t, m.Egress)
		seg, ok := sctpSegment(model)
		if !ok {
			t.Fatalf("%s: the model %x has no SCTP segment", name, model)
		}
		if got, right := carried(seg), crc32c(seg); got == right {
			t.Errorf("%s: the model's checksum %#08x is the segment's CRC32c: os_ken computes it right", name, got)
		}
		if got, text := carried(seg), crc32.Checksum([]byte(m.Hashed), castagnoli); got != text {
			t.Errorf("%s: the model's checksum %#08x is not the CRC32c %#08x of %q", name, got, text, m.Hashed)
		}
		if data := hex.EncodeToString(zeroed(seg)); m.Data != data ||
			!strings.HasPrefix(m.Hashed, "bytearray(b") || !strings.HasSuffix(m.Hashed, ")") {
			t.Errorf("%s: os_ken's checksum was given %s and hashed %q; want the segment %s and the text of a bytearray", name, m.Data, m.Hashed, data)
		}

		// The model with its checksum made right is what a switch
		// should send; ofswitch sends exactly that.
		fixed := bytes.Clone(model)
		fseg, _ := sctpSegment(fixed)
		binary.LittleEndian.PutUint32(fseg[8:], crc32c(fseg))
		frames, err := switchOut(m)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(frames) != 1 || !bytes.Equal(frames[0], fixed) {
			t.Errorf("%s: ofswitch sent %x, want the model with a valid CRC32c %x", name, frames, fixed)
			continue
		}
		oseg, _ := sctpSegment(frames[0])
		if carried(oseg) != crc32c(oseg) {
			t.Errorf("%s: ofswitch sent checksum %#08x, want the CRC32c %#08x", name, carried(oseg), crc32c(oseg))
		}
		sent[fmt.Sprintf("%s\x00%d", m.Path, m.Index)] = reported(oseg)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 16 {
		t.Errorf("%d tests built, want the 16 of %s", n, sctpCases)
	}

	// The checksums the tester reported receiving from ofswitch are the
	// valid ones.
	sw, err := readRun(testutil.RepoRoot(t), "ofswitch")
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for i, c := range sw.Cases {
		m := sctpReason.FindStringSubmatch(sw.Res[i].Reason)
		if m == nil {
			continue
		}
		named++
		got, _ := strconv.ParseUint(m[1], 10, 32)
		want, ok := sent[fmt.Sprintf("%s\x00%d", c.Path, c.Index)]
		if !ok {
			t.Errorf("%s #%d: the tester reported csum=%d, but the case sets no SCTP port", c.Path, c.Index, got)
			continue
		}
		if uint32(got) != want {
			t.Errorf("%s #%d: the tester received csum=%d, want %d, the valid CRC32c ofswitch sends", c.Path, c.Index, got, want)
		}
	}
	t.Logf("%d tests: os_ken's model checksum is the CRC32c of Python's str() of a bytearray; "+
		"ofswitch sends the valid CRC32c, which %d results of the suite name", n, named)
}

// switchOut runs m's ingress packet, from port 1, through a data plane
// holding m's flows, and returns the frames sent out of port 2.
func switchOut(m sctpModel) ([][]byte, error) {
	pipe, err := rules.New(&rules.Config{Tables: 2})
	if err != nil {
		return nil, err
	}
	var ups []rules.Update
	for _, f := range m.Flows {
		b, err := hex.DecodeString(f)
		if err != nil {
			return nil, err
		}
		var fm openflow.FlowMod
		if err := fm.UnmarshalBinary(b); err != nil {
			return nil, fmt.Errorf("decode FLOW_MOD: %w", err)
		}
		var u rules.Update
		if err := ofrules.FlowMod(&u, &fm, &ofrules.Options{Tables: 2}); err != nil {
			return nil, fmt.Errorf("FLOW_MOD refused: %w", err)
		}
		ups = append(ups, u)
	}
	for _, err := range pipe.ApplyBurst(ups, true).Errs {
		if err != nil {
			return nil, err
		}
	}
	in, err := hex.DecodeString(m.Ingress)
	if err != nil {
		return nil, err
	}
	out := &portRecorder{}
	sw := dataplane.NewSwitch(pipe, &dataplane.Config{Ports: []uint32{1, 2, 3}, Devices: map[uint32]dataplane.Port{2: out}})
	vec := &dataplane.Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = in, layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	return out.frames, nil
}

// portRecorder keeps the frames sent out of one port.
type portRecorder struct{ frames [][]byte }

func (r *portRecorder) Transmit(f []byte) { r.frames = append(r.frames, bytes.Clone(f)) }

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package ofrules

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// ingestOracle translates msg as the full path does with no cache at all:
// FlowMod.UnmarshalBinary, then translate without a cached instruction
// list or match shape, leaving the rules-level checks to the pipeline as a
// Decoder does.
func ingestOracle(msg []byte, tables int, strict bool) (rules.Update, error) {
	var fm openflow.FlowMod
	if err := fm.UnmarshalBinary(msg); err != nil {
		return rules.Update{}, err
	}
	var u rules.Update
	err := translate(&u, &fm, tables, strict, false, nil, nil, nil)
	return u, err
}

// ingestChecker feeds FLOW_MODs to one Decoder, one after the other so
// that each finds the caches its predecessors left, and compares every
// outcome with ingestOracle's.
type ingestChecker struct {
	t      *testing.T
	d      *Decoder
	tables int
	strict bool

	n, fast, refused int // messages, taken by the fast path, refused
	errs             map[[2]uint16]int
}

func newIngestChecker(t *testing.T, tables int, strict bool) *ingestChecker {
	d := NewDecoder(&Options{Tables: tables, StrictPorts: strict})
	return &ingestChecker{t: t, d: d, tables: tables, strict: strict, errs: map[[2]uint16]int{}}
}

// check runs msg through Decode and through the oracle.
func (k *ingestChecker) check(what string, msg []byte) {
	t, d := k.t, k.d
	t.Helper()
	k.n++
	want, wantErr := ingestOracle(msg, k.tables, k.strict)

	// The fast path alone, on the decoder's current caches (it changes
	// none of them).
	var fu rules.Update
	if fastFlowMod(&fu, msg, k.tables, &d.shape.wire, &d.ins) {
		k.fast++
		if wantErr != nil {
			t.Fatalf("%s: fast path accepted what the full path refuses (%v)\n%x", what, wantErr, msg)
		}
		if !sameUpdate(&fu, &want) {
			t.Fatalf("%s: fast path gives\n%+v\nfull path\n%+v\n%x", what, fu, want, msg)
		}
	}

	var got rules.Update
	err := d.Decode(&got, msg)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%s: Decode error %v, full path %v\n%x", what, err, wantErr, msg)
	}
	if err != nil {
		k.refused++
		got, exp := openflow.ErrorFor(err, msg), openflow.ErrorFor(wantErr, msg)
		k.errs[[2]uint16{uint16(exp.Type), exp.Code}]++
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("%s: error %v (%v/%d), full path %v (%v/%d)\n%x", what, err, got.Type, got.Code, wantErr, exp.Type, exp.Code, msg)
		}
		return
	}
	if !sameUpdate(&got, &want) {
		t.Fatalf("%s: Decode gives\n%+v\nfull path gives\n%+v\n%x", what, got, want, msg)
	}
}

func sameUpdate(a, b *rules.Update) bool {
	ai, bi := a.Instructions, b.Instructions
	x, y := *a, *b
	x.Instructions, y.Instructions = nil, nil
	return reflect.DeepEqual(x, y) && (ai == nil) == (bi == nil) && reflect.DeepEqual(ai, bi)
}

// flowModBytes assembles a FLOW_MOD from its parts: oxms are the match's
// OXM TLVs, ins the instruction bytes.
type flowModParts struct {
	version          uint8
	xid              uint32
	cookie, cmask    uint64
	table, cmd       uint8
	idle, hard, prio uint16
	buffer, outPort  uint32
	outGroup         uint32
	flags            uint16
	oxms             []byte
	ins              []byte
}

func (p *flowModParts) bytes() []byte {
	b := []byte{p.version, byte(openflow.TypeFlowMod), 0, 0}
	b = binary.BigEndian.AppendUint32(b, p.xid)
	b = binary.BigEndian.AppendUint64(b, p.cookie)
	b = binary.BigEndian.AppendUint64(b, p.cmask)
	b = append(b, p.table, p.cmd)
	b = binary.BigEndian.AppendUint16(b, p.idle)
	b = binary.BigEndian.AppendUint16(b, p.hard)
	b = binary.BigEndian.AppendUint16(b, p.prio)
	b = binary.BigEndian.AppendUint32(b, p.buffer)
	b = binary.BigEndian.AppendUint32(b, p.outPort)
	b = binary.BigEndian.AppendUint32(b, p.outGroup)
	b = binary.BigEndian.AppendUint16(b, p.flags)
	b = append(b, 0, 0)
	b = binary.BigEndian.AppendUint16(b, openflow.MatchTypeOXM)
	b = binary.BigEndian.AppendUint16(b, uint16(4+len(p.oxms)))
	b = append(b, p.oxms...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	b = append(b, p.ins...)
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
	return b
}

// oxmGen is one OXM of a generated match shape: the field, masked or not,
// and a fixed value for the fields that prerequisites test.
type oxmGen struct {
	f      openflow.OXMField
	masked bool
	fixed  []byte // value (and mask) bytes; nil: random each time
}

// randomShape returns the OXMs of a random match: mostly one that passes
// the checks (prerequisites in place, in a random order), sometimes one
// with a missing or wrong prerequisite, a duplicate, or a field rules does
// not match on.
func randomShape(r *rand.Rand) []oxmGen {
	var s []oxmGen
	add := func(f openflow.OXMField, fixed ...byte) {
		g := oxmGen{f: f, fixed: fixed}
		if fixed == nil && f.Maskable() && r.IntN(3) == 0 {
			g.masked = true
		}
		if fixed == nil && r.IntN(25) == 0 {
			g.masked = true // a mask where the spec allows none: Validate accepts it
		}
		s = append(s, g)
	}
	maybe := func(p int, f openflow.OXMField) {
		if r.IntN(100) < p {
			add(f)
		}
	}
	maybe(40, openflow.FieldInPort)
	maybe(15, openflow.FieldMetadata)
	maybe(20, openflow.FieldEthDst)
	maybe(20, openflow.FieldEthSrc)
	maybe(10, openflow.FieldTunnelID)
	switch r.IntN(4) {
	case 0:
		add(openflow.FieldVLANVID, 0x10, byte(r.IntN(256)))
		maybe(50, openflow.FieldVLANPCP)
	case 1:
		add(openflow.FieldVLANVID, 0x10, 0x00, 0x10, 0x00) // any VLAN
	}
	switch r.IntN(5) {
	case 0, 1: // IPv4
		add(openflow.FieldEthType, 0x08, 0x00)
		maybe(50, openflow.FieldIPv4Src)
		maybe(50, openflow.FieldIPv4Dst)
		maybe(20, openflow.FieldIPDSCP)
		maybe(10, openflow.FieldIPECN)
		switch r.IntN(5) {
		case 0:
			add(openflow.FieldIPProto, 6)
			maybe(70, openflow.FieldTCPSrc)
			maybe(70, openflow.FieldTCPDst)
		case 1:
			add(openflow.FieldIPProto, 17)
			maybe(70, openflow.FieldUDPSrc)
			maybe(70, openflow.FieldUDPDst)
		case 2:
			add(openflow.FieldIPProto, 132)
			maybe(70, openflow.FieldSCTPSrc)
			maybe(70, openflow.FieldSCTPDst)
		case 3:
			add(openflow.FieldIPProto, 1)
			maybe(70, openflow.FieldICMPv4Type)
			maybe(70, openflow.FieldICMPv4Code)
		}
	case 2: // IPv6
		add(openflow.FieldEthType, 0x86, 0xdd)
		maybe(50, openflow.FieldIPv6Src)
		maybe(50, openflow.FieldIPv6Dst)
		maybe(20, openflow.FieldIPv6FLabel)
		maybe(15, openflow.FieldIPv6ExtHdr)
		switch r.IntN(4) {
		case 0:
			add(openflow.FieldIPProto, 6)
			maybe(70, openflow.FieldTCPDst)
		case 1:
			add(openflow.FieldIPProto, 58)
			maybe(70, openflow.FieldICMPv6Type)
			maybe(50, openflow.FieldICMPv6Code)
		case 2: // neighbor discovery
			add(openflow.FieldIPProto, 58)
			typ := byte(135 + r.IntN(2))
			add(openflow.FieldICMPv6Type, typ)
			maybe(70, openflow.FieldIPv6NDTarget)
			if typ == 135 {
				maybe(70, openflow.FieldIPv6NDSLL)
			} else {
				maybe(70, openflow.FieldIPv6NDTLL)
			}
		}
	case 3: // ARP
		add(openflow.FieldEthType, 0x08, 0x06)
		maybe(50, openflow.FieldARPOp)
		maybe(50, openflow.FieldARPSPA)
		maybe(50, openflow.FieldARPTPA)
		maybe(30, openflow.FieldARPSHA)
		maybe(30, openflow.FieldARPTHA)
	}
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	if r.IntN(10) == 0 && len(s) > 0 { // break it
		switch r.IntN(5) {
		case 0:
			s = append(s, s[r.IntN(len(s))]) // duplicate
		case 1:
			s = append(s, oxmGen{f: openflow.FieldInPhyPort}) // rules has no such field
		case 2:
			s = append(s, oxmGen{f: openflow.FieldTCPDst}) // prerequisite missing or wrong
		case 3:
			i := r.IntN(len(s))
			s = append(s[:i], s[i+1:]...) // a prerequisite may go
		case 4:
			s = append(s, oxmGen{f: openflow.FieldEthType, masked: true, fixed: []byte{8, 0, 0xff, 0xff}})
		}
	}
	return s
}

// oxmBytes encodes the OXMs of shape s with random values; with bad set,
// some values have bits outside their masks.
func oxmBytes(r *rand.Rand, s []oxmGen, bad bool) []byte {
	var b []byte
	for _, g := range s {
		n := g.f.Size()
		if g.fixed != nil {
			hm := byte(0)
			if len(g.fixed) == 2*n {
				hm = 1
			}
			b = append(b, 0x80, 0x00, byte(g.f)<<1|hm, byte(len(g.fixed)))
			b = append(b, g.fixed...)
			continue
		}
		if g.masked {
			b = append(b, 0x80, 0x00, byte(g.f)<<1|1, byte(2*n))
		} else {
			b = append(b, 0x80, 0x00, byte(g.f)<<1, byte(n))
		}
		v := make([]byte, n)
		m := make([]byte, n)
		for i := range v {
			v[i], m[i] = byte(r.Uint32()), byte(r.Uint32())
			switch r.IntN(4) {
			case 0:
				m[i] = 0xff
			case 1:
				m[i] = 0
			}
		}
		if g.masked {
			for i := range v {
				if !bad || r.IntN(4) != 0 {
					v[i] &= m[i]
				}
			}
			b = append(append(b, v...), m...)
			continue
		}
		if g.f == openflow.FieldInPort && r.IntN(2) == 0 {
			v = []byte{0, 0, 0, byte(r.IntN(8))}
		}
		b = append(b, v...)
	}
	return b
}

// instructionPool holds instruction lists as bytes: the first
// validInstructions are valid in table 0, the others are refused.
const validInstructions = 13

// instructionPool holds instruction lists, valid and not, as bytes.
func instructionPool(t *testing.T) [][]byte {
	enc := func(ins ...openflow.Instruction) []byte {
		fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version13}, Instructions: ins}
		b, err := fm.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return openflow.FlowModView(b).InstructionBytes()
	}
	out := [][]byte{
		nil,
		enc(openflow.ApplyActions(openflow.Output(2, 0))),
		enc(openflow.ApplyActions(openflow.Output(3, 0))),
		enc(openflow.ApplyActions(openflow.Output(2, 0xffff), openflow.Output(openflow.PortController, 128))),
		enc(openflow.GotoTable(1)),
		enc(openflow.GotoTable(2)),
		enc(openflow.Instruction{Type: openflow.InstructionWriteMetadata, Metadata: 5, MetadataMask: 0xff}, openflow.GotoTable(3)),
		enc(openflow.Instruction{Type: openflow.InstructionClearActions}),
		enc(openflow.ApplyActions(openflow.SetField(openflow.IPv4Dst(netip.MustParsePrefix("10.1.2.3/32"))), openflow.Output(1, 0))),
		enc(openflow.Instruction{Type: openflow.InstructionWriteActions, Actions: []openflow.Action{openflow.Output(4, 0)}}),
		// Valid or not after the match: the OXM a set_field names must
		// be the one its rules field holds under the match.
		enc(openflow.ApplyActions(openflow.SetField(openflow.TCPSrc(80)))),
		enc(openflow.ApplyActions(openflow.SetField(openflow.NewOXM(openflow.FieldIPv6NDSLL, []byte{2, 0, 0, 0, 0, 1}, nil)))),
		enc(openflow.ApplyActions(openflow.Action{Type: openflow.ActionSetNWTTL, TTL: 5}, openflow.Output(1, 0))),
		// Refused by translation: output to port 0, goto table 0, a
		// group; a meter is translated and refused by the tables.
		enc(openflow.ApplyActions(openflow.Output(0, 0))),
		enc(openflow.GotoTable(0)),
		enc(openflow.Instruction{Type: openflow.InstructionMeter, MeterID: 1}),
		enc(openflow.ApplyActions(openflow.Action{Type: openflow.ActionGroup, GroupID: 1})),
		// Refused by decoding: bad lengths, duplicate, unknown type.
		{0, 1, 0, 4},
		{0, 1, 0, 16, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		append(enc(openflow.GotoTable(1)), enc(openflow.GotoTable(2))...),
		{0, 9, 0, 8, 0, 0, 0, 0},
		{0, 4, 0, 24, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	return out
}

// corrupt changes msg in one of the ways a broken peer would.
func corrupt(r *rand.Rand, msg []byte) []byte {
	b := append([]byte(nil), msg...)
	switch r.IntN(8) {
	case 0, 1, 2: // one byte anywhere after the header's length
		i := 4 + r.IntN(len(b)-4)
		b[i] ^= byte(1 + r.IntN(255))
	case 3: // one byte of the match
		if len(b) > openflow.FlowModMinLen {
			i := openflow.FlowModMatchOffset + r.IntN(len(b)-openflow.FlowModMatchOffset)
			b[i] = byte(r.Uint32())
		}
	case 4: // truncated, the header's length following or not
		b = b[:r.IntN(len(b))]
		if len(b) >= 4 && r.IntN(2) == 0 {
			binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
		}
	case 5: // the match length
		if len(b) >= openflow.FlowModMinLen {
			binary.BigEndian.PutUint16(b[openflow.FlowModMatchOffset+2:], uint16(r.IntN(len(b))))
		}
	case 6: // bytes added at the end
		b = append(b, make([]byte, 8*(1+r.IntN(2)))...)
		if r.IntN(3) != 0 {
			binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
		}
	case 7: // version, type or length of the header
		b[r.IntN(4)] = byte(r.Uint32())
	}
	return b
}

// TestFlowModFastPath runs generated FLOW_MODs (runs of one shape with
// varied values, masks, commands, tables and instructions, shape changes,
// returns to an earlier shape, and corrupted messages) through a Decoder,
// where the fast path takes what it can, and through the full path
// without caches: the update, or the error to answer, is the same.
func TestFlowModFastPath(t *testing.T) {
	for _, strict := range []bool{false, true} {
		k := newIngestChecker(t, 4, strict)
		r := rand.New(rand.NewPCG(5, map[bool]uint64{false: 1, true: 2}[strict]))
		pool := instructionPool(t)
		var shapes [][]oxmGen
		valid := 0
		for run := 0; run < 1500; run++ {
			var s []oxmGen
			if len(shapes) > 0 && r.IntN(3) == 0 {
				s = shapes[r.IntN(len(shapes))] // back to an earlier shape
			} else {
				s = randomShape(r)
				shapes = append(shapes, s)
			}
			ins := pool[r.IntN(validInstructions)]
			if r.IntN(8) == 0 {
				ins = pool[r.IntN(len(pool))]
			}
			p := flowModParts{version: openflow.Version13, buffer: openflow.NoBuffer,
				outPort: openflow.PortAny, outGroup: openflow.GroupAny, ins: ins}
			for i, n := 0, 1+r.IntN(12); i < n; i++ {
				p.xid = r.Uint32()
				p.cookie, p.cmask = r.Uint64(), r.Uint64()
				p.prio, p.idle, p.hard, p.flags = uint16(r.Uint32()), uint16(r.IntN(3)), uint16(r.IntN(3)), uint16(r.IntN(32))
				p.cmd, p.table = 0, 0
				switch x := r.IntN(40); {
				case x < 4:
					p.cmd = uint8(x) + 1
				case x < 6:
					p.cmd = uint8(3 + r.IntN(2))
					p.ins = nil
				case x == 6:
					p.cmd = uint8(5 + r.IntN(250)) // bad command
				}
				switch x := r.IntN(20); {
				case x < 3:
					p.table = uint8(1 + r.IntN(3))
				case x == 3:
					p.table = openflow.TableAll
				case x == 4:
					p.table = uint8(4 + r.IntN(200))
				}
				if r.IntN(30) == 0 {
					p.buffer = r.Uint32()
				}
				if r.IntN(40) == 0 {
					p.version = openflow.Version14
				}
				p.oxms = oxmBytes(r, s, r.IntN(15) == 0)
				msg := p.bytes()
				if r.IntN(12) == 0 {
					msg = corrupt(r, msg)
				}
				before := k.refused
				k.check("generated", msg)
				if k.refused == before {
					valid++
				}
				p.ins, p.buffer, p.version = ins, openflow.NoBuffer, openflow.Version13
			}
		}
		t.Logf("strict %v: %d FLOW_MODs, %d on the fast path, %d refused (by type/code: %v)", strict, k.n, k.fast, k.refused, k.errs)
		// Most accepted FLOW_MODs follow one of their shape: the fast
		// path must take a good share, and the test must refuse some.
		if k.fast < valid/3 || k.refused < k.n/20 {
			t.Errorf("fast path took %d of %d accepted FLOW_MODs, %d refused of %d: the test does not exercise both paths",
				k.fast, valid, k.refused, k.n)
		}
	}
}

// realFlowMods returns the FLOW_MODs of the golden vectors and of the
// shared Open vSwitch captures, bundled ones included, in capture order.
func realFlowMods(t *testing.T) [][]byte {
	var msgs [][]byte
	inner := func(b []byte) {
		if len(b) < 8 {
			return
		}
		var in []byte
		switch {
		case openflow.Type(b[1]) == openflow.TypeFlowMod:
			in = b
		case b[1] == 4 && len(b) > 24 && binary.BigEndian.Uint32(b[8:]) == 0x4f4e4600 && binary.BigEndian.Uint32(b[12:]) == 2301:
			in = b[24:] // ONF bundle add (OpenFlow 1.3)
		case b[1] == 34 && len(b) > 16:
			in = b[16:] // OFPT_BUNDLE_ADD_MESSAGE (OpenFlow 1.4)
		default:
			return
		}
		if len(in) >= 4 && openflow.Type(in[1]) == openflow.TypeFlowMod {
			if n := int(binary.BigEndian.Uint16(in[2:])); n <= len(in) && n >= 8 {
				msgs = append(msgs, append([]byte(nil), in[:n]...))
			}
		}
	}
	golden, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(t), "openflow", "testdata", "golden", "*.hex"))
	for _, g := range golden {
		inner(readHexFile(t, g))
	}
	dir := testutil.SharedData(t, "openflow-captures")
	pcaps, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	for _, f := range pcaps {
		streams, err := testutil.ReadTCPStreamsFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range streams {
			rd := openflow.NewReader(bytes.NewReader(st.Data), 0)
			for {
				b, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				inner(b)
			}
		}
	}
	return msgs
}

// readHexFile reads a golden *.hex file: hex bytes, "#" comments.
func readHexFile(t testing.TB, path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		b, err := hex.DecodeString(strings.Join(strings.Fields(line), ""))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, b...)
	}
	return out
}

// TestFlowModFastPathReal runs the FLOW_MODs that Open vSwitch's tools
// sent (captures and golden vectors) through a Decoder in order, then
// each again with one byte changed, and compares every outcome with the
// full path's.
func TestFlowModFastPathReal(t *testing.T) {
	msgs := realFlowMods(t)
	if len(msgs) < 20 {
		t.Fatalf("only %d FLOW_MODs in the golden vectors and captures", len(msgs))
	}
	k := newIngestChecker(t, 4, false)
	for _, m := range msgs {
		k.check("real", m)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for range 20 {
		for _, m := range msgs {
			k.check("real", m)
			b := append([]byte(nil), m...)
			if len(b) > openflow.FlowModMinLen && r.IntN(2) == 0 {
				// A value of the match, usually: the same shape.
				i := openflow.FlowModMatchOffset + 4 + r.IntN(int(binary.BigEndian.Uint16(b[openflow.FlowModMatchOffset+2:]))-4+1)
				if i < len(b) {
					b[i] ^= byte(1 + r.IntN(255))
				}
			} else {
				b = corrupt(r, b)
			}
			k.check("real, changed", b)
		}
	}
	t.Logf("%d FLOW_MODs, %d on the fast path, %d refused (by type/code: %v)", k.n, k.fast, k.refused, k.errs)
	if k.fast < len(msgs) || k.refused == 0 {
		t.Errorf("fast path took %d, %d refused: the test does not exercise both paths", k.fast, k.refused)
	}
}

// TestFieldSlots checks the layout fastFlowMod derives from rules: every
// field of at most 64 bits that an OXM maps to has a slot, and ORing a
// value into its slot of a zero Match gives what Match.Set gives.
func TestFieldSlots(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for of, f := range fieldMap {
		if f == noField || f.Bits() > 64 {
			continue
		}
		sl := fieldSlots[f]
		if !sl.ok {
			t.Errorf("%v (OXM field %d): no slot", f, of)
			continue
		}
		for range 100 {
			v, m := r.Uint64(), r.Uint64()
			if r.IntN(2) == 0 {
				m = ^uint64(0)
			}
			var want, got rules.Match
			want.Set(f, v, m)
			m &= sl.full
			got.Mask[sl.word] |= m << sl.shift
			got.Key[sl.word] |= (v & m) << sl.shift
			if got != want {
				t.Fatalf("%v: value %#x mask %#x: slot gives %v, Set %v", f, v, m, got, want)
			}
		}
	}
}

// FuzzFlowModFastPath feeds a FLOW_MOD, after one that sets the
// Decoder's shape and instruction cache, to the Decoder and to the full
// path without caches: the outcomes must agree. The seeds have the shape
// of the first message, so that mutations reach the fast path.
func FuzzFlowModFastPath(f *testing.F) {
	first := fuzzFlowMods(f)
	for _, m := range first {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		k := newIngestChecker(t, 4, false)
		k.check("first", first[0])
		k.check("fuzzed", msg)
		k.check("first again", first[0])
		k.check("fuzzed again", msg)
	})
}

// fuzzFlowMods returns the seeds of FuzzFlowModFastPath: the benchmark's
// 5-tuple flows, masked and IPv6 ones, deletes.
func fuzzFlowMods(f *testing.F) [][]byte {
	ups := flowgen.Exact(2, 0)
	var m rules.Match
	m.SetExact(rules.FieldEthType, 0x86dd)
	m.SetExact(rules.FieldIPProto, 17)
	m.SetPrefix128(rules.FieldIPv6Src, 0x20010db8<<32, 0, 48)
	m.Set(rules.FieldL4Dst, 0x50, 0xfff0)
	// The Nicira fields go out as NXM entries, which take the full path.
	nx := ups[0].Match
	nx.SetExact(rules.FieldNwTTL, 1)
	nx.Set(rules.FieldIPFrag, 0, rules.IPFragAny|rules.IPFragLater)
	nx.Set(rules.FieldPktMark, 0x10, 0xf0)
	nx.Set(rules.FieldTunFlags, rules.TunFlagOAM, rules.TunFlagOAM)
	// set_field of nw_ttl, pkt_mark and tun_flags goes out as NXM_NX
	// OXMs in OFPAT_SET_FIELD.
	sf := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{
		{Kind: rules.ActionSetField, Field: rules.FieldNwTTL, Value: [2]uint64{0, 9}},
		{Kind: rules.ActionSetField, Field: rules.FieldPktMark, Value: [2]uint64{0, 5}},
		{Kind: rules.ActionSetField, Field: rules.FieldTunFlags, Value: [2]uint64{0, 1}},
		{Kind: rules.ActionOutput, Port: 1}}}}
	ups = append(ups, rules.Update{Match: m, Priority: 7, Instructions: ups[0].Instructions},
		rules.Update{Command: rules.CmdDeleteStrict, Match: ups[1].Match, Priority: 100},
		rules.Update{Match: nx, Priority: 9, Instructions: ups[0].Instructions},
		rules.Update{Match: ups[0].Match, Priority: 11, Instructions: sf})
	var out [][]byte
	for i := range ups {
		var fm openflow.FlowMod
		WireFlowMod(&fm, &ups[i])
		fm.Header = openflow.Header{Version: openflow.Version13, XID: uint32(i)}
		b, err := fm.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

package ofrules

import (
	"testing"

	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// ingestMsgs returns n FLOW_MODs of the benchmark's exact flows; with
// mixed, every other flow has its ipv4_dst masked, so that the match shape
// changes with each FLOW_MOD and each takes the full path.
func ingestMsgs(tb testing.TB, n int, mixed bool) [][]byte {
	ups := flowgen.Exact(n, 0)
	msgs := make([][]byte, len(ups))
	for i := range ups {
		if mixed && i%2 == 1 {
			ups[i].Match.SetPrefix(rules.FieldIPv4Dst, ups[i].Match.Key.Get(rules.FieldIPv4Dst), 24)
		}
		var fm openflow.FlowMod
		WireFlowMod(&fm, &ups[i])
		fm.Header = openflow.Header{Version: openflow.Version13, XID: uint32(i)}
		var err error
		if msgs[i], err = fm.MarshalBinary(); err != nil {
			tb.Fatal(err)
		}
	}
	return msgs
}

// BenchmarkDecode measures a Decoder on one FLOW_MOD: decoding,
// validation and translation into a rules.Update. In BenchmarkDecode/same
// all but the first take the fast path; in BenchmarkDecode/mixed each
// takes the full path (see ingestMsgs). The controller's
// BenchmarkFlowModIngest adds what a connection spends on queueing it.
func BenchmarkDecode(b *testing.B) {
	for _, mixed := range []bool{false, true} {
		name := map[bool]string{false: "same", true: "mixed"}[mixed]
		b.Run(name, func(b *testing.B) {
			msgs := ingestMsgs(b, 1024, mixed)
			d := NewDecoder(nil)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var u rules.Update
				if err := d.Decode(&u, msgs[i%len(msgs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkFlowModEncode measures what the push client spent on one
// FLOW_MOD before its template: translation of the rules.Update (with the
// cache of instruction translations) and encoding.
func BenchmarkFlowModEncode(b *testing.B) {
	ups := flowgen.Exact(1024, 0)
	var fm openflow.FlowMod
	var cache wireInsCache
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		encodeUpdate(&ups[i%len(ups)], &fm, &cache, nil)
		var err error
		if buf, err = fm.AppendBinary(buf[:0]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkEncode measures an Encoder on the benchmark's exact flows, all
// but the first patched copies of its template.
func BenchmarkEncode(b *testing.B) {
	ups := flowgen.Exact(1024, 0)
	var e Encoder
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		var err error
		if buf, err = e.Encode(buf[:0], &ups[i%len(ups)], openflow.Version13, uint32(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestDecodeAllocs: a Decoder allocates nothing per FLOW_MOD in steady
// state, on the fast path and on the full path.
func TestDecodeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	for _, mixed := range []bool{false, true} {
		msgs := ingestMsgs(t, 64, mixed)
		d := NewDecoder(nil)
		var u rules.Update
		for _, m := range msgs { // warm the caches and d's reused FlowMod
			u = rules.Update{}
			if err := d.Decode(&u, m); err != nil {
				t.Fatal(err)
			}
		}
		i := 0
		n := testing.AllocsPerRun(200, func() {
			u = rules.Update{}
			if err := d.Decode(&u, msgs[i%len(msgs)]); err != nil {
				t.Fatal(err)
			}
			i++
		})
		if n != 0 {
			t.Errorf("Decode (mixed shapes %v): %v allocations per FLOW_MOD", mixed, n)
		}
	}
}

// TestEncodeAllocs: an Encoder allocates nothing per FLOW_MOD in steady
// state, for patched copies and for full encodings of alternating masks.
func TestEncodeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	for _, mixed := range []bool{false, true} {
		ups := flowgen.Exact(64, 0)
		if mixed {
			for i := 1; i < len(ups); i += 2 {
				ups[i].Match.SetPrefix(rules.FieldIPv4Dst, ups[i].Match.Key.Get(rules.FieldIPv4Dst), 24)
			}
		}
		var e Encoder
		buf := make([]byte, 0, 256)
		for i := range ups {
			buf, _ = e.Encode(buf[:0], &ups[i], openflow.Version13, uint32(i))
		}
		i := 0
		n := testing.AllocsPerRun(200, func() {
			var err error
			if buf, err = e.Encode(buf[:0], &ups[i%len(ups)], openflow.Version13, uint32(i)); err != nil {
				t.Fatal(err)
			}
			i++
		})
		if n != 0 {
			t.Errorf("Encode (mixed shapes %v): %v allocations per FLOW_MOD", mixed, n)
		}
	}
}

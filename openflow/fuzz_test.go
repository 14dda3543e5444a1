package openflow

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// addSeeds adds the synthetic messages of the unit tests, the golden
// vectors and the messages of the OVS and Ericsson captures whose type is
// in types (all if empty) as seeds.
func addSeeds(f *testing.F, types ...Type) [][]byte {
	want := func(b []byte) bool {
		if len(types) == 0 {
			return true
		}
		for _, t := range types {
			if len(b) > 1 && Type(b[1]) == t {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	var seeds [][]byte
	large := 0 // cmp.Diff of a 60 KB TABLE_FEATURES part takes ~0.2 s: keep one
	add := func(b []byte) {
		if want(b) && !seen[string(b)] && len(seen) < 64 && (len(b) < 4096 || large == 0) {
			if len(b) >= 4096 {
				large++
			}
			seen[string(b)] = true
			seeds = append(seeds, b)
			f.Add(b)
		}
	}
	for _, m := range syntheticMessages() {
		b, err := m.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
	for _, g := range goldens() {
		_, b := readGolden(f, g.file)
		add(b)
	}
	for _, cm := range captureMessages(f) {
		add(cm.data)
	}
	for _, b := range ericssonMessages(f) {
		add(b)
	}
	return seeds
}

// fuzzRoundTrip checks that whatever a decoder accepts re-encodes without
// error, decodes again to an equal value, and encodes to the same bytes.
func fuzzRoundTrip[T any, P interface {
	*T
	Message
}](f *testing.F, types ...Type) {
	seeds := addSeeds(f, types...)
	f.Fuzz(func(t *testing.T, in []byte) {
		var a, b, dirty T
		if P(&a).UnmarshalBinary(in) != nil {
			return // rejecting input is fine; panicking is not
		}
		// Decoding into a value that held other messages gives the same.
		for _, s := range seeds[:min(len(seeds), 16)] {
			if len(s) <= 4096 {
				_ = P(&dirty).UnmarshalBinary(s)
			}
		}
		if err := P(&dirty).UnmarshalBinary(in); err != nil {
			t.Fatalf("decodes fresh but not into a reused value: %v", err)
		}
		if diff := diffValues(P(&a), P(&dirty)); diff != "" {
			t.Fatalf("reused value (-fresh +reused):\n%s", diff)
		}
		out, err := P(&a).AppendBinary(nil)
		if err != nil {
			t.Fatalf("decoded value does not encode: %v", err)
		}
		if err := P(&b).UnmarshalBinary(out); err != nil {
			t.Fatalf("re-encoded bytes do not decode: %v\n%x", err, out)
		}
		if diff := diffValues(P(&a), P(&b)); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		out2, err := P(&b).AppendBinary(nil)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("encoding not stable: %v", err)
		}
	})
}

func FuzzHello(f *testing.F)       { fuzzRoundTrip[Hello](f, TypeHello) }
func FuzzErrorMsg(f *testing.F)    { fuzzRoundTrip[ErrorMsg](f, TypeError) }
func FuzzEchoRequest(f *testing.F) { fuzzRoundTrip[EchoRequest](f, TypeEchoRequest) }
func FuzzEmpty(f *testing.F) {
	fuzzRoundTrip[Empty](f, TypeBarrierRequest, TypeFeaturesRequest, TypeGetConfigRequest)
}
func FuzzExperimenter(f *testing.F)  { fuzzRoundTrip[Experimenter](f, TypeExperimenter) }
func FuzzFeaturesReply(f *testing.F) { fuzzRoundTrip[FeaturesReply](f, TypeFeaturesReply) }
func FuzzSwitchConfig(f *testing.F) {
	fuzzRoundTrip[SwitchConfig](f, TypeGetConfigReply, TypeSetConfig)
}
func FuzzRole(f *testing.F)             { fuzzRoundTrip[Role](f, TypeRoleRequest, TypeRoleReply) }
func FuzzAsyncConfig(f *testing.F)      { fuzzRoundTrip[AsyncConfig](f, TypeGetAsyncReply, TypeSetAsync) }
func FuzzPacketIn(f *testing.F)         { fuzzRoundTrip[PacketIn](f, TypePacketIn) }
func FuzzPacketOut(f *testing.F)        { fuzzRoundTrip[PacketOut](f, TypePacketOut) }
func FuzzFlowRemoved(f *testing.F)      { fuzzRoundTrip[FlowRemoved](f, TypeFlowRemoved) }
func FuzzPortStatus(f *testing.F)       { fuzzRoundTrip[PortStatus](f, TypePortStatus) }
func FuzzFlowMod(f *testing.F)          { fuzzRoundTrip[FlowMod](f, TypeFlowMod) }
func FuzzGroupMod(f *testing.F)         { fuzzRoundTrip[GroupMod](f, TypeGroupMod) }
func FuzzPortMod(f *testing.F)          { fuzzRoundTrip[PortMod](f, TypePortMod) }
func FuzzTableMod(f *testing.F)         { fuzzRoundTrip[TableMod](f, TypeTableMod) }
func FuzzMeterMod(f *testing.F)         { fuzzRoundTrip[MeterMod](f, TypeMeterMod) }
func FuzzMultipartRequest(f *testing.F) { fuzzRoundTrip[MultipartRequest](f, TypeMultipartRequest) }
func FuzzMultipartReply(f *testing.F)   { fuzzRoundTrip[MultipartReply](f, TypeMultipartReply) }
func FuzzQueueGetConfigRequest(f *testing.F) {
	fuzzRoundTrip[QueueGetConfigRequest](f, TypeQueueGetConfigRequest)
}
func FuzzQueueGetConfigReply(f *testing.F) {
	fuzzRoundTrip[QueueGetConfigReply](f, TypeQueueGetConfigReply)
}
func FuzzBundleControl(f *testing.F) {
	fuzzRoundTrip[BundleControl](f, TypeBundleControl, TypeExperimenter)
}
func FuzzBundleAddMessage(f *testing.F) {
	fuzzRoundTrip[BundleAddMessage](f, TypeBundleAddMessage, TypeExperimenter)
}
func FuzzRoleStatus(f *testing.F) {
	fuzzRoundTrip[RoleStatus](f, TypeRoleStatus, TypeExperimenter)
}

// FuzzFlowModView checks that the view accepts exactly what the value
// decoder accepts, with the same error, and reads the same fields.
func FuzzFlowModView(f *testing.F) {
	addSeeds(f, TypeFlowMod)
	f.Fuzz(func(t *testing.T, in []byte) {
		var m FlowMod
		errV, errM := FlowModView(in).Check(), m.UnmarshalBinary(in)
		if (errV == nil) != (errM == nil) {
			t.Fatalf("view err %v, value err %v", errV, errM)
		}
		if errV != nil {
			var dv, dm *DecodeError
			if !errors.As(errV, &dv) || !errors.As(errM, &dm) || dv.Err != dm.Err || dv.Offset != dm.Offset || dv.Field != dm.Field {
				t.Fatalf("view err %v, value err %v", errV, errM)
			}
		}
		if errV != nil {
			return
		}
		v := FlowModView(in)
		if v.Priority() != m.Priority || v.Cookie() != m.Cookie || v.Command() != m.Command ||
			v.TableID() != m.TableID || v.Flags() != m.Flags || v.OutPort() != m.OutPort {
			t.Fatalf("view and value disagree")
		}
		it, n := v.OXMs(), 0
		for _, _, ok := it.Next(); ok; _, _, ok = it.Next() {
			n++
		}
		if n != len(m.Match.Fields) {
			t.Fatalf("view has %d OXMs, value %d", n, len(m.Match.Fields))
		}
		// A template of what the view accepts copies it whole, with an
		// OXM for each of the match's.
		var tm FlowModTemplate
		if err := tm.Reset(in); err != nil || len(tm.OXMs()) != n || !bytes.Equal(tm.Copy(make([]byte, tm.Len())), in) {
			t.Fatalf("template: %v, %d OXMs of %d", err, len(tm.OXMs()), n)
		}
	})
}

// FuzzDecode runs the generic dispatcher over anything.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := Decode(in)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("Decode error %T is not a *DecodeError", err)
			}
			ErrorFor(err, in) // must not panic
			return
		}
		out, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatalf("%T does not encode: %v", m, err)
		}
		m2, err := Decode(out)
		if err != nil {
			t.Fatalf("%T re-encoded does not decode: %v", m, err)
		}
		if diff := cmp.Diff(m, m2, cmpOpts...); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// diffValues compares two decoded messages with cmp.Diff, or, for large
// ones (cmp is slow on a 60 KB TABLE_FEATURES reply, above all under
// -race), by their encodings, which are deterministic.
func diffValues(a, b Message) string {
	ea, errA := a.AppendBinary(nil)
	eb, errB := b.AppendBinary(nil)
	if len(ea) > 4096 {
		if errA != nil || errB != nil || !bytes.Equal(ea, eb) || *a.MsgHeader() != *b.MsgHeader() {
			return fmt.Sprintf("encodings differ (%v, %v)", errA, errB)
		}
		return ""
	}
	return cmp.Diff(a, b, cmpOpts...)
}

func FuzzFlowMonitorRequest(f *testing.F) {
	fuzzRoundTrip[FlowMonitorRequest](f, TypeMultipartRequest)
}
func FuzzFlowMonitorReply(f *testing.F) { fuzzRoundTrip[FlowMonitorReply](f, TypeMultipartReply) }
func FuzzFlowMonitorCancel(f *testing.F) {
	fuzzRoundTrip[FlowMonitorCancel](f, TypeExperimenter)
}
func FuzzFlowMonitorPause(f *testing.F) { fuzzRoundTrip[FlowMonitorPause](f, TypeExperimenter) }
func FuzzTLVTableMod(f *testing.F)      { fuzzRoundTrip[TLVTableMod](f, TypeExperimenter) }
func FuzzTLVTableRequest(f *testing.F)  { fuzzRoundTrip[TLVTableRequest](f, TypeExperimenter) }
func FuzzTLVTableReply(f *testing.F)    { fuzzRoundTrip[TLVTableReply](f, TypeExperimenter) }

package ofrules

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/internal/flowgen"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// outputs returns n output actions.
func outputs(n int) []rules.Action {
	as := make([]rules.Action, n)
	for i := range as {
		as[i] = rules.Action{Kind: rules.ActionOutput, Port: uint32(i%8 + 1)}
	}
	return as
}

// flowOfOutputs is an add of priority 7 that matches everything and
// outputs n times: 64 + 16n bytes on the wire.
func flowOfOutputs(n int) rules.Update {
	return rules.Update{Command: rules.CmdAdd, Priority: 7,
		Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: outputs(n)}}}
}

// TestFlowModLen checks FlowModLen against the encoder on flows of every
// shape, and that the quick bound of CheckFlowMod is one.
func TestFlowModLen(t *testing.T) {
	ups := flowgen.RandomShapes(rand.New(rand.NewPCG(3, 4)), 2000)
	ups = append(ups, flowOfOutputs(0), flowOfOutputs(1), flowOfOutputs(3000))
	var e Encoder
	for i := range ups {
		msg, err := e.Encode(nil, &ups[i], openflow.Version14, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n := FlowModLen(&ups[i]); n != len(msg) {
			t.Fatalf("flow %d: FlowModLen %d, encoded %d bytes", i, n, len(msg))
		}
		bound := openflow.FlowModMatchOffset + maxMatchLen
		for _, in := range ups[i].Instructions {
			bound += maxInsLen + maxActionLen*len(in.Actions)
		}
		if bound < len(msg) {
			t.Fatalf("flow %d: bound %d below its %d bytes", i, bound, len(msg))
		}
	}
}

// TestCheckFlowModLimit pushes the longest flow of outputs a message
// holds through the encoder and the decoder, and checks that one more
// action is refused by CheckFlowMod as by the encoder; inside a bundle
// add message (OpenFlow 1.4 and the ONF extension over 1.3) likewise.
func TestCheckFlowModLimit(t *testing.T) {
	const most = (openflow.MaxMessageLen - 64) / 16 // 4091 outputs: 65520 bytes
	for _, bundled := range []bool{false, true} {
		n := (MsgRoom(bundled) - 64) / 16
		fits, over := flowOfOutputs(n), flowOfOutputs(n+1)
		if err := CheckFlowMod(&fits, bundled); err != nil {
			t.Fatalf("bundled %v: %d outputs refused: %v", bundled, n, err)
		}
		err := CheckFlowMod(&over, bundled)
		if !errors.Is(err, openflow.ErrTooLong) {
			t.Fatalf("bundled %v: %d outputs: %v, want ErrTooLong", bundled, n+1, err)
		}
		t.Logf("bundled %v: %v", bundled, err)
		for _, v := range []uint8{openflow.Version13, openflow.Version14} {
			var e Encoder
			msg, err := e.Encode(nil, &fits, v, 9)
			if err != nil {
				t.Fatalf("encode %d outputs: %v", n, err)
			}
			if bundled {
				add := openflow.BundleAddMessage{Header: openflow.Header{Version: v, XID: 9}, BundleID: 1, Message: msg}
				if _, err := add.AppendBinary(nil); err != nil {
					t.Fatalf("version %d: bundle add of %d bytes: %v", v, len(msg), err)
				}
				if msg, err = e.Encode(nil, &over, v, 9); err != nil {
					t.Fatal(err)
				}
				add.Message = msg
				if _, err := add.AppendBinary(nil); !errors.Is(err, openflow.ErrTooLong) {
					t.Fatalf("version %d: bundle add of %d bytes: %v, want ErrTooLong", v, len(msg), err)
				}
				continue
			}
			var got rules.Update
			if err := NewDecoder(nil).Decode(&got, msg); err != nil {
				t.Fatalf("decode %d bytes: %v", len(msg), err)
			}
			if acts := got.Instructions[0].Actions; len(acts) != n || acts[n-1] != fits.Instructions[0].Actions[n-1] {
				t.Fatalf("decoded %d actions, want %d", len(acts), n)
			}
			if _, err := e.Encode(nil, &over, v, 9); !errors.Is(err, openflow.ErrTooLong) {
				t.Fatalf("encode %d outputs: %v, want ErrTooLong", n+1, err)
			}
		}
		if !bundled && n != most {
			t.Fatalf("%d outputs fit, want %d", n, most)
		}
	}
}

// TestCheckGroupModLimit: 1024 buckets (groups.MaxBuckets) of three
// outputs are 65552 bytes, one bucket fewer fits, and the wire form
// decodes back.
func TestCheckGroupModLimit(t *testing.T) {
	group := func(n int) groups.Mod {
		m := groups.Mod{Command: groups.Add, Type: groups.TypeAll, ID: 1, Buckets: make([]groups.Bucket, n)}
		for i := range m.Buckets {
			m.Buckets[i].Actions = outputs(3)
		}
		return m
	}
	fits, over := group(groups.MaxBuckets-1), group(groups.MaxBuckets)
	if err := CheckGroupMod(&fits, false); err != nil {
		t.Fatal(err)
	}
	if err := CheckGroupMod(&over, false); !errors.Is(err, openflow.ErrTooLong) {
		t.Fatalf("%d buckets: %v, want ErrTooLong", len(over.Buckets), err)
	}
	for _, m := range []*groups.Mod{&fits, &over} {
		gm := WireGroupMod(m)
		msg, err := gm.AppendBinary(nil)
		if m == &over {
			if !errors.Is(err, openflow.ErrTooLong) || GroupModLen(m) != 65552 {
				t.Fatalf("%d buckets: %v, GroupModLen %d", len(m.Buckets), err, GroupModLen(m))
			}
			continue
		}
		if err != nil || len(msg) != GroupModLen(m) {
			t.Fatalf("%d buckets: %v, %d bytes, GroupModLen %d", len(m.Buckets), err, len(msg), GroupModLen(m))
		}
		var back openflow.GroupMod
		if err := back.UnmarshalBinary(msg); err != nil || len(back.Buckets) != len(m.Buckets) {
			t.Fatalf("decode: %v, %d buckets", err, len(back.Buckets))
		}
	}
}

// TestCheckMeterModLimit: 4094 bands fit, 4095 do not.
func TestCheckMeterModLimit(t *testing.T) {
	for _, c := range []struct {
		bands int
		ok    bool
	}{{4094, true}, {4095, false}} {
		m := meters.Mod{Command: meters.Add, Config: meters.Config{ID: 1, Bands: make([]meters.Band, c.bands)}}
		err := CheckMeterMod(&m, false)
		mm := WireMeterMod(&m)
		msg, encErr := mm.AppendBinary(nil)
		if (err == nil) != c.ok || (encErr == nil) != c.ok {
			t.Fatalf("%d bands: check %v, encode %v", c.bands, err, encErr)
		}
		if c.ok && len(msg) != MeterModLen(&m) {
			t.Fatalf("%d bands: %d bytes, MeterModLen %d", c.bands, len(msg), MeterModLen(&m))
		}
	}
}

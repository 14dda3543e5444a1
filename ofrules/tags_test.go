package ofrules

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestMPLSPBBWireRoundTrip: flows that match MPLS and PBB fields and use
// every MPLS, PBB and TTL-copy action go to the wire (as an Encoder and
// WireFlowMod write them), come back through FlowMod unchanged, and print
// the same after a trip through a flow-stats reply.
func TestMPLSPBBWireRoundTrip(t *testing.T) {
	ups := parseFlows(t, `
priority=1,mpls,mpls_label=100,mpls_tc=3,mpls_bos=1,actions=set_mpls_ttl(9),dec_mpls_ttl,copy_ttl_out,copy_ttl_in,output:2
priority=2,mplsm,actions=pop_mpls:0x0800,push_mpls:0x8847,set_field:203->mpls_label,set_field:5->mpls_tc,set_field:0->mpls_bos,output:1
priority=3,ip,actions=push_pbb:0x88e7,set_field:0xabcdef->pbb_isid,write_actions(push_mpls:0x8848,copy_ttl_out),goto_table:1
priority=4,dl_type=0x88e7,pbb_isid=0x60/0xf0,actions=pop_pbb,output:3
priority=5,dl_type=0x88e7,pbb_isid=203,actions=write_actions(pop_pbb,dec_mpls_ttl)
priority=6,dl_type=0x88e7,pbb_uca=1,actions=set_field:0->pbb_uca,output:1
`)
	var cache wireInsCache
	for i := range ups {
		u := &ups[i]
		for pass := range 2 {
			var fm openflow.FlowMod
			if pass == 0 {
				WireFlowMod(&fm, u)
			} else {
				encodeUpdate(u, &fm, &cache, nil)
			}
			fm.Version = openflow.Version13
			wire, err := fm.MarshalBinary()
			if err != nil {
				t.Fatalf("flow %d: encode: %v", i+1, err)
			}
			var back openflow.FlowMod
			if err := back.UnmarshalBinary(wire); err != nil {
				t.Fatalf("flow %d: decode: %v", i+1, err)
			}
			var got rules.Update
			if err := FlowMod(&got, &back, &Options{Tables: 2}); err != nil {
				t.Fatalf("flow %d (%v): translate: %v", i+1, back.Match.String(), err)
			}
			if got.Match != u.Match {
				t.Errorf("flow %d: match %v came back as %v", i+1, u.Match, got.Match)
			}
			if diff := cmp.Diff(u.Instructions, got.Instructions); diff != "" {
				t.Errorf("flow %d: instructions (-sent +back):\n%s", i+1, diff)
			}
			ins := instructionsToWire(got.Instructions, &got.Match, nil)
			back2, err := instructionsFromWire(ins, 0, 2, nil)
			if err != nil || ofctl.FormatActions(back2) != ofctl.FormatActions(u.Instructions) {
				t.Errorf("flow %d: stats instructions %q, %v; want %q", i+1, ofctl.FormatActions(back2), err, ofctl.FormatActions(u.Instructions))
			}
		}
	}
}

// TestMPLSPBBActionErrors: what FLOW_MOD refuses, with the code Open
// vSwitch answers (push_mpls to a non-MPLS EtherType: OFPBAC_BAD_ARGUMENT)
// or OpenFlow 1.3.5 names (a set_field value wider than its field:
// OFPBAC_BAD_SET_ARGUMENT).
func TestMPLSPBBActionErrors(t *testing.T) {
	label := func(v uint32) openflow.OXM {
		return openflow.OXM{Class: openflow.OXMClassOpenFlow, Field: openflow.FieldMPLSLabel,
			Value: [16]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}}
	}
	for _, c := range []struct {
		name string
		a    openflow.Action
		code openflow.BadActionCode // 0: accepted
	}{
		{"push_mpls 0x8847", openflow.Action{Type: openflow.ActionPushMPLS, EtherType: 0x8847}, 0},
		{"push_mpls 0x8848", openflow.Action{Type: openflow.ActionPushMPLS, EtherType: 0x8848}, 0},
		{"push_mpls 0x0800", openflow.Action{Type: openflow.ActionPushMPLS, EtherType: 0x0800}, openflow.BadActionBadArgument},
		{"push_pbb 0x88e7", openflow.Action{Type: openflow.ActionPushPBB, EtherType: 0x88e7}, 0},
		{"push_pbb 0x8100", openflow.Action{Type: openflow.ActionPushPBB, EtherType: 0x8100}, openflow.BadActionBadArgument},
		{"pop_mpls 0x86dd", openflow.Action{Type: openflow.ActionPopMPLS, EtherType: 0x86dd}, 0},
		{"label 0xfffff", openflow.SetField(label(0xfffff)), 0},
		{"label 0x100000", openflow.SetField(label(0x100000)), openflow.BadActionBadSetArgument},
	} {
		_, err := Actions([]openflow.Action{c.a})
		var em openflow.ErrorMsg
		switch {
		case c.code == 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.code != 0 && (!errors.As(err, &em) || em.Type != openflow.ErrTypeBadAction || em.Code != uint16(c.code)):
			t.Errorf("%s: err %v, want BAD_ACTION code %d", c.name, err, c.code)
		}
	}
}

// TestMPLSGoldenFlowMods: the FLOW_MODs ovs-ofctl sent for two MPLS flows
// (openflow's golden files) translate into the flows ParseFlow reads from
// the same text, and those encode back into the same bytes.
func TestMPLSGoldenFlowMods(t *testing.T) {
	for _, name := range []string{"flow_mod_mpls_pop.hex", "flow_mod_mpls_push.hex"} {
		raw, err := os.ReadFile(filepath.Join("..", "openflow", "testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		var text string
		var hexs strings.Builder
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "# "+name+" — ") {
				text = strings.TrimPrefix(line, "# "+name+" — ")
			}
			line, _, _ = strings.Cut(line, "#")
			hexs.WriteString(strings.ReplaceAll(line, " ", ""))
		}
		wire, err := hex.DecodeString(hexs.String())
		if err != nil {
			t.Fatal(err)
		}
		var fm openflow.FlowMod
		if err := fm.UnmarshalBinary(wire); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got rules.Update
		if err := FlowMod(&got, &fm, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := ofctl.ParseFlow(text)
		if err != nil {
			t.Fatalf("%s: %q: %v", name, text, err)
		}
		if got.Match != want.Match || got.Priority != want.Priority || ofctl.FormatActions(got.Instructions) != ofctl.FormatActions(want.Instructions) {
			t.Errorf("%s: translated to %s, ovs-ofctl text reads as %s", name, ofctl.FormatUpdate(&got), ofctl.FormatUpdate(&want))
		}
		var back openflow.FlowMod
		WireFlowMod(&back, &want)
		back.Version, back.XID, back.BufferID = openflow.Version13, fm.XID, fm.BufferID
		b, err := back.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		// Open vSwitch orders the MPLS match fields its own way (tc, bos,
		// label); compare the matches decoded, the rest byte for byte.
		var again openflow.FlowMod
		if err := again.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if ins, insBack := fm.Instructions, again.Instructions; !cmp.Equal(ins, insBack) || len(b) != len(wire) {
			t.Errorf("%s: encoded back as %x, ovs-ofctl sent %x", name, b, wire)
		}
	}
}

// TestMatchValueBeyondField: an OXM value wider than the field it holds
// (an MPLS label over 20 bits, a TC over 3, a VLAN PCP over 7) is
// OFPBMC_BAD_VALUE, not a value cut short; the decoder's fast path, given
// the shape of a good match first, answers the same.
func TestMatchValueBeyondField(t *testing.T) {
	oxm := func(f openflow.OXMField, v ...byte) openflow.OXM { return openflow.NewOXM(f, v, nil) }
	for _, c := range []struct {
		name string
		good openflow.OXM
		bad  openflow.OXM
		eth  uint16
	}{
		{"mpls_label", oxm(openflow.FieldMPLSLabel, 0, 0x0f, 0xff, 0xff), oxm(openflow.FieldMPLSLabel, 0, 0x10, 0, 0), 0x8847},
		{"mpls_tc", oxm(openflow.FieldMPLSTC, 7), oxm(openflow.FieldMPLSTC, 8), 0x8848},
		{"mpls_bos", oxm(openflow.FieldMPLSBOS, 1), oxm(openflow.FieldMPLSBOS, 2), 0x8847},
		{"ip_dscp", oxm(openflow.FieldIPDSCP, 63), oxm(openflow.FieldIPDSCP, 64), 0x0800},
	} {
		var out rules.Match
		good := openflow.Match{Fields: []openflow.OXM{openflow.EthType(c.eth), c.good}}
		if err := Match(&out, &good, nil); err != nil {
			t.Errorf("%s: good value: %v", c.name, err)
		}
		bad := openflow.Match{Fields: []openflow.OXM{openflow.EthType(c.eth), c.bad}}
		var em openflow.ErrorMsg
		if err := Match(&out, &bad, nil); !errors.As(err, &em) || em.Type != openflow.ErrTypeBadMatch || em.Code != uint16(openflow.BadMatchBadValue) {
			t.Errorf("%s: bad value: %v, want OFPBMC_BAD_VALUE", c.name, err)
		}
		// Through a Decoder: the good match twice (its shape becomes
		// the fast path's), then the bad one.
		d := NewDecoder(nil)
		for i, m := range []openflow.Match{good, good, bad} {
			fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version13, Type: openflow.TypeFlowMod},
				BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny, Match: m}
			b, err := fm.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var u rules.Update
			err = d.Decode(&u, b)
			if i < 2 && err != nil {
				t.Errorf("%s: decoder, good match %d: %v", c.name, i, err)
			}
			if i == 2 && (!errors.As(err, &em) || em.Code != uint16(openflow.BadMatchBadValue)) {
				t.Errorf("%s: decoder, bad match: %v, want OFPBMC_BAD_VALUE", c.name, err)
			}
		}
	}
}

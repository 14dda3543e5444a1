package ofctl_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// modsFile has every line form ParseMods reads: add-groups and add-meter
// lines with and without a command word, ovs-ofctl bundle lines, and
// flows, in an order that interleaves them.
const modsFile = `# groups, meters and the flows that use them
group_id=1,type=all,bucket=output:1,bucket=output:2
meter=1,kbps,bands=type=drop,rate=1000
add group_id=2,type=indirect,bucket=actions=group:1
priority=10,ip,actions=meter:1,group:2
group add group_id=3,type=select,bucket=weight:2,output:1,bucket=output:2
group group_id=4,type=ff,bucket=watch_port:1,output:1
meter add meter=2,pktps,burst,stats,bands=type=dscp_remark,rate=10,burst_size=5,prec_level=1
flow priority=20,udp,actions=group:3
flow modify_strict priority=20,udp,actions=group:4
modify group_id=3,type=select,bucket=output:2
meter modify meter=2,pktps,bands=type=drop,rate=20
flow delete_strict priority=20,udp
delete_strict priority=10,ip
group delete group_id=4
meter delete meter=2
delete meter=1
modify meter=1,kbps,bands=type=drop,rate=5
flow delete
group delete
`

func TestParseMods(t *testing.T) {
	m, errs := ofctl.ParseMods("m", []byte(modsFile), nil)
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	var got []string
	for _, op := range m.Ops() {
		switch op.Kind {
		case ofctl.OpFlow:
			u := &m.Flows[op.Index]
			got = append(got, fmt.Sprintf("%d flow %d %s", op.Line, u.Command, m.Where[op.Index]))
		case ofctl.OpGroup:
			g := &m.Groups[op.Index]
			got = append(got, fmt.Sprintf("%d group %d %d type=%d buckets=%d", op.Line, g.Command, g.ID, g.Type, len(g.Buckets)))
		case ofctl.OpMeter:
			e := &m.Meters[op.Index]
			got = append(got, fmt.Sprintf("%d meter %d %d bands=%d", op.Line, e.Command, e.ID, len(e.Bands)))
		}
	}
	want := []string{
		"2 group 0 1 type=0 buckets=2",
		"3 meter 0 1 bands=1",
		"4 group 0 2 type=2 buckets=1",
		fmt.Sprintf("5 flow %d m:5", rules.CmdAdd),
		"6 group 0 3 type=1 buckets=2",
		"7 group 0 4 type=3 buckets=1",
		"8 meter 0 2 bands=1",
		fmt.Sprintf("9 flow %d m:9", rules.CmdAdd),
		fmt.Sprintf("10 flow %d m:10", rules.CmdModifyStrict),
		"11 group 1 3 type=1 buckets=1",
		"12 meter 1 2 bands=1",
		fmt.Sprintf("13 flow %d m:13", rules.CmdDeleteStrict),
		fmt.Sprintf("14 flow %d m:14", rules.CmdDeleteStrict),
		"15 group 2 4 type=0 buckets=0",
		"16 meter 2 2 bands=0",
		"17 meter 2 1 bands=0",
		"18 meter 1 1 bands=1",
		fmt.Sprintf("19 flow %d m:19", rules.CmdDelete),
		fmt.Sprintf("20 group 2 %d type=0 buckets=0", groups.All),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ops (-want +got):\n%s", d)
	}
	// The values themselves are ParseGroup's, ParseMeter's and
	// ParseFlowMods'.
	g, _ := ofctl.ParseGroup("group_id=3,type=select,bucket=weight:2,output:1,bucket=output:2", groups.Add)
	if d := cmp.Diff(g, m.Groups[2].Mod); d != "" {
		t.Errorf("group of line 6 (-ParseGroup +ParseMods):\n%s", d)
	}
	c, _ := ofctl.ParseMeter("meter=2,pktps,burst,stats,bands=type=dscp_remark,rate=10,burst_size=5,prec_level=1", true)
	if d := cmp.Diff(c, m.Meters[1].Config); d != "" {
		t.Errorf("meter of line 8 (-ParseMeter +ParseMods):\n%s", d)
	}
	if u := m.Flows[0]; ofctl.FormatActions(u.Instructions) != "meter:1,group:2" {
		t.Errorf("flow of line 5: actions %q", ofctl.FormatActions(u.Instructions))
	}
	if u := m.Flows[4]; u.Table != rules.TableAll || u.Instructions != nil {
		t.Errorf("flow delete_strict of line 14: %+v", u)
	}

	// --strict makes the modify and delete of bundle flow lines strict,
	// as of plain ones.
	m, errs = ofctl.ParseMods("m", []byte("flow modify ip,actions=drop\nflow delete ip\ngroup_id=1,type=all,bucket=drop\n"), &ofctl.ParseOptions{Strict: true})
	if len(errs) > 0 || len(m.Flows) != 2 || m.Flows[0].Command != rules.CmdModifyStrict || m.Flows[1].Command != rules.CmdDeleteStrict {
		t.Errorf("strict: %v %+v", errs, m)
	}
}

// TestParseModsFlowsOnly: a file of flows alone reads as ParseFlowMods
// reads it, and has no groups and no meters.
func TestParseModsFlowsOnly(t *testing.T) {
	data := []byte("priority=10,tcp,actions=drop\nadd priority=20,udp,actions=drop\nmodify_strict priority=20,udp,actions=output:2\ndelete tcp\ndelete_strict priority=10,tcp\n\ndelete\n")
	ups, where, err := ofctl.ParseFlowMods("f", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, errs := ofctl.ParseMods("f", data, nil)
	if len(errs) > 0 || len(m.Groups)+len(m.Meters) != 0 {
		t.Fatalf("%v %+v", errs, m)
	}
	if d := cmp.Diff(ups, m.Flows, cmp.Comparer(func(a, b rules.Update) bool {
		return ofctl.FormatUpdate(&a) == ofctl.FormatUpdate(&b) && a.ID == b.ID && a.Command == b.Command && a.Table == b.Table
	})); d != "" {
		t.Errorf("flows (-ParseFlowMods +ParseMods):\n%s", d)
	}
	if d := cmp.Diff(where, m.Where); d != "" {
		t.Errorf("where (-ParseFlowMods +ParseMods):\n%s", d)
	}
	for i, c := range []rules.Command{rules.CmdAdd, rules.CmdAdd, rules.CmdModifyStrict, rules.CmdDelete, rules.CmdDeleteStrict, rules.CmdDelete} {
		if m.Flows[i].Command != c {
			t.Errorf("flow %d: command %d, want %d", i, m.Flows[i].Command, c)
		}
	}
}

// TestParseModsErrors: every bad line is an error at its file:line:column,
// and the good lines around it still parse.
func TestParseModsErrors(t *testing.T) {
	for _, c := range []struct {
		line string
		want string // the error, after "e:2:"
	}{
		{"packet-out in_port=1,packet=00,actions=drop", "1: packet-out lines are not supported"},
		{"  group add_or_mod group_id=1,type=all,bucket=drop", "9: group command add_or_mod is not supported: it is an Open vSwitch extension"},
		{"group insert_bucket group_id=1,command_bucket_id=last,bucket=drop", "7: group command insert_bucket is not supported: it is OpenFlow 1.5's"},
		{"remove_bucket group_id=1", "1: group command remove_bucket is not supported"},
		{"group modify_strict group_id=1,type=all", "7: modify_strict is no group command"},
		{"flow add_or_mod ip,actions=drop", "6: add_or_mod is no flow command"},
		{"add_or_mod ip,actions=drop", "1: add_or_mod is no flow command"},
		{"meter insert_bucket meter=1", "7: insert_bucket is no meter command"},
		{"meter modify_strict meter=1", "7: modify_strict is no meter command"},
		{"group add group_id=1,type=bogus,bucket=drop", "27: \"bogus\": unknown group type"},
		{"group_id=1,bucket=drop", "1: must specify a type"},
		{"group_id=1,type=all,bucket=output:x", "35: expected port number"},
		{"meter add meter=1,bands=type=drop,rate=1", "11: meter must specify either 'kbps' or 'pktps'"},
		{"meter=0,kbps,bands=type=drop,rate=1", "7: invalid value for meter: 0"},
		{"meter delete meter=1,kbps,bands=type=drop,rate=1", "27: bands given where only a meter id is taken"},
		{"flow", "5: expected a flow after \"flow\""},
		{"flow modify ", "12: expected a flow after \"flow modify\""},
		{"group", "6: must specify a group_id"},
		{"flow priority=5,tp_dst=80,actions=drop", "17: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ"},
		{"flow modify ip,importance=3,actions=drop", "16: importance is for add lines only"},
		{"flow ip,nw_src=10.0.0.300,actions=drop", "16: expected an IPv4 address"},
	} {
		data := "group_id=9,type=all,bucket=drop\n" + c.line + "\nmeter=9,kbps,bands=type=drop,rate=1\nip,actions=drop\n"
		m, errs := ofctl.ParseMods("e", []byte(data), nil)
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "e:2:"+c.want) {
			t.Errorf("%q: errors %v, want e:2:%s...", c.line, errs, c.want)
			continue
		}
		var pe *ofctl.ParseError
		if !errors.As(errs[0], &pe) || pe.Line != 2 {
			t.Errorf("%q: %#v is no *ParseError of line 2", c.line, errs[0])
		}
		if len(m.Groups) != 1 || len(m.Meters) != 1 || len(m.Flows) != 1 || m.Flows[0].ID != 4 {
			t.Errorf("%q: the good lines around it: %+v", c.line, m)
		}
	}
}

// TestParseModsRoundTrip: the groups and meters of a file, printed with
// FormatGroup and FormatMeterMod, read back the same.
func TestParseModsRoundTrip(t *testing.T) {
	m, errs := ofctl.ParseMods("m", []byte(modsFile), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var b strings.Builder
	for _, g := range m.Groups {
		if g.Command == groups.Add {
			b.WriteString(ofctl.FormatGroup(g.ID, g.Type, g.Buckets) + "\n")
		}
	}
	for _, e := range m.Meters {
		if e.Command == meters.Add {
			b.WriteString(ofctl.FormatMeterMod(&e.Config) + "\n")
		}
	}
	for _, u := range m.Flows {
		if u.Command == rules.CmdAdd {
			b.WriteString(ofctl.FormatUpdate(&u) + "\n")
		}
	}
	again, errs := ofctl.ParseMods("again", []byte(b.String()), nil)
	if len(errs) > 0 {
		t.Fatalf("%v\n%s", errs, b.String())
	}
	var wantG []groups.Mod
	for _, g := range m.Groups {
		if g.Command == groups.Add {
			wantG = append(wantG, g.Mod)
		}
	}
	var gotG []groups.Mod
	for _, g := range again.Groups {
		gotG = append(gotG, g.Mod)
	}
	if d := cmp.Diff(wantG, gotG); d != "" {
		t.Errorf("groups (-first +again):\n%s\n%s", d, b.String())
	}
	if len(again.Meters) != 2 || !cmp.Equal(again.Meters[0].Config, m.Meters[0].Config) || !cmp.Equal(again.Meters[1].Config, m.Meters[1].Config) {
		t.Errorf("meters: %+v, want %+v", again.Meters, m.Meters[:2])
	}
	if len(again.Flows) != 2 {
		t.Errorf("flows: %+v", again.Flows)
	}
}

// FuzzParseMods: ParseMods never panics; every error is a *ParseError
// within the file; the operations are in line order, each line's kind
// once; and the groups and meters added print as they read back.
func FuzzParseMods(f *testing.F) {
	f.Add([]byte(modsFile))
	f.Add([]byte("priority=10,tcp,actions=drop\ndelete\n"))
	f.Add([]byte("packet-out in_port=1\ngroup add_or_mod group_id=1\nflow\nmeter\ngroup\n"))
	f.Add([]byte("group_id=1,type=ff,bucket=watch_port:1,actions=output:1\r\nmeter=controller,pktps,bands=type=drop,rate=10\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, errs := ofctl.ParseMods("z", data, nil)
		lines := strings.Count(string(data), "\n") + 1
		for _, err := range errs {
			var pe *ofctl.ParseError
			if !errors.As(err, &pe) || pe.File != "z" || pe.Line < 1 || pe.Line > lines || pe.Col < 1 {
				t.Fatalf("error %v (%#v) is no *ParseError within the file", err, err)
			}
		}
		last := 0
		kind := map[int]ofctl.OpKind{}
		for _, op := range m.Ops() {
			if op.Line < last {
				t.Fatalf("op of line %d after line %d", op.Line, last)
			}
			if k, ok := kind[op.Line]; ok && k != op.Kind {
				t.Fatalf("line %d has two kinds of op", op.Line)
			}
			kind[op.Line], last = op.Kind, op.Line
		}
		for _, g := range m.Groups {
			if g.Command != groups.Add {
				continue
			}
			text := ofctl.FormatGroup(g.ID, g.Type, g.Buckets)
			back, err := ofctl.ParseGroup(text, groups.Add)
			if again := ofctl.FormatGroup(back.ID, back.Type, back.Buckets); err != nil || again != text {
				t.Fatalf("group %q reads back as %q, %v", text, again, err)
			}
		}
		for _, e := range m.Meters {
			if e.Command != meters.Add {
				continue
			}
			text := ofctl.FormatMeterMod(&e.Config)
			back, err := ofctl.ParseMeter(text, true)
			if again := ofctl.FormatMeterMod(&back); err != nil || again != text {
				t.Fatalf("meter %q reads back as %q, %v", text, again, err)
			}
		}
	})
}

package ofctl

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

func TestParseGroup(t *testing.T) {
	out := func(p uint32) rules.Action { return rules.Action{Kind: rules.ActionOutput, Port: p} }
	bk := func(w uint16, wp, wg uint32, as ...rules.Action) groups.Bucket {
		return groups.Bucket{Weight: w, WatchPort: wp, WatchGroup: wg, Actions: as}
	}
	for _, tt := range []struct {
		in, print string // print: as dump-groups prints it ("" = in)
		want      groups.Mod
	}{
		{"group_id=1,type=all,bucket=output:2,bucket=output:3", "group_id=1,type=all,bucket=actions=output:2,bucket=actions=output:3",
			groups.Mod{ID: 1, Type: groups.TypeAll, Buckets: []groups.Bucket{bk(0, groups.PortAny, groups.Any, out(2)), bk(0, groups.PortAny, groups.Any, out(3))}}},
		{"group_id=2,type=select,selection_method=hash,bucket=weight:50,actions=output:1,bucket=weight=25,output:2,bucket=output:3",
			"group_id=2,type=select,bucket=weight:50,actions=output:1,bucket=weight:25,actions=output:2,bucket=actions=output:3",
			groups.Mod{ID: 2, Type: groups.TypeSelect, Buckets: []groups.Bucket{bk(50, groups.PortAny, groups.Any, out(1)), bk(25, groups.PortAny, groups.Any, out(2)), bk(1, groups.PortAny, groups.Any, out(3))}}},
		{"group_id=3,type=fast_failover,bucket=watch_port:1,output:1,bucket=watch_group:4,actions=group:4",
			"group_id=3,type=ff,bucket=watch_port:1,actions=output:1,bucket=watch_group:4,actions=group:4",
			groups.Mod{ID: 3, Type: groups.TypeFF, Buckets: []groups.Bucket{bk(0, 1, groups.Any, out(1)), bk(0, groups.PortAny, 4, rules.Action{Kind: rules.ActionGroup, Group: 4})}}},
		{"group_id=4,type=indirect,bucket=actions=set_field:00:00:00:00:00:01->eth_dst,dec_ttl,output:4",
			"group_id=4,type=indirect,bucket=actions=set_field:00:00:00:00:00:01->eth_dst,dec_ttl,output:4",
			groups.Mod{ID: 4, Type: groups.TypeIndirect, Buckets: []groups.Bucket{bk(0, groups.PortAny, groups.Any,
				rules.Action{Kind: rules.ActionSetField, Field: rules.FieldEthDst, Value: [2]uint64{0, 1}}, rules.Action{Kind: rules.ActionDecNwTTL}, out(4))}}},
		{"group_id=5,type=all", "", groups.Mod{ID: 5, Type: groups.TypeAll}},
		{"group_id=6,type=all,bucket=actions=drop", "", groups.Mod{ID: 6, Type: groups.TypeAll, Buckets: []groups.Bucket{bk(0, groups.PortAny, groups.Any)}}},
	} {
		got, err := ParseGroup(tt.in, groups.Add)
		if err != nil {
			t.Errorf("ParseGroup(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseGroup(%q) (-want +got):\n%s", tt.in, diff)
		}
		want := tt.print
		if want == "" {
			want = tt.in
		}
		if p := FormatGroup(got.ID, got.Type, got.Buckets); p != want {
			t.Errorf("FormatGroup = %q, want %q", p, want)
		}
	}
	for _, bad := range []string{
		"group_id=1,bucket=output:1",                   // no type
		"type=all,bucket=output:1",                     // no id
		"group_id=1,type=all,bucket=",                  // no actions
		"group_id=1,type=all,bucket=weight:5,output:1", // weight outside select
		"group_id=1,type=ff,bucket=output:1",           // nothing watched
		"group_id=1,type=indirect,bucket=output:1,bucket=output:2",
		"group_id=1,type=all,bucket=output:1,goto_table:1", // an instruction
		"group_id=1,type=bogus",
		"group_id=1,type=select,selection_method=random",
		"group_id=x,type=all",
	} {
		if _, err := ParseGroup(bad, groups.Add); err == nil {
			t.Errorf("ParseGroup(%q) accepted it", bad)
		}
	}
	for in, want := range map[string]uint32{"": groups.All, "group_id=all": groups.All, "group_id=7": 7} {
		if m, err := ParseGroup(in, groups.Delete); err != nil || m.ID != want {
			t.Errorf("ParseGroup(%q, Delete) = %d, %v; want %d", in, m.ID, err, want)
		}
	}
}

func TestParseGroups(t *testing.T) {
	ms, errs := ParseGroups("g.txt", []byte("# groups\ngroup_id=1,type=all,bucket=output:1\n\ngroup_id=2,type=nope\n"), groups.Add)
	if len(ms) != 1 || len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "g.txt:4:") {
		t.Errorf("ParseGroups: %v, %v", ms, errs)
	}
}

func TestFormatGroupStats(t *testing.T) {
	s := GroupStats{ID: 9, Duration: 3496 * time.Millisecond, RefCount: 1, Packets: 4, Bytes: 392, Buckets: [][2]uint64{{4, 392}, {0, 0}}}
	want := "group_id=9,duration=3.496s,ref_count=1,packet_count=4,byte_count=392,bucket0:packet_count=4,byte_count=392,bucket1:packet_count=0,byte_count=0"
	if got := FormatGroupStats(&s); got != want {
		t.Errorf("FormatGroupStats = %q\nwant %q", got, want)
	}
}

// FuzzParseGroup: what ParseGroup accepts, FormatGroup prints as a line
// that ParseGroup reads back to the same group.
func FuzzParseGroup(f *testing.F) {
	for _, s := range []string{
		"group_id=1,type=all,bucket=output:2,bucket=output:3",
		"group_id=2,type=select,bucket=weight:50,actions=output:1,bucket=output:3",
		"group_id=3,type=ff,bucket=watch_port:1,output:1,bucket=watch_group:4,actions=group:4",
		"group_id=4,type=indirect,bucket=actions=push_vlan:0x8100,set_field:4196->vlan_vid,CONTROLLER:64",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseGroup(s, groups.Add)
		if err != nil {
			return
		}
		line := FormatGroup(m.ID, m.Type, m.Buckets)
		back, err := ParseGroup(line, groups.Add)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, line, err)
		}
		if diff := cmp.Diff(m, back); diff != "" {
			t.Fatalf("%q printed as %q reads back differently (-first +second):\n%s", s, line, diff)
		}
	})
}

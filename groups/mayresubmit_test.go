package groups

import (
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestMayResubmitFollowsGroups: MayResubmit is true while a group with a
// resubmit action in a bucket is in the table readers load, set before
// that table is published, and false once a table without one is.
func TestMayResubmitFollowsGroups(t *testing.T) {
	tbl := New(nil)
	resub := []Bucket{{WatchPort: PortAny, WatchGroup: Any, Actions: []rules.Action{{Kind: rules.ActionResubmit, Table: 1, Port: rules.PortInPort}}}}
	out := []Bucket{{WatchPort: PortAny, WatchGroup: Any, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 2}}}}
	apply := func(m Mod) {
		t.Helper()
		if _, err := tbl.Apply(&m); err != nil {
			t.Fatal(err)
		}
	}
	want := func(step string, v bool) {
		t.Helper()
		if got := tbl.MayResubmit(); got != v {
			t.Fatalf("%s: MayResubmit %v, want %v", step, got, v)
		}
	}
	want("empty", false)
	apply(Mod{Command: Add, Type: TypeAll, ID: 1, Buckets: out})
	want("no resubmit", false)
	apply(Mod{Command: Add, Type: TypeAll, ID: 2, Buckets: resub})
	apply(Mod{Command: Add, Type: TypeIndirect, ID: 3, Buckets: resub})
	want("two groups with resubmit", true)
	apply(Mod{Command: Delete, ID: 2})
	want("one left", true)
	apply(Mod{Command: Modify, Type: TypeIndirect, ID: 3, Buckets: out})
	want("modified to an output", false)
	apply(Mod{Command: Modify, Type: TypeIndirect, ID: 3, Buckets: resub})
	want("modified to a resubmit", true)
	apply(Mod{Command: Delete, ID: All})
	want("all deleted", false)

	// Next sets it before the table is published; Publish of a table
	// without one clears it, of a union that keeps one does not.
	s := tbl.Load()
	ns, _, err := tbl.Next(s, &Mod{Command: Add, Type: TypeAll, ID: 4, Buckets: resub})
	if err != nil {
		t.Fatal(err)
	}
	want("made, not published", true)
	empty, _, _ := tbl.Next(ns, &Mod{Command: Delete, ID: 4})
	tbl.Publish(empty.Union(ns))
	want("a union with it published", true)
	tbl.Publish(empty)
	want("a table without it published", false)
}

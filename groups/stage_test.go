package groups

import (
	"slices"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestNextStages checks that Next leaves the published table and its
// argument alone, and that Publish and Union give readers what they need.
func TestNextStages(t *testing.T) {
	tb := New(nil)
	out := func(p uint32) []Bucket {
		return []Bucket{{WatchPort: PortAny, WatchGroup: Any, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: p}}}}
	}
	to := func(g uint32) []Bucket {
		return []Bucket{{WatchPort: PortAny, WatchGroup: Any, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: g}}}}
	}
	if _, err := tb.Apply(&Mod{Command: Add, ID: 1, Type: TypeAll, Buckets: out(1)}); err != nil {
		t.Fatal(err)
	}
	s0 := tb.Load()
	s1, _, err := tb.Next(s0, &Mod{Command: Add, ID: 2, Type: TypeAll, Buckets: to(1)})
	if err != nil {
		t.Fatal(err)
	}
	// A loop through the staged group 2 is seen in the staged table.
	if s, _, err := tb.Next(s1, &Mod{Command: Modify, ID: 1, Type: TypeAll, Buckets: to(2)}); code(err) != errTypeGroupModFailed<<8|CodeLoop || s != s1 {
		t.Fatalf("loop through a staged group: %v", err)
	}
	s2, del, err := tb.Next(s1, &Mod{Command: Delete, ID: 2})
	if err != nil || !slices.Equal(del, []uint32{2}) {
		t.Fatalf("delete staged group 2: %v %v", del, err)
	}
	if _, _, err := tb.Next(s2, &Mod{Command: Add, ID: 1, Type: TypeAll, Buckets: out(2)}); code(err) != errTypeGroupModFailed<<8|CodeGroupExists {
		t.Fatalf("duplicate add: %v", err)
	}
	if tb.Load() != s0 || s0.Len() != 1 || s1.Len() != 2 {
		t.Fatal("Next changed the table or its argument")
	}
	s3, del, err := tb.Next(s1, &Mod{Command: Delete, ID: All})
	if err != nil || len(del) != 2 || s3.Len() != 0 {
		t.Fatalf("delete all: %v %v", del, err)
	}
	u := s3.Union(s1)
	if u.Len() != 2 || u.Get(1) != s1.Get(1) || u.Get(2) != s1.Get(2) || s1.Union(s0) != s1 {
		t.Fatal("Union misses groups")
	}
	tb.Publish(s1)
	if tb.Load() != s1 {
		t.Fatal("Publish")
	}
}

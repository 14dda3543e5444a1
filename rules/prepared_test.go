package rules_test

import (
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestPrefetchPrepares checks that each update of a burst into a subtable
// that exists uses the subtable and hash that prefetch worked out for it
// while the update before was applied: adds and strict deletes.
func TestPrefetchPrepares(t *testing.T) {
	p, err := rules.New(&rules.Config{Filter: rules.FilterBloomCuckoo})
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	ups := make([]rules.Update, n+1)
	dels := make([]rules.Update, n)
	for i := range ups {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
		m.SetExact(rules.FieldIPv4Src, uint64(10<<24|i))
		m.SetExact(rules.FieldIPv4Dst, 10<<24|1)
		m.SetExact(rules.FieldL4Src, 1024)
		m.SetExact(rules.FieldL4Dst, 80)
		ups[i] = rules.Update{Match: m, Priority: 100}
		if i > 0 {
			dels[i-1] = rules.Update{Command: rules.CmdDeleteStrict, Match: m, Priority: 100}
		}
	}
	// The first add makes the subtable: prefetch finds none for it.
	apply := func(ups []rules.Update) {
		t.Helper()
		for i, err := range p.ApplyBurst(ups, true).Errs {
			if err != nil {
				t.Fatalf("update %d: %v", i, err)
			}
		}
	}
	apply(ups[:1])
	for _, c := range []struct {
		name string
		ups  []rules.Update
	}{{"add", ups[1:]}, {"delete", dels}} {
		before := rules.PrepHits(p)
		apply(c.ups)
		if got := rules.PrepHits(p) - before; got != n {
			t.Errorf("%s: %d of %d updates used what prefetch prepared", c.name, got, n)
		}
	}
	if st := p.Table(0).Stats(); st.Flows != 1 {
		t.Errorf("%d flows left, want 1", st.Flows)
	}
	for _, i := range rules.HeldPrepared(p) {
		t.Errorf("pre[%d] still holds an update after the burst", i)
	}
}

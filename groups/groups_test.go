package groups

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// oracle is the group table as a plain map, every check a linear walk.
type oracle struct {
	g map[uint32]Mod
}

// refs returns the groups m's buckets name.
func refsOf(m Mod) []uint32 {
	var out []uint32
	for _, b := range m.Buckets {
		if b.WatchGroup != Any {
			out = append(out, b.WatchGroup)
		}
		for _, a := range b.Actions {
			if a.Kind == rules.ActionGroup {
				out = append(out, a.Group)
			}
		}
	}
	return out
}

// longest returns the longest chain from id in g, or -1 if it loops.
func longest(g map[uint32]Mod, id uint32, seen []uint32) int {
	if slices.Contains(seen, id) {
		return -1
	}
	d := 0
	for _, r := range refsOf(g[id]) {
		x := longest(g, r, append(seen, id))
		if x < 0 {
			return -1
		}
		d = max(d, x)
	}
	return d + 1
}

func code(err error) int {
	var re *rules.Error
	if errors.As(err, &re) {
		return re.Type<<8 | re.Code
	}
	if err != nil {
		return -1
	}
	return 0
}

func gm(c int) int { return errTypeGroupModFailed<<8 | c }

func (o *oracle) apply(m Mod) (deleted []uint32, errc int) {
	switch m.Command {
	case Delete:
		if m.ID == All {
			for id := range o.g {
				deleted = append(deleted, id)
			}
			clear(o.g)
			slices.Sort(deleted)
			return deleted, 0
		}
		if _, ok := o.g[m.ID]; !ok {
			return nil, 0
		}
		for id, x := range o.g {
			if id != m.ID && slices.Contains(refsOf(x), m.ID) {
				return nil, gm(CodeChainedGroup)
			}
		}
		delete(o.g, m.ID)
		return []uint32{m.ID}, 0
	}
	if m.ID > Max {
		return nil, gm(CodeInvalidGroup)
	}
	if m.Type > TypeFF {
		return nil, gm(CodeBadType)
	}
	_, exists := o.g[m.ID]
	if m.Command == Add && exists {
		return nil, gm(CodeGroupExists)
	}
	if m.Command == Modify && !exists {
		return nil, gm(CodeUnknownGroup)
	}
	if m.Type == TypeIndirect && len(m.Buckets) != 1 {
		return nil, gm(CodeInvalidGroup)
	}
	for _, b := range m.Buckets {
		if b.Weight != 0 && m.Type != TypeSelect {
			return nil, gm(CodeInvalidGroup)
		}
		live := b.WatchPort != PortAny || b.WatchGroup != Any
		if live && (m.Type == TypeAll || m.Type == TypeIndirect) {
			return nil, gm(CodeWatchUnsupported)
		}
		if !live && m.Type == TypeFF {
			return nil, gm(CodeInvalidGroup)
		}
		if b.WatchGroup != Any {
			if b.WatchGroup > Max {
				return nil, gm(CodeBadWatch)
			}
			if b.WatchGroup == m.ID {
				return nil, gm(CodeLoop)
			}
			if _, ok := o.g[b.WatchGroup]; !ok {
				return nil, gm(CodeBadWatch)
			}
		}
		for _, a := range b.Actions {
			if a.Kind == rules.ActionGroup {
				if a.Group > Max {
					return nil, errTypeBadAction<<8 | badActionBadOutGroup
				}
				if a.Group == m.ID {
					return nil, gm(CodeLoop)
				}
				if _, ok := o.g[a.Group]; !ok {
					return nil, errTypeBadAction<<8 | badActionBadOutGroup
				}
			}
		}
	}
	next := map[uint32]Mod{}
	for k, v := range o.g {
		next[k] = v
	}
	next[m.ID] = m
	for id := range next {
		d := longest(next, id, nil)
		if d < 0 {
			return nil, gm(CodeLoop)
		}
	}
	for id := range next {
		if longest(next, id, nil) > MaxDepth {
			return nil, gm(CodeChainingUnsupported)
		}
	}
	o.g = next
	return nil, 0
}

func randomMod(r *rand.Rand) Mod {
	id := uint32(r.IntN(12))
	if r.IntN(40) == 0 {
		id = []uint32{Max, All, Any, Max + 1}[r.IntN(4)]
	}
	m := Mod{Command: Command(r.IntN(3)), Type: Type(r.IntN(4)), ID: id}
	if r.IntN(50) == 0 {
		m.Type = 4
	}
	if m.Command == Delete && r.IntN(20) == 0 {
		m.ID = All
	}
	nb := r.IntN(4)
	if m.Type == TypeIndirect && r.IntN(5) > 0 {
		nb = 1
	}
	for range nb {
		b := Bucket{WatchPort: PortAny, WatchGroup: Any}
		if m.Type == TypeSelect || r.IntN(30) == 0 {
			b.Weight = uint16(r.IntN(4))
		}
		if m.Type == TypeFF && r.IntN(10) > 0 || r.IntN(10) == 0 {
			if r.IntN(2) == 0 {
				b.WatchPort = uint32(r.IntN(4))
			} else {
				b.WatchGroup = uint32(r.IntN(12))
			}
		}
		b.Actions = []rules.Action{{Kind: rules.ActionOutput, Port: 1}}
		if r.IntN(3) == 0 {
			b.Actions = append(b.Actions, rules.Action{Kind: rules.ActionGroup, Group: uint32(r.IntN(12))})
		}
		m.Buckets = append(m.Buckets, b)
	}
	return m
}

func TestTableAgainstOracle(t *testing.T) {
	seen := map[int]bool{}
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		tbl := New(nil)
		o := &oracle{g: map[uint32]Mod{}}
		for step := range 400 {
			m := randomMod(r)
			wantDel, wantErr := o.apply(m)
			gotDel, err := tbl.Apply(&m)
			seen[wantErr] = true
			if got := code(err); got != wantErr || !slices.Equal(gotDel, wantDel) {
				t.Fatalf("seed %d step %d %+v: err %v (%#x), deleted %v; oracle %#x, %v", seed, step, m, err, got, gotDel, wantErr, wantDel)
			}
			s := tbl.Load()
			if s.Len() != len(o.g) {
				t.Fatalf("seed %d step %d: %d groups, oracle %d", seed, step, s.Len(), len(o.g))
			}
			for _, g := range s.Groups() {
				om, ok := o.g[g.ID]
				if !ok || om.Type != g.Type || len(om.Buckets) != len(g.Buckets) {
					t.Fatalf("seed %d step %d: group %d differs from the oracle's", seed, step, g.ID)
				}
			}
		}
	}
	for _, c := range []int{CodeGroupExists, CodeUnknownGroup, CodeLoop, CodeChainedGroup, CodeBadWatch, CodeInvalidGroup, CodeBadType, CodeWatchUnsupported} {
		if !seen[gm(c)] {
			t.Errorf("the random mods never met OFPGMFC code %d", c)
		}
	}
}

type ports map[uint32]bool

func (p ports) PortLive(n uint32) bool { return p[n] }

func TestFastFailoverAndWatchGroup(t *testing.T) {
	tbl := New(nil)
	out := func(p uint32) []rules.Action { return []rules.Action{{Kind: rules.ActionOutput, Port: p}} }
	mustApply(t, tbl, Mod{Command: Add, Type: TypeFF, ID: 1, Buckets: []Bucket{
		{WatchPort: 1, WatchGroup: Any, Actions: out(1)},
		{WatchPort: 2, WatchGroup: Any, Actions: out(2)},
	}})
	mustApply(t, tbl, Mod{Command: Add, Type: TypeFF, ID: 2, Buckets: []Bucket{
		{WatchPort: PortAny, WatchGroup: 1, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: 1}}},
		{WatchPort: 3, WatchGroup: Any, Actions: out(3)},
	}})
	s := tbl.Load()
	g1, g2 := s.Get(1), s.Get(2)
	for _, tt := range []struct {
		up     ports
		b1, b2 int
	}{
		{ports{1: true, 2: true, 3: true}, 0, 0},
		{ports{2: true, 3: true}, 1, 0},
		{ports{3: true}, -1, 1},
		{ports{}, -1, -1},
	} {
		if b := s.Pick(g1, 0, tt.up); b != tt.b1 {
			t.Errorf("ports %v: group 1 picks %d, want %d", tt.up, b, tt.b1)
		}
		if b := s.Pick(g2, 0, tt.up); b != tt.b2 {
			t.Errorf("ports %v: group 2 picks %d, want %d", tt.up, b, tt.b2)
		}
	}
	// Loops through watches and actions are refused when a MODIFY would close them.
	_, err := tbl.Apply(&Mod{Command: Modify, Type: TypeFF, ID: 1, Buckets: []Bucket{{WatchPort: PortAny, WatchGroup: 2}}})
	if code(err) != gm(CodeLoop) {
		t.Errorf("modify closing a loop: err %v, want OFPGMFC_LOOP", err)
	}
	// Group 1 is watched by group 2: it cannot go alone.
	if _, err := tbl.Apply(&Mod{Command: Delete, ID: 1}); code(err) != gm(CodeChainedGroup) {
		t.Errorf("delete of a chained group: err %v, want OFPGMFC_CHAINED_GROUP", err)
	}
	if del, err := tbl.Apply(&Mod{Command: Delete, ID: All}); err != nil || !slices.Equal(del, []uint32{1, 2}) {
		t.Errorf("delete all: %v, %v", del, err)
	}
}

// TestSelectSpread checks that SELECT spreads hashes in proportion to the
// weights, against a linear oracle, and that live buckets share alone.
func TestSelectSpread(t *testing.T) {
	tbl := New(nil)
	weights := []uint16{1, 2, 0, 5}
	var bs []Bucket
	for _, w := range weights {
		bs = append(bs, Bucket{Weight: w, WatchPort: PortAny, WatchGroup: Any})
	}
	mustApply(t, tbl, Mod{Command: Add, Type: TypeSelect, ID: 7, Buckets: bs})
	s := tbl.Load()
	g := s.Get(7)
	r := rand.New(rand.NewPCG(1, 2))
	count := make([]int, len(weights))
	const n = 80000
	for range n {
		h := r.Uint64()
		b := s.Pick(g, h, nil)
		// oracle: the bucket whose cumulative range holds h*8/2^64
		v := uint64(0)
		hi, _ := mulhi(h, 8)
		want := -1
		for i, w := range weights {
			if hi < v+uint64(w) {
				want = i
				break
			}
			v += uint64(w)
		}
		if b != want {
			t.Fatalf("hash %#x: bucket %d, oracle %d", h, b, want)
		}
		count[b]++
	}
	for i, w := range weights {
		want := float64(n) * float64(w) / 8
		if d := float64(count[i]) - want; d > 0.02*n || d < -0.02*n {
			t.Errorf("bucket %d (weight %d): %d of %d, want about %.0f", i, w, count[i], n, want)
		}
	}
	// With watches: a dead bucket's share goes to the others.
	bs[3].WatchPort = 9
	mustApply(t, tbl, Mod{Command: Modify, Type: TypeSelect, ID: 7, Buckets: bs})
	s = tbl.Load()
	g = s.Get(7)
	for range 1000 {
		if b := s.Pick(g, r.Uint64(), ports{}); b == 3 || b == 2 || b < 0 {
			t.Fatalf("dead or zero-weight bucket %d picked", b)
		}
	}
}

func mulhi(a, b uint64) (uint64, uint64) {
	// the oracle's own long multiplication
	a1, a0 := a>>32, a&0xffffffff
	b1, b0 := b>>32, b&0xffffffff
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&0xffffffff + a0*b1
	return a1*b1 + t>>32 + w1>>32, a * b
}

func mustApply(t *testing.T, tbl *Table, m Mod) {
	t.Helper()
	if _, err := tbl.Apply(&m); err != nil {
		t.Fatalf("apply %+v: %v", m, err)
	}
}

func TestPickAllocatesNothing(t *testing.T) {
	tbl := New(nil)
	mustApply(t, tbl, Mod{Command: Add, Type: TypeSelect, ID: 1, Buckets: []Bucket{
		{Weight: 1, WatchPort: 1, WatchGroup: Any}, {Weight: 3, WatchPort: PortAny, WatchGroup: Any}}})
	s := tbl.Load()
	g := s.Get(1)
	var k rules.Key
	p := ports{1: true}
	if n := testing.AllocsPerRun(100, func() {
		k.Set(rules.FieldIPv4Dst, k.Get(rules.FieldIPv4Dst)+1)
		s.Pick(g, FlowHash(&k), p)
		g.Count(64)
		g.CountBucket(0, 64)
	}); n != 0 {
		t.Errorf("Pick allocates %v times", n)
	}
}

func BenchmarkSelectSpread(b *testing.B) {
	tbl := New(nil)
	var bs []Bucket
	for i := range 8 {
		bs = append(bs, Bucket{Weight: uint16(1 + i), WatchPort: PortAny, WatchGroup: Any})
	}
	if _, err := tbl.Apply(&Mod{Command: Add, Type: TypeSelect, ID: 1, Buckets: bs}); err != nil {
		b.Fatal(err)
	}
	s := tbl.Load()
	g := s.Get(1)
	var k rules.Key
	var count [8]int
	b.ReportAllocs()
	for b.Loop() {
		k.Set(rules.FieldIPv4Dst, k.Get(rules.FieldIPv4Dst)+1)
		count[s.Pick(g, FlowHash(&k), nil)]++
	}
	// Report the worst bucket's share against its weight's (36 in all).
	worst := 0.0
	n := 0
	for _, c := range count {
		n += c
	}
	for i, c := range count {
		if n == 0 {
			break
		}
		want := float64(n) * float64(1+i) / 36
		worst = max(worst, abs(float64(c)-want)/want)
	}
	b.ReportMetric(worst, "max-rel-err")
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestChainDepth: a chain of MaxDepth groups goes in; one group more on
// either end is OFPGMFC_CHAINING_UNSUPPORTED.
func TestChainDepth(t *testing.T) {
	tbl := New(nil)
	via := func(id uint32) []Bucket {
		return []Bucket{{WatchPort: PortAny, WatchGroup: Any, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: id}}}}
	}
	mustApply(t, tbl, Mod{Command: Add, Type: TypeAll, ID: 1, Buckets: []Bucket{{WatchPort: PortAny, WatchGroup: Any}}})
	for id := uint32(2); id <= MaxDepth; id++ {
		mustApply(t, tbl, Mod{Command: Add, Type: TypeAll, ID: id, Buckets: via(id - 1)})
	}
	if _, err := tbl.Apply(&Mod{Command: Add, Type: TypeAll, ID: 100, Buckets: via(MaxDepth)}); code(err) != gm(CodeChainingUnsupported) {
		t.Errorf("a group above a full chain: %v, want OFPGMFC_CHAINING_UNSUPPORTED", err)
	}
	mustApply(t, tbl, Mod{Command: Add, Type: TypeAll, ID: 101, Buckets: []Bucket{{WatchPort: PortAny, WatchGroup: Any}}})
	if _, err := tbl.Apply(&Mod{Command: Modify, Type: TypeAll, ID: 1, Buckets: via(101)}); code(err) != gm(CodeChainingUnsupported) {
		t.Errorf("a group below a full chain: %v, want OFPGMFC_CHAINING_UNSUPPORTED", err)
	}
}

// TestChainFanOut: chains that share their groups are checked once a
// group: a ladder of MaxDepth groups, each naming the next two, has about
// 2^MaxDepth chains, which a walk of every chain would not finish, and
// goes in in time; one group more on top is OFPGMFC_CHAINING_UNSUPPORTED.
func TestChainFanOut(t *testing.T) {
	tbl := New(nil)
	to := func(ids ...uint32) []Bucket {
		var bs []Bucket
		for _, id := range ids {
			bs = append(bs, Bucket{WatchPort: PortAny, WatchGroup: Any, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: id}}})
		}
		return bs
	}
	mustApply(t, tbl, Mod{Command: Add, Type: TypeAll, ID: 1, Buckets: []Bucket{{WatchPort: PortAny, WatchGroup: Any}}})
	mustApply(t, tbl, Mod{Command: Add, Type: TypeAll, ID: 2, Buckets: to(1)})
	for id := uint32(3); id <= MaxDepth; id++ {
		mustApply(t, tbl, Mod{Command: Add, Type: TypeAll, ID: id, Buckets: to(id-1, id-2)})
	}
	if _, err := tbl.Apply(&Mod{Command: Add, Type: TypeAll, ID: 100, Buckets: to(MaxDepth, MaxDepth-1)}); code(err) != gm(CodeChainingUnsupported) {
		t.Errorf("a group above the ladder: %v, want OFPGMFC_CHAINING_UNSUPPORTED", err)
	}
	// Closing a loop through the ladder's top is still a loop.
	if _, err := tbl.Apply(&Mod{Command: Modify, Type: TypeAll, ID: 1, Buckets: to(MaxDepth)}); code(err) != gm(CodeLoop) {
		t.Errorf("a loop through the ladder: %v, want OFPGMFC_LOOP", err)
	}
}

// TestModifyCounters: a MODIFY starts the counters afresh and keeps the
// duration, as Open vSwitch does.
func TestModifyCounters(t *testing.T) {
	now := time.Unix(100, 0)
	tbl := New(func() time.Time { return now })
	b := []Bucket{{WatchPort: PortAny, WatchGroup: Any}}
	mustApply(t, tbl, Mod{Command: Add, Type: TypeAll, ID: 1, Buckets: b})
	tbl.Load().Get(1).Count(60)
	now = now.Add(time.Second)
	mustApply(t, tbl, Mod{Command: Modify, Type: TypeAll, ID: 1, Buckets: b})
	g := tbl.Load().Get(1)
	if p, _ := g.Stats(); p != 0 || !g.Created().Equal(time.Unix(100, 0)) {
		t.Errorf("after MODIFY: %d packets, created %v; want 0 and the ADD's time", p, g.Created())
	}
}

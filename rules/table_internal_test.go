package rules

import (
	"math/rand/v2"
	"testing"
)

// TestRelaxedWords checks the premise of a node's checks: coarseMask changes
// only the relaxed words, so a rule of a merged subtable matches a key
// exactly when the key matches the node's key and the rule's check.
func TestRelaxedWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	relaxed := map[int]bool{}
	for _, w := range relaxedWords {
		relaxed[int(w)] = true
	}
	prefixed := [...]Field{FieldIPv4Src, FieldIPv4Dst, FieldL4Src, FieldL4Dst, FieldARPSPA, FieldARPTPA}
	for range 2000 {
		var m Match
		for f := Field(0); f < numFields; f++ {
			if f.Bits() == 128 || rng.IntN(3) != 0 {
				continue
			}
			m.Set(f, rng.Uint64(), f.FullMask())
		}
		for _, f := range prefixed {
			if rng.IntN(2) == 0 {
				m.SetPrefix(f, rng.Uint64(), rng.IntN(f.Bits()+1))
			}
		}
		for _, g := range mergeLevels {
			cm := coarseMask(&m.Mask, g)
			for w := range cm {
				if cm[w] != m.Mask[w] && !relaxed[w] {
					t.Fatalf("coarseMask(%v, %d) changed word %d", m.Mask, g, w)
				}
			}
			st := &subtable{mask: cm}
			for w := range cm {
				if cm[w] != 0 {
					st.words[st.nw] = uint8(w)
					st.nw++
				}
			}
			pk := st.pack(&m.Key)
			n := &inode{st: st, key: pk}
			var c check
			r := &Rule{Match: m}
			c.set(r)
			for range 8 {
				k := m.Key
				for w := range k {
					if rng.IntN(4) == 0 {
						k[w] ^= uint64(1) << rng.IntN(64)
					}
				}
				want := m.Matches(&k)
				got := keyEqual(n, st, &k) && c.matches(&k)
				if got != want {
					t.Fatalf("match %v mask %v g %d key %v: node and check say %v, Matches %v", m.Key, m.Mask, g, k, got, want)
				}
			}
		}
	}
}

// TestSpareNodes: a table emptied and refilled gives the new subtable the
// nodes list of the one it dropped, with the room it had grown to.
func TestSpareNodes(t *testing.T) {
	p, err := New(&Config{UnlinkAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	ups, _ := emptyTestFlows(1000, 0, 10)
	mustApply(t, p, ups)
	tbl := p.Table(0)
	if len(tbl.subs) != 1 {
		t.Fatalf("%d subtables, want 1", len(tbl.subs))
	}
	var old *subtable
	for _, st := range tbl.subs {
		old = st
	}
	room := cap(old.nodes)
	mustApply(t, p, []Update{{Command: CmdDelete, Table: TableAll}})
	if len(tbl.subs) != 0 || cap(tbl.spareNodes) != room || len(tbl.spareNodes) != 0 {
		t.Fatalf("after deleting all: %d subtables, spare list len %d cap %d; want none, 0 and %d",
			len(tbl.subs), len(tbl.spareNodes), cap(tbl.spareNodes), room)
	}
	mustApply(t, p, ups)
	for _, st := range tbl.subs {
		if st == old || cap(st.nodes) != room || &st.nodes[0] != &old.nodes[:1][0] {
			t.Fatalf("the refilled table's subtable did not take the dropped one's nodes list (cap %d, want %d)", cap(st.nodes), room)
		}
	}
	if tbl.spareNodes != nil {
		t.Fatal("the spare list was not handed over")
	}
}

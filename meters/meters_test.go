package meters

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// oracleBucket is a plain token bucket in exact rational arithmetic: the
// reference the table's buckets are held to.
type oracleBucket struct {
	tokens, depth, perNs *big.Rat // tokens in packets or bits; refill per nanosecond
	last                 int64
}

func newOracle(flags uint16, b Band, now int64) *oracleBucket {
	burst := int64(b.BurstSize)
	if flags&FlagBurst == 0 || burst == 0 {
		burst = int64(b.Rate)
	}
	o := &oracleBucket{last: now}
	if flags&FlagKBPS != 0 {
		o.depth = big.NewRat(burst*1000, 1)
		o.perNs = big.NewRat(int64(b.Rate)*1000, 1e9)
	} else {
		o.depth = big.NewRat(burst, 1)
		o.perNs = big.NewRat(int64(b.Rate), 1e9)
	}
	o.tokens = new(big.Rat).Set(o.depth)
	return o
}

func (o *oracleBucket) take(now int64, cost int64) bool {
	add := new(big.Rat).Mul(o.perNs, big.NewRat(now-o.last, 1))
	o.tokens.Add(o.tokens, add)
	if o.tokens.Cmp(o.depth) > 0 {
		o.tokens.Set(o.depth)
	}
	o.last = now
	c := big.NewRat(cost, 1)
	if o.tokens.Cmp(c) < 0 {
		return false
	}
	o.tokens.Sub(o.tokens, c)
	return true
}

// oracleCharge is Meter.Charge against oracle buckets.
func oracleCharge(flags uint16, bands []Band, os []*oracleBucket, now int64, n int) int {
	cost := int64(1)
	if flags&FlagKBPS != 0 {
		cost = int64(n) * 8
	}
	best := -1
	for i, o := range os {
		if o.take(now, cost) {
			continue
		}
		if best < 0 || bands[i].Rate > bands[best].Rate {
			best = i
		}
	}
	return best
}

type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() int64 { return c.ns.Load() }

func TestChargeAgainstOracle(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags uint16
		bands []Band
		exact bool // every cost is a whole number of nanoseconds: the decisions agree one by one
	}{
		{"pktps drop", FlagPKTPS, []Band{{Type: BandDrop, Rate: 1000}}, true},
		{"pktps burst", FlagPKTPS | FlagBurst, []Band{{Type: BandDrop, Rate: 500, BurstSize: 20}}, true},
		{"kbps drop", FlagKBPS, []Band{{Type: BandDrop, Rate: 1000}}, true},
		{"kbps burst", FlagKBPS | FlagBurst, []Band{{Type: BandDrop, Rate: 8000, BurstSize: 100}}, true},
		{"two bands", FlagPKTPS | FlagBurst, []Band{{Type: BandDrop, Rate: 2000, BurstSize: 10},
			{Type: BandDSCPRemark, Rate: 1000, BurstSize: 5, PrecLevel: 1}}, true},
		{"three bands kbps", FlagKBPS | FlagBurst, []Band{{Type: BandDSCPRemark, Rate: 4000, BurstSize: 64, PrecLevel: 1},
			{Type: BandDrop, Rate: 8000, BurstSize: 32}, {Type: BandDSCPRemark, Rate: 2000, BurstSize: 16, PrecLevel: 2}}, true},
		{"odd rate pktps", FlagPKTPS | FlagBurst, []Band{{Type: BandDrop, Rate: 3, BurstSize: 2}}, false},
		{"odd rate kbps", FlagKBPS, []Band{{Type: BandDrop, Rate: 777}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var clk fakeClock
			clk.ns.Store(1e9)
			tbl := NewTable(&TableConfig{Clock: clk.now})
			if _, err := tbl.Apply(&Mod{Command: Add, Config: Config{ID: 7, Flags: tt.flags, Bands: tt.bands}}); err != nil {
				t.Fatal(err)
			}
			m := tbl.Lookup(7)
			var os []*oracleBucket
			for _, b := range tt.bands {
				os = append(os, newOracle(tt.flags, b, clk.now()))
			}
			r := rand.New(rand.NewPCG(1, 2))
			now := clk.now()
			var got, want [4]int   // packets per outcome (band index + 1)
			var gotB, wantB [4]int // and their bytes
			disagree := 0
			for i := 0; i < 20000; i++ {
				// Bursts of back-to-back packets and gaps around the
				// bands' rates.
				if r.IntN(4) == 0 {
					now += int64(r.IntN(3_000_000))
				}
				n := 64 + r.IntN(1437)
				g := m.Charge(now, n)
				w := oracleCharge(tt.flags, tt.bands, os, now, n)
				got[g+1]++
				want[w+1]++
				gotB[g+1] += n
				wantB[w+1] += n
				if g != w {
					disagree++
					if tt.exact {
						t.Fatalf("packet %d (%d bytes at %d ns): band %d, oracle %d", i, n, now, g, w)
					}
				}
			}
			// Where costs are rounded up (to the nanosecond), a bucket
			// may refuse a packet a hair before the oracle does; the
			// oracle then refuses a later one. What passes stays within
			// a packet or two of the oracle's: in packets for pktps, in
			// bytes for kbps.
			for k := range got {
				d, slack := got[k]-want[k], 2
				if tt.flags&FlagKBPS != 0 {
					d, slack = gotB[k]-wantB[k], 2*1500
				}
				if d < -slack || d > slack {
					t.Errorf("outcome %d: %d packets (%d bytes), oracle %d (%d bytes)", k-1, got[k], gotB[k], want[k], wantB[k])
				}
			}
			st := m.Stats(now)
			if st.PacketInCount != 20000 {
				t.Errorf("packet_in_count = %d", st.PacketInCount)
			}
			for i, b := range st.Bands {
				if int(b.Packets) != got[i+1] {
					t.Errorf("band %d packet count %d, applied %d", i, b.Packets, got[i+1])
				}
			}
		})
	}
}

// TestPktpsPassesRateTimesTimePlusBurst sends packets faster than the rate
// for a while: exactly burst + rate*time pass.
func TestPktpsPassesRateTimesTimePlusBurst(t *testing.T) {
	var clk fakeClock
	tbl := NewTable(&TableConfig{Clock: clk.now})
	tbl.Apply(&Mod{Command: Add, Config: Config{ID: 1, Flags: FlagPKTPS | FlagBurst, Bands: []Band{{Type: BandDrop, Rate: 100, BurstSize: 10}}}})
	m := tbl.Lookup(1)
	passed := 0
	for now := int64(0); now <= 2e9; now += 1e6 { // 1000 pps for 2 s
		if m.Charge(now, 100) < 0 {
			passed++
		}
	}
	if want := 10 + 100*2; passed != want {
		t.Errorf("passed %d, want %d", passed, want)
	}
}

func TestChargeConcurrent(t *testing.T) {
	var clk fakeClock
	tbl := NewTable(&TableConfig{Clock: clk.now})
	tbl.Apply(&Mod{Command: Add, Config: Config{ID: 1, Flags: FlagPKTPS | FlagBurst, Bands: []Band{{Type: BandDrop, Rate: 1000, BurstSize: 50}}}})
	m := tbl.Lookup(1)
	const workers, per = 4, 20000
	var passed atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			n := 0
			for i := range per {
				if w == 0 && i%10 == 0 {
					clk.ns.Add(100_000) // 0.1 ms
				}
				if m.Charge(clk.now(), 64) < 0 {
					n++
				}
			}
			passed.Add(int64(n))
		})
	}
	wg.Wait()
	elapsed := clk.now()
	max := 50 + 1000*elapsed/1e9
	if p := passed.Load(); p > max || p < 50 {
		t.Errorf("passed %d of %d, want 50..%d (%.3f s)", p, workers*per, max, float64(elapsed)/1e9)
	}
	if st := m.Stats(elapsed); st.PacketInCount != workers*per || int64(st.Bands[0].Packets) != workers*per-passed.Load() {
		t.Errorf("stats %+v, passed %d", st, passed.Load())
	}
}

func TestApplyErrors(t *testing.T) {
	drop := []Band{{Type: BandDrop, Rate: 5}}
	nine := make([]Band, 9)
	for i := range nine {
		nine[i] = Band{Type: BandDrop, Rate: uint32(i + 1)}
	}
	tbl := NewTable(&TableConfig{MaxMeters: 4})
	tbl.Apply(&Mod{Command: Add, Config: Config{ID: 1, Flags: FlagKBPS, Bands: drop}})
	for _, tt := range []struct {
		name string
		mod  Mod
		code Code // 0xffff: no error
	}{
		{"exists", Mod{Add, Config{1, FlagKBPS, drop}}, CodeMeterExists},
		{"id 0", Mod{Add, Config{0, FlagKBPS, drop}}, CodeInvalidMeter},
		{"id max+1", Mod{Add, Config{Max + 1, FlagKBPS, drop}}, CodeInvalidMeter},
		{"id all", Mod{Add, Config{All, FlagKBPS, drop}}, CodeInvalidMeter},
		{"modify all", Mod{Modify, Config{All, FlagKBPS, drop}}, CodeInvalidMeter},
		{"modify unknown", Mod{Modify, Config{9, FlagKBPS, drop}}, CodeUnknownMeter},
		{"no rate unit", Mod{Add, Config{2, 0, drop}}, CodeBadFlags},
		{"both units", Mod{Add, Config{2, FlagKBPS | FlagPKTPS, drop}}, CodeBadFlags},
		{"unknown flag", Mod{Add, Config{2, FlagKBPS | 0x10, drop}}, CodeBadFlags},
		{"no bands", Mod{Add, Config{2, FlagKBPS, nil}}, CodeOutOfBands},
		{"nine bands", Mod{Add, Config{2, FlagKBPS, nine}}, CodeOutOfBands},
		{"rate 0", Mod{Add, Config{2, FlagKBPS, []Band{{Type: BandDrop}}}}, CodeBadRate},
		{"band type 3", Mod{Add, Config{2, FlagKBPS, []Band{{Type: 3, Rate: 1}}}}, CodeBadBand},
		{"experimenter", Mod{Add, Config{2, FlagKBPS, []Band{{Type: BandExperimenter, Rate: 1}}}}, CodeBadBand},
		{"prec 0", Mod{Add, Config{2, FlagKBPS, []Band{{Type: BandDSCPRemark, Rate: 1}}}}, CodeBadBandValue},
		{"bad command", Mod{3, Config{2, FlagKBPS, drop}}, CodeBadCommand},
		{"remark on controller", Mod{Add, Config{Controller, FlagPKTPS, []Band{{Type: BandDSCPRemark, Rate: 1, PrecLevel: 1}}}}, CodeBadBand},
		{"controller", Mod{Add, Config{Controller, FlagPKTPS, drop}}, 0xffff},
		{"slowpath", Mod{Add, Config{Slowpath, FlagPKTPS, drop}}, 0xffff},
		{"max", Mod{Add, Config{Max, FlagPKTPS | FlagStats | FlagBurst, drop}}, 0xffff},
		{"out of meters", Mod{Add, Config{3, FlagPKTPS, drop}}, CodeOutOfMeters},
		{"delete unknown", Mod{Delete, Config{ID: 3}}, 0xffff},
	} {
		_, err := tbl.Apply(&tt.mod)
		var me *Error
		switch {
		case tt.code == 0xffff && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.code != 0xffff && (!errors.As(err, &me) || me.Code != tt.code):
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.code)
		}
	}
	if tbl.Controller() == nil || tbl.Controller().ID() != Controller {
		t.Errorf("Controller() = %v", tbl.Controller())
	}
	del, err := tbl.Apply(&Mod{Command: Delete, Config: Config{ID: All}})
	if err != nil || len(del) != 4 || tbl.Len() != 0 || tbl.Lookup(1) != nil || tbl.Controller() != nil {
		t.Errorf("delete all: %v %v, %d left", del, err, tbl.Len())
	}
}

func TestModifyKeepsCountersAndBuckets(t *testing.T) {
	var clk fakeClock
	tbl := NewTable(&TableConfig{Clock: clk.now})
	tbl.Apply(&Mod{Command: Add, Config: Config{ID: 1, Flags: FlagPKTPS | FlagBurst, Bands: []Band{{Type: BandDrop, Rate: 10, BurstSize: 2}}}})
	m := tbl.Lookup(1)
	for range 5 {
		m.Charge(0, 10)
	}
	clk.ns.Store(5e7) // 2 passed at 0: the bucket is empty until 0.2 s
	if _, err := tbl.Apply(&Mod{Command: Modify, Config: Config{ID: 1, Flags: FlagPKTPS | FlagBurst, Bands: []Band{{Type: BandDrop, Rate: 10, BurstSize: 3}}}}); err != nil {
		t.Fatal(err)
	}
	m2 := tbl.Lookup(1)
	passed := 0
	for range 5 {
		if m2.Charge(5e7, 10) < 0 {
			passed++
		}
	}
	st := m2.Stats(1e9)
	// A burst of 3 now, rate 10: at 0.05 s the bucket holds 3 - (0.2 -
	// 0.05)*10 = 1.5 packets.
	if passed != 1 || st.PacketInCount != 10 || st.ByteInCount != 100 || st.Duration != time.Second || st.Bands[0].Packets != 4 {
		t.Errorf("passed %d, stats %+v", passed, st)
	}
	if c := m2.Config(); c.Bands[0].BurstSize != 3 || len(tbl.Meters()) != 1 {
		t.Errorf("config %+v", c)
	}
	// The burst as Open vSwitch reports it: none without the flag, the
	// rate for 0 with it.
	tbl.Apply(&Mod{Command: Add, Config: Config{ID: 2, Flags: FlagKBPS, Bands: []Band{{Type: BandDrop, Rate: 5, BurstSize: 7}}}})
	tbl.Apply(&Mod{Command: Add, Config: Config{ID: 3, Flags: FlagKBPS | FlagBurst, Bands: []Band{{Type: BandDrop, Rate: 5}}}})
	if b2, b3 := tbl.Lookup(2).Band(0).BurstSize, tbl.Lookup(3).Band(0).BurstSize; b2 != 0 || b3 != 5 {
		t.Errorf("burst sizes %d, %d; want 0, 5", b2, b3)
	}
}

func TestLookupMany(t *testing.T) {
	tbl := NewTable(nil)
	r := rand.New(rand.NewPCG(3, 4))
	ids := map[uint32]bool{}
	for len(ids) < 500 {
		id := 1 + r.Uint32N(Max)
		if ids[id] {
			continue
		}
		ids[id] = true
		if _, err := tbl.Apply(&Mod{Command: Add, Config: Config{ID: id, Flags: FlagKBPS, Bands: []Band{{Type: BandDrop, Rate: 1}}}}); err != nil {
			t.Fatal(err)
		}
	}
	for id := range ids {
		if m := tbl.Lookup(id); m == nil || m.ID() != id {
			t.Fatalf("Lookup(%d) = %v", id, m)
		}
		if tbl.Lookup(id+1) != nil && !ids[id+1] {
			t.Fatalf("Lookup(%d) found a meter", id+1)
		}
	}
	list := tbl.Meters()
	for i := 1; i < len(list); i++ {
		if list[i-1].ID() >= list[i].ID() {
			t.Fatal("Meters not in id order")
		}
	}
	if a := testing.AllocsPerRun(100, func() { tbl.Lookup(list[7].ID()).Charge(5, 100) }); a != 0 {
		t.Errorf("Lookup+Charge allocates %v", a)
	}
}

func TestRemarkDSCP(t *testing.T) {
	for _, tt := range []struct{ in, prec, want uint8 }{
		{18, 1, 20}, // AF21 -> AF22
		{18, 2, 22}, // AF21 -> AF23
		{20, 5, 22}, // saturates at AF23
		{22, 1, 22},
		{10, 1, 12}, // AF11 -> AF12
		{38, 1, 38}, // AF43 stays
		{0, 1, 0},   // best effort: no drop precedence
		{46, 1, 46}, // EF
		{8, 1, 8},   // CS1
	} {
		if got := RemarkDSCP(tt.in, tt.prec); got != tt.want {
			t.Errorf("RemarkDSCP(%d, %d) = %d, want %d", tt.in, tt.prec, got, tt.want)
		}
	}
}

// TestIndexAgainstMap adds, modifies and deletes meters at random, the
// index growing and filling with tombstones, against a map.
func TestIndexAgainstMap(t *testing.T) {
	tbl := NewTable(&TableConfig{MaxMeters: 3000})
	want := map[uint32]uint32{} // id -> rate
	r := rand.New(rand.NewPCG(5, 6))
	for step := range 60000 {
		id := 1 + r.Uint32N(4000)
		if step%5000 == 4999 {
			id = Controller
		}
		rate := 1 + r.Uint32N(1000)
		cmd := Command(r.IntN(3))
		_, err := tbl.Apply(&Mod{Command: cmd, Config: Config{ID: id, Flags: FlagKBPS, Bands: []Band{{Type: BandDrop, Rate: rate}}}})
		_, had := want[id]
		switch {
		case cmd == Add && !had && len(want) < 3000, cmd == Modify && had:
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			want[id] = rate
		case cmd == Delete:
			delete(want, id)
		case err == nil:
			t.Fatalf("step %d: command %d of meter %d (present %v) taken", step, cmd, id, had)
		}
		if m := tbl.Lookup(id); (m != nil) != (want[id] != 0) || m != nil && m.Band(0).Rate != want[id] {
			t.Fatalf("step %d: Lookup(%d) = %v, want rate %d", step, id, m, want[id])
		}
	}
	if tbl.Len() != len(want) || len(tbl.Meters()) != len(want) {
		t.Fatalf("Len %d, Meters %d, want %d", tbl.Len(), len(tbl.Meters()), len(want))
	}
	for _, m := range tbl.Meters() {
		if want[m.ID()] != m.Band(0).Rate {
			t.Fatalf("meter %d rate %d, want %d", m.ID(), m.Band(0).Rate, want[m.ID()])
		}
	}
	if (tbl.Controller() != nil) != (want[Controller] != 0) {
		t.Errorf("Controller() = %v", tbl.Controller())
	}
	// 65536 meters one Apply at a time: O(1) each.
	big := NewTable(nil)
	for i := range uint32(DefaultMaxMeters) {
		if _, err := big.Apply(&Mod{Command: Add, Config: Config{ID: i + 1, Flags: FlagKBPS, Bands: []Band{{Type: BandDrop, Rate: 1}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if big.Len() != DefaultMaxMeters || big.Lookup(DefaultMaxMeters) == nil {
		t.Errorf("%d meters", big.Len())
	}
}

package ofrules

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

func tlvCode(err error) int {
	var em openflow.ErrorMsg
	if !errors.As(err, &em) {
		return -1
	}
	return int(em.Code)
}

// TestTLVTablesAlloc checks the allocator against Open vSwitch's
// tun_metadata_alloc_chain: first fit, else split over the longest free
// runs; all or nothing; deletes free the bytes.
func TestTLVTablesAlloc(t *testing.T) {
	var ts TLVTables
	add := func(maps ...openflow.TLVMap) error {
		return ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVAdd, Maps: maps}, nil)
	}
	del := func(idx ...uint16) error {
		m := &openflow.TLVTableMod{Command: openflow.TLVDelete}
		for _, i := range idx {
			m.Maps = append(m.Maps, openflow.TLVMap{Index: i})
		}
		return ts.Mod(m, nil)
	}
	chunks := func(idx int) []TLVChunk {
		f, ok := ts.Load().Mapping(idx)
		if !ok {
			return nil
		}
		return f.Chunks[:f.NChunks]
	}
	if err := add(openflow.TLVMap{OptionType: 0, OptionLen: 4, Index: 0}, openflow.TLVMap{OptionType: 1, OptionLen: 8, Index: 1},
		openflow.TLVMap{OptionType: 2, OptionLen: 4, Index: 2}, openflow.TLVMap{OptionType: 3, OptionLen: 16, Index: 3}); err != nil {
		t.Fatal(err)
	}
	if got := chunks(3); len(got) != 1 || got[0] != (TLVChunk{16, 16}) {
		t.Fatalf("tun_metadata3 at %v", got)
	}
	// Full: nothing of a failed mod stays.
	if err := add(openflow.TLVMap{OptionType: 9, OptionLen: 0, Index: 9}, openflow.TLVMap{OptionType: 4, OptionLen: 4, Index: 4}); tlvCode(err) != 19 {
		t.Fatalf("add to a full table: %v", err)
	}
	if _, ok := ts.Load().Mapping(9); ok {
		t.Fatal("tun_metadata9 stayed after a failed mod")
	}
	// Free 0-4 and 12-16: 8 bytes come back in two pieces, in order.
	if err := del(0, 2, 40); err != nil {
		t.Fatal(err)
	}
	if err := add(openflow.TLVMap{OptionType: 5, OptionLen: 8, Index: 5}); err != nil {
		t.Fatal(err)
	}
	if got := chunks(5); len(got) != 2 || got[0] != (TLVChunk{0, 4}) || got[1] != (TLVChunk{12, 4}) {
		t.Fatalf("tun_metadata5 at %v", got)
	}
	m := ts.Load().Mask(5)
	if !m[0] || !m[3] || m[4] || !m[12] || !m[15] || m[16] {
		t.Fatalf("Mask(5) = %v", m)
	}
	for _, c := range []struct {
		m    openflow.TLVMap
		code int
	}{
		{openflow.TLVMap{OptionType: 7, OptionLen: 4, Index: 1}, 20}, // ALREADY_MAPPED
		{openflow.TLVMap{OptionType: 1, OptionLen: 4, Index: 7}, 21}, // DUP_ENTRY
		{openflow.TLVMap{OptionType: 7, OptionLen: 5, Index: 7}, 17}, // BAD_OPT_LEN
		{openflow.TLVMap{OptionType: 7, OptionLen: 4, Index: 64}, 18},
	} {
		if err := add(c.m); tlvCode(err) != c.code {
			t.Errorf("%+v: %v, want code %d", c.m, err, c.code)
		}
	}
	// In use: the delete and the clear are refused and change nothing.
	inUse := func(old *TLVTable, removed []int) bool { return len(removed) == 1 && removed[0] == 3 }
	if err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVDelete, Maps: []openflow.TLVMap{{Index: 3}}}, inUse); tlvCode(err) != 38 {
		t.Fatalf("delete in use: %v", err)
	}
	all := func(old *TLVTable, removed []int) bool { return len(removed) == 3 }
	if err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVClear}, all); tlvCode(err) != 38 {
		t.Fatalf("clear in use: %v", err)
	}
	if n := len(ts.Load().Maps()); n != 3 {
		t.Fatalf("%d mappings after refusals, want 3", n)
	}
	if err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVClear}, nil); err != nil || len(ts.Load().Maps()) != 0 {
		t.Fatalf("clear: %v, %v", err, ts.Load().Maps())
	}
	if err := add(openflow.TLVMap{OptionType: 3, OptionLen: 32, Index: 3}); err != nil {
		t.Fatalf("32 bytes into a cleared table: %v", err)
	}
}

// TestTunMetadataMatch translates NXM_NX_TUN_METADATA entries with a
// table that splits tun_metadata1 over two runs: values right-aligned in
// the mapped length (a longer payload gives its first bytes, as Open
// vSwitch's copy_entry_value), masks, the refusals, and the way back.
func TestTunMetadataMatch(t *testing.T) {
	var ts TLVTables
	mod := func(cmd uint16, maps ...openflow.TLVMap) {
		t.Helper()
		if err := ts.Mod(&openflow.TLVTableMod{Command: cmd, Maps: maps}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// tun_metadata0 at 0-4, tun_metadata3 at 4-8, tun_metadata2 at 8-16;
	// deleting 0 and 2 frees 0-4 and 8-32.
	mod(openflow.TLVAdd, openflow.TLVMap{OptionType: 0, OptionLen: 4, Index: 0}, openflow.TLVMap{OptionType: 3, OptionLen: 4, Index: 3},
		openflow.TLVMap{OptionType: 2, OptionLen: 8, Index: 2})
	mod(openflow.TLVDelete, openflow.TLVMap{Index: 0}, openflow.TLVMap{Index: 2})
	mod(openflow.TLVAdd, openflow.TLVMap{OptionType: 5, OptionLen: 20, Index: 5}, openflow.TLVMap{OptionType: 1, OptionLen: 8, Index: 1})
	// tun_metadata5 fits whole from 8 (first fit); tun_metadata1 then
	// has 0-4 and 28-32.
	f1, ok := ts.Load().Mapping(1)
	if !ok || f1.NChunks != 2 || f1.Chunks[0] != (TLVChunk{0, 4}) || f1.Chunks[1] != (TLVChunk{28, 4}) {
		t.Fatalf("tun_metadata1 at %+v", f1)
	}
	opt := &Options{TLV: &ts}
	nx := func(idx int, val, mask []byte) openflow.OXM {
		return openflow.NXM(openflow.OXMClassNXM1, openflow.OXMField(40+idx), val, mask)
	}
	var m rules.Match
	err := Match(&m, &openflow.Match{Fields: []openflow.OXM{nx(1, []byte{0x12, 0x34}, nil), nx(3, []byte{0xab}, []byte{0xff})}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	ks, ms := optionSpace(&m.Key), optionSpace(&m.Mask)
	// tun_metadata1 = 00 00 00 00 | 00 00 12 34, exact.
	if ks[30] != 0x12 || ks[31] != 0x34 || ms[0] != 0xff || ms[31] != 0xff || ms[8] != 0 {
		t.Fatalf("option space key %x mask %x", ks, ms)
	}
	// tun_metadata3 at 4-8 = 00 00 00 ab under 00 00 00 ff.
	if ks[7] != 0xab || ms[7] != 0xff || ms[6] != 0 {
		t.Fatalf("tun_metadata3: key %x mask %x", ks[4:8], ms[4:8])
	}
	back := WireMatchTLV(&m, ts.Load())
	want := []openflow.OXM{nx(1, []byte{0, 0, 0, 0, 0, 0, 0x12, 0x34}, nil), nx(3, []byte{0, 0, 0, 0xab}, []byte{0, 0, 0, 0xff})}
	if len(back.Fields) != 2 || string(back.Fields[0].Data) != string(want[0].Data) || back.Fields[0].HasMask ||
		string(back.Fields[1].Data) != string(want[1].Data) || !back.Fields[1].HasMask || back.Fields[1].Field != 43 {
		t.Fatalf("back: %+v", back.Fields)
	}
	if len(WireMatch(&m).Fields) != 0 {
		t.Fatalf("WireMatch without a table writes %+v", WireMatch(&m).Fields)
	}
	// A longer payload gives its first bytes.
	if err := Match(&m, &openflow.Match{Fields: []openflow.OXM{nx(3, []byte{1, 2, 3, 4, 5, 6}, nil)}}, opt); err != nil {
		t.Fatal(err)
	}
	if ks := optionSpace(&m.Key); ks[4] != 1 || ks[7] != 4 {
		t.Fatalf("long payload: %x", ks[4:8])
	}
	for _, c := range []struct {
		name   string
		fields []openflow.OXM
		code   int
		typ    openflow.ErrorType
	}{
		{"unmapped", []openflow.OXM{nx(4, []byte{1}, nil)}, 37, openflow.ErrTypeExperimenter},
		{"twice", []openflow.OXM{nx(3, []byte{1}, nil), nx(3, []byte{2}, nil)}, int(openflow.BadMatchDupField), openflow.ErrTypeBadMatch},
		{"value outside mask", []openflow.OXM{nx(3, []byte{3}, []byte{1})}, int(openflow.BadMatchBadWildcards), openflow.ErrTypeBadMatch},
		{"odd masked payload", []openflow.OXM{{Class: openflow.OXMClassNXM1, Field: 43, HasMask: true, Data: []byte{1, 2, 3}}},
			int(openflow.BadMatchBadLen), openflow.ErrTypeBadMatch},
	} {
		err := Match(&m, &openflow.Match{Fields: c.fields}, opt)
		var em openflow.ErrorMsg
		if !errors.As(err, &em) || em.Type != c.typ || int(em.Code) != c.code {
			t.Errorf("%s: %v, want type %v code %d", c.name, err, c.typ, c.code)
		}
	}
	// Without a table every field is unmapped.
	if err := Match(&m, &openflow.Match{Fields: []openflow.OXM{nx(1, []byte{1}, nil)}}, nil); tlvCode(err) != 37 {
		t.Errorf("no table: %v", err)
	}
	// UsesTLVFields sees tun_metadata3's bytes only.
	Match(&m, &openflow.Match{Fields: []openflow.OXM{nx(3, []byte{1}, nil)}}, opt)
	if !UsesTLVFields(&m, ts.Load(), []int{3}) || UsesTLVFields(&m, ts.Load(), []int{1, 5}) {
		t.Error("UsesTLVFields")
	}
}

// TestTLVTablesConcurrent changes the table from one goroutine while
// others translate matches through it (run with -race): every
// translation sees one whole version, mapped or not.
func TestTLVTablesConcurrent(t *testing.T) {
	var ts TLVTables
	opt := &Options{TLV: &ts}
	done := make(chan struct{})
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			o := openflow.NXM(openflow.OXMClassNXM1, 40, []byte{1, 2, 3, 4}, nil)
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				var m rules.Match
				err := Match(&m, &openflow.Match{Fields: []openflow.OXM{o}}, opt)
				if err != nil && tlvCode(err) != 37 {
					errs <- err
					return
				}
				if err == nil && optionSpace(&m.Key)[3] != 4 {
					errs <- errors.New("tun_metadata0 translated into the wrong bytes")
					return
				}
			}
		}()
	}
	for i := range 2000 {
		cmd := openflow.TLVAdd
		if i%2 == 1 {
			cmd = openflow.TLVDelete
		}
		if err := ts.Mod(&openflow.TLVTableMod{Command: cmd, Maps: []openflow.TLVMap{{OptionLen: 4, Index: 0}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestGroupModTLV translates a GROUP_MOD whose buckets set and move
// tun_metadata0 through a TLV table: GroupMod, without the table, refuses
// it; GroupModTLV makes the set_field the load of the mapped option
// space bytes, and UsesTLVBuckets finds the field in the buckets.
func TestGroupModTLV(t *testing.T) {
	var ts TLVTables
	// tun_metadata1 takes bytes 0-3 of the option space, tun_metadata0 4-7.
	if err := ts.Mod(&openflow.TLVTableMod{Command: openflow.TLVAdd, Maps: []openflow.TLVMap{{OptionLen: 4, Index: 1}, {OptionType: 1, OptionLen: 4, Index: 0}}}, nil); err != nil {
		t.Fatal(err)
	}
	set := openflow.SetField(openflow.NXM(openflow.OXMClassNXM1, nxmTunMetadata0, []byte{0x12, 0x34}, nil))
	mv := openflow.NXAction{Subtype: openflow.NXRegMove, NBits: 8, SrcOfs: 0, DstOfs: 0,
		Src: openflow.OXMHeader(1<<16 | (nxmTunMetadata0+1)<<9 | 4), Dst: openflow.OXMHeader(1<<16 | 0<<9 | 4)}
	gm := openflow.GroupMod{Command: openflow.GroupAdd, Type: openflow.GroupTypeAll, GroupID: 1,
		Buckets: []openflow.Bucket{{WatchPort: openflow.PortAny, WatchGroup: openflow.GroupAny, Actions: []openflow.Action{openflow.Output(1, 0)}},
			{WatchPort: openflow.PortAny, WatchGroup: openflow.GroupAny, Actions: []openflow.Action{set, mv.Action(), openflow.Output(2, 0)}}}}
	var m groups.Mod
	if err := GroupMod(&m, &gm); tlvCode(err) != 37 {
		t.Fatalf("GroupMod without a table: %v, want NXFMFC_INVALID_TLV_FIELD", err)
	}
	if err := GroupModTLV(&m, &gm, ts.Load()); err != nil {
		t.Fatal(err)
	}
	as := m.Buckets[1].Actions
	if len(as) != 3 || as[0].Kind != rules.ActionLoad || as[0].Field != rules.FieldTunOpts0 ||
		as[0].Value != [2]uint64{0xffffffff, 0x1234} || as[0].Ext == nil || as[0].Ext.TunMetadata != 1 {
		t.Fatalf("bucket actions %+v", as)
	}
	if as[1].Ext == nil || as[1].Ext.SrcTun != 2 {
		t.Fatalf("move %+v", as[1])
	}
	for _, c := range []struct {
		removed []int
		want    bool
	}{{[]int{0}, true}, {[]int{1}, true}, {[]int{2, 3}, false}, {nil, false}} {
		if got := UsesTLVBuckets(m.Buckets, c.removed); got != c.want {
			t.Errorf("UsesTLVBuckets(%v) = %v, want %v", c.removed, got, c.want)
		}
	}
	if UsesTLVBuckets(m.Buckets[:1], []int{0, 1}) {
		t.Error("UsesTLVBuckets finds a field in a bucket that only outputs")
	}
	if _, err := Actions([]openflow.Action{set}); tlvCode(err) != 37 {
		t.Errorf("Actions without a table: %v", err)
	}
	if as, err := ActionsTLV([]openflow.Action{set}, ts.Load()); err != nil || len(as) != 1 || as[0].Value[1] != 0x1234 {
		t.Errorf("ActionsTLV: %+v, %v", as, err)
	}
}

func TestEncoderTLV(t *testing.T) {
	maps := []openflow.TLVMap{
		{OptionClass: 0xffff, OptionType: 5, OptionLen: 8, Index: 5},
		{OptionClass: 0xffff, OptionType: 0, OptionLen: 4, Index: 0},
		{OptionClass: 0xffff, OptionType: 9, OptionLen: 124, Index: 9}, // beyond OptionSpace
	}
	client, left := NewTLVTable(maps)
	if len(left) != 1 || left[0] != 9 {
		t.Fatalf("left out %v, want [9]", left)
	}
	var sw TLVTables // adds 5 before 0: other places than client's
	if err := sw.Mod(&openflow.TLVTableMod{Maps: maps[:2]}, nil); err != nil {
		t.Fatal(err)
	}
	var p0, p5 []uint8
	p0, _ = client.TunMetadataPlace(nil, 0)
	p5, _ = client.TunMetadataPlace(nil, 5)
	if s0, _ := sw.Load().TunMetadataPlace(nil, 0); string(s0) == string(p0) {
		t.Fatalf("client and switch place tun_metadata0 alike (%v): the test needs them apart", p0)
	}
	mk := func(v byte) rules.Update {
		u := rules.Update{Command: rules.CmdAdd, Priority: 10}
		u.Match.SetTunMetadata(p0, []byte{0, 0, 0x12, v}, []byte{0xff, 0xff, 0xff, 0xff})
		acts := rules.TunMetadataLoads(nil, 5, p5, []byte{0, 0, 0, 0, 0, 0, 0xab, v}, []byte{0, 0, 0, 0, 0, 0, 0xff, 0xff})
		acts = append(acts, rules.Action{Kind: rules.ActionOutput, Port: 2})
		u.Instructions = []rules.Instruction{{Kind: rules.InstApplyActions, Actions: acts}}
		return u
	}
	enc := &Encoder{TLV: client}
	for _, v := range []byte{1, 2} { // the second as a run's next flow
		u := mk(v)
		msg, err := enc.Encode(nil, &u, openflow.Version13, 7)
		if err != nil {
			t.Fatal(err)
		}
		var fm openflow.FlowMod
		if err := fm.UnmarshalBinary(msg); err != nil {
			t.Fatal(err)
		}
		if len(fm.Match.Fields) != 1 || fm.Match.Fields[0].Field != 40 || fm.Match.Fields[0].HasMask ||
			string(fm.Match.Fields[0].Data) != string([]byte{0, 0, 0x12, v}) {
			t.Fatalf("match %+v, want tun_metadata0=0x12%02x of 4 bytes", fm.Match.Fields, v)
		}
		var got rules.Update
		if err := FlowMod(&got, &fm, &Options{TLV: &sw}); err != nil {
			t.Fatalf("switch refuses %x: %v", msg, err)
		}
		back, err := (&Encoder{TLV: sw.Load()}).Encode(nil, &got, openflow.Version13, 7)
		if err != nil {
			t.Fatal(err)
		}
		if string(back) != string(msg) {
			t.Fatalf("switch's flow encodes to\n%x, client sent\n%x", back, msg)
		}
		var plain openflow.FlowMod
		WireFlowMod(&plain, &u)
		if len(plain.Match.Fields) != 0 {
			t.Fatalf("without a table the match writes %+v", plain.Match.Fields)
		}
	}
}

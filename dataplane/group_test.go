package dataplane

import (
	"bytes"
	"encoding/hex"
	"net"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

func bucket(as ...rules.Action) groups.Bucket {
	return groups.Bucket{WatchPort: groups.PortAny, WatchGroup: groups.Any, Actions: as}
}

func addGroup(t testing.TB, tbl *groups.Table, typ groups.Type, id uint32, bs ...groups.Bucket) {
	t.Helper()
	if _, err := tbl.Apply(&groups.Mod{Command: groups.Add, Type: typ, ID: id, Buckets: bs}); err != nil {
		t.Fatalf("add group %d: %v", id, err)
	}
}

// groupSwitch is a switch of ports 1-4 that record what they send, with
// flows and the groups of tbl.
func groupSwitch(t testing.TB, tables int, flows string, tbl *groups.Table) (*Switch, map[uint32]*recPort) {
	t.Helper()
	pipe := testPipeline(t, tables, rules.FilterBloomCuckoo, flows)
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}, 4: {}}
	devs := map[uint32]Port{}
	for n, p := range ports {
		devs[n] = p
	}
	return NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3, 4}, Devices: devs, Groups: tbl}), ports
}

// TestGroupActions: each bucket works on its own copy of the packet, the
// packet leaves the group as it entered it, groups chain, the action set
// runs a group instead of its output, and counters count.
func TestGroupActions(t *testing.T) {
	v4tcp := func(mod func(*layers.Ethernet, *layers.IPv4)) []byte {
		e, ip := eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP)
		if mod != nil {
			mod(e, ip)
		}
		return build(t, e, ip, tcp(), gopacket.Payload("hello, a payload long enough"))
	}
	newMAC := net.HardwareAddr{2, 0, 0, 0, 0, 0x99}
	dstMAC := rules.Action{Kind: rules.ActionSetField, Field: rules.FieldEthDst, Value: [2]uint64{0, 0x020000000099}}
	mkGroups := func(t *testing.T) *groups.Table {
		tbl := groups.New(nil)
		addGroup(t, tbl, groups.TypeAll, 1, bucket(dstMAC, out(2)), bucket(out(3)))
		addGroup(t, tbl, groups.TypeIndirect, 2, bucket(rules.Action{Kind: rules.ActionDecNwTTL}, out(2)))
		addGroup(t, tbl, groups.TypeAll, 3, bucket(rules.Action{Kind: rules.ActionGroup, Group: 2}), bucket(out(3)))
		return tbl
	}
	for _, tt := range []struct {
		name   string
		tables int
		flows  string
		want   map[uint32][]byte
		groups map[uint32][]uint64 // group id: packets of the group, then of each bucket
	}{
		{name: "all", flows: "in_port=1,actions=group:1,output:4",
			want: map[uint32][]byte{
				2: v4tcp(func(e *layers.Ethernet, _ *layers.IPv4) { e.DstMAC = newMAC }),
				3: v4tcp(nil), 4: v4tcp(nil)},
			groups: map[uint32][]uint64{1: {1, 1, 1}}},
		{name: "owned-frame", flows: "in_port=1,actions=set_field:02:00:00:00:00:99->eth_src,group:1,output:4",
			want: map[uint32][]byte{
				2: v4tcp(func(e *layers.Ethernet, _ *layers.IPv4) { e.DstMAC, e.SrcMAC = newMAC, newMAC }),
				3: v4tcp(func(e *layers.Ethernet, _ *layers.IPv4) { e.SrcMAC = newMAC }),
				4: v4tcp(func(e *layers.Ethernet, _ *layers.IPv4) { e.SrcMAC = newMAC })}},
		{name: "indirect", flows: "in_port=1,actions=group:2",
			want:   map[uint32][]byte{2: v4tcp(func(_ *layers.Ethernet, ip *layers.IPv4) { ip.TTL = 60 })},
			groups: map[uint32][]uint64{2: {1, 1}}},
		{name: "chained", flows: "in_port=1,actions=group:3",
			want: map[uint32][]byte{
				2: v4tcp(func(_ *layers.Ethernet, ip *layers.IPv4) { ip.TTL = 60 }),
				3: v4tcp(nil)},
			groups: map[uint32][]uint64{3: {1, 1, 1}, 2: {1, 1}, 1: {0, 0, 0}}},
		{name: "action-set-group-over-output", tables: 2,
			flows: "table=0,in_port=1,actions=write_actions(output:4,group:1),goto_table:1\ntable=1,actions=write_actions(set_field:02:00:00:00:00:99->eth_src)",
			want: map[uint32][]byte{
				2: v4tcp(func(e *layers.Ethernet, _ *layers.IPv4) { e.DstMAC, e.SrcMAC = newMAC, newMAC }),
				3: v4tcp(func(e *layers.Ethernet, _ *layers.IPv4) { e.SrcMAC = newMAC })}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tbl := mkGroups(t)
			sw, ports := groupSwitch(t, max(tt.tables, 1), tt.flows, tbl)
			in := v4tcp(nil)
			orig := bytes.Clone(in)
			sendOne(sw.Worker(0), in, 1)
			if !bytes.Equal(in, orig) {
				t.Error("the input frame was modified")
			}
			for n, p := range ports {
				want, ok := tt.want[n]
				switch {
				case !ok && len(p.frames) != 0:
					t.Errorf("port %d got %d frames, want none", n, len(p.frames))
				case ok && len(p.frames) != 1:
					t.Errorf("port %d got %d frames, want 1", n, len(p.frames))
				case ok && !bytes.Equal(p.frames[0], want):
					t.Errorf("port %d:\n got %s\nwant %s", n, hex.EncodeToString(p.frames[0]), hex.EncodeToString(want))
				}
			}
			s := tbl.Load()
			for id, want := range tt.groups {
				g := s.Get(id)
				if p, b := g.Stats(); p != want[0] || b != want[0]*uint64(len(in)) {
					t.Errorf("group %d: %d packets %d bytes, want %d packets", id, p, b, want[0])
				}
				for i, wb := range want[1:] {
					if p, _ := g.BucketStats(i); p != wb {
						t.Errorf("group %d bucket %d: %d packets, want %d", id, i, p, wb)
					}
				}
			}
			if c := sw.Stats(); c.Drops != 0 || c.GroupDrops != 0 {
				t.Errorf("drops %d group drops %d", c.Drops, c.GroupDrops)
			}
		})
	}
}

// TestGroupFastFailover: a FAST_FAILOVER group sends out of its first
// bucket whose watched port is up, and drops when none is.
func TestGroupFastFailover(t *testing.T) {
	tbl := groups.New(nil)
	ff := func(port uint32) groups.Bucket {
		b := bucket(out(port))
		b.WatchPort = port
		return b
	}
	addGroup(t, tbl, groups.TypeFF, 1, ff(2), ff(3))
	sw, ports := groupSwitch(t, 1, "in_port=1,actions=group:1", tbl)
	frame := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp())
	counts := func() [5]int {
		var c [5]int
		for n, p := range ports {
			c[n] = len(p.frames)
		}
		return c
	}
	sendOne(sw.Worker(0), frame, 1)
	sw.SetPortLive(2, false)
	sendOne(sw.Worker(0), frame, 1)
	sw.SetPortLive(3, false)
	sendOne(sw.Worker(0), frame, 1)
	sw.SetPortLive(2, true)
	sendOne(sw.Worker(0), frame, 1)
	if got, want := counts(), [5]int{0, 0, 2, 1, 0}; got != want {
		t.Errorf("frames per port %v, want %v", got, want)
	}
	if c := sw.Stats(); c.GroupDrops != 1 {
		t.Errorf("group drops %d, want 1 (no live bucket)", c.GroupDrops)
	}
}

// selectFlows returns n frames of n different TCP flows.
func selectFlows(t testing.TB, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		ip := ipv4(layers.IPProtocolTCP)
		ip.SrcIP = net.IP{10, byte(i >> 16), byte(i >> 8), byte(i)}
		tc := tcp()
		tc.SrcPort = layers.TCPPort(1024 + i%50000)
		out[i] = build(t, eth(layers.EthernetTypeIPv4), ip, tc)
	}
	return out
}

// TestGroupSelectSpread: a SELECT group of weights 1 and 2 sends 1000
// flows within 5% (of the flows) of a third and two thirds (the binomial
// standard deviation is 1.5%), and every packet of a flow to one bucket.
func TestGroupSelectSpread(t *testing.T) {
	tbl := groups.New(nil)
	b1, b2 := bucket(out(2)), bucket(out(3))
	b1.Weight, b2.Weight = 1, 2
	addGroup(t, tbl, groups.TypeSelect, 1, b1, b2)
	sw, ports := groupSwitch(t, 1, "in_port=1,actions=group:1", tbl)
	flows := selectFlows(t, 1000)
	w := sw.Worker(0)
	for round := range 3 {
		for _, f := range flows {
			n2, n3 := len(ports[2].frames), len(ports[3].frames)
			sendOne(w, f, 1)
			took2 := len(ports[2].frames) > n2
			if took2 == (len(ports[3].frames) > n3) {
				t.Fatal("a packet went to both buckets or neither")
			}
			_ = round
		}
	}
	// Every flow the same bucket in every round.
	seen := map[string]int{}
	for port, p := range ports {
		for _, f := range p.frames {
			k := string(f)
			if prev, ok := seen[k]; ok && prev != int(port) {
				t.Fatalf("a flow went out of ports %d and %d", prev, port)
			}
			seen[k] = int(port)
		}
	}
	n2 := len(ports[2].frames) / 3
	t.Logf("%d of 1000 flows took the weight-1 bucket, %d the weight-2 one", n2, len(ports[3].frames)/3)
	if n2 < 333-50 || n2 > 333+50 {
		t.Errorf("%d of 1000 flows took the weight-1 bucket, want 333±50", n2)
	}
}

// TestGroupNoAllocs: the packet path with group actions (ALL with
// rewrites, SELECT, chaining) allocates nothing.
func TestGroupNoAllocs(t *testing.T) {
	tbl := groups.New(nil)
	addGroup(t, tbl, groups.TypeIndirect, 2, bucket(rules.Action{Kind: rules.ActionDecNwTTL}, out(2)))
	b1, b2 := bucket(out(2)), bucket(rules.Action{Kind: rules.ActionGroup, Group: 2})
	b1.Weight, b2.Weight = 1, 1
	addGroup(t, tbl, groups.TypeSelect, 3, b1, b2)
	addGroup(t, tbl, groups.TypeAll, 1, bucket(rules.Action{Kind: rules.ActionSetField, Field: rules.FieldEthDst, Value: [2]uint64{0, 1}}, out(2)),
		bucket(rules.Action{Kind: rules.ActionPushVLAN, EthType: 0x8100}, out(3)), bucket(rules.Action{Kind: rules.ActionGroup, Group: 3}))
	sw, _ := groupSwitch(t, 1, strings.Join([]string{
		"priority=2,tcp,actions=set_field:7->tcp_dst,group:1,output:4",
		"priority=1,actions=group:3",
	}, "\n"), tbl)
	sw.cfg.Devices = nil
	for i := range sw.devs {
		sw.devs[i] = nil
	}
	w := sw.Worker(0)
	for i := range w.devs {
		w.devs[i] = nil
	}
	flows := selectFlows(t, 32)
	vec := &Vector{N: 32}
	for i, f := range flows {
		vec.Frames[i], vec.Link[i], vec.InPort[i] = f, layers.LinkTypeEthernet, 1
	}
	w.Process(vec)
	if n := testing.AllocsPerRun(100, func() { w.Process(vec) }); n != 0 {
		t.Errorf("a vector through group actions: %v allocs, want 0", n)
	}
	if c := sw.Stats(); c.GroupDrops != 0 || c.Outputs == 0 {
		t.Errorf("counters %+v", c)
	}
}

// BenchmarkGroupPath is the packet path of a vector of 32 TCP flows with
// and without a group action: a plain output (the A of an A/B), and the
// same output through an INDIRECT, a two-bucket ALL and a SELECT group.
// It reports allocations (0) and frames per second.
func BenchmarkGroupPath(b *testing.B) {
	tbl := groups.New(nil)
	addGroup(b, tbl, groups.TypeIndirect, 1, bucket(out(2)))
	addGroup(b, tbl, groups.TypeAll, 2, bucket(out(2)), bucket(out(3)))
	s1, s2 := bucket(out(2)), bucket(out(3))
	s1.Weight, s2.Weight = 1, 2
	addGroup(b, tbl, groups.TypeSelect, 3, s1, s2)
	flows := selectFlows(b, 32)
	for _, bc := range []struct{ name, flow string }{
		{"output", "actions=output:2"},
		{"indirect", "actions=group:1"},
		{"all", "actions=group:2"},
		{"select", "actions=group:3"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pipe := testPipeline(b, 1, rules.FilterBloomCuckoo, bc.flow)
			sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3, 4}, Groups: tbl})
			w := sw.Worker(0)
			vec := &Vector{N: len(flows)}
			for i, f := range flows {
				vec.Frames[i], vec.Link[i], vec.InPort[i] = f, layers.LinkTypeEthernet, 1
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				w.Process(vec)
				n += vec.N
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mpps")
		})
	}
}

// TestGroupChangesWhileProcessing: a worker keeps sending through group 1
// while another goroutine modifies, deletes and re-adds it (run with
// -race): readers never lock and see each change whole.
func TestGroupChangesWhileProcessing(t *testing.T) {
	tbl := groups.New(nil)
	addGroup(t, tbl, groups.TypeAll, 1, bucket(out(2)))
	sw, _ := groupSwitch(t, 1, "actions=group:1", tbl)
	w := sw.Worker(0)
	for i := range sw.devs {
		sw.devs[i], w.devs[i] = nil, nil
	}
	flows := selectFlows(t, 32)
	vec := &Vector{N: 32}
	for i, f := range flows {
		vec.Frames[i], vec.Link[i], vec.InPort[i] = f, layers.LinkTypeEthernet, 1
	}
	// The mutator starts only once the worker has processed a vector, so
	// the two overlap however the scheduler orders the goroutines; the
	// last change leaves group 1 an ALL group that outputs, and one more
	// vector after it must go out.
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		<-started
		for i := range 300 {
			var err error
			switch i % 3 {
			case 0:
				b := bucket(out(3))
				b.Weight = 1
				_, err = tbl.Apply(&groups.Mod{Command: groups.Modify, Type: groups.TypeSelect, ID: 1, Buckets: []groups.Bucket{b, b}})
			case 1:
				_, err = tbl.Apply(&groups.Mod{Command: groups.Delete, ID: 1})
			case 2:
				_, err = tbl.Apply(&groups.Mod{Command: groups.Add, Type: groups.TypeAll, ID: 1, Buckets: []groups.Bucket{bucket(out(2)), bucket(out(4))}})
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	w.Process(vec)
	close(started)
	for {
		select {
		case <-done:
			before := sw.Stats().Outputs
			w.Process(vec)
			if c := sw.Stats(); c.Outputs == before {
				t.Errorf("no output through the group after the last change: %+v", c)
			}
			return
		default:
			w.Process(vec)
		}
	}
}

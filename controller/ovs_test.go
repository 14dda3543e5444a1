package controller

import (
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/openflow"
)

// startBoth starts Open vSwitch and an agent with 4 tables, for tests that
// drive both with ovs-ofctl; it returns ovs-ofctl's path and the agent's
// target.
func startBoth(t *testing.T) (ofctl string, ovs *ovstest.Switch, ours string) {
	t.Helper()
	ofctl = ovstest.Tool(t, "ovs-ofctl")
	ovs = ovstest.Start(t)
	_, addr := startAgent(t, &Config{Tables: 4})
	_, port, _ := net.SplitHostPort(addr)
	return ofctl, ovs, "tcp:127.0.0.1:" + port
}

// dumpBoth returns the flow lines ovs-ofctl -O ver dump-flows prints for
// ofswitch (ours) and for Open vSwitch.
func dumpBoth(t *testing.T, ofctl string, ovs *ovstest.Switch, ours, ver string) (got, want []string) {
	t.Helper()
	dump := func(out []byte, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatalf("dump-flows: %v\n%s", err, out)
		}
		return ovstest.FlowLines(string(out))
	}
	return dump(exec.Command(ofctl, "-O", ver, "dump-flows", ours).CombinedOutput()),
		dump(ovs.Exec("ovs-ofctl", "-O", ver, "dump-flows", ovs.Target()).CombinedOutput())
}

// addFlowsBoth replaces the flows of ofswitch (ours) and of Open vSwitch
// with flows, by ovs-ofctl -O ver del-flows and add-flows, and requires
// that dump-flows prints the same lines for both, one a flow; it returns
// them.
func addFlowsBoth(t *testing.T, ofctl string, ovs *ovstest.Switch, ours, ver string, flows []string) []string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "both.flows")
	if err := os.WriteFile(file, []byte(strings.Join(flows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ofctl, "-O", ver, "del-flows", ours).CombinedOutput(); err != nil {
		t.Fatalf("del-flows on ofswitch: %v\n%s", err, out)
	}
	if out, err := exec.Command(ofctl, "-O", ver, "add-flows", ours, file).CombinedOutput(); err != nil {
		t.Fatalf("ovs-ofctl add-flows on ofswitch: %v\n%s", err, out)
	}
	if out, err := ovs.Exec("ovs-ofctl", "-O", ver, "del-flows", ovs.Target()).CombinedOutput(); err != nil {
		t.Fatalf("del-flows on Open vSwitch: %v\n%s", err, out)
	}
	if out, err := ovs.Exec("ovs-ofctl", "-O", ver, "add-flows", ovs.Target(), file).CombinedOutput(); err != nil {
		t.Fatalf("ovs-ofctl add-flows on Open vSwitch: %v\n%s", err, out)
	}
	got, want := dumpBoth(t, ofctl, ovs, ours, ver)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("dump-flows (-Open vSwitch +ofswitch):\n%s", diff)
	}
	if len(got) != len(flows) {
		t.Fatalf("%d flows, want %d:\n%s", len(got), len(flows), strings.Join(got, "\n"))
	}
	t.Logf("%d flows agree:\n%s", len(got), strings.Join(got, "\n"))
	return got
}

// TestOvsOfctlFlows drives ofswitch and Open vSwitch with the same ovs-ofctl
// commands and compares what dump-flows prints for each.
func TestOvsOfctlFlows(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)

	var flows []byte
	for _, f := range []string{"syntax.flows", "small.flows"} {
		b, err := os.ReadFile(testutil.SharedData(t, "openflow-captures", f))
		if err != nil {
			t.Fatal(err)
		}
		flows = append(flows, b...)
	}
	// tcp_flags, which ovs-ofctl sends over OpenFlow 1.3 as an ONF
	// experimenter OXM, exact and masked, as it writes them back.
	flows = append(flows, "priority=310,tcp,tcp_flags=+syn-ack,actions=drop\n"+
		"priority=311,tcp6,tcp_flags=ack,actions=output:2\n"+
		"priority=312,tcp,tp_dst=22,tcp_flags=0x3/0x7,actions=output:1\n"+
		"priority=313,tcp,tcp_flags=0,actions=drop\n"+
		"priority=314,tcp,tcp_flags=syn|ack|ns,actions=drop\n"+
		// Flags that act on the add are kept and reported, as Open vSwitch keeps them.
		"priority=320,tcp,tp_dst=25,check_overlap,actions=drop\n"+
		"priority=321,udp,tp_dst=69,reset_counts,send_flow_rem,actions=drop\n"+
		// The IPv6, neighbor discovery and tunnel fields, set_field of
		// each and mod_nw_ttl (OFPAT_SET_NW_TTL).
		"priority=330,ipv6,ipv6_label=0x12345,actions=set_field:0x54321->ipv6_label,mod_nw_ttl:9,output:2\n"+
		"priority=331,ipv6,ipv6_label=0x10000/0xf0000,actions=dec_ttl\n"+
		"priority=332,icmp6,icmp_type=135,nd_target=2001:db8::1,nd_sll=02:00:00:00:00:01,actions=set_field:2001:db8::2->nd_target,set_field:02:00:00:00:00:03->nd_sll,output:1\n"+
		"priority=333,icmp6,icmp_type=136,icmp_code=0,nd_target=fe80::/64,nd_tll=02:00:00:00:00:00/ff:ff:ff:00:00:00,actions=set_field:02:00:00:00:00:03->nd_tll\n"+
		"priority=334,tun_id=0x1234/0xffff,actions=set_field:0x99->tun_id,set_field:0x5->metadata,goto_table:1\n"+
		"priority=335,ip,actions=mod_nw_ttl:3,write_actions(mod_nw_ttl:4,output:2)\n"+
		"priority=336,udp6,actions=set_field:53->udp_src,set_field:0->ipv6_label\n"+
		"table=1,priority=337,tun_id=0,actions=drop\n"+
		// The Nicira fields that have no OXM, which ovs-ofctl sends as
		// NXM_NX_IP_TTL, IP_FRAG, PKT_MARK and TUN_FLAGS, and that Open
		// vSwitch prints its own way (nw_frag, pkt_mark first).
		"priority=10000,ip,nw_ttl=1,actions=CONTROLLER:64\n"+
		"priority=340,ipv6,nw_ttl=255,actions=drop\n"+
		"priority=341,tcp,nw_ttl=0,tp_dst=80,actions=output:1\n"+
		"priority=342,ip,ip_frag=no,actions=output:1\n"+
		"priority=343,ip,ip_frag=yes,actions=output:2\n"+
		"priority=344,ip,nw_frag=first,actions=drop\n"+
		"priority=345,ipv6,ip_frag=later,actions=drop\n"+
		"priority=346,udp,ip_frag=not_later,tp_src=53,actions=drop\n"+
		"priority=347,pkt_mark=0x5,actions=drop\n"+
		"priority=348,ip,pkt_mark=0x10/0xf0,nw_ttl=64,actions=drop\n"+
		"priority=349,pkt_mark=0,actions=drop\n"+
		"priority=350,tun_flags=+oam,actions=drop\n"+
		"priority=351,tun_id=0x7,tun_flags=-oam,actions=drop\n"+
		"priority=352,tun_flags=oam,pkt_mark=0xffffffff,actions=drop\n"+
		"table=1,priority=353,icmp,nw_ttl=2,nw_frag=later,icmp_type=8,actions=drop\n"+
		// The 802.1Q TCI forms: ovs-ofctl sends VLAN_VID (masked unless
		// the mask covers the id and CFI) and VLAN_PCP only when the
		// id's value is not 0 and the mask has PCP bits.
		"priority=360,vlan_tci=0,actions=drop\n"+
		"priority=361,vlan_tci=0x1000/0x1000,actions=drop\n"+
		"priority=362,vlan_tci=0x0000/0x1fff,actions=drop\n"+
		"priority=363,vlan_tci=0x2000/0xe000,actions=drop\n"+
		"priority=364,vlan_tci=0xf123,actions=drop\n"+
		"priority=365,vlan_tci=0xf123/0xffff,actions=drop\n"+
		"priority=366,vlan_tci=0x3005/0xf0ff,actions=drop\n"+
		"priority=367,vlan_tci=0x1005/0x1fff,actions=drop\n"+
		"priority=368,vlan_tci=0x1000/0x1f00,actions=drop\n"+
		"priority=369,dl_vlan=5,dl_vlan_pcp=3,actions=drop\n"+
		"priority=370,dl_vlan_pcp=7,actions=drop\n"+
		"priority=371,dl_vlan=0xffff,actions=drop\n"+
		"priority=372,vlan_tci=0x5000/0x5000,actions=drop\n"+
		"priority=373,vlan_tci=0xa000/0xa000,actions=drop\n"+
		// The registers, which ovs-ofctl sends as NXM_NX_REG0-15 (an
		// xreg as its two registers, only those of non-zero mask) and
		// Open vSwitch prints by register, and the tunnel addresses
		// (NXM_NX_TUN_IPV4_SRC, DST). The last line tests 20 words of a
		// Key, more than an index node keeps.
		"priority=380,reg0=0,actions=drop\n"+
		"priority=381,reg3=0x5/0xff,actions=drop\n"+
		"priority=382,reg15=0xffffffff,reg1=7,actions=output:1\n"+
		"priority=383,xreg1=0x5,actions=drop\n"+
		"priority=384,xreg7=0x1234567800000000/0xffffffff00000000,actions=drop\n"+
		"priority=385,xreg2=0/0xf0000000f,actions=drop\n"+
		"priority=386,reg4=0/0x80000000,reg5=0x80000000/0x80000000,actions=drop\n"+
		"priority=387,tun_src=10.0.0.1/24,actions=drop\n"+
		"priority=388,tun_dst=192.168.1.1,tun_src=1.2.3.4/255.0.255.0,tun_id=0x5,actions=drop\n"+
		"priority=389,ip,reg2=0x10/0x10,nw_ttl=3,pkt_mark=1,tun_dst=10.1.0.0/16,tun_flags=+oam,actions=drop\n"+
		"table=1,priority=390,xreg4=0x1/0x1,reg0=1,actions=drop\n"+
		"priority=391,tcp6,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::/64,reg0=1,reg1=2,reg2=3,reg3=4,reg4=5,reg5=6,"+
		"reg6=7,reg7=8,reg8=9,reg9=10,reg10=11,reg11=12,reg12=13,reg13=14,reg14=15,reg15=16,tun_src=1.1.1.1,"+
		"tun_dst=2.2.2.2,metadata=0x3,tp_dst=80,actions=drop\n"+
		// The IPv6 tunnel addresses (NXM_NX_TUN_IPV6_SRC, DST) and the
		// VXLAN group policy fields (NXM_NX_TUN_GBP_ID, FLAGS; Open
		// vSwitch prints tun_gbp_flags without its mask). The last line
		// tests 25 words of a Key.
		"priority=392,tun_ipv6_src=2001:db8::1,actions=drop\n"+
		"priority=393,tun_ipv6_dst=2001:db8::/32,tun_ipv6_src=fe80::1/ffff::ffff,actions=drop\n"+
		"priority=394,tun_gbp_id=300,actions=output:1\n"+
		"priority=395,tun_gbp_id=0x10/0xff,tun_gbp_flags=0x81,actions=drop\n"+
		"priority=396,tun_gbp_id=0/0x8000,tun_gbp_flags=0x1/0x3,actions=drop\n"+
		"table=1,priority=397,tun_gbp_flags=0,tun_ipv6_dst=::,tun_src=1.2.3.4,tun_id=7,actions=drop\n"+
		"priority=398,tcp6,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::/64,reg0=1,reg1=2,reg2=3,reg3=4,reg4=5,reg5=6,"+
		"reg6=7,reg7=8,reg8=9,reg9=10,reg10=11,reg11=12,reg12=13,reg13=14,reg14=15,reg15=16,tun_src=1.1.1.1,"+
		"tun_ipv6_src=2001:db8::2/64,tun_ipv6_dst=::1,tun_gbp_id=5,tun_gbp_flags=1,metadata=0x3,tp_dst=80,actions=drop\n"...)
	file := filepath.Join(t.TempDir(), "test.flows")
	if err := os.WriteFile(file, flows, 0o644); err != nil {
		t.Fatal(err)
	}

	both := func(args ...string) (string, string) {
		t.Helper()
		cmd, rest := args[0], args[1:]
		var flagArgs []string
		for len(rest) > 0 && strings.HasPrefix(rest[0], "--") {
			flagArgs, rest = append(flagArgs, rest[0]), rest[1:]
		}
		a := append(append(append([]string{"-O", "OpenFlow13"}, flagArgs...), cmd, ours), rest...)
		o, err := exec.Command(ofctl, a...).CombinedOutput()
		if err != nil {
			t.Fatalf("ovs-ofctl %s on ofswitch: %v\n%s", strings.Join(args, " "), err, o)
		}
		theirs, err := ovs.Ofctl("", cmd, append(flagArgs, rest...)...)
		if len(flagArgs) > 0 {
			// Flags go before the command.
			out, e := ovs.Exec("ovs-ofctl", append(append(append([]string{"-O", "OpenFlow13"}, flagArgs...), cmd, ovs.Target()), rest...)...).CombinedOutput()
			theirs, err = string(out), e
		}
		if err != nil {
			t.Fatalf("ovs-ofctl %s on Open vSwitch: %v\n%s", strings.Join(args, " "), err, theirs)
		}
		return string(o), theirs
	}
	same := func(step string) {
		t.Helper()
		o, theirs := both("dump-flows")
		got, want := ovstest.FlowLines(o), ovstest.FlowLines(theirs)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("after %s: dump-flows (-Open vSwitch +ofswitch):\n%s", step, diff)
		}
		if len(got) < 10 && strings.HasPrefix(step, "add-flows") {
			t.Fatalf("only %d flows after %s:\n%s", len(got), step, o)
		}
		t.Logf("after %s: %d flows agree", step, len(got))
		if testing.Verbose() && step == "add-flows" {
			t.Logf("ofswitch:\n%s", strings.Join(got, "\n"))
		}
	}

	both("add-flows", "--no-names", file)
	same("add-flows")
	both("add-flows", file) // with names: ovs-ofctl first asks for table features and ports
	same("add-flows with names")
	both("mod-flows", "ip,nw_src=127.1.0.1,nw_dst=127.2.0.1,actions=output:1")
	same("mod-flows")
	both("del-flows", "--strict", "priority=400,tcp,nw_dst=127.0.0.1,tp_dst=80")
	same("del-flows --strict")
	both("del-flows", "tcp")
	same("del-flows tcp")
	o, theirs := both("dump-aggregate")
	if ovstest.StripCounters(o) != ovstest.StripCounters(theirs) {
		t.Errorf("dump-aggregate: ofswitch %q, Open vSwitch %q", o, theirs)
	}
	// No queues on either: the same replies and errors.
	for _, args := range [][]string{{"queue-stats"}, {"queue-stats", "ANY", "5"}, {"queue-stats", "7"}, {"queue-get-config"}, {"queue-get-config", "7"}} {
		if o, theirs := both(args...); o != theirs {
			t.Errorf("ovs-ofctl %s: ofswitch\n%sOpen vSwitch\n%s", strings.Join(args, " "), o, theirs)
		}
	}
	both("del-flows")
	same("del-flows")
}

// TestOvsOfctlBundle: ovs-ofctl --bundle add-flows over OpenFlow 1.3 (ONF
// extension) and 1.4 (standard bundles) commits the flows at once.
func TestOvsOfctlBundle(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	a, addr := startAgent(t, &Config{Tables: 2})
	_, port, _ := net.SplitHostPort(addr)
	target := "tcp:127.0.0.1:" + port
	file := filepath.Join(t.TempDir(), "b.flows")
	os.WriteFile(file, []byte("priority=100,ip,nw_src=127.1.0.1,actions=output:2\npriority=200,tcp,tp_dst=80,actions=output:1\ntable=1,priority=0,actions=drop\n"), 0o644)
	for _, v := range []string{"OpenFlow13", "OpenFlow14"} {
		before := len(a.FlowTables().Bursts())
		out, err := exec.Command(ofctl, "-O", v, "--bundle", "add-flows", target, file).CombinedOutput()
		if err != nil {
			t.Fatalf("%s --bundle add-flows: %v\n%s", v, err, out)
		}
		bs := a.FlowTables().Bursts()[before:]
		if len(bs) != 1 || bs[0].Updates != 3 {
			t.Fatalf("%s: bursts %+v, want one burst of 3", v, bs)
		}
		lines := ovstest.FlowLines(ovstest.DumpFlows(t, ofctl, target))
		if len(lines) != 3 {
			t.Fatalf("%s: %d flows after --bundle add-flows:\n%s", v, len(lines), strings.Join(lines, "\n"))
		}
		if out, err := exec.Command(ofctl, "-O", v, "--bundle", "del-flows", target).CombinedOutput(); err != nil {
			t.Fatalf("%s --bundle del-flows: %v\n%s", v, err, out)
		}
	}
	// A bundle with a bad flow is refused whole, and says why.
	bad := filepath.Join(t.TempDir(), "bad.flows")
	os.WriteFile(bad, []byte("priority=1,actions=output:2\npriority=2,actions=goto_table:5\n"), 0o644)
	out, err := exec.Command(ofctl, "-O", "OpenFlow13", "--bundle", "add-flows", target, bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "OFPBIC_BAD_TABLE_ID") {
		t.Fatalf("bad bundle: %v\n%s", err, out)
	}
	if lines := ovstest.FlowLines(ovstest.DumpFlows(t, ofctl, target)); len(lines) != 0 {
		t.Fatalf("a failed bundle left flows behind:\n%s", strings.Join(lines, "\n"))
	}
}

// TestOvsOfctlImportance: OpenFlow 1.4's importance, given by ovs-ofctl
// add-flow, on ofswitch and on Open vSwitch: dump-flows over
// 1.4 prints the same importance=N on both, over 1.3 none; mod-flows keeps
// it, an add of the same flow replaces it, an add over 1.3 has none.
func TestOvsOfctlImportance(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	both := func(version string, args ...string) (string, string) {
		t.Helper()
		a := append([]string{"-O", version, args[0], ours}, args[1:]...)
		o, err := exec.Command(ofctl, a...).CombinedOutput()
		if err != nil {
			t.Fatalf("ovs-ofctl %s on ofswitch: %v\n%s", strings.Join(a, " "), err, o)
		}
		a[3] = ovs.Target()
		theirs, err := ovs.Exec("ovs-ofctl", a...).CombinedOutput()
		if err != nil {
			t.Fatalf("ovs-ofctl %s on Open vSwitch: %v\n%s", strings.Join(a, " "), err, theirs)
		}
		return string(o), string(theirs)
	}
	// same compares dump-flows of both over version and returns ofswitch's.
	same := func(step, version string) string {
		t.Helper()
		o, theirs := both(version, "dump-flows")
		got, want := ovstest.FlowLines(o), ovstest.FlowLines(theirs)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("after %s: dump-flows -O %s (-Open vSwitch +ofswitch):\n%s", step, version, diff)
		}
		return strings.Join(got, "\n")
	}
	has := func(step, dump string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(dump, w) {
				t.Errorf("after %s: no %q in\n%s", step, w, dump)
			}
		}
	}
	both("OpenFlow14", "add-flow", "table=1,importance=7,priority=5,ip,actions=drop")
	both("OpenFlow14", "add-flow", "importance=65535,priority=6,tcp,tp_dst=80,actions=output:1")
	both("OpenFlow13", "add-flow", "importance=9,priority=7,udp,actions=drop") // 1.3 has no field for it
	d := same("add-flow", "OpenFlow14")
	has("add-flow", d, "importance=7, priority=5,ip actions=drop", "importance=65535, priority=6,tcp,tp_dst=80", "table=0, priority=7,udp actions=drop")
	if d13 := same("add-flow", "OpenFlow13"); strings.Contains(d13, "importance") {
		t.Errorf("dump-flows over 1.3 shows importance:\n%s", d13)
	}
	both("OpenFlow14", "mod-flows", "table=1,ip,actions=output:3")
	has("mod-flows", same("mod-flows", "OpenFlow14"), "importance=7, priority=5,ip actions=output:3")
	both("OpenFlow14", "add-flow", "table=1,importance=2,priority=5,ip,actions=output:4")
	has("a replacing add-flow", same("a replacing add-flow", "OpenFlow14"), "importance=2, priority=5,ip actions=output:4")
}

// TestOvsOfctlCapabilities: the capabilities ovs-ofctl show prints, over
// 1.3 and 1.4 (where bundles are announced, as Open vSwitch announces
// them).
func TestOvsOfctlCapabilities(t *testing.T) {
	ofctl := ovstest.Tool(t, "ovs-ofctl")
	_, addr := startAgent(t, &Config{Tables: 2})
	for v, want := range map[string]string{
		"OpenFlow13": "capabilities: FLOW_STATS TABLE_STATS PORT_STATS GROUP_STATS QUEUE_STATS\n",
		"OpenFlow14": "capabilities: FLOW_STATS TABLE_STATS PORT_STATS GROUP_STATS QUEUE_STATS BUNDLES\n",
	} {
		out, err := exec.Command(ofctl, "-O", v, "show", "tcp:"+addr).CombinedOutput()
		if err != nil {
			t.Fatalf("ovs-ofctl -O %s show: %v\n%s", v, err, out)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("ovs-ofctl -O %s show: no %q in\n%s", v, want, out)
		}
	}
}

// TestTableMod: OFPT_TABLE_MOD is taken for a table the switch has (or
// OFPTT_ALL) with no config, refused with OFPTMFC_BAD_TABLE for another
// table and OFPTMFC_BAD_CONFIG for OpenFlow 1.4's eviction or vacancy
// events (no table evicts or reports vacancy), and with OFPBRC_BAD_LEN for
// a property list that does not frame; the connection goes on after each.
// ovs-ofctl mod-table ... noevict then prints no error on either switch.
func TestTableMod(t *testing.T) {
	_, addr := startAgent(t, &Config{Tables: 4})
	for _, v := range []uint8{openflow.Version13, openflow.Version14} {
		c := dial(t, addr)
		c.handshake(v)
		tm := func(xid uint32, table uint8, config uint32, props []byte) {
			m := openflow.TableMod{Header: openflow.Header{Version: v, Type: openflow.TypeTableMod, XID: xid}, TableID: table, Config: config, Properties: props}
			c.send(&m)
		}
		barrier := func(xid uint32) {
			t.Helper()
			br := openflow.Empty{Header: openflow.Header{Version: v, Type: openflow.TypeBarrierRequest, XID: xid}}
			c.send(&br)
			if got := xidOf(c.recv(openflow.TypeBarrierReply)); got != xid {
				t.Fatalf("version %#x: barrier reply xid %d, want %d", v, got, xid)
			}
		}
		tm(1, 0, 0, nil)
		tm(2, openflow.TableAll, openflow.TableConfigDeprecatedMask, nil)
		tm(3, 3, 0, nil)
		barrier(4) // no error before it
		tm(5, 4, 0, nil)
		c.expectError(5, openflow.ErrTypeTableModFailed, uint16(openflow.TableModFailedBadTable))
		tm(6, 0, 1<<7, nil)
		c.expectError(6, openflow.ErrTypeTableModFailed, uint16(openflow.TableModFailedBadConfig))
		if v >= openflow.Version14 {
			// An OFPTMPT_EVICTION property (type 2, 8 bytes) with the bit.
			evict := []byte{0, 2, 0, 8, 0, 0, 0, 1}
			tm(7, 0, openflow.TableConfigEviction, evict)
			c.expectError(7, openflow.ErrTypeTableModFailed, uint16(openflow.TableModFailedBadConfig))
			tm(8, 0, openflow.TableConfigVacancyEvents, nil)
			c.expectError(8, openflow.ErrTypeTableModFailed, uint16(openflow.TableModFailedBadConfig))
			tm(9, 0, 0, evict)                            // without the bit the property asks nothing
			tm(10, 0, 0, []byte{0, 2, 0, 12, 0, 0, 0, 1}) // longer than the message
			c.expectError(10, openflow.ErrTypeBadRequest, uint16(openflow.BadRequestBadLen))
		}
		barrier(11)
	}

	ofctl := ovstest.Tool(t, "ovs-ofctl")
	// (ovs-ofctl sends eviction settings over OpenFlow 1.4 and later only.)
	if out, err := exec.Command(ofctl, "-O", "OpenFlow14", "mod-table", "tcp:"+addr, "0", "noevict").CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("ovs-ofctl -O OpenFlow14 mod-table 0 noevict: %v\n%s", err, out)
	}
	out, _ := exec.Command(ofctl, "-O", "OpenFlow14", "mod-table", "tcp:"+addr, "0", "evict").CombinedOutput()
	if !strings.Contains(string(out), "OFPTMFC_BAD_CONFIG") {
		t.Errorf("ovs-ofctl -O OpenFlow14 mod-table 0 evict: want OFPTMFC_BAD_CONFIG, got\n%s", out)
	}
}

// modPorts is statPorts that takes PORT_MOD, recording it and answering
// err.
type modPorts struct {
	statPorts
	got []openflow.PortMod
	err error
}

func (p *modPorts) ModPort(no uint32, hw [6]byte, config, mask, advertise uint32) error {
	p.got = append(p.got, openflow.PortMod{PortNo: no, HWAddr: hw, Config: config, Mask: mask, Advertise: advertise})
	return p.err
}

// TestPortMod: OFPT_PORT_MOD reaches Ports' ModPort with its fields, a
// refusal goes back with the request's xid, and a switch whose Ports take
// no PORT_MOD (or that has none) answers OFPPMFC_BAD_PORT.
func TestPortMod(t *testing.T) {
	pm := openflow.PortMod{Header: hdr(openflow.TypePortMod, 7), PortNo: 2, HWAddr: [6]byte{2, 0, 0, 0, 0, 2}, Config: 1, Mask: 1}
	mp := &modPorts{}
	_, addr := startAgent(t, &Config{Ports: mp, Tables: 1})
	c := dial(t, addr)
	c.handshake(openflow.Version13)
	c.send(&pm)
	br := openflow.Empty{Header: hdr(openflow.TypeBarrierRequest, 8)}
	c.send(&br)
	c.recv(openflow.TypeBarrierReply)
	want := pm
	want.Header = openflow.Header{}
	if len(mp.got) != 1 || !cmp.Equal(mp.got[0], want) {
		t.Fatalf("ModPort calls %+v, want one with %+v", mp.got, want)
	}
	mp.err = openflow.ErrorMsg{Type: openflow.ErrTypePortModFailed, Code: uint16(openflow.PortModFailedBadHWAddr)}
	c.send(&pm)
	c.expectError(7, openflow.ErrTypePortModFailed, uint16(openflow.PortModFailedBadHWAddr))

	// OpenFlow 1.4's layout (32 bytes; advertise, if any, in a property):
	// what ovs-ofctl 3.1 sent for -O OpenFlow14 mod-port br0 up, captured
	// on loopback.
	mp.err, mp.got = nil, nil
	c14 := dial(t, addr)
	c14.handshake(openflow.Version14)
	raw, _ := hex.DecodeString("0510002000000004fffffffe000000004eeeebe4904e00000000000000000001")
	c14.sendRaw(raw)
	br.Version = openflow.Version14
	c14.send(&br)
	c14.recv(openflow.TypeBarrierReply)
	want = openflow.PortMod{PortNo: openflow.PortLocal, HWAddr: [6]byte{0x4e, 0xee, 0xeb, 0xe4, 0x90, 0x4e}, Mask: 1}
	if len(mp.got) != 1 || !cmp.Equal(mp.got[0], want) {
		t.Fatalf("ModPort calls over 1.4 %+v, want one with %+v", mp.got, want)
	}

	for _, ports := range []Ports{nil, statPorts{}} {
		_, addr := startAgent(t, &Config{Ports: ports, Tables: 1})
		c := dial(t, addr)
		c.handshake(openflow.Version13)
		c.send(&pm)
		c.expectError(7, openflow.ErrTypePortModFailed, uint16(openflow.PortModFailedBadPort))
	}
}

// TestOvsOfctlNXMFieldsOF14: the Nicira match fields and the vlan_tci forms
// given by ovs-ofctl over OpenFlow 1.4 (the same NXM encodings as over 1.3)
// dump the same from ofswitch and Open vSwitch, over 1.4 and 1.3.
func TestOvsOfctlNXMFieldsOF14(t *testing.T) {
	ofctl, ovs, ours := startBoth(t)
	file := filepath.Join(t.TempDir(), "nx.flows")
	flows := "priority=10000,ip,nw_ttl=1,actions=CONTROLLER:64\n" +
		"priority=1,ipv6,nw_ttl=64,nw_frag=later,actions=drop\n" +
		"priority=2,udp,ip_frag=no,tp_dst=53,actions=output:1\n" +
		"priority=3,ip,nw_frag=not_later,actions=drop\n" +
		"priority=4,pkt_mark=0x1234/0xffff,actions=drop\n" +
		"priority=5,tun_flags=+oam,tun_id=0x9,actions=drop\n" +
		"priority=6,vlan_tci=0x5000/0x5000,actions=drop\n" +
		"priority=7,vlan_tci=0x2000/0xe000,actions=drop\n" +
		"priority=8,vlan_tci=0x3005/0xf0ff,actions=drop\n" +
		"table=1,priority=9,icmp6,nw_ttl=255,icmp_type=135,nd_target=fe80::1,actions=drop\n" +
		"priority=10,reg3=0x5/0xff,xreg5=0xa0000000b,actions=drop\n" +
		"priority=11,tun_src=10.0.0.0/8,tun_dst=10.0.0.9,reg0=0,actions=drop\n" +
		"priority=12,tun_ipv6_src=2001:db8::/48,tun_ipv6_dst=fe80::9,actions=drop\n" +
		"priority=13,tun_gbp_id=0x100/0xff00,tun_gbp_flags=0x40/0xc0,reg1=1,actions=drop\n"
	if err := os.WriteFile(file, []byte(flows), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(target string, ovsSide bool, args ...string) string {
		t.Helper()
		a := append([]string{args[0], args[1], args[2], target}, args[3:]...)
		var out []byte
		var err error
		if ovsSide {
			out, err = ovs.Exec("ovs-ofctl", a...).CombinedOutput()
		} else {
			out, err = exec.Command(ofctl, a...).CombinedOutput()
		}
		if err != nil {
			t.Fatalf("ovs-ofctl %s (Open vSwitch %t): %v\n%s", strings.Join(a, " "), ovsSide, err, out)
		}
		return string(out)
	}
	run(ours, false, "-O", "OpenFlow14", "add-flows", file)
	run(ovs.Target(), true, "-O", "OpenFlow14", "add-flows", file)
	for _, v := range []string{"OpenFlow14", "OpenFlow13"} {
		got := ovstest.FlowLines(run(ours, false, "-O", v, "dump-flows"))
		want := ovstest.FlowLines(run(ovs.Target(), true, "-O", v, "dump-flows"))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("dump-flows over %s (-Open vSwitch +ofswitch):\n%s", v, diff)
		}
		if len(got) != 14 {
			t.Fatalf("%d flows over %s:\n%s", len(got), v, strings.Join(got, "\n"))
		}
	}
}

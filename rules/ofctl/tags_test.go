package ofctl_test

import (
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestMPLSPBBText: the MPLS, PBB and TTL-copy fields and actions, read and
// written back. The MPLS lines print as Open vSwitch 3.1 printed them
// (dump-flows after add-flow, by hand in the ovs-sandbox); Open vSwitch has
// no PBB, copy_ttl_out or copy_ttl_in, so those go by their OpenFlow names.
func TestMPLSPBBText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"mpls,actions=pop_mpls:0x0800,output:2", "mpls actions=pop_mpls:0x0800,output:2"},
		{"mpls,actions=set_mpls_ttl(5),output:2", "mpls actions=set_mpls_ttl(5),output:2"},
		{"mpls,actions=set_mpls_ttl:6,output:2", "mpls actions=set_mpls_ttl(6),output:2"},
		{"mpls,actions=dec_mpls_ttl,output:2", "mpls actions=dec_mpls_ttl,output:2"},
		{"mpls,actions=set_mpls_label(7),set_mpls_tc(3),output:2", "mpls actions=set_field:7->mpls_label,set_field:3->mpls_tc,output:2"},
		{"mpls,mpls_label=0xfffff,mpls_tc=7,mpls_bos=0,actions=push_mpls:0x8848", "mpls,mpls_label=1048575,mpls_tc=7,mpls_bos=0 actions=push_mpls:0x8848"},
		{"mpls,actions=write_actions(pop_mpls:0x86dd,dec_mpls_ttl,set_mpls_ttl:3,push_mpls:0x8847)", "mpls actions=write_actions(pop_mpls:0x86dd,dec_mpls_ttl,set_mpls_ttl(3),push_mpls:0x8847)"},
		{"ip,actions=push_mpls:0x8847,output:2", "ip actions=push_mpls:0x8847,output:2"},
		{"in_port=3,dl_vlan=5,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,metadata=0x1,dl_type=0x8848,mpls_bos=1,mpls_tc=2,mpls_label=0x10,actions=set_mpls_label(0x10),set_mpls_tc(7),pop_mpls:0x8847,push_mpls:0x8848",
			"mplsm,metadata=0x1,in_port=3,dl_vlan=5,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,mpls_label=16,mpls_tc=2,mpls_bos=1 actions=set_field:16->mpls_label,set_field:7->mpls_tc,pop_mpls:0x8847,push_mpls:0x8848"},
		{"priority=7,mpls,mpls_label=16,actions=write_actions(set_field:0x20->mpls_label,output:1)", "priority=7,mpls,mpls_label=16 actions=write_actions(set_field:32->mpls_label,output:1)"},
		// Beyond Open vSwitch (which refuses set_field to mpls_bos and
		// knows no PBB or TTL copies).
		{"mpls,actions=set_field:0->mpls_bos,output:2", "mpls actions=set_field:0->mpls_bos,output:2"},
		{"mpls,actions=copy_ttl_out,copy_ttl_in,output:2", "mpls actions=copy_ttl_out,copy_ttl_in,output:2"},
		{"ip,actions=push_pbb:0x88e7,set_field:203->pbb_isid,output:2", "ip actions=push_pbb:0x88e7,set_field:203->pbb_isid,output:2"},
		{"dl_type=0x88e7,pbb_isid=100,actions=pop_pbb,output:2", "dl_type=0x88e7,pbb_isid=100 actions=pop_pbb,output:2"},
		{"dl_type=0x88e7,pbb_isid=0x60/0xf0,pbb_uca=1,actions=drop", "dl_type=0x88e7,pbb_isid=0x60/0xf0,pbb_uca=1 actions=drop"},
		{"dl_type=0x88e7,actions=set_field:1->pbb_uca,output:3", "dl_type=0x88e7 actions=set_field:1->pbb_uca,output:3"},
	} {
		u, err := ofctl.ParseFlow(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		got := ofctl.FormatMatch(&u.Match, u.Priority) + " actions=" + ofctl.FormatActions(u.Instructions)
		got = strings.TrimPrefix(got, " ")
		if got != c.want {
			t.Errorf("%s\n printed as %q\n       want %q", c.in, got, c.want)
			continue
		}
		again, err := ofctl.ParseFlow(ofctl.FormatUpdate(&u))
		if err != nil || again.Match != u.Match || ofctl.FormatActions(again.Instructions) != ofctl.FormatActions(u.Instructions) {
			t.Errorf("%s: printed %q reads back as %v, %v", c.in, ofctl.FormatUpdate(&u), again, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"mpls,mpls_label=0x100000,actions=drop", "does not fit in 20 bits"},
		{"mpls,mpls_tc=8,actions=drop", "does not fit in 3 bits"},
		{"ip,mpls_label=5,actions=drop", "OFPBMC_BAD_PREREQ"},
		{"mpls,pbb_isid=5,actions=drop", "OFPBMC_BAD_PREREQ"},
		{"ip,actions=push_mpls:0x0800", "is not 0x8847 or 0x8848"},
		{"ip,actions=push_pbb:0x8100", "is not 0x88e7"},
		{"mpls,actions=set_mpls_ttl(256)", "does not fit in 8 bits"},
		{"mpls,actions=set_mpls_label(0x100000)", "does not fit in 20 bits"},
	} {
		if _, err := ofctl.ParseFlow(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.in, err, c.want)
		}
	}
}

// Package ofctl reads and prints flows, groups and meters in the text
// syntax of Open vSwitch's ovs-ofctl: the add-flows, add-group and
// add-meter lines it reads and the dump-flows, dump-groups and dump-meters
// lines it prints, as rules.Update, groups.Mod and meters.Config values.
//
// # Parsing
//
// ParseFlows reads a flow file, one flow a line; fields are separated by
// commas and/or spaces (so ClassBench-ng's ", " works too), blank lines and
// lines starting with # are skipped, and each flow's rules.Update.ID is its
// line number. It returns the flows of the good lines and one *ParseError
// per bad line, which says file:line:column and what was expected and
// unwraps to ErrSyntax, or to the *rules.Error of a match that OpenFlow
// 1.3 refuses (rules.Match.Validate: OFPBMC_BAD_PREREQ and friends), so
// that one bad line costs that line only. ParseFlow reads one flow.
// ParseOptions.FixPrereqs adds missing match prerequisites instead of
// refusing the flow (a flow whose ports lack a protocol becomes a TCP and
// a UDP flow); ParseOptions.NoActions accepts lines without actions=, as
// ClassBench-ng's OpenFlow sets are written. ParseActions reads the
// actions of a flow alone.
//
// A line is read in one pass over its bytes, in place, into the Update
// it becomes: field names by a switch, numbers and IPv4 addresses from
// their digits, and the common action lists (outputs, reserved ports,
// CONTROLLER, goto_table) without allocating, their instructions and
// actions carved from chunks shared by many flows. Any line that pass
// does not take as it is (a field or action it refuses or does not know,
// a match Validate refuses) is read again from its start by the general
// parser, which gives every error: the errors do not depend on the pass.
// FlowParser keeps that memory from call to call, so that reading chunk
// after chunk into one slice allocates nothing per ordinary line
// (ModsReader.NextInto too); its flows' instructions are overwritten by
// the next call.
//
// Field and action names are Open vSwitch's: ipv6_label, nd_target,
// nd_sll and nd_tll (held in rules' arp_sha and arp_tha fields), tun_id
// (tunnel_id too), mod_nw_ttl (OFPAT_SET_NW_TTL); ipv6_exthdr, which
// ovs-ofctl does not know, is read and printed as a 9-bit number with an
// optional mask (its OFPIEH_* flags). nw_ttl, ip_frag (nw_frag: no, yes,
// first, later, not_later), pkt_mark and tun_flags (+oam, -oam) are
// Open vSwitch's Nicira fields and print where ovs-ofctl prints them:
// pkt_mark first, tun_flags after tun_id, nw_ttl and nw_frag after nw_ecn.
// The registers reg0 to reg15 (reg3=0x5/0xff, 32 bits) and xreg0 to xreg7
// (64 bits, xregN being reg(2N) and reg(2N+1), which it sets whole) are
// printed as Open vSwitch prints them, by register after the protocol
// shorthand (reg0=0, reg3=0x5/0xff; an xreg as its two registers, those
// with a mask); tun_src and tun_dst (IPv4 address, /len or /mask),
// tun_ipv6_src and tun_ipv6_dst (IPv6 address, /len or /mask), tun_gbp_id
// (16 bits: decimal when exact, else 0x10/0xff) and tun_gbp_flags (8 bits,
// read with a mask, printed as Open vSwitch prints it: the value alone,
// 0x81) after tun_id, in that order. tun_metadata0-63 (tun_metadata0=0x1234, V/M; hex of up to 124
// bytes or decimal) are read where ParseOptions.TunMetadata, a switch's
// TLV table (rules.TunMetadataLayout), maps them, the value right-aligned
// in the mapped length, and an error otherwise ("match field
// tun_metadata0 is not mapped"); a mask all ones over the bytes the value
// and mask need is exact, as ovs-ofctl's text reaches Open vSwitch; a
// value longer than the field is an error (Open vSwitch's switch keeps
// its first bytes). FormatMatchTLV prints them after tun_flags as Open
// vSwitch does (FormatMatch, without a layout, leaves them out).
// set_field:V[/M]->tun_metadataN reads V and M the same way (but for a
// mask all ones over the bytes it needs, which writes those bytes alone,
// as Open vSwitch takes ovs-ofctl's masked set_field) and becomes
// the loads of rules.TunMetadataLoads; load, move and output:field take
// NXM_NX_TUN_METADATAn[a..b] (or tun_metadatan) bits in one option space
// word (rules.TunMetadataSubfield). FormatFlowTLV prints those actions
// back by the field's name, as Open vSwitch's dump-flows does
// (set_field:V[/M]->tun_metadataN of the mapped length,
// NXM_NX_TUN_METADATAn[a..b]); FormatFlow and FormatActions, without a
// layout, print them as loads and subfields of the option space words.
// ParseGroupTLV and ParseMods read them in a group's buckets. xxreg0-3 are refused by name ("match field xxreg0 is not
// supported").
// set_field writes nw_ttl, pkt_mark (printed in hex), tun_flags (oam,
// 0 or 1; printed oam or 0) and the tunnel fields tun_src, tun_dst,
// tun_ipv6_src, tun_ipv6_dst (addresses), tun_gbp_id (printed in decimal)
// and tun_gbp_flags (in hex); set_field of ip_frag is "ip_frag is
// read-only", as ovs-ofctl says, and tun_flags' +oam or a masked value,
// which ovs-ofctl turns into a load, is an error; a masked value of
// tun_ipv6_src or tun_ipv6_dst is a load of part of a 128-bit field.
// load:V->F, move:F[..]->G[..] and output:F[..] take the fields of
// rules.SubfieldFields (vlan_tci, nw_tos and tun_flags among them) by
// their NXM or OXM name (NXM_OF_ETH_DST, OXM_OF_METADATA,
// NXM_NX_TUN_GBP_ID) or field name (eth_dst, pkt_mark, tun_src, tun_dst,
// tun_gbp_id, tun_gbp_flags), the whole field
// (F, F[]) or bits F[a..b], F[b]; set_field:V/M->F of part of such a
// field is a load, as ovs-ofctl sends it. They print as Open vSwitch
// prints them: the NXM name, one load: a run of ones in the mask (of at
// most 64 bits: a load of a whole IPv6 address, whose value may have up
// to 128 bits, prints as two). The
// registers are fields of 32 bits (NXM_NX_REG0-15, reg0-15) and of 64
// (OXM_OF_PKT_REG0-7, xreg0-7; a load that names one prints by that name
// whatever bits it writes); set_field:V->regN or ->xregN, which
// ovs-ofctl sends as a set_field, prints as set_field:0x7->reg4.
// vlan_tci=V/M is read as Open vSwitch holds it once ovs-ofctl has sent
// it over OpenFlow 1.3: vlan_vid takes the id and CFI bits of V&M and M,
// vlan_pcp the priority of V&M, exactly, only when the id's value is not
// 0 and M has priority bits (so 0x5000/0x5000 is dl_vlan_pcp=2 and
// 0x2000/0xe000 matches all).
//
// ParseFlowMods reads the files ovs-ofctl --bundle add-flows reads, whose
// lines may start with add, modify, modify_strict, delete or
// delete_strict (modify and delete strict with ParseOptions.Strict):
// deletes need no actions, a delete without table= deletes from every
// table, "delete" alone deletes every flow, and only adds may carry
// importance=.
//
// ParseMods reads the files ofswitch push and rules lint take: flows as
// ParseFlowMods reads them, groups as ovs-ofctl add-groups reads them (a
// line whose first field is group_id=, after an optional add, modify or
// delete), meters as add-meter takes them (first field meter=), and the
// lines of an ovs-ofctl bundle file ("flow [COMMAND] ...", "group
// [COMMAND] ..."), with "meter add|modify|delete ..." as this package's
// own addition. Group commands OpenFlow 1.3 lacks (add_or_mod,
// insert_bucket, remove_bucket) and packet-out lines are refused, each
// with its error. Its Mods hold the flows, groups and meters apart, each
// in line order, and Mods.Ops gives them in file order; a file of flows
// alone is read by ParseFlowMods' code. FuzzParseMods fuzzes it.
// ParseOptions.Check refuses the mods that a check of the caller's fails,
// each as its line's error: ofswitch push and rules lint refuse so the
// mods whose OpenFlow message would not fit in one (ofrules.CheckFlowMod
// and co), which this package, knowing no wire format, cannot tell.
// ModsReader reads the same files from an io.Reader a chunk of lines at a
// time, each chunk by ParseMods' code with the file's line numbers, so
// that a file of any size costs the memory of a chunk (ofswitch push);
// NextInto reads each chunk into the same Mods and memory, without an
// allocation per line for ordinary flows. Lines counts the lines read, so
// that parts of a file read by readers of their own (ofswitch push checks
// a large file so, a part per CPU) can be numbered as the file's lines;
// Reset starts a reader on another file with the memory it has (push
// sends a file with the reader that checked its first part).
//
// MPLS fields and actions take ovs-ofctl's spelling (mpls_label=,
// mpls_tc=, mpls_bos=, the mpls and mplsm shorthands, push_mpls:,
// pop_mpls:, set_mpls_ttl(N), dec_mpls_ttl, set_mpls_label(N) and
// set_mpls_tc(N), which are set_field). Open vSwitch has no PBB and no
// TTL copies, so pbb_isid=, pbb_uca=, push_pbb:, pop_pbb, copy_ttl_out
// and copy_ttl_in go by their OpenFlow names, and set_field to mpls_bos,
// which ovs-ofctl refuses, is read.
//
// Open vSwitch's note:hh.hh..., exit, controller(reason=R,max_len=N,id=I),
// dec_ttl(id,...), set_tunnel:V and set_tunnel64:V are read and printed as
// ovs-ofctl does them (a note with the zero padding its wire form adds;
// controller(...) with reason=action and id 0 is CONTROLLER:N; set_tunnel
// is set_field:V->tun_id); controller's userdata, pause and meter_id are
// refused by name, and so are note, exit and controller(...) in
// write_actions.
//
// resubmit:P, resubmit(P,T), resubmit(P,) and resubmit(,T) are read as
// ovs-ofctl reads them (P a port number or name, T a table 0 to 255; an
// empty P is in_port's, an empty T the current table) and printed as it
// prints them: resubmit:P when there is no table. resubmit(P,T,ct) is
// refused by name, as connection tracking is.
//
// Connection tracking is not supported: a flow that matches ct_state,
// ct_zone, ct_mark, ct_label, ct_nw_proto, ct_nw_src, ct_nw_dst,
// ct_ipv6_src, ct_ipv6_dst, ct_tp_src or ct_tp_dst, or uses the ct(...)
// or ct_clear action, or writes one of those fields with set_field, is an
// error "connection tracking (ct_state) is not supported" at its
// file:line:column.
//
// ParseMeter reads a meter as ovs-ofctl add-meter, mod-meter and
// del-meters take it ("meter=1,kbps,burst,stats,bands=type=drop,rate=1000,
// burst_size=100", "type=dscp_remark,rate=10,prec_level=1"), into a
// meters.Config; a flow's meter:N instruction is read as its first
// instruction.
//
// # Printing
//
// FormatFlow prints a flow exactly as ovs-ofctl -O OpenFlow13 dump-flows
// does: the fields in Open vSwitch's order, a protocol shorthand (tcp,
// udp6, arp, ...) for eth_type and ip_proto, masks as prefix lengths where
// they are prefixes, reserved ports by name. FormatRule prints a rule of a
// table with its counters, naming set_field's shared fields (udp_src,
// icmpv6_type, nd_sll, ...) after its match; FormatMatch and FormatActions
// print the parts;
// FormatUpdate prints the add-flows line that ParseFlow reads back, and
// WriteFlows writes a file of them. FormatMeter, FormatMeterStats and
// FormatMeterFeatures print meters as dump-meters, meter-stats and
// meter-features do, FormatMeterMod as ParseMeter reads them. The tests compare FormatFlow's text
// with a running Open vSwitch's dump-flows, line for line.
//
// # Groups
//
// ParseGroup reads one group in ovs-ofctl add-group, mod-group and
// del-groups syntax (group_id=1,type=select,bucket=weight:2,output:1,...)
// into a groups.Mod, with ovs-ofctl's own checks (type= required, actions
// in every bucket, weights on SELECT only and 1 by default, fast failover
// buckets watch something, one bucket for INDIRECT); ParseGroups reads a
// file of them. FormatGroup prints a group as ovs-ofctl -O OpenFlow13
// dump-groups does, and FormatGroupStats a group's counters as
// dump-group-stats does; FuzzParseGroup holds parse and print to a round
// trip.
//
// # Checking
//
// LintFiles checks files in ParseMods' syntax, in order, as ofswitch push
// would send them to one empty switch (ofswitch rules lint): every line
// must parse; every flow must load into a pipeline of a rules.Config
// (table ids, goto_table, output ports, actions that the match cannot
// promise as rules.CheckActions says, ...); every group into a
// groups.Table (bucket rules per type, watches, chaining, loops), its
// buckets' output ports and set_field fields checked as a flow's; every
// meter into a meters.Table. A flow naming a group or meter that no line
// before it defines is refused with the switch's code
// (OFPBAC_BAD_OUT_GROUP, OFPMMFC_INVALID_METER), but only when the files
// define at least one group (meter): a file of flows alone may use groups
// and meters given apart. Its LintReport counts flows, groups and meters
// and holds one *ParseError per line that fails, file:line:column, in
// file and line order, whether the parser or a table refused it. Lint is
// LintFiles of one file.
package ofctl

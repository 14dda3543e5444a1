// Package ofrules translates between OpenFlow 1.3 wire messages and flow
// table entries: matches, actions, instructions, FLOW_MOD and rules.Update,
// flow statistics, and the OFPT_ERROR that each rules error becomes.
//
// It is the one place where an openflow.Match becomes a rules.Match, and
// back. It imports openflow and rules only; the switch's OpenFlow channel
// (package controller) and the push client (controller/push) call it.
//
// # Matches
//
// Match translates a wire match and checks it: known fields, no duplicate,
// no value bit outside its mask, the prerequisites of OpenFlow 1.3.5
// §7.2.3.6, and then the flow tables' own checks (rules.Match.Validate).
// WireMatch translates back, in field order. rules keeps TCP, UDP and SCTP
// ports in one pair of L4 fields and ICMPv4 and ICMPv6 type and code in one
// pair, and ARP's hardware addresses and IPv6 neighbor discovery's
// link-layer address options (ipv6_nd_sll, ipv6_nd_tll) in one pair; the
// wire field is recovered from ip_proto and eth_type, which the
// prerequisites force every such match to carry. tcp_flags travels as the
// ONF experimenter OXM that Open vSwitch sends over OpenFlow 1.3. A value
// with bits beyond its rules field (ip_dscp 64, vlan_vid 0x2000) is
// refused with OFPBMC_BAD_VALUE, as Open vSwitch refuses it, not
// truncated.
//
// Nicira-class OXMs (classes 0x0000 and 0x0001, Open vSwitch's NXM
// fields) are read too. nw_ttl, ip_frag, pkt_mark and tun_flags have no
// OXM: ovs-ofctl sends them as NXM_NX_IP_TTL, NXM_NX_IP_FRAG,
// NXM_NX_PKT_MARK and NXM_NX_TUN_FLAGS over OpenFlow 1.3 and 1.4, and
// WireMatch writes them back so, as Open vSwitch does (ip_frag's full
// two-bit mask unmasked, tun_flags always masked). The NXM names of the
// other fields (NXM_OF_ETH_DST, NXM_NX_TUN_ID, NXM_NX_ARP_SHA,
// NXM_NX_ND_TARGET, ...) are read as aliases for controllers that speak
// NXM, and written back as basic OXMs. The checks are Open vSwitch's
// nx_pull_match_entry's: payload length (OFPBMC_BAD_LEN), a mask on a field
// that takes none (OFPBMC_BAD_MASK), values out of range (OFPBMC_BAD_VALUE),
// a field given twice under either name (OFPBMC_DUP_FIELD). set_field takes
// NXM_NX_IP_TTL, NXM_NX_PKT_MARK and NXM_NX_TUN_FLAGS (as ovs-ofctl sends
// set_field of nw_ttl, pkt_mark and tun_flags) and writes them back so;
// NXM_OF_IP_TOS (set_field of nw_tos: the DSCP bits in place in a TOS
// byte, ECN bits zero or OFPBAC_BAD_SET_ARGUMENT) is a set_field of ip_dscp
// sent back as NXM_OF_IP_TOS (rules.SetFieldNwTOS);
// NXM_NX_IP_FRAG and the connection tracking fields are not writable
// (OFPBAC_BAD_SET_ARGUMENT, the latter as a *ConnTrackError naming the
// field), the other NXM aliases of basic OXMs OFPBAC_BAD_SET_TYPE.
// NXM_OF_VLAN_TCI becomes vlan_vid (id and CFI bits) and vlan_pcp, which
// the flow tables match exactly or not at all: a partial priority mask is
// OFPBMC_BAD_MASK, priority bits under a CFI of 0 OFPBMC_BAD_VALUE.
// The registers reg0-15 come as NXM_NX_REG0-15 (4 bytes, maskable) and
// xreg0-7 as OXM_OF_PKT_REG0-7 (class 0x8001, 8 bytes, maskable: xregN
// is reg(2N) in its high half, reg(2N+1) in its low one), the tunnel
// addresses tun_src and tun_dst as NXM_NX_TUN_IPV4_SRC and _DST. A
// register whose bits a match tests already, under either name, is
// OFPBMC_DUP_FIELD (reg0 with reg1 is not, reg0 with xreg0 is), as Open
// vSwitch finds the field not all wildcards. WireMatch writes registers
// as Open vSwitch does before OpenFlow 1.5: one NXM_NX_REG entry per
// register with a non-zero mask, unmasked when exact, never PKT_REG.
// set_field of a register (NXM_NX_REGn or OXM_OF_PKT_REGn, as ovs-ofctl
// sends set_field:V->regN, ->xregN) is a load of all its bits (a 32-bit
// one's half of its xreg field) that goes back out as the same
// set_field; masked it is OFPBAC_BAD_SET_MASK (ONF 4250), as Open
// vSwitch answers. load, move and output_reg take NXM_NX_REG0-15 as
// 32-bit fields and OXM_OF_PKT_REG0-7 as 64-bit ones, and the tunnel
// fields NXM_NX_TUN_IPV4_SRC and _DST (32 bits), NXM_NX_TUN_IPV6_SRC and
// _DST (128), NXM_NX_TUN_GBP_ID (16) and _FLAGS (8): bits beyond are
// OFPBAC_BAD_SET_LEN. tun_ipv6_src and _dst come as NXM_NX_TUN_IPV6_SRC
// and _DST (16 bytes), tun_gbp_id and _flags as NXM_NX_TUN_GBP_ID (2
// bytes) and _FLAGS (1 byte), all maskable, and go back out so, unmasked
// when exact (nxm_put_ipv6, nxm_put_16m, nxm_put_8m). set_field of a
// tunnel field (NXM_NX_TUN_IPV4_*, _IPV6_*, _GBP_*, as ovs-ofctl sends
// set_field:V->tun_src and the others) is a set_field of the rules field
// and goes back out as the same set_field; masked it is
// OFPBAC_BAD_SET_MASK (ONF 4250), as Open vSwitch answers. The data plane
// starts every frame with its registers and tunnel fields 0. Open
// vSwitch's 128-bit registers xxreg0-7 (NXM_NX_XXREG0-7) are refused with OFPBMC_BAD_FIELD
// as an *UnsupportedFieldError, whose text ("match field xxreg0 is not
// supported") names the field and which the switch logs; other unknown
// fields are OFPBMC_BAD_FIELD. OpenFlow 1.5's packet_type, which ovs-ofctl sends
// over OpenFlow 1.3 for a match whose only bits no OXM carries
// (vlan_tci=0x2000/0xe000), is taken when it says Ethernet, (0,0), and
// matches everything then; another type is OFPBMC_BAD_VALUE.
//
// # Tunnel metadata
//
// Open vSwitch's tunnel metadata fields tun_metadata0-63
// (NXM_NX_TUN_METADATA0-63, class 0x0001 fields 40-103, variable length)
// mean what the switch's TLV table (TLVTables, tlv.go; Open vSwitch's
// NXT_TLV_TABLE_MOD) maps them to: a length of 0 to 124 bytes and a place
// in the flow tables' option space, rules.FieldTunOpts0-3 (rules.Key words
// 32-35, 32 bytes where Open vSwitch has 256), allocated as Open vSwitch's
// tun_metadata_alloc_chain does (first fit in 4-byte units, else split
// over the longest free runs). Options.TLV gives the table to Match,
// FlowMod and Decoder: an unmapped field is NXFMFC_INVALID_TLV_FIELD; a
// mapped one's payload, of any length, is right-aligned in the mapped
// length, a longer one giving its first bytes (nx_pull_match_entry's
// copy_entry_value), and masks are arbitrary. WireMatchTLV and
// FlowStatsTLV write the option space back as the NXM_NX_TUN_METADATA
// entries the table maps there, of the mapped length, masked unless
// all-ones (tun_metadata_to_nx_match); WireMatch and FlowStats, without a
// table, leave the option space out. UsesTLVFields says whether a match
// tests a mapping's bytes, for NXTTMFC_INVALID_TLV_DEL. Differences from
// Open vSwitch: 32 bytes of option space; no "present" bit (no packet of
// this switch comes from a tunnel, so every option reads as zero bytes,
// and tun_metadata0=0 matches a frame where Open vSwitch's absent option
// does not); a mapping of length 0 matches nothing and is not written
// back; a zero mask matches everything (Open vSwitch matches "present").
//
// A set_field of tun_metadataN (OFPAT_SET_FIELD; NXAST_REG_LOAD2, which
// ovs-ofctl sends for a masked set_field and for load:V->tun_metadataN[..];
// NXAST_REG_LOAD of its bits, a set_field under their mask)
// reads its payload as a match does (first bytes of a longer one, value
// bits outside the mask OFPBMC_BAD_WILDCARDS, an unmapped field
// NXFMFC_INVALID_TLV_FIELD) and becomes the loads of the option space
// words the field's written bytes are in (rules.TunMetadataLoads); a flow
// stats reply writes them back as one set_field of the mapped length,
// OFPAT_SET_FIELD when every byte is written, else NXAST_REG_LOAD2, which
// ovs-ofctl prints as Open vSwitch's (set_field:V[/M]->tun_metadataN).
// move (NXAST_REG_MOVE) and output:field (NXAST_OUTPUT_REG, _REG2) take
// bits of tun_metadataN that lie in one option space word, consecutive
// in the mapping (rules.TunMetadataSubfield; ActionExt.SrcTun, DstTun),
// and name them back through the table; bits beyond the mapped length
// are OFPBAC_BAD_SET_LEN, an unmapped field NXFMFC_INVALID_TLV_FIELD.
// A group's buckets (GroupModTLV) and a PACKET_OUT's actions
// (ActionsTLV) take them as a flow's do, through the same table; Actions
// and GroupMod, without it, refuse them (NXFMFC_INVALID_TLV_FIELD). A
// group keeps the places the table gave, so a mapping a group uses cannot
// be deleted (UsesTLVBuckets; NXTTMFC_INVALID_TLV_DEL), where Open
// vSwitch, which resolves the field each time a packet runs the bucket,
// deletes it. Not taken (Open vSwitch takes them): bits across two option
// space words or two runs of the space (OFPBAC_BAD_SET_ARGUMENT), a
// group's bucket or a PACKET_OUT naming an unmapped field
// (NXFMFC_INVALID_TLV_FIELD; Open vSwitch translates those without the
// table; a set_field of one writes nothing), and a write of no byte (a zero
// mask, a mapping of length 0: OFPBAC_BAD_SET_ARGUMENT). A FLOW_MOD whose
// actions write one is translated anew each time (Decoder keeps no copy:
// the table may move the field).
//
// A set_field of one of those shared fields must name the OXM field that
// the match makes it (udp_src under ip_proto 17, ipv6_nd_sll under an
// IPv6 match), else OFPBAC_MATCH_INCONSISTENT; the rest of the checks of
// actions against the match are the flow tables' (rules.CheckActions).
//
// # Actions
//
// Actions translates an action list one to one, MPLS (push_mpls and
// pop_mpls, set_mpls_ttl, dec_mpls_ttl), PBB (push_pbb, pop_pbb) and the
// TTL copies included; push_mpls takes only the MPLS EtherTypes and
// push_pbb only 0x88e7 (OFPBAC_BAD_ARGUMENT otherwise, as Open vSwitch
// answers), and a set_field value beyond its MPLS or PBB field's bits is
// OFPBAC_BAD_SET_ARGUMENT.
//
// # Meters
//
// MeterMod translates an OFPT_METER_MOD into a meters.Mod (the meter
// table checks it when it is applied) and WireMeterMod back;
// WireMeterConfig, WireMeterStats and WireMeterFeatures make the entries
// of the meter multipart replies. A FLOW_MOD's meter instruction becomes
// the first rules.Instruction, where the data plane runs it (§5.9).
//
// # Features
//
// SupportedFeatures lists what the translation accepts, for a switch's
// TABLE_FEATURES: the match fields are those the match translation maps to
// a rules field; the set_field fields, actions and instructions are found
// by translating one of each, so that what the translation learns is
// listed without a second list to keep.
//
// # Errors
//
// A translation that fails returns the OFPT_ERROR to answer the request
// with, as a value: an openflow.ErrorMsg, or an *openflow.DecodeError that
// maps to one. The flow tables refuse updates with a *rules.Error, which
// carries OpenFlow's type and code, and the meter table with a
// *meters.Error, which carries its OFPMMFC_* code; WireError turns either
// into the openflow.ErrorMsg to send.
//
// Connection tracking is not supported. A FLOW_MOD that matches one of
// Open vSwitch's connection tracking fields (NXM_NX_CT_STATE, _ZONE,
// _MARK, _LABEL, _NW_PROTO, _NW_SRC, _NW_DST, _IPV6_SRC, _IPV6_DST,
// _TP_SRC, _TP_DST: ct_state=, ct_zone= ... in ovs-ofctl's flow text) is
// refused with NXBMC_CT_DATAPATH_SUPPORT, and one whose actions use
// NXAST_CT, NXAST_NAT or NXAST_CT_CLEAR (ct(...), ct_clear) with
// NXBAC_CT_DATAPATH_SUPPORT: the Nicira experimenter errors Open vSwitch
// itself answers where its datapath lacks connection tracking, which
// ovs-ofctl prints by name; a set_field of a connection tracking field with
// OFPBAC_BAD_SET_ARGUMENT, as Open vSwitch answers it outside ct(...). The error is a *ConnTrackError, whose text
// ("connection tracking (ct_state) is not supported") the switch logs.
//
// Of Open vSwitch's Nicira extension actions (experimenter 0x2320),
// resubmit (NXAST_RESUBMIT, NXAST_RESUBMIT_TABLE), note, exit,
// controller(...) (NXAST_CONTROLLER), dec_ttl(ids)
// (NXAST_DEC_TTL_CNT_IDS), set_tunnel and set_tunnel64 are taken, with
// Open vSwitch's length checks and errors (openflow.DecodeNXAction);
// set_tunnel and set_tunnel64 become set_field of tunnel_id, as Open
// vSwitch sends them back over OpenFlow 1.2 and later. load
// (NXAST_REG_LOAD, NXAST_REG_LOAD2), move (NXAST_REG_MOVE) and
// output:field (NXAST_OUTPUT_REG, NXAST_OUTPUT_REG2) are taken on the
// fields of rules.SubfieldFields (the IPv6 addresses and nd_target
// among them, 128 bits: a load's value and mask go in the action's Ext;
// NXM_OF_VLAN_TCI and NXM_OF_IP_TOS, which pack several of the flow
// tables' fields, as rows of their own; NXM_NX_TUN_FLAGS, 1 bit), checked as Open vSwitch checks them: bits beyond the
// field OFPBAC_BAD_SET_LEN, a field not written OFPBAC_BAD_SET_ARGUMENT
// (eth_type, ip_proto, ip_frag, and in_port, which Open vSwitch writes
// and ofswitch does not), a load value beyond n_bits OFPBAC_BAD_ARGUMENT,
// an unknown field OFPBAC_BAD_SET_TYPE in load and output_reg,
// OFPBMC_BAD_FIELD in move and load2, prerequisites of both ends against
// the match OFPBAC_MATCH_INCONSISTENT, output:field in write-actions
// OFPBAC_BAD_TYPE. A load goes back as it came (one NXAST_REG_LOAD a
// run of ones in its mask, cut after 64 bits as Open vSwitch's
// next_load_segment cuts a 128-bit field's, or NXAST_REG_LOAD2), so
// dump-flows prints load: where Open vSwitch does. The others
// (learn, multipath, bundle,
// controller2 with userdata, pause or meter_id...) are refused with
// OFPBAC_BAD_EXPERIMENTER_TYPE, another experimenter with
// OFPBAC_BAD_EXPERIMENTER, and note, exit and controller(...) in
// write-actions with OFPBAC_BAD_TYPE, as Open vSwitch answers. A flow's
// Nicira actions go back in flow stats as they came. A resubmit may name
// any port and any table, as in Open vSwitch: a table the switch lacks
// is one that misses (the data plane does nothing for it).
// resubmit(P,T,ct) (NXAST_RESUBMIT_TABLE_CT) is refused with the
// connection tracking error, NXBAC_CT_DATAPATH_SUPPORT.
//
// # Groups
//
// GroupMod translates an OFPT_GROUP_MOD into a groups.Mod, each bucket's
// actions as Actions translates a flow's (a group action is taken whatever
// its number up to OFPG_MAX: whether the group exists is the group table's
// to say); the wire buckets ride along in Mod.Desc, so that GroupDesc
// answers OFPMP_GROUP_DESC with the actions as they came. GroupStats and
// GroupFeatures build the other group multiparts; the features' action
// bitmap comes from offering Actions one action of each type, so it says
// exactly what the switch accepts.
//
// # Ingest
//
// FlowMod translates one decoded FLOW_MOD and checks it completely. A
// connection's stream of FLOW_MODs goes through its Decoder, which keeps
// two caches. Controllers send long runs of FLOW_MODs with the same
// instructions: those share one translation, kept with the instruction
// bytes and the table it was made for (goto_table's validity depends on
// it). And they send long runs whose matches differ only in their values:
// the same OXMs in the same order, with the same masks, for the same
// eth_type and ip_proto. The checks of a match depend on that shape (the
// fields in order, which are masked, and the value and mask of the fields
// that prerequisites test: ETH_TYPE, IP_PROTO, ICMPV6_TYPE, VLAN_VID)
// besides its values; a match with the shape of the one before skips the
// checks that only the shape decides.
//
// A shape that comes twice in a row becomes the Decoder's wire shape: the
// ofp_match length, the OXM headers in order, and the whole payload of each
// field that a prerequisite tests. The full path decodes each OXM into an
// openflow.OXM (FlowMod.UnmarshalBinary) and walks those again into a
// rules.Match; the fast path reads the values straight from the message
// into the rules.Match, in one pass, when the match has the wire shape and
// the instructions are the bytes the full path last translated (and hold
// no set_field whose OXM name depends on the match). A match
// with the same length, headers and prerequisite payloads passes the same
// checks: openflow's decoding (each header fixes its OXM's class, field,
// mask bit and length, so the lengths agree as they did) and the
// wire-level checks, which depend on the headers and prerequisite payloads
// only. Only the values are new, and each is checked against its mask
// (BAD_WILDCARDS) and its field's width (BAD_VALUE) as it is read. Whatever does not fit, or fails any check,
// takes the full path, which answers it as it always has: the fast path
// never produces an error of its own. TestFlowModFastPath and
// FuzzFlowModFastPath hold the two paths to the same Update or error.
//
// # Push encoding
//
// WireFlowMod fills an openflow.FlowMod from a rules.Update. A client that
// pushes a flow file encodes through an Encoder: a flow file is mostly runs
// of flows that differ only in their values, the same fields with the same
// masks, the same instructions. The Encoder keeps the OXM list of the last
// mask (with the ip_proto and eth_type that name the L4 and ICMP fields),
// the translation of the last instruction list, and the wire form of the
// last FLOW_MOD it encoded in full as an openflow.FlowModTemplate. Each
// next flow of a run is a copy of the template with the fixed part's fields
// and the OXM values written over it, with no openflow.OXM or
// openflow.Instruction built at all. TestEncoderTemplate checks it against
// the full encoding, byte for byte. The instructions a next flow is
// compared with are the Encoder's own copy of the first flow's, not that
// flow's memory, which the caller may have reused for other flows since
// (ofswitch push parses its file a chunk at a time into the same memory).
// Encoder.TLV, a switch's TLV table (a client makes one of the switch's
// NXT_TLV_TABLE_REPLY with NewTLVTable), writes the option space a match
// tests and the set_fields of tun_metadataN as WireMatchTLV and
// FlowStatsTLV do; a flow that tests option bytes is encoded in full,
// the template holding the match plan's fields alone.
//
// An ofp_header's length is 16 bits: no message exceeds 65535 bytes
// (openflow.MaxMessageLen), and a flow of thousands of actions, a group
// of many buckets or a meter of many bands may not fit. FlowModLen,
// GroupModLen and MeterModLen give a mod's length without encoding it;
// CheckFlowMod, CheckGroupMod and CheckMeterMod refuse one that does not
// fit (openflow.ErrTooLong), in a message alone or inside a bundle add
// message (BundleAddLen less), so that a client can refuse it before it
// sends anything: ofswitch push and rules lint do, each line of a file
// by file:line. CheckFlowMod bounds a flow's length by counting its
// actions and computes it only when the bound is over.
//
// # Concurrency
//
// The functions are safe to call from any number of goroutines. A Decoder
// or an Encoder belongs to one connection and is not safe for concurrent
// use. Neither allocates per message in steady state (TestDecodeAllocs,
// TestEncodeAllocs).
package ofrules

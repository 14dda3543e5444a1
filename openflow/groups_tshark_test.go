package openflow

import "testing"

// TestTsharkGroupsMeters has Wireshark's OpenFlow 1.3 dissector read a
// GROUP_MOD of each group type and command, METER_MODs with both band
// types and both rate units, and the group and meter multipart requests
// and replies: no malformed or error marks, and every group, bucket,
// meter, band and counter field it decodes is the one encoded.
func TestTsharkGroupsMeters(t *testing.T) {
	plain := func(acts ...Action) Bucket { return Bucket{WatchPort: PortAny, WatchGroup: GroupAny, Actions: acts} }
	sel := func(w uint16, acts ...Action) Bucket {
		b := plain(acts...)
		b.Weight = w
		return b
	}
	ff := func(port, group uint32, acts ...Action) Bucket {
		return Bucket{WatchPort: port, WatchGroup: group, Actions: acts}
	}
	msgs := []Message{
		&GroupMod{Header: Header{XID: 1}, Command: GroupAdd, Type: GroupTypeAll, GroupID: 1,
			Buckets: []Bucket{plain(Output(2, 0)), plain(Output(3, 0))}},
		&GroupMod{Header: Header{XID: 2}, Command: GroupAdd, Type: GroupTypeSelect, GroupID: 2,
			Buckets: []Bucket{sel(3, Output(2, 0)), sel(7, Action{Type: ActionDecNWTTL}, Output(4, 0))}},
		&GroupMod{Header: Header{XID: 3}, Command: GroupAdd, Type: GroupTypeIndirect, GroupID: 3,
			Buckets: []Bucket{plain(Action{Type: ActionGroup, GroupID: 1})}},
		&GroupMod{Header: Header{XID: 4}, Command: GroupModify, Type: GroupTypeFF, GroupID: 4,
			Buckets: []Bucket{ff(2, GroupAny, Output(2, 0)), ff(PortAny, 3, Action{Type: ActionGroup, GroupID: 3})}},
		&GroupMod{Header: Header{XID: 5}, Command: GroupDelete, GroupID: GroupAll},
		&MeterMod{Header: Header{XID: 6}, Command: MeterAdd, Flags: 1 | 4 | 8, MeterID: 5, Bands: []MeterBand{
			{Type: MeterBandDrop, Rate: 1000, BurstSize: 100}, {Type: MeterBandDSCPRemark, Rate: 500, BurstSize: 50, PrecLevel: 2}}},
		&MeterMod{Header: Header{XID: 7}, Command: MeterModify, Flags: 2, MeterID: 6, Bands: []MeterBand{
			{Type: MeterBandDrop, Rate: 20}}},
		&MeterMod{Header: Header{XID: 8}, Command: MeterDelete, MeterID: 0xffffffff},
		&MultipartRequest{Header: Header{XID: 9}, Part: MultipartGroup, GroupID: 2},
		&MultipartReply{Header: Header{XID: 9}, Part: MultipartGroup, Groups: []GroupStats{{GroupID: 2, RefCount: 4,
			PacketCount: 30, ByteCount: 1800, DurationSec: 12, BucketStats: []Counter{{10, 600}, {20, 1200}}}}},
		&MultipartRequest{Header: Header{XID: 10}, Part: MultipartGroupDesc},
		&MultipartReply{Header: Header{XID: 10}, Part: MultipartGroupDesc, GroupDescs: []GroupDesc{
			{Type: GroupTypeFF, GroupID: 4, Buckets: []Bucket{ff(2, GroupAny, Output(2, 0))}}}},
		&MultipartRequest{Header: Header{XID: 11}, Part: MultipartGroupFeatures},
		&MultipartReply{Header: Header{XID: 11}, Part: MultipartGroupFeatures, GroupFeatures: GroupFeatures{Types: 0xf,
			Capabilities: 0xf, MaxGroups: [4]uint32{100, 200, 300, 400}, Actions: [4]uint32{1, 1, 1, 1}}},
		&MultipartRequest{Header: Header{XID: 12}, Part: MultipartMeter, MeterID: 5},
		&MultipartReply{Header: Header{XID: 12}, Part: MultipartMeter, Meters: []MeterStats{{MeterID: 5, FlowCount: 3,
			PacketInCount: 40, ByteInCount: 2400, DurationSec: 9, BandStats: []Counter{{7, 420}, {8, 480}}}}},
		&MultipartRequest{Header: Header{XID: 13}, Part: MultipartMeterConfig, MeterID: 0xffffffff},
		&MultipartReply{Header: Header{XID: 13}, Part: MultipartMeterConfig, MeterConfigs: []MeterConfig{{Flags: 2 | 8, MeterID: 6,
			Bands: []MeterBand{{Type: MeterBandDSCPRemark, Rate: 20, PrecLevel: 1}}}}},
		&MultipartRequest{Header: Header{XID: 14}, Part: MultipartMeterFeatures},
		&MultipartReply{Header: Header{XID: 14}, Part: MultipartMeterFeatures, MeterFeatures: MeterFeatures{
			MaxMeter: 1000, BandTypes: 1<<MeterBandDrop | 1<<MeterBandDSCPRemark, Capabilities: 0xf, MaxBands: 3, MaxColor: 0}},
	}
	run := tsharkStream(t, 40003, msgs...)
	tsharkFields(t, run, [][2]string{
		{"openflow_v4.xid", "1,2,3,4,5,6,7,8,9,9,10,10,11,11,12,12,13,13,14,14"},
		{"openflow_v4.groupmod.command", "0,0,0,1,2"},
		{"openflow_v4.groupmod.type", "0,1,2,3,0"},
		{"openflow_v4.groupmod.group_id", "1,2,3,4,4294967292"},
		{"openflow_v4.bucket.weight", "0,0,3,7,0,0,0,0"},
		{"openflow_v4.bucket.watch_port", "4294967295,4294967295,4294967295,4294967295,4294967295,2,4294967295,2"},
		{"openflow_v4.bucket.watch_group", "4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,3,4294967295"},
		{"openflow_v4.action.type", "0,0,0,24,0,22,0,22,0"},
		{"openflow_v4.action.group.group_id", "1,3"},
		{"openflow_v4.metermod.command", "0,1,2"},
		{"openflow_v4.metermod.flags", "0x0000000d,0x00000002,0x00000000"},
		{"openflow_v4.metermod.meter_id", "5,6,4294967295"},
		{"openflow_v4.meter_band.type", "1,2,1,2"},
		{"openflow_v4.meter_band.rate", "1000,500,20,20"},
		{"openflow_v4.meter_band.burst_size", "100,50,0,0"},
		{"openflow_v4.meter_band.dscp_remark.prec_level", "2,1"},
		{"openflow_v4.group_stats_request.group_id", "2"},
		{"openflow_v4.group_stats.group_id", "2"},
		{"openflow_v4.group_stats.ref_count", "4"},
		{"openflow_v4.group_stats.packet_count", "30"},
		{"openflow_v4.bucket_counter.packet_count", "10,20"},
		{"openflow_v4.bucket_counter.byte_count", "600,1200"},
		{"openflow_v4.group_desc.type", "3"},
		{"openflow_v4.group_desc.group_id", "4"},
		{"openflow_v4.group_stats.max_groups.ff", "400"},
		{"openflow_v4.meter_stats_request.meter_id", "5"},
		{"openflow_v4.meter_stats.meter_id", "5"},
		{"openflow_v4.meter_stats.flow_count", "3"},
		{"openflow_v4.meter_stats.byte_in_count", "2400"},
		{"openflow_v4.meter_band_stats.packet_band_count", "7,8"},
		{"openflow_v4.meter_config_request.meter_id", "4294967295"},
		{"openflow_v4.meter_config.meter_id", "6"},
		{"openflow_v4.meter_config.flags", "0x0000000a"},
		{"openflow_v4.meter_features.max_meter", "1000"},
		{"openflow_v4.meter_features.max_bands", "3"},
	})
}

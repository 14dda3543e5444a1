package openflow

func name16(s string) (n [16]byte) { copy(n[:], s); return }

// syntheticMessages returns one message of every type this package
// encodes, each with non-trivial contents.
func syntheticMessages() []Message {
	fm := benchFlowMod()
	fmBytes, _ := fm.MarshalBinary()
	fm14 := benchFlowMod()
	fm14.Version, fm14.XID, fm14.Importance = Version14, 40, 9
	flows14 := flowStatsReply(2).Flows
	flows14[0].Importance, flows14[1].Importance = 3, 0xffff
	port := Port{PortNo: 1, HWAddr: [6]byte{2, 0, 0, 0, 0, 1}, Name: name16("veth1"), Config: 0, State: 4,
		Curr: 0x840, Advertised: 0, Supported: 0, Peer: 0, CurrSpeed: 10000000, MaxSpeed: 0}
	var desc Desc
	copy(desc.MfrDesc[:], "ofswitch")
	copy(desc.HWDesc[:], "software")
	copy(desc.SWDesc[:], "0.1")
	copy(desc.SerialNum[:], "none")
	copy(desc.DPDesc[:], "br0")
	var tfName [32]byte
	copy(tfName[:], "classifier")
	hello := NewHello(1, Version13)
	frame := append([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xb5}, make([]byte, 46)...)
	return []Message{
		&hello,
		&ErrorMsg{Header: Header{XID: 2}, Type: ErrTypeBadMatch, Code: uint16(BadMatchBadPrereq), Data: fmBytes},
		&EchoRequest{Header: Header{XID: 3}, Data: []byte("ping")},
		&EchoReply{Header: Header{XID: 3}, Data: []byte("ping")},
		&Experimenter{Header: Header{XID: 4}, Experimenter: 0x00002320, ExpType: 10, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		&Empty{Header{Type: TypeFeaturesRequest, XID: 5}},
		&FeaturesReply{Header: Header{XID: 5}, DatapathID: 0x0000aabbccddeeff, NBuffers: 256, NTables: 254,
			Capabilities: CapFlowStats | CapTableStats | CapPortStats | CapGroupStats},
		&Empty{Header{Type: TypeGetConfigRequest, XID: 6}},
		&SwitchConfig{Header: Header{Type: TypeGetConfigReply, XID: 6}, Flags: ConfigFragNormal, MissSendLen: 128},
		&SwitchConfig{Header: Header{Type: TypeSetConfig, XID: 7}, Flags: ConfigFragDrop, MissSendLen: 0xffff},
		&PacketIn{Header: Header{XID: 8}, BufferID: NoBuffer, TotalLen: uint16(len(frame)), Reason: PacketInNoMatch,
			TableID: 0, Cookie: 0x1234, Match: Match{Fields: []OXM{InPort(1)}}, Data: frame},
		&FlowRemoved{Header: Header{XID: 9}, Cookie: 0x1234, Priority: 100, Reason: FlowRemovedIdleTimeout, TableID: 1,
			DurationSec: 61, DurationNsec: 500, IdleTimeout: 60, PacketCount: 10, ByteCount: 640,
			Match: Match{Fields: []OXM{EthType(0x0806)}}},
		&PortStatus{Header: Header{XID: 10}, Reason: PortModify, Desc: port},
		&PacketOut{Header: Header{XID: 11}, BufferID: NoBuffer, InPort: 1, Actions: []Action{Output(PortFlood, 0)}, Data: frame},
		fm,
		&GroupMod{Header: Header{XID: 12}, Command: GroupAdd, Type: GroupTypeSelect, GroupID: 7, Buckets: []Bucket{
			{Weight: 1, WatchPort: PortAny, WatchGroup: GroupAny, Actions: []Action{Output(1, 0)}},
			{Weight: 2, WatchPort: PortAny, WatchGroup: GroupAny, Actions: []Action{{Type: ActionDecNWTTL}, Output(2, 0)}},
		}},
		&PortMod{Header: Header{XID: 13}, PortNo: 2, HWAddr: [6]byte{2, 0, 0, 0, 0, 2}, Config: 1, Mask: 1},
		&TableMod{Header: Header{XID: 14}, TableID: 3, Config: 3},
		&MultipartRequest{Header: Header{XID: 15}, Part: MultipartFlow, Flow: FlowStatsRequest{TableID: TableAll,
			OutPort: PortAny, OutGroup: GroupAny, Match: Match{Fields: []OXM{EthType(0x0800)}}}},
		&MultipartReply{Header: Header{XID: 15}, Part: MultipartFlow, Flows: flowStatsReply(2).Flows},
		&MultipartRequest{Header: Header{XID: 16}, Part: MultipartPortStats, PortNo: PortAny},
		&MultipartReply{Header: Header{XID: 16}, Part: MultipartPortStats, Ports: []PortStats{{PortNo: 1, RxPackets: 5,
			TxPackets: 6, RxBytes: 300, TxBytes: 360, DurationSec: 10}}},
		&MultipartRequest{Header: Header{XID: 17}, Part: MultipartDesc},
		&MultipartReply{Header: Header{XID: 17}, Part: MultipartDesc, Desc: desc},
		&MultipartReply{Header: Header{XID: 18}, Part: MultipartAggregate, Aggregate: AggregateStats{10, 640, 4}},
		&MultipartReply{Header: Header{XID: 19}, Part: MultipartTable, Tables: []TableStats{{0, 4, 100, 90}, {1, 0, 0, 0}}},
		&MultipartReply{Header: Header{XID: 20}, Part: MultipartPortDesc, PortDescs: []Port{port}},
		&MultipartReply{Header: Header{XID: 21}, Part: MultipartGroupDesc, GroupDescs: []GroupDesc{{Type: GroupTypeAll,
			GroupID: 1, Buckets: []Bucket{{WatchPort: PortAny, WatchGroup: GroupAny, Actions: []Action{Output(3, 0)}}}}}},
		&MultipartReply{Header: Header{XID: 22}, Part: MultipartMeterFeatures, MeterFeatures: MeterFeatures{
			MaxMeter: 100, BandTypes: 1 << MeterBandDrop, Capabilities: 0xf, MaxBands: 1, MaxColor: 0}},
		&MultipartRequest{Header: Header{XID: 23}, Part: MultipartTableFeatures},
		&MultipartReply{Header: Header{XID: 23}, Part: MultipartTableFeatures, TableFeatures: []TableFeatures{{
			TableID: 0, Name: tfName, MetadataMatch: ^uint64(0), MetadataWrite: ^uint64(0), MaxEntries: 1000000,
			Properties: []TableFeatureProp{
				{Type: TFPInstructions, IDs: []FeatureID{{Type: uint16(InstructionApplyActions)}, {Type: uint16(InstructionGotoTable)}}},
				{Type: TFPNextTables, TableIDs: []uint8{1, 2, 3}},
				{Type: TFPWriteActions, IDs: []FeatureID{{Type: uint16(ActionOutput)}}},
				{Type: TFPApplyActions, IDs: []FeatureID{{Type: uint16(ActionOutput)}, {Type: uint16(ActionSetField)}}},
				{Type: TFPMatch, OXMIDs: []uint64{OXMID(0x80000004), OXMID(0x80000a02)}},
				{Type: TFPWildcards, OXMIDs: []uint64{OXMID(0x80000004)}},
				{Type: TFPWriteSetField, OXMIDs: []uint64{OXMID(0x80000606)}},
				{Type: TFPApplySetField, OXMIDs: []uint64{OXMID(0x80000606)}},
			}}}},
		&MultipartReply{Header: Header{XID: 24}, Part: MultipartGroup, Groups: []GroupStats{{GroupID: 1, RefCount: 2,
			PacketCount: 3, ByteCount: 4, BucketStats: []Counter{{1, 2}}}}},
		&MultipartReply{Header: Header{XID: 25}, Part: MultipartMeter, Meters: []MeterStats{{MeterID: 1, FlowCount: 2,
			BandStats: []Counter{{3, 4}}}}},
		&MultipartReply{Header: Header{XID: 26}, Part: MultipartMeterConfig, MeterConfigs: []MeterConfig{{Flags: 1, MeterID: 1,
			Bands: []MeterBand{{Type: MeterBandDrop, Rate: 1000, BurstSize: 100}}}}},
		&MultipartReply{Header: Header{XID: 27}, Part: MultipartQueue, Queues: []QueueStats{{1, 0, 100, 2, 0, 5, 0}}},
		&MultipartReply{Header: Header{XID: 28}, Part: MultipartGroupFeatures, GroupFeatures: GroupFeatures{Types: 0xf,
			Capabilities: 0x5, MaxGroups: [4]uint32{10, 10, 10, 10}, Actions: [4]uint32{1, 1, 1, 1}}},
		&Empty{Header{Type: TypeBarrierRequest, XID: 29}},
		&Empty{Header{Type: TypeBarrierReply, XID: 29}},
		&QueueGetConfigRequest{Header: Header{XID: 30}, Port: 1},
		&QueueGetConfigReply{Header: Header{XID: 30}, Port: 1, Queues: []PacketQueue{{QueueID: 1, Port: 1,
			Properties: []QueueProp{{Type: QueuePropMinRate, Rate: 100}, {Type: QueuePropMaxRate, Rate: 500}}}}},
		&Role{Header: Header{Type: TypeRoleRequest, XID: 31}, Role: RoleMaster, GenerationID: 7},
		&Role{Header: Header{Type: TypeRoleReply, XID: 31}, Role: RoleMaster, GenerationID: 7},
		&Empty{Header{Type: TypeGetAsyncRequest, XID: 32}},
		&AsyncConfig{Header: Header{Type: TypeGetAsyncReply, XID: 32}, PacketInMask: [2]uint32{7, 0}, PortStatusMask: [2]uint32{7, 7},
			FlowRemovedMask: [2]uint32{15, 0}},
		&AsyncConfig{Header: Header{Type: TypeSetAsync, XID: 33}, PacketInMask: [2]uint32{1, 0}},
		&MeterMod{Header: Header{XID: 34}, Command: MeterAdd, Flags: 1, MeterID: 5, Bands: []MeterBand{
			{Type: MeterBandDrop, Rate: 1000, BurstSize: 10}, {Type: MeterBandDSCPRemark, Rate: 500, PrecLevel: 1}}},
		&BundleControl{Header: Header{Version: Version14, XID: 35}, BundleID: 1, Type: BundleOpenRequest, Flags: BundleAtomic | BundleOrdered},
		&BundleAddMessage{Header: Header{Version: Version14, XID: 36}, BundleID: 1, Flags: BundleAtomic | BundleOrdered, Message: fmBytes},
		&BundleControl{Header: Header{XID: 37}, BundleID: 1, Type: BundleCommitRequest, Flags: BundleAtomic},
		&BundleAddMessage{Header: Header{XID: 38}, BundleID: 1, Flags: BundleAtomic, Message: fmBytes},
		// OpenFlow 1.4's fields in what 1.3 pads, and its TABLE_MOD
		// properties (after the 1.3 messages: syntheticOf finds those).
		&TableMod{Header: Header{Version: Version14, XID: 39}, TableID: 1, Config: TableConfigEviction,
			Properties: []byte{0, 2, 0, 8, 0, 0, 0, 1}},
		fm14,
		&MultipartReply{Header: Header{Version: Version14, XID: 41}, Part: MultipartFlow, Flows: flows14},
		&PortMod{Header: Header{Version: Version14, XID: 42}, PortNo: 1, HWAddr: [6]byte{2, 0, 0, 0, 0, 1}, Config: 1, Mask: 1, Advertise: 0x840,
			Properties: []byte{0, 0, 0, 8, 0, 0, 0x08, 0x40}}, // OFPPMPT_ETHERNET, advertise 0x840
	}
}

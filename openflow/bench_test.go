package openflow

import (
	"bytes"
	"net/netip"
	"testing"
)

var sinkU16 uint16

func BenchmarkFlowMod(b *testing.B) {
	fm := benchFlowMod()
	wire, err := fm.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("view", func(b *testing.B) {
		v := FlowModView(wire)
		b.SetBytes(int64(len(wire)))
		b.ReportAllocs()
		for b.Loop() {
			if v.Check() != nil {
				b.Fatal("check failed")
			}
			sinkU16 = v.Priority()
		}
	})
	b.Run("decode", func(b *testing.B) {
		var m FlowMod
		b.SetBytes(int64(len(wire)))
		b.ReportAllocs()
		for b.Loop() {
			if err := m.UnmarshalBinary(wire); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		buf := make([]byte, 0, 256)
		b.SetBytes(int64(len(wire)))
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = fm.AppendBinary(buf[:0])
		}
	})
}

// flowStatsReply returns a FLOW stats reply with n entries like those Open
// vSwitch sends for small.flows (match on ip addresses, one output).
func flowStatsReply(n int) *MultipartReply {
	r := &MultipartReply{Part: MultipartFlow, Flows: make([]FlowStats, n)}
	for i := range r.Flows {
		r.Flows[i] = FlowStats{
			DurationSec: uint32(i), Priority: 100, PacketCount: uint64(i), ByteCount: uint64(64 * i),
			Match: Match{Fields: []OXM{EthType(0x0800),
				IPv4Src(netip.PrefixFrom(netip.AddrFrom4([4]byte{127, 1, byte(i >> 8), byte(i)}), 32)),
				IPv4Dst(netip.PrefixFrom(netip.AddrFrom4([4]byte{127, 2, byte(i >> 8), byte(i)}), 32))}},
			Instructions: []Instruction{ApplyActions(Output(2, 0))},
		}
	}
	return r
}

func BenchmarkFlowStatsReply1000(b *testing.B) {
	r := flowStatsReply(1000)
	// 1000 entries exceed one message's 64 KiB: AppendSplit sends them as
	// several parts with REPLY_MORE, as a switch must.
	wire, _, err := r.AppendSplit(nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	var parts [][]byte
	rd := NewReader(bytes.NewReader(wire), 0)
	for {
		p, err := rd.Next()
		if err != nil {
			break
		}
		parts = append(parts, p)
	}
	b.Run("decode", func(b *testing.B) {
		var m MultipartReply
		b.SetBytes(int64(len(wire)))
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range parts {
				if err := m.UnmarshalBinary(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		buf := make([]byte, 0, len(wire))
		b.SetBytes(int64(len(wire)))
		b.ReportAllocs()
		for b.Loop() {
			buf, _, _ = r.AppendSplit(buf[:0], 0)
		}
	})
}

// Package dataplane moves packets: it reads them from capture files,
// parses them into a fixed-size set of header fields without allocating,
// and (in later steps) classifies them and applies actions.
//
// # Parsing
//
// A [Parser] is owned by one worker. It drives a gopacket
// DecodingLayerParser (DecodingLayerSparse container, IgnoreUnsupported,
// IgnorePanic) over the package's own decoding layers for Ethernet, 802.1Q
// and 802.1ad tags (up to [MaxVLANs]), BSD loopback, ARP, IPv4, IPv6 with
// its extension headers, TCP, UDP, SCTP, ICMPv4 and ICMPv6. The layers
// decode only the fixed headers, with explicit bounds checks, and write
// straight into a [Headers] value: no per-layer structs, no option slices,
// no errors built per packet. A packet that is too short or inconsistent
// is counted in [Stats] under a [Reason] and skipped.
//
// [Parser.ParseBurst] parses up to [BurstSize] frames with one deferred
// recover: should a layer ever panic, only the packet that caused it is
// counted (as [ReasonPanic]) and the rest of the burst is parsed.
//
// # Captures
//
// [LoadFile] reads a pcap or pcapng file (through gopacket's pcapgo) into
// one contiguous buffer with an offset per frame, so that a worker can
// replay it at full speed; [Capture.Replay] hands it out in bursts, either
// as fast as possible or paced at the original timing times a speed factor.
// A file that is cut short or corrupt yields a [*FileError] naming the file
// and byte offset, together with the frames read before that point.
//
// # Performance
//
// Nothing in [Parser.Parse] or [Parser.ParseBurst] allocates; tests check
// this with testing.AllocsPerRun and the benchmarks report allocs/op and
// Mpps.
package dataplane

// Package capture reads and writes packet capture files (pcap and pcapng)
// and reassembles TCP streams from them.
//
// It is built on gopacket's pcapgo reader and writers and holds no other
// parser: every project package that reads or writes a capture file (the
// data plane's in-memory captures, ofswitch decode, the synthetic capture
// generator, the tests) goes through it.
//
// # Reading
//
// [NewReader] reads a whole file held in memory, pcap or pcapng by its
// magic number: both byte orders, microsecond and nanosecond pcap, and the
// pcapng blocks that carry packets (enhanced, simple and obsolete packet
// blocks), over any number of sections and interfaces of any link types.
// [Reader.Next] returns one [Packet] at a time without copying; [Read]
// copies a whole file's packets into one buffer.
//
// Interfaces are numbered over the whole file: the interfaces of a second
// pcapng section follow those of the first. A pcap file has one interface.
//
// # Errors
//
// A file that is cut short or corrupt yields an [*Error] with the byte
// offset of the file header, record or block that could not be read; it
// unwraps to what pcapgo said (io.ErrUnexpectedEOF when the file is cut
// short). The packets before that point have been returned.
//
// # Writing
//
// [NewPcapWriter] and [NewPcapngWriter] write little-endian files with one
// or several interfaces; [Writer.WritePacket] writes one packet.
//
// # TCP streams
//
// [ReadTCPStreams] reassembles each direction of each TCP connection in
// sequence order, from Ethernet, Linux cooked, raw IP and loopback
// captures; each [Stream] records which packet brought which bytes.
//
// # Concurrency
//
// A Reader or a Writer is used by one goroutine at a time; the functions
// are safe to call from any number of goroutines.
package capture

// Package ofpcap lists the OpenFlow messages that packet captures carry, as
// ovs-ofctl ofp-parse-pcap does: the TCP streams to or from an OpenFlow
// port are reassembled (package capture), framed and decoded (package
// openflow), and each message is summarised on one line, in the order the
// capture completed them (ofswitch decode).
package ofpcap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ofswitch/ofswitch/capture"
	"github.com/ofswitch/ofswitch/openflow"
)

// Line is one line of a capture's listing: an OpenFlow message summarised
// (Text), a warning about its stream (Text), or the failure that ended the
// decoding of its stream (Err), placed by the capture packet that
// completed it.
type Line struct {
	Packet int // index of the capture packet that completed the message
	Stream int // index of the TCP stream (capture.ReadTCPStreams)
	Offset int // byte offset of the message in the stream
	Text   string
	Err    error // names the stream, the offset and the field
}

// Parse returns the OpenFlow messages of the TCP streams to or from port
// in file, a pcap or pcapng capture, in the order the capture completed
// them, as ovs-ofctl ofp-parse-pcap lists them. Each stream is decoded up
// to its first bad message, whose Line carries the error; a stream with
// gaps in its sequence numbers gets a warning line first. It fails if the
// file cannot be read or holds no stream to or from port.
func Parse(file string, port uint16) ([]Line, error) {
	streams, err := capture.ReadTCPStreamsFile(file)
	if err != nil {
		return nil, err
	}
	var lines []Line
	found := 0
	for i := range streams {
		st := &streams[i]
		if st.Src.Port() != port && st.Dst.Port() != port {
			continue
		}
		found++
		where := fmt.Sprintf("stream %d (conn %d, %v > %v)", i, st.Conn, st.Src, st.Dst)
		if st.Gaps > 0 {
			lines = append(lines, Line{Packet: st.PacketAt(0), Stream: i,
				Text: fmt.Sprintf("%s: warning: %d gaps in the TCP sequence", where, st.Gaps)})
		}
		r := openflow.NewReader(bytes.NewReader(st.Data), 0)
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			off := int(r.Offset())
			if err != nil {
				lines = append(lines, Line{Packet: st.PacketAt(len(st.Data) - 1), Stream: i, Offset: off,
					Err: fmt.Errorf("%s offset %d: %w", where, off, err)})
				break
			}
			at := st.PacketAt(off + len(b) - 1)
			m, err := openflow.Decode(b)
			if err != nil {
				var de *openflow.DecodeError
				if errors.As(err, &de) {
					err = fmt.Errorf("%s offset %d: %v field %s (message offset %d): %w",
						where, off, de.Type, de.Field, de.Offset, de.Err)
				} else {
					err = fmt.Errorf("%s offset %d: %w", where, off, err)
				}
				lines = append(lines, Line{Packet: at, Stream: i, Offset: off, Err: err})
				break
			}
			lines = append(lines, Line{Packet: at, Stream: i, Offset: off,
				Text: fmt.Sprintf("%s @%d: %s", where, off, Summary(m))})
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("%s: no TCP stream to or from port %d", file, port)
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.Packet != b.Packet {
			return a.Packet < b.Packet
		}
		if a.Stream != b.Stream {
			return a.Stream < b.Stream
		}
		return a.Offset < b.Offset
	})
	return lines, nil
}

// Summary formats m on one line: its type, version and xid, then the
// fields that identify it; a bundled message is summarised inside its
// BUNDLE_ADD_MESSAGE.
func Summary(m openflow.Message) string {
	h := m.MsgHeader()
	name := h.Type.String()
	if h.Type == openflow.TypeExperimenter {
		switch m.(type) {
		case *openflow.BundleControl:
			name = "ONFT_BUNDLE_CONTROL"
		case *openflow.BundleAddMessage:
			name = "ONFT_BUNDLE_ADD_MESSAGE"
		}
	}
	s := fmt.Sprintf("%s (OF1.%d) (xid=%#x):", name, max(int(h.Version)-1, 0), h.XID)
	switch mm := m.(type) {
	case *openflow.Hello:
		var vs []string
		set := mm.Versions()
		for v := uint8(1); v < 64; v++ {
			if set&openflow.VersionBit(v) != 0 {
				vs = append(vs, fmt.Sprintf("1.%d", v-1))
			}
		}
		s += " versions " + strings.Join(vs, ",")
	case *openflow.ErrorMsg:
		s += fmt.Sprintf(" %v/%s, %d bytes of data", mm.Type, mm.Type.CodeString(mm.Code), len(mm.Data))
	case *openflow.EchoRequest:
		s += fmt.Sprintf(" %d bytes of data", len(mm.Data))
	case *openflow.EchoReply:
		s += fmt.Sprintf(" %d bytes of data", len(mm.Data))
	case *openflow.Experimenter:
		s += fmt.Sprintf(" experimenter=%#x exp_type=%d, %d bytes", mm.Experimenter, mm.ExpType, len(mm.Data))
	case *openflow.FeaturesReply:
		s += fmt.Sprintf(" dpid:%016x n_tables:%d n_buffers:%d capabilities:%#x", mm.DatapathID, mm.NTables, mm.NBuffers, mm.Capabilities)
	case *openflow.SwitchConfig:
		s += fmt.Sprintf(" flags=%d miss_send_len=%d", mm.Flags, mm.MissSendLen)
	case *openflow.FlowMod:
		s += " " + mm.String()
	case *openflow.PacketIn:
		s += fmt.Sprintf(" total_len=%d %s reason=%d table_id=%d cookie=%#x data_len=%d", mm.TotalLen, mm.Match.String(),
			mm.Reason, mm.TableID, mm.Cookie, len(mm.Data))
	case *openflow.PacketOut:
		var as []string
		for i := range mm.Actions {
			as = append(as, mm.Actions[i].String())
		}
		s += fmt.Sprintf(" in_port=%d actions=%s buffer=%#x data_len=%d", mm.InPort, strings.Join(as, ","), mm.BufferID, len(mm.Data))
	case *openflow.FlowRemoved:
		s += fmt.Sprintf(" priority=%d reason=%d table_id=%d %s", mm.Priority, mm.Reason, mm.TableID, mm.Match.String())
	case *openflow.PortStatus:
		s += fmt.Sprintf(" reason=%d %s", mm.Reason, mm.Desc.String())
	case *openflow.MultipartRequest:
		s += " " + mm.Part.String() + more(mm.Flags)
	case *openflow.MultipartReply:
		s += " " + mm.Part.String() + more(mm.Flags)
		switch mm.Part {
		case openflow.MultipartFlow:
			s += fmt.Sprintf(" %d flows", len(mm.Flows))
		case openflow.MultipartPortStats:
			s += fmt.Sprintf(" %d ports", len(mm.Ports))
		case openflow.MultipartPortDesc:
			for i := range mm.PortDescs {
				s += " " + mm.PortDescs[i].String()
			}
		case openflow.MultipartTableFeatures:
			s += fmt.Sprintf(" %d tables", len(mm.TableFeatures))
		}
	case *openflow.BundleControl:
		typ := fmt.Sprint(mm.Type)
		if int(mm.Type) < len(bundleTypes) {
			typ = bundleTypes[mm.Type]
		}
		s += fmt.Sprintf(" bundle_id=%d type=%s flags=%#x", mm.BundleID, typ, mm.Flags)
	case *openflow.BundleAddMessage:
		s += fmt.Sprintf(" bundle_id=%d flags=%#x", mm.BundleID, mm.Flags)
		if inner, err := mm.Inner(); err == nil {
			s += " { " + Summary(inner) + " }"
		} else {
			s += fmt.Sprintf(" { undecodable: %v }", err)
		}
	case *openflow.Role:
		s += fmt.Sprintf(" role=%d generation_id=%d", mm.Role, mm.GenerationID)
	}
	return s
}

func more(flags uint16) string {
	if flags&openflow.MultipartReplyMore != 0 {
		return " (more)"
	}
	return ""
}

var bundleTypes = [...]string{"OPEN_REQUEST", "OPEN_REPLY", "CLOSE_REQUEST", "CLOSE_REPLY",
	"COMMIT_REQUEST", "COMMIT_REPLY", "DISCARD_REQUEST", "DISCARD_REPLY"}

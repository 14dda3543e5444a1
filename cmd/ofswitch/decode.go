package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/capture"
	"github.com/ofswitch/ofswitch/openflow"
)

func newDecodeCmd() *cobra.Command {
	var port uint16
	cmd := &cobra.Command{
		Use:   "decode [--port 6653] FILE.pcap|FILE.pcapng",
		Short: "Print every OpenFlow message in the TCP streams of a capture",
		Long: `decode reassembles the TCP streams to or from --port in a pcap or pcapng
capture and prints one line per OpenFlow message, in the manner of
ovs-ofctl ofp-parse-pcap, in the order the capture completed them. It exits
non-zero at the first message it cannot decode, naming the stream, the offset
and the field.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDecode(cmd.OutOrStdout(), args[0], port)
		},
	}
	cmd.Flags().Uint16Var(&port, "port", 6653, "TCP port of the OpenFlow listener (either side of the stream)")
	return cmd
}

// decodedLine is one message (or the failure) of one stream, placed by the
// capture packet that completed it.
type decodedLine struct {
	packet, stream, offset int
	text                   string
	err                    error
}

// runDecode prints the OpenFlow messages of the streams to or from port in
// the order the capture completed them, as ovs-ofctl ofp-parse-pcap does.
// Each stream is decoded up to its first bad message; the first failure in
// capture order is returned after everything before it has been printed.
func runDecode(w io.Writer, file string, port uint16) error {
	streams, err := capture.ReadTCPStreamsFile(file)
	if err != nil {
		return err
	}
	var lines []decodedLine
	found := 0
	for i := range streams {
		st := &streams[i]
		if st.Src.Port() != port && st.Dst.Port() != port {
			continue
		}
		found++
		where := fmt.Sprintf("stream %d (conn %d, %v > %v)", i, st.Conn, st.Src, st.Dst)
		if st.Gaps > 0 {
			lines = append(lines, decodedLine{packet: st.PacketAt(0), stream: i,
				text: fmt.Sprintf("%s: warning: %d gaps in the TCP sequence", where, st.Gaps)})
		}
		r := openflow.NewReader(bytes.NewReader(st.Data), 0)
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			off := int(r.Offset())
			if err != nil {
				lines = append(lines, decodedLine{packet: st.PacketAt(len(st.Data) - 1), stream: i, offset: off,
					err: fmt.Errorf("%s offset %d: %w", where, off, err)})
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
				lines = append(lines, decodedLine{packet: at, stream: i, offset: off, err: err})
				break
			}
			lines = append(lines, decodedLine{packet: at, stream: i, offset: off,
				text: fmt.Sprintf("%s @%d: %s", where, off, summarize(m))})
		}
	}
	if found == 0 {
		return fmt.Errorf("%s: no TCP stream to or from port %d", file, port)
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.packet != b.packet {
			return a.packet < b.packet
		}
		if a.stream != b.stream {
			return a.stream < b.stream
		}
		return a.offset < b.offset
	})
	for _, l := range lines {
		if l.err != nil {
			return l.err
		}
		fmt.Fprintf(w, "%s\n", l.text)
	}
	return nil
}

// summarize formats a message on one line: type, version, xid, then the
// fields that identify it.
func summarize(m openflow.Message) string {
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
			s += " { " + summarize(inner) + " }"
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

package main

import (
	"fmt"

	"github.com/ofswitch/ofswitch/openflow/ofpcap"
	"github.com/spf13/cobra"
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
			lines, err := ofpcap.Parse(args[0], port)
			if err != nil {
				return err
			}
			for _, l := range lines {
				if l.Err != nil {
					return l.Err
				}
				fmt.Fprintln(cmd.OutOrStdout(), l.Text)
			}
			return nil
		},
	}
	cmd.Flags().Uint16Var(&port, "port", 6653, "TCP port of the OpenFlow listener (either side of the stream)")
	return cmd
}

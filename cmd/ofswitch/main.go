// Command ofswitch is an OpenFlow 1.3 software switch and packet classifier
// whose flow table is fronted by a Bloom-Cuckoo filter.
//
// Each subcommand lives in its own file and turns flags into the Config of
// the package that does the work; no logic lives here that a package test
// cannot reach.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "ofswitch",
		Short:         "OpenFlow 1.3 software switch with a Bloom-Cuckoo fronted flow table",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Subcommands, one constructor per file.
	root.AddCommand(
		newBenchCmd(),
		newDecodeCmd(),
		newRulesCmd(),
		newRunCmd(),
		newPushCmd(),
		newReplayCmd(),
	)
	return root
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ofswitch:", err)
		os.Exit(1)
	}
}

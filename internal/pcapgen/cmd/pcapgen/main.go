// Command pcapgen writes a reproducible synthetic capture (see package
// internal/pcapgen) and prints what it holds:
//
//	go run ./internal/pcapgen/cmd/pcapgen -seed 1 -n 1500 -o testdata/pcaps/mix.pcap
//
// The printed line ("packets=1500 arp=... malformed:tcp=...") is what a
// replay of the file must report.
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/ofswitch/ofswitch/internal/pcapgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pcapgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cfg, out, err := pcapgen.ParseFlags(args)
	if err != nil {
		return err
	}
	if out == "" {
		return fmt.Errorf("missing -o FILE")
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	counts, err := pcapgen.Write(w, cfg)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Printf("%s: %s\n", out, counts)
	return nil
}

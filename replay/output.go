package replay

import (
	"context"
	"fmt"
	"os"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
)

// WriteOutput replays cfg's captures once, without bursts, through a
// switch with cfg's rules and first filter (bcf t=0 if none) on
// cfg.Workers workers, whose ports write what they output to a pcapng file
// at path, one interface per port (cfg.Ports, or as Run chooses them). It
// returns the number of frames written.
func WriteOutput(ctx context.Context, path string, cfg *Config) (int, error) {
	fs := Filter{Kind: rules.FilterBloomCuckoo}
	if len(cfg.Filters) > 0 {
		fs = cfg.Filters[0]
	}
	pipe, err := rules.New(&rules.Config{Tables: max(cfg.Tables, 1), Filter: fs.Kind, BloomAfter: fs.T})
	if err != nil {
		return 0, err
	}
	for i, err := range pipe.ApplyBurst(cfg.Rules, true).Errs {
		if err != nil {
			return 0, fmt.Errorf("rule %d (id %d): %w", i, cfg.Rules[i].ID, err)
		}
	}
	file, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	ports := cfg.Ports
	if ports == nil {
		ports = defaultPorts(cfg.Captures)
	}
	pw, err := dataplane.NewPcapWriter(file, ports, nil)
	if err == nil {
		sw := dataplane.NewSwitch(pipe, &dataplane.Config{Workers: cfg.Workers, Ports: ports, Devices: pw.Devices()})
		err = sw.Replay(ctx, cfg.Captures, nil)
		if ferr := pw.Flush(); err == nil {
			err = ferr
		}
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	return pw.Frames(), nil
}

//go:build !linux

package bridge

import (
	"errors"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// openLive fails: live ports are AF_PACKET sockets, which only Linux has.
func openLive(names []string, queues int, pipe *rules.Pipeline, mt *meters.Table, _ *groups.Table) (dataPlane, error) {
	return nil, errors.New("bridge: ports: live ports need Linux (AF_PACKET)")
}

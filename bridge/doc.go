// Package bridge is one switch assembled: flow tables behind the OpenFlow
// channel, the data plane's ports and workers, and the switch's metrics,
// built from a Config by New and run by Run, as an Open vSwitch bridge is.
//
// # Parts
//
// The flow tables are a rules.Pipeline that recycles the memory of
// removed rules (rules.Config.Recycle) and makes the memory of the next
// Config.Prefault rules ahead of the bursts. The OpenFlow channel is a
// controller.Agent: it listens on and connects to Config.Targets, applies
// FLOW_MODs to the tables in bursts, and answers for the ports through
// the bridge's port table. One group table (package groups) is written by
// the flow tables' owner and read by the data plane, whose bucket liveness
// follows each port's link and admin state. With Config.Ports, each network interface is a
// port, numbered 1, 2, ... in order, read and written through AF_PACKET
// TPACKET_V3 rings (dataplane.LivePort), with Config.Workers receive
// queues and workers per port in a fanout group (dataplane.Switch); a
// bridge without ports is an empty bridge whose tables can still be
// managed.
//
// # Ports
//
// The port table is the channel's view of the ports: their descriptions
// (ofp_port) as netlink reports their interfaces, kept current by a
// netlink watcher whose changes go to the controllers as PORT_STATUS, and
// their counters, from the workers (frames and bytes) and from the
// interface's kernel statistics (drops and errors), as Open vSwitch
// reports them for the ports of a netdev bridge. PORT_MOD brings an
// interface up or down through netlink (OFPPC_PORT_DOWN) and sets the
// data plane's NO_RECV, NO_FWD and NO_PACKET_IN switches of a port. A
// port whose interface goes away keeps its number: its sockets close and
// frames output to it are dropped; when an interface of its name appears
// again the port opens it and forwards again under the same flows.
//
// Without a configured datapath id, the bridge's is the numerically
// lowest unicast Ethernet address of its ports, as Open vSwitch derives
// it, or 1.
//
// # Metrics
//
// With Config.Metrics, Run serves Prometheus metrics on /metrics: flows,
// subtables and filter occupancy per table, connections, reclaimed and
// prefaulted rule memory, the latency and per-update cost of the bursts
// of FLOW_MODs (histograms), and per port the counters PORT_STATS
// carries, with the workers' own counters (frames processed, misses,
// drops, malformed frames by reason, and each table's lookups and
// matches as OFPMP_TABLE reports them). With Config.Stats, Run logs what
// the bursts of each interval cost: their latency, each update's time
// and filter iterations (percentiles), the filters' Bloom part and
// occupancy, and the data plane's lookups per second before and during
// them.
package bridge

package dataplane

// The captures in testdata/pcaps are made by internal/pcapgen; see
// testdata/pcaps/README.md for what replay must report for each.
//
//go:generate go run ../internal/pcapgen/cmd/pcapgen -seed 1 -n 1200 -payload 32 -o ../testdata/pcaps/mix.pcap
//go:generate go run ../internal/pcapgen/cmd/pcapgen -seed 2 -n 500 -flows 80 -format pcapng -ifaces 2 -vlan 0.6 -qinq 0.4 -ipv6 0.5 -payload 24 -o ../testdata/pcaps/vlan-2if.pcapng
//go:generate go run ../internal/pcapgen/cmd/pcapgen -seed 3 -n 300 -flows 20 -malformed 0.3 -frag 0.1 -payload 16 -o ../testdata/pcaps/malformed.pcap

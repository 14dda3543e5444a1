package replay

import (
	_ "embed"

	"github.com/ofswitch/ofswitch/dataplane"
)

//go:generate go run ../internal/pcapgen/cmd/pcapgen -seed 7 -n 3000 -flows 300 -payload 40 -o testdata/demo.pcap

var (
	//go:embed testdata/demo.pcap
	demoPcap []byte
	//go:embed testdata/demo.flows
	demoFlows []byte
)

// DemoCapture returns the built-in demo capture (testdata/demo.pcap, made
// by internal/pcapgen: 3,000 frames of 300 Zipf-popular flows, IPv4 and
// IPv6, VLAN and QinQ, ARP, ICMP, fragments and 2% malformed frames).
func DemoCapture() *dataplane.Capture {
	c, err := dataplane.Load("demo.pcap", demoPcap)
	if err != nil {
		panic("replay: embedded demo capture: " + err.Error()) // a build mistake, checked by tests
	}
	return c
}

// DemoFlows returns the built-in demo rule set (testdata/demo.flows) in
// ovs-ofctl add-flows syntax: two tables, ports 1 and 2.
func DemoFlows() []byte { return append([]byte(nil), demoFlows...) }

package classbench_test

import (
	"fmt"
	"os"

	"github.com/ofswitch/ofswitch/rules/classbench"
)

// A ClassBench port range becomes masked ports.
func ExampleExpandPortRange() {
	for _, p := range classbench.ExpandPortRange(1024, 65535) {
		fmt.Printf("%#x/%#x ", p.Value, p.Mask)
	}
	fmt.Println()
	// Output:
	// 0x400/0xfc00 0x800/0xf800 0x1000/0xf000 0x2000/0xe000 0x4000/0xc000 0x8000/0x8000
}

// Classify a trace with the classifier and check every answer against
// ClassBench's linear scan and the trace's labels.
func ExampleCheck() {
	rs, err := classbench.Parse("acl", []byte("@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t1024 : 65535\t0x06/0xFF\t0x0000/0x0000\n"+
		"@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	trace, err := classbench.ParseTrace("acl_trace", []byte("167772161\t1\t5000\t8080\t6\t0\t0\n167772161\t1\t5000\t80\t6\t0\t0\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := classbench.Check(rs, trace, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d rules -> %d entries; checked %d, failed %d\n", rep.Expansion.Rules, rep.Expansion.Entries, rep.Checked, len(rep.Mismatches))
	for _, m := range rep.Mismatches {
		fmt.Printf("acl_trace:%d: %s\n", m.Line, m.Why)
	}
	// Output:
	// 2 rules -> 2 entries; checked 2, failed 1
	// acl_trace:2: label 0 does not match the header
}

// ClassBench's fields are independent; OpenFlow's ports need TCP, UDP or
// SCTP. The five-field entries keep the rule as written (for a pipeline
// with NoPrereqs); the OpenFlow flows say what they do instead.
func ExampleRule_Flows() {
	rs, err := classbench.Parse("acl", []byte("@10.0.0.0/8\t0.0.0.0/0\t21 : 21\t0 : 65535\t0x01/0xFF\t0x0000/0x0000\n"+
		"@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t80 : 80\t0x00/0x00\t0x0000/0x0000\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rs {
		flows, note := r.Flows()
		fmt.Printf("rule %d: %d five-field entries, %d flows\n", r.Index, len(r.TupleMatches()), len(flows))
		fmt.Println(" ", note)
	}
	// Output:
	// rule 0: 1 five-field entries, 0 flows
	//   protocol 1 (icmp): no ports in OpenFlow, so none of its packets meets source port 21 : 21: no flow for it; the rule matches no packet
	// rule 1: 1 five-field entries, 3 flows
	//   any protocol with destination port 80 : 80: one copy per tcp, udp and sctp; packets of other protocols have no ports in OpenFlow and match none
}

// Draw a trace from a set as ClassBench's trace generator does, and write
// it in the trace format: corners of random rules, some repeated in runs.
func ExampleGenerateTrace() {
	rs, err := classbench.Parse("acl", []byte("@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t1024 : 65535\t0x06/0xFF\t0x0000/0x0000\n"+
		"@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := classbench.GenerateTrace(rs, 8, 1)
	if err := classbench.WriteTrace(os.Stdout, hs); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 4294967295	4294967295	65535	65535	0	0	1
	// 167772160	0	65535	65535	6	0	0
	// 0	4294967295	65535	0	255	0	1
	// 0	4294967295	65535	0	255	0	1
	// 0	4294967295	0	65535	255	0	1
	// 184549375	4294967295	65535	1024	6	0	0
	// 167772160	4294967295	0	65535	6	0	0
	// 4294967295	0	65535	0	0	0	1
}

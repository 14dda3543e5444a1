package ryusuite

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

// TestTesterLog reads a log as tester.py writes it: results are pinned on
// the cases by file and position, reasons on ERRORs, and the report after
// the end of the run is not read as results.
func TestTesterLog(t *testing.T) {
	cases := []testCase{
		{Dir: "match", File: "match: 00_IN_PORT", Index: 0, Desc: "ethernet/ipv4/tcp-->'in_port=1,actions=output:2'"},
		{Dir: "match", File: "match: 00_IN_PORT", Index: 1, Desc: "ethernet/ipv6/tcp-->'in_port=1,actions=output:2'"},
		{Dir: "match", File: "match: 01_X", Index: 0, Desc: "a  b"},
		{Dir: "match", File: "match: 01_X", Index: 1, Desc: "never reported"},
	}
	log := `loading app os_ken.tests.switch.tester
--- Test start ---
waiting for switches connection...
dpid=0000000000000001 : Join target SW.
match: 00_IN_PORT
    ethernet/ipv4/tcp-->'in_port=1,actions=output:2'                                                     OK
    ethernet/ipv6/tcp-->'in_port=1,actions=output:2'                                                     ERROR
        Failed to add flows: OFPErrorMsg[type=0x02, code=0x00]
match: 01_X
    a  b ERROR
        Table-miss error: no change in lookup_count.
---  Test end  ---

--- Test report ---
Failed to add flows(1)
    match: 00_IN_PORT                        ethernet/ipv6/tcp-->'in_port=1,actions=output:2' OK

OK(1) / ERROR(2)
`
	tr := newTester(cases)
	if err := tr.read(strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	want := []result{
		{OK: true},
		{Reason: "Failed to add flows: OFPErrorMsg[type=0x02, code=0x00]"},
		{Reason: "Table-miss error: no change in lookup_count."},
		{Reason: notRun},
	}
	if diff := cmp.Diff(want, tr.resultsOf(cases)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if !tr.ended || len(tr.stray) != 0 {
		t.Errorf("ended %v, stray %q; want true, none", tr.ended, tr.stray)
	}

	// A result whose description is not the case's at that place is
	// reported, not pinned on the case.
	tr = newTester(cases)
	tr.read(strings.NewReader("match: 01_X\n    something else OK\n"))
	if len(tr.stray) != 1 || tr.resultsOf(cases)[2].Reason != notRun {
		t.Errorf("stray %q, result %+v; want one stray, case not run", tr.stray, tr.resultsOf(cases)[2])
	}
}

// TestDocs checks that docs/ryu.md is what the recorded results make (with
// -update, makes it so), that they cover every test of the suite, and that
// the floor is no higher than what ofswitch was recorded passing.
func TestDocs(t *testing.T) {
	root := testutil.RepoRoot(t)
	sw, err := readRun(root, "ofswitch")
	if err != nil {
		t.Fatal(err)
	}
	ovs, err := readRun(root, "ovs")
	if err != nil {
		t.Fatal(err)
	}
	if *testutil.Update {
		if err := writeDocs(root); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(docsPath(root))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(docs(sw, ovs), string(got)); diff != "" {
		t.Errorf("docs/ryu.md is not what testdata/results-*.tsv make; regenerate it with -run TestDocs -update (-want +got):\n%s", diff)
	}
	tl := sw.tally()
	for d, f := range floor {
		if f > tl[d][1] {
			t.Errorf("the floor of %s is %d, above the %d tests ofswitch passed in testdata/results-ofswitch.tsv: record the run that passed them (TestRyu -update)", d, f, tl[d][1])
		}
	}

	data := testutil.SharedData(t, "ryu-of13")
	for _, r := range []*run{sw, ovs} {
		var want []string
		for _, d := range dirs {
			cases, err := loadCases(data, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				want = append(want, c.Path+" "+c.key()+" "+c.Desc)
			}
		}
		var have []string
		for _, c := range r.Cases {
			have = append(have, c.Path+" "+c.key()+" "+c.Desc)
		}
		if diff := cmp.Diff(want, have); diff != "" {
			t.Errorf("testdata/results-%s.tsv does not hold the suite's tests in order (-suite +recorded):\n%s", r.Target, diff)
		}
	}
}

// TestWriteSubset checks that a second run's folder holds exactly the
// tests picked, and that they map back onto the suite's.
func TestWriteSubset(t *testing.T) {
	data := testutil.SharedData(t, "ryu-of13")
	cases, err := loadCases(data, "action")
	if err != nil {
		t.Fatal(err)
	}
	var pick []testCase
	for i, c := range cases {
		if i%7 == 3 || c.Path == "action/25_SET_FIELD/03_ETH_DST.json" {
			pick = append(pick, c)
		}
	}
	tmp := t.TempDir()
	kept, err := writeSubset(data, tmp, pick)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := loadCases(tmp, "action")
	if err != nil {
		t.Fatal(err)
	}
	var got []testCase
	for _, c := range sub {
		c.Index = kept[c.File][c.Index]
		got = append(got, c)
	}
	if diff := cmp.Diff(pick, got); diff != "" {
		t.Errorf("cases of the subset, mapped back (-picked +got):\n%s", diff)
	}
}

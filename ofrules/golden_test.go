package ofrules

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestGoldenOVSFlowMods decodes the FLOW_MODs that ovs-ofctl sent for
// flows with the IPv6, neighbor discovery and tunnel fields and
// set_nw_ttl (testdata/golden, each naming its flow): each translates,
// through FlowMod and through a Decoder, to the flow that ofctl parses
// from the same text, and encodes back (WireFlowMod) to a FLOW_MOD that
// translates to it again.
func TestGoldenOVSFlowMods(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.hex"))
	if len(files) < 4 {
		t.Fatalf("%d golden files", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			msg := readHexFile(t, file)
			want, err := ofctl.ParseFlow(goldenFlow(t, file))
			if err != nil {
				t.Fatal(err)
			}
			var fm openflow.FlowMod
			if err := fm.UnmarshalBinary(msg); err != nil {
				t.Fatal(err)
			}
			var got rules.Update
			if err := FlowMod(&got, &fm, &Options{Tables: 4}); err != nil {
				t.Fatalf("FlowMod: %v", err)
			}
			sameFlow(t, "FlowMod", &got, &want)
			var dec rules.Update
			if err := NewDecoder(&Options{Tables: 4}).Decode(&dec, msg); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			sameFlow(t, "Decode", &dec, &want)
			var back openflow.FlowMod
			WireFlowMod(&back, &got)
			back.Version = openflow.Version13
			b, err := back.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var again openflow.FlowMod
			if err := again.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			var rt rules.Update
			if err := FlowMod(&rt, &again, &Options{Tables: 4}); err != nil {
				t.Fatalf("re-encoded: %v", err)
			}
			sameFlow(t, "re-encoded", &rt, &want)
		})
	}
}

func sameFlow(t *testing.T, what string, got, want *rules.Update) {
	t.Helper()
	if got.Match != want.Match || got.Priority != want.Priority || !reflect.DeepEqual(got.Instructions, want.Instructions) {
		t.Errorf("%s:\n got %s\nwant %s", what, ofctl.FormatUpdate(got), ofctl.FormatUpdate(want))
	}
}

// goldenFlow returns the ovs-ofctl text of the flow a golden file holds
// (its "# flow: " line).
func goldenFlow(t *testing.T, file string) string {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "# flow: "); ok {
			return s
		}
	}
	t.Fatalf("%s names no flow", file)
	return ""
}

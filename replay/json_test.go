package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// jsonKey is the style of every key of the --json document, map keys
// included.
var jsonKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// walkKeys calls f with the path and name of every object key in v, a
// value decoded into any.
func walkKeys(path string, v any, f func(path, key string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			f(path, k)
			walkKeys(path+"."+k, x, f)
		}
	case []any:
		for _, x := range v {
			walkKeys(path+"[]", x, f)
		}
	}
}

// TestReportJSONSchema replays the demo with bursts for two filter kinds
// and checks the document against its schema: it decodes into JSONReport
// with no unknown key, every key is snake_case, the named counters are
// labelled, and decoding then encoding gives the same bytes.
func TestReportJSONSchema(t *testing.T) {
	ups, errs := ofctl.ParseFlows("demo.flows", DemoFlows(), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	specs, _ := ParseFilters([]string{"bcf,none"}, []int{0})
	rep, err := Run(t.Context(), &Config{Rules: ups, Tables: 2, Filters: specs,
		Captures: []*dataplane.Capture{DemoCapture()}, Workers: 2, Burst: 32, Bursts: 2, Every: 4 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	if err := rep.WriteJSON(&raw); err != nil {
		t.Fatal(err)
	}

	dec := json.NewDecoder(bytes.NewReader(raw.Bytes()))
	dec.DisallowUnknownFields()
	var got JSONReport
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("decode into JSONReport: %v\n%s", err, raw.String())
	}
	if dec.More() {
		t.Error("more than one JSON value")
	}
	if got.SchemaVersion != SchemaVersion || got.FramesPerPass != 3000 || got.BurstUpdates != 32 || len(got.Filters) != 2 ||
		got.Filters[0].Filter != "bcf t=0" || got.Filters[1].Filter != "none" {
		t.Fatalf("report: version %d frames %d burst %d filters %d", got.SchemaVersion, got.FramesPerPass, got.BurstUpdates, len(got.Filters))
	}
	for i, f := range got.Filters {
		k := &rep.Kinds[i]
		p := &k.Counters.Parse
		if len(f.Parse.Kinds) != int(dataplane.NumKinds) || len(f.Parse.Malformed) != int(dataplane.NumReasons) {
			t.Errorf("%s: %d kinds, %d malformed reasons", f.Filter, len(f.Parse.Kinds), len(f.Parse.Malformed))
		}
		if f.Parse.Kinds["frag_first"] != p.Kinds[dataplane.KindFragFirst] || f.Parse.Kinds["tcp"] != p.Kinds[dataplane.KindTCP] ||
			f.Parse.Kinds["tcp"] == 0 || f.Parse.Malformed["ipv4_header"] != p.Malformed[dataplane.ReasonIPv4Header] {
			t.Errorf("%s: parse kinds %v malformed %v, want %v %v", f.Filter, f.Parse.Kinds, f.Parse.Malformed, p.Kinds, p.Malformed)
		}
		var malformed uint64
		for _, n := range f.Parse.Malformed {
			malformed += n
		}
		if malformed == 0 || f.Parse.Read != f.Parse.Parsed+malformed {
			t.Errorf("%s: read %d != parsed %d + malformed %d", f.Filter, f.Parse.Read, f.Parse.Parsed, malformed)
		}
		if f.Lookup.FilterFalsePositives != k.Counters.Lookup.FalsePositives || f.Counters.MissesTable0 != k.Counters.MissTable0 ||
			f.Counters.Hits+f.Counters.Misses != f.Lookup.Lookups {
			t.Errorf("%s: lookup %+v counters %+v", f.Filter, f.Lookup, f.Counters)
		}
		// A window may see no lookup when the workers lose their CPU (the
		// findings count such bursts), so the windows are checked against
		// the report, and only all of them together must have lookups.
		var windowLookups int64
		for i := range f.Bursts {
			if i < len(k.Bursts) && f.Bursts[i].Before.LookupNs.Count != k.Bursts[i].Before.LookupNs.N {
				t.Errorf("%s burst %d: before window's lookup count %d, report %d", f.Filter, i, f.Bursts[i].Before.LookupNs.Count, k.Bursts[i].Before.LookupNs.N)
			}
			windowLookups += f.Bursts[i].Before.LookupNs.Count + f.Bursts[i].After.LookupNs.Count
		}
		if len(f.Bursts) != 2 || f.Bursts[1].UpdateNs.Count != 32 || f.Bursts[1].ApplyNs != k.Bursts[1].ApplyNs ||
			windowLookups == 0 || f.Bursts[1].OccupancyRatio != k.Bursts[1].Occupancy {
			t.Errorf("%s: bursts %+v", f.Filter, f.Bursts)
		}
		if len(f.Ports) == 0 || f.Ports[0].Port != k.Ports[0].Port || f.Ports[0].RxBytes != k.Ports[0].RxBytes {
			t.Errorf("%s: ports %+v", f.Filter, f.Ports)
		}
		switch f.Filter {
		case "none":
			if f.FilterStats != nil {
				t.Errorf("none: filter_stats %+v", f.FilterStats)
			}
		default:
			fs := f.FilterStats
			if fs == nil || len(fs.IterationsHistogram) == 0 || fs.MaxIterations != fs.IterationsHistogram[len(fs.IterationsHistogram)-1].Iterations {
				t.Fatalf("%s: filter_stats %+v", f.Filter, fs)
			}
			var n uint64
			for _, c := range fs.IterationsHistogram {
				if c.Insertions == 0 || c.Iterations < 1 {
					t.Errorf("%s: iteration bar %+v", f.Filter, c)
				}
				n += c.Insertions
			}
			if n == 0 || n > fs.Inserts {
				t.Errorf("%s: %d insertions in the histogram, %d inserts", f.Filter, n, fs.Inserts)
			}
		}
	}

	// Every key, map keys included, is snake_case; no positional array of
	// counters is left.
	var generic any
	if err := json.Unmarshal(raw.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	keys := 0
	walkKeys("", generic, func(path, key string) {
		keys++
		if !jsonKey.MatchString(key) {
			t.Errorf("key %q at %s is not snake_case", key, path)
		}
	})
	if keys < 200 {
		t.Errorf("only %d keys walked", keys)
	}
	// docs/replay-json.md lists every key, map keys included.
	doc, err := os.ReadFile(filepath.Join("..", "docs", "replay-json.md"))
	if err != nil {
		t.Fatal(err)
	}
	undocumented := map[string]bool{}
	walkKeys("", generic, func(path, key string) {
		if !bytes.Contains(doc, []byte("`"+key+"`")) && !undocumented[key] {
			undocumented[key] = true
			t.Errorf("key %q at %s is not in docs/replay-json.md", key, path)
		}
	})
	for _, old := range []string{`"Malformed"`, `"Kinds"`, `"FilterStats"`, `"fpr"`, `"seconds"`} {
		if strings.Contains(raw.String(), old) {
			t.Errorf("the document still has the key %s", old)
		}
	}

	// Round trip: encode(decode(x)) == x, byte for byte, and the typed
	// value survives encode then decode.
	var again bytes.Buffer
	enc := json.NewEncoder(&again)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), raw.Bytes()) {
		t.Errorf("encode(decode(x)) != x:\n%s\nwant\n%s", again.String(), raw.String())
	}
	if want := rep.JSON(); !reflect.DeepEqual(&got, want) {
		t.Errorf("decode(encode(r.JSON())) differs from r.JSON():\n%+v\nwant\n%+v", got, *want)
	}
}

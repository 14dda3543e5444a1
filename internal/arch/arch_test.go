// Package arch holds a test of the project's import graph: every package
// states the project packages it may import, and imports point down the
// layers only (see docs/DESIGN.md, "Packages").
package arch

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ofswitch/ofswitch/"

// allowed lists, for every package of the module (by path below it), the
// project packages it may import directly. A package missing from the
// list fails the test, so that a new package states its place; what a
// package may use indirectly follows from the lists. Test files are not
// checked: a test may reach across (controller's external tests push with
// controller/push).
//
// The layers, from the ground up: the internal helpers; capture files,
// filter, openflow and the meter table; rules; the group table, whose
// buckets hold rules' actions; what builds on rules, groups and meters (the
// formats, the translation to and from OpenFlow, the tables' owner, the
// data plane);
// the channel, the push client and the replay laboratory; the switch
// assembled (bridge); the command.
var allowed = map[string][]string{
	"internal/prefetch":            nil,
	"internal/wire":                nil,
	"internal/oftarget":            nil,
	"internal/quietconn":           nil,
	"internal/figure":              nil,
	"internal/pcapgen":             {"capture"},
	"internal/pcapgen/cmd/pcapgen": {"internal/pcapgen"},
	"internal/testutil":            {"capture"},
	"internal/netnstest":           {"internal/testutil"},
	"internal/ovstest":             {"internal/testutil"},
	"internal/arch":                nil,
	"internal/ryusuite":            nil, // tests only: Ryu's switch test suite against cmd/ofswitch
	"internal/soak":                nil, // tests only: the churn soak against bridge

	"capture":      nil,
	"filter":       {"internal/prefetch"},
	"filter/paper": {"filter", "internal/figure"},
	"openflow":     {"internal/wire"},

	"rules":  {"filter", "internal/prefetch"},
	"meters": nil,

	"groups": {"rules"},

	"rules/ofctl":      {"rules", "groups", "meters"},
	"rules/classbench": {"rules"},
	"internal/oracle":  {"rules"},
	"internal/flowgen": {"rules"},
	"ofrules":          {"openflow", "rules", "groups", "meters"},
	"openflow/ofpcap":  {"openflow", "capture"},
	"internal/ofpeer":  {"openflow"},
	"tables":           {"rules", "groups", "meters"},
	"dataplane":        {"rules", "groups", "meters", "capture"},

	"controller":      {"openflow", "rules", "groups", "meters", "ofrules", "tables", "internal/oftarget", "internal/quietconn"},
	"controller/push": {"openflow", "rules", "groups", "meters", "ofrules", "internal/oftarget", "internal/quietconn"},
	"replay":          {"dataplane", "rules", "rules/ofctl", "rules/classbench", "internal/figure"},

	"bridge": {"controller", "dataplane", "openflow", "rules", "groups", "meters", "tables"},

	// The command parses flags into the Config of bridge, push and
	// replay, and runs the small tools (rules, decode, bench): it never
	// reaches past them into the tables, the translation or the filter.
	"cmd/ofswitch": {"bridge", "controller", "controller/push", "replay", "openflow", "rules",
		"rules/ofctl", "rules/classbench", "dataplane", "openflow/ofpcap", "filter/paper"},
}

func TestImportsPointDown(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		rel := strings.TrimPrefix(f[0], module)
		ok, listed := allowed[rel]
		if !listed {
			t.Errorf("%s is not in internal/arch's list: give it the project packages it may import", rel)
			continue
		}
		seen[rel] = true
		for _, dep := range f[1:] {
			if d, found := strings.CutPrefix(dep, module); found && !slices.Contains(ok, d) {
				t.Errorf("%s imports %s: imports must point down (%s may import %v)", rel, d, rel, ok)
			}
		}
	}
	for k := range allowed {
		if !seen[k] {
			t.Errorf("internal/arch lists %s, which is not a package of the module", k)
		}
	}
}

// TestLayersAreAcyclic checks the lists themselves: following them from
// any package never comes back to it, so no list can let an import point
// up.
func TestLayersAreAcyclic(t *testing.T) {
	state := map[string]int{} // 1 on the path, 2 done
	var visit func(p string, path []string)
	visit = func(p string, path []string) {
		switch state[p] {
		case 1:
			t.Fatalf("the lists go round: %s", strings.Join(append(path, p), " -> "))
		case 2:
			return
		}
		state[p] = 1
		for _, d := range allowed[p] {
			if _, ok := allowed[d]; !ok {
				t.Errorf("%s may import %s, which has no entry", p, d)
			}
			visit(d, append(path, p))
		}
		state[p] = 2
	}
	for p := range allowed {
		visit(p, nil)
	}
}

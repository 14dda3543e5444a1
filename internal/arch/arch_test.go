// Package arch holds a test of the project's import graph: imports point
// down only (see STYLE.md, "Layout").
package arch

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ofswitch/ofswitch/"

// allowed lists, for each package (by path below the module), the project
// packages it may depend on, directly or not. An entry covers the package
// and the sub-packages that have no entry of their own; a package may
// depend on the packages its entry covers, but on a sub-package with an
// entry of its own only if its list names it (controller may not use
// controller/push, which has its own entry). Packages not covered may
// import anything; internal test helpers are allowed everywhere.
var allowed = map[string][]string{
	"filter":          {"internal/prefetch"},
	"openflow":        {"internal/wire"},
	"rules":           {"filter", "internal/prefetch"},
	"ofrules":         {"openflow", "rules", "filter", "internal/wire", "internal/prefetch"},
	"dataplane":       {"rules", "filter", "internal/prefetch"},
	"controller":      {"openflow", "rules", "filter", "ofrules", "internal/wire", "internal/prefetch", "internal/quietconn", "internal/oftarget"},
	"controller/push": {"openflow", "rules", "filter", "ofrules", "internal/wire", "internal/prefetch", "internal/quietconn", "internal/oftarget"},
}

// entryOf returns the entry of allowed that covers pkg: the longest one
// that is pkg or a folder above it; "" if none does.
func entryOf(pkg string) string {
	best := ""
	for k := range allowed {
		if (pkg == k || strings.HasPrefix(pkg, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	return best
}

// permitted reports whether a package of entry may depend on dep.
func permitted(entry, dep string) bool {
	if entryOf(dep) == entry || strings.HasPrefix(dep, "internal/testutil") {
		return true
	}
	for _, a := range allowed[entry] {
		if dep == a || strings.HasPrefix(dep, a+"/") && entryOf(dep) == entryOf(a) {
			return true
		}
	}
	return false
}

func TestImportsPointDown(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		rel := strings.TrimPrefix(f[0], module)
		entry := entryOf(rel)
		if entry == "" {
			continue
		}
		seen[entry] = true
		for _, dep := range f[1:] {
			d, found := strings.CutPrefix(dep, module)
			if found && !permitted(entry, d) {
				t.Errorf("%s depends on %s: imports must point down (%s may use %v)", rel, d, entry, allowed[entry])
			}
		}
	}
	for k := range allowed {
		if !seen[k] {
			t.Errorf("no package %s, which allowed lists", k)
		}
	}
}

// TestPermitted checks how entries cover sub-packages.
func TestPermitted(t *testing.T) {
	for _, tt := range []struct {
		pkg, dep string
		want     bool
	}{
		{"controller", "ofrules", true},
		{"controller", "controller/push", false}, // a sub-package with its own entry
		{"controller/push", "controller", false},
		{"controller/push", "ofrules", true},
		{"controller/push", "internal/quietconn", true},
		{"ofrules", "controller", false},
		{"ofrules", "internal/wire", true},
		{"rules/ofctl", "rules", true}, // covered by the rules entry
		{"rules", "rules/ofctl", true},
		{"rules", "openflow", false},
		{"openflow", "internal/testutil/capture", true},
	} {
		if got := permitted(entryOf(tt.pkg), tt.dep); got != tt.want {
			t.Errorf("%s may use %s: %v, want %v", tt.pkg, tt.dep, got, tt.want)
		}
	}
}

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
// packages it may depend on, directly or not. Packages not listed here may
// import anything; internal test helpers are allowed everywhere.
var allowed = map[string][]string{
	"filter":     {"internal/prefetch"},
	"openflow":   {"internal/wire"},
	"rules":      {"filter", "internal/prefetch"},
	"capture":    {},
	"dataplane":  {"rules", "filter", "capture", "internal/prefetch"},
	"controller": {"openflow", "rules", "filter", "internal/wire", "internal/prefetch"},
}

func TestImportsPointDown(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		rel := strings.TrimPrefix(f[0], module)
		top, _, _ := strings.Cut(rel, "/")
		ok, listed := allowed[top]
		if !listed {
			continue
		}
		checked++
		for _, dep := range f[1:] {
			d, found := strings.CutPrefix(dep, module)
			if !found || d == top || strings.HasPrefix(d, top+"/") || strings.HasPrefix(d, "internal/testutil") {
				continue
			}
			permitted := false
			for _, a := range ok {
				if d == a || strings.HasPrefix(d, a+"/") {
					permitted = true
				}
			}
			if !permitted {
				t.Errorf("%s depends on %s: imports must point down (%s may use %v)", rel, d, top, ok)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package of the layout found")
	}
}

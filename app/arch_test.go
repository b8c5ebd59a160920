package app_test

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/hearth-forge/hearth"

// TestLayering enforces ARCHITECTURE.md: imports only point down.
// core -> stdlib, chi (core/httpx only), zap, fx and core itself;
// modules -> core, chi, zap, fx, the stdlib and their own packages;
// adapters -> never modules or app.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Standard}}{{range .Imports}} {{.}}{{end}}`, mod+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	std := stdPackages(t)
	var broken []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[2:]
		for _, imp := range imports {
			if why := violation(pkg, imp, std[imp]); why != "" {
				broken = append(broken, pkg+" imports "+imp+": "+why)
			}
		}
	}
	for _, b := range broken {
		t.Error(b)
	}
}

func violation(pkg, imp string, isStd bool) string {
	rel := strings.TrimPrefix(pkg, mod+"/")
	irel := strings.TrimPrefix(imp, mod+"/")
	own := strings.HasPrefix(imp, mod+"/")
	layerOf := func(p string) string { return strings.SplitN(p, "/", 2)[0] }
	switch layerOf(rel) {
	case "core":
		switch {
		case own && layerOf(irel) != "core":
			return "core imports only core"
		case imp == "os/exec":
			return "core never runs processes"
		case isStd, own:
			return ""
		case strings.HasPrefix(imp, "github.com/go-chi/chi/"):
			if !strings.HasPrefix(rel, "core/httpx") {
				return "chi belongs to core/httpx only"
			}
			return ""
		case strings.HasPrefix(imp, "go.uber.org/zap"), strings.HasPrefix(imp, "go.uber.org/fx"):
			return ""
		}
		return "core imports only the standard library, chi, zap and fx"
	case "modules":
		self := strings.SplitN(rel, "/", 3)[1]
		switch {
		case own && layerOf(irel) == "core":
			return ""
		case own && strings.HasPrefix(irel, "modules/"+self+"/") || own && irel == "modules/"+self:
			return ""
		case own && layerOf(irel) == "modules":
			return "modules talk through ports and the bus, not by import"
		case own:
			return "modules import only core"
		case isStd, strings.HasPrefix(imp, "github.com/go-chi/chi/"),
			strings.HasPrefix(imp, "go.uber.org/zap"), strings.HasPrefix(imp, "go.uber.org/fx"):
			return ""
		}
		return "modules import only core, chi, zap, fx and the standard library"
	case "adapters":
		if own && (layerOf(irel) == "modules" || layerOf(irel) == "app") {
			return "adapters implement core ports and know no module or app"
		}
	case "contracttests":
		if own && layerOf(irel) != "core" {
			return "contract suites depend on core ports only"
		}
	}
	return ""
}

func stdPackages(t *testing.T) map[string]bool {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	m := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		m[p] = true
	}
	return m
}

// TestLayeringCatchesViolations keeps the rule table honest.
func TestLayeringCatchesViolations(t *testing.T) {
	cases := []struct {
		pkg, imp string
		std, bad bool
	}{
		{mod + "/core/domain", mod + "/adapters/storage/bunstore", false, true},
		{mod + "/core/domain", "github.com/uptrace/bun", false, true},
		{mod + "/core/ports", "os/exec", true, true},
		{mod + "/core/domain", "github.com/go-chi/chi/v5", false, true},
		{mod + "/core/httpx", "github.com/go-chi/chi/v5", false, false},
		{mod + "/modules/users", mod + "/modules/events", false, true},
		{mod + "/modules/users", mod + "/adapters/secrets", false, true},
		{mod + "/modules/users", "github.com/uptrace/bun", false, true},
		{mod + "/modules/users", mod + "/core/ports", false, false},
		{mod + "/modules/users/sub", mod + "/modules/users", false, false},
		{mod + "/adapters/git/gitcli", mod + "/modules/repository", false, true},
		{mod + "/adapters/git/gitcli", mod + "/app", false, true},
		{mod + "/contracttests", mod + "/adapters/storage/sqlite", false, true},
		{mod + "/app", mod + "/adapters/storage/sqlite", false, false},
	}
	for _, c := range cases {
		if got := violation(c.pkg, c.imp, c.std) != ""; got != c.bad {
			t.Errorf("violation(%s -> %s) = %v, want %v", c.pkg, c.imp, got, c.bad)
		}
	}
}

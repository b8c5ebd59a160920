package app_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestServicesFreeOfHTTP enforces the module anatomy (go doc ./modules):
// only a module's HTTP layer (routes.go and handlers*.go) may import
// net/http; its services, use cases, validation and JSON entities work on
// contexts, callers and typed input.
func TestServicesFreeOfHTTP(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, mod+"/modules/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		dir, files := fields[0], fields[1:]
		for _, f := range files {
			path := filepath.Join(dir, f)
			parsed, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			for _, imp := range parsed.Imports {
				name, _ := strconv.Unquote(imp.Path.Value)
				if why := fileViolation(path, name); why != "" {
					t.Errorf("%s imports %s: %s", path, name, why)
				}
			}
		}
	}
}

// fileViolation is the per-file rule inside modules: net/http belongs to
// routes.go and handlers*.go.
func fileViolation(path, imp string) string {
	if imp != "net/http" || !strings.Contains(filepath.ToSlash(path), "/modules/") {
		return ""
	}
	base := filepath.Base(path)
	if base == "routes.go" || strings.HasPrefix(base, "handlers") {
		return ""
	}
	return "only routes.go and handlers*.go speak HTTP; services take ctx, the caller and typed input"
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
		parts := strings.SplitN(rel, "/", 3)
		if len(parts) < 2 {
			return "the modules package holds documentation only"
		}
		self := parts[1]
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
	case "app":
		if rel != "app/runner" && !strings.HasPrefix(rel, "app/runner/") || !own {
			return ""
		}
		if irel != "app/runner" && !strings.HasPrefix(irel, "app/runner/") {
			return "the runner speaks only the public runner protocol: no core, module, adapter or app import"
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

// TestFileRuleCatchesViolations keeps the per-file rule honest: a service
// that imports net/http fails, the HTTP layer and other imports pass.
func TestFileRuleCatchesViolations(t *testing.T) {
	cases := []struct {
		name, path, imp string
		bad             bool
	}{
		{"service imports net/http", "/src/hearth/modules/issues/service.go", "net/http", true},
		{"use case imports net/http", "/src/hearth/modules/mergerequests/merge.go", "net/http", true},
		{"handlers import net/http", "/src/hearth/modules/issues/handlers.go", "net/http", false},
		{"split handlers import net/http", "/src/hearth/modules/repository/handlers_git.go", "net/http", false},
		{"routes import net/http", "/src/hearth/modules/issues/routes.go", "net/http", false},
		{"service imports context", "/src/hearth/modules/issues/service.go", "context", false},
		{"adapters may speak HTTP", "/src/hearth/adapters/git/gitcli/transport.go", "net/http", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fileViolation(c.path, c.imp) != ""; got != c.bad {
				t.Errorf("fileViolation(%s, %s) = %v, want %v", c.path, c.imp, got, c.bad)
			}
		})
	}
}

// TestLayeringCatchesViolations keeps the rule table honest.
func TestLayeringCatchesViolations(t *testing.T) {
	cases := []struct {
		name     string
		pkg, imp string
		std, bad bool
	}{
		{"core imports an adapter", mod + "/core/domain", mod + "/adapters/storage/bunstore", false, true},
		{"core imports bun", mod + "/core/domain", "github.com/uptrace/bun", false, true},
		{"core runs processes", mod + "/core/ports", "os/exec", true, true},
		{"chi outside httpx", mod + "/core/domain", "github.com/go-chi/chi/v5", false, true},
		{"chi in httpx", mod + "/core/httpx", "github.com/go-chi/chi/v5", false, false},
		{"module imports another module", mod + "/modules/users", mod + "/modules/events", false, true},
		{"module imports an adapter", mod + "/modules/users", mod + "/adapters/secrets", false, true},
		{"module imports bun", mod + "/modules/users", "github.com/uptrace/bun", false, true},
		{"module imports core", mod + "/modules/users", mod + "/core/ports", false, false},
		{"module imports its own subpackage", mod + "/modules/users/sub", mod + "/modules/users", false, false},
		{"adapter imports a module", mod + "/adapters/git/gitcli", mod + "/modules/repository", false, true},
		{"adapter imports app", mod + "/adapters/git/gitcli", mod + "/app", false, true},
		{"contract suite imports an adapter", mod + "/contracttests", mod + "/adapters/storage/sqlite", false, true},
		{"app imports an adapter", mod + "/app", mod + "/adapters/storage/sqlite", false, false},
		{"runner imports core", mod + "/app/runner", mod + "/core/domain", false, true},
		{"runner imports a module", mod + "/app/runner", mod + "/modules/runners", false, true},
		{"runner subpackage imports an adapter", mod + "/app/runner/archive", mod + "/adapters/blob", false, true},
		{"runner imports the app", mod + "/app/runner", mod + "/app", false, true},
		{"runner imports apptest", mod + "/app/runner", mod + "/app/apptest", false, true},
		{"runner imports its archive package", mod + "/app/runner", mod + "/app/runner/archive", false, false},
		{"runner imports zap", mod + "/app/runner", "go.uber.org/zap", false, false},
		{"runner imports the standard library", mod + "/app/runner", "os/exec", true, false},
		{"a sibling of the runner imports core", mod + "/app/runnerx", mod + "/core/domain", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := violation(c.pkg, c.imp, c.std) != ""; got != c.bad {
				t.Errorf("violation(%s -> %s) = %v, want %v", c.pkg, c.imp, got, c.bad)
			}
		})
	}
}

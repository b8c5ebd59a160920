package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorCommand: on a database never migrated, `hearth doctor` stops
// at the schema with its fix and fails; `--repair` applies the
// migrations and finds nothing else; a last run is clean and succeeds.
func TestDoctorCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "hearth.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "data_dir: %s\nlog:\n  level: error\n", filepath.Join(dir, "data")), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := rootCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append(args, "--config", cfg))
		err := cmd.ExecuteContext(t.Context())
		return out.String(), err
	}
	out, err := run("doctor")
	if err == nil || !strings.Contains(out, "error: database schema:") || !strings.Contains(out, "hearth migrate") {
		t.Fatalf("doctor on a database never migrated: %v\n%s", err, out)
	}
	out, err = run("doctor", "--repair")
	if err != nil || !strings.Contains(out, "repaired: database schema:") || !strings.Contains(out, "no problems found") {
		t.Fatalf("doctor --repair: %v\n%s", err, out)
	}
	out, err = run("doctor")
	if err != nil || strings.TrimSpace(out) != "checked 0 project(s), 0 open merge request(s), 0 artifact(s), 0 archived trace(s): no problems found" {
		t.Fatalf("doctor after repair: %v\n%s", err, out)
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupCommands runs `hearth backup` as an operator would, on SQLite:
// create beside a database, verify, refuse a damaged archive naming the
// part, restore into an empty data directory, refuse a second restore
// without --force, and the restored database serves the admin commands.
func TestBackupCommands(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	work := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_") {
			env = append(env, kv)
		}
	}
	hearth := func(dataDir string, args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, append(env, "HEARTH_DATA_DIR="+dataDir, "HEARTH_LOG__LEVEL=error")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	must := func(dataDir string, args ...string) (string, string) {
		t.Helper()
		out, errOut, err := hearth(dataDir, args...)
		if err != nil {
			t.Fatalf("hearth %v: %v\n%s%s", args, err, out, errOut)
		}
		return out, errOut
	}
	src, dst := filepath.Join(work, "src"), filepath.Join(work, "dst")
	must(src, "admin", "create-user", "--username", "alice", "--email", "alice@example.com", "--password", "alice-password")
	archive := filepath.Join(work, "b.tar")
	out, progress := must(src, "backup", "create", "--output", archive)
	if !strings.Contains(out, "backup written to "+archive) {
		t.Errorf("create: %s", out)
	}
	// Not a terminal: plain progress lines.
	if !strings.Contains(progress, "database: users (") || strings.Contains(progress, "\r") {
		t.Errorf("progress on a pipe:\n%s", progress)
	}
	if out, _ := must(src, "backup", "verify", archive); !strings.Contains(out, "ok") {
		t.Errorf("verify: %s", out)
	}

	raw, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 1
	bad := filepath.Join(work, "bad.tar")
	if err := os.WriteFile(bad, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"backup", "verify", bad}, {"backup", "restore", bad}} {
		if _, errOut, err := hearth(dst, args...); err == nil || !strings.Contains(errOut, "hearth: backup: part ") {
			t.Errorf("hearth %v of a damaged archive: %v\n%s", args, err, errOut)
		}
	}

	if out, _ := must(dst, "backup", "restore", archive); !strings.Contains(out, "restored") {
		t.Errorf("restore: %s", out)
	}
	if _, errOut, err := hearth(dst, "backup", "restore", archive); err == nil || !strings.Contains(errOut, "not empty") || !strings.Contains(errOut, "--force") {
		t.Errorf("restore into a non-empty target: %v\n%s", err, errOut)
	}
	must(dst, "backup", "restore", "--force", archive)
	if out, _ := must(dst, "admin", "create-token", "--user", "alice"); strings.TrimSpace(out) == "" {
		t.Errorf("create-token for the restored alice printed nothing")
	}
}

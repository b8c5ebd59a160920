package archive

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCacheSaveRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	src := tree(t, map[string]string{"vendor/a.go": "a", "vendor/sub/b.go": "b", "src/main.go": "m"})

	found, err := c.Restore(ctx, "default", t.TempDir())
	if err != nil || found {
		t.Fatalf("missing cache: found %v, %v", found, err)
	}
	if err := c.Save(ctx, "", src, []string{"vendor"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "default.zip")); err != nil {
		t.Errorf("empty key not stored as default.zip: %v", err)
	}
	dest := tree(t, map[string]string{"src/main.go": "checkout", "vendor/a.go": "stale"})
	found, err = c.Restore(ctx, "default", dest)
	if err != nil || !found {
		t.Fatalf("restore: found %v, %v", found, err)
	}
	for name, want := range map[string]string{"vendor/a.go": "a", "vendor/sub/b.go": "b", "src/main.go": "checkout"} {
		if got, err := os.ReadFile(filepath.Join(dest, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}

	// A save matching nothing keeps the previous cache.
	if err := c.Save(ctx, "default", src, []string{"nothing"}, false); err != nil {
		t.Fatal(err)
	}
	if found, err := c.Restore(ctx, "default", t.TempDir()); err != nil || !found {
		t.Errorf("cache lost after an empty save: %v, %v", found, err)
	}
	// A new save replaces it.
	if err := c.Save(ctx, "default", src, []string{"src"}, false); err != nil {
		t.Fatal(err)
	}
	dest = t.TempDir()
	if _, err := c.Restore(ctx, "", dest); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, "vendor")); err == nil {
		t.Error("old cache content restored after a new save")
	}
	// No temporary files left behind.
	ents, _ := os.ReadDir(c.Dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestCacheKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	parent := t.TempDir()
	c := Cache{Dir: filepath.Join(parent, "cache")}
	keys := []string{"../x", "a/b", "a_b", "a%2Fb", "", "default", "..", ".", "/etc/passwd", `C:\x`, "a b", strings.Repeat("k", 300), strings.Repeat("k", 301), "ünï"}
	for _, key := range keys {
		src := tree(t, map[string]string{"f": key})
		if err := c.Save(ctx, key, src, []string{"f"}, false); err != nil {
			t.Fatalf("save %q: %v", key, err)
		}
	}
	// Every cache file is a plain file directly under Dir, nothing else
	// was created under the parent.
	err := filepath.WalkDir(parent, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == parent || p == c.Dir {
			return nil
		}
		if filepath.Dir(p) != c.Dir || !d.Type().IsRegular() || !strings.HasSuffix(p, ".zip") || len(d.Name()) > 255 {
			t.Errorf("unexpected path %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Distinct keys do not share a cache ("" and "default" do).
	for _, key := range keys {
		dest := t.TempDir()
		found, err := c.Restore(ctx, key, dest)
		if err != nil || !found {
			t.Fatalf("restore %q: %v, %v", key, found, err)
		}
		got, _ := os.ReadFile(filepath.Join(dest, "f"))
		want := key
		if key == "" {
			want = "default"
		}
		if string(got) != want {
			t.Errorf("key %q restored the cache of %q", key, got)
		}
	}
	if got := cacheFileName("../x"); got != "%2E%2E%2Fx.zip" {
		t.Errorf("cacheFileName(../x) = %q", got)
	}
	if got := cacheFileName(""); got != "default.zip" {
		t.Errorf("cacheFileName(\"\") = %q", got)
	}
}

func TestCacheErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if err := (Cache{}).Save(ctx, "k", t.TempDir(), []string{"x"}, false); err == nil {
		t.Error("Save without Dir: no error")
	}
	if _, err := (Cache{}).Restore(ctx, "k", t.TempDir()); err == nil {
		t.Error("Restore without Dir: no error")
	}
	c := Cache{Dir: t.TempDir()}
	if err := os.WriteFile(filepath.Join(c.Dir, "bad.zip"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if found, err := c.Restore(ctx, "bad", t.TempDir()); err == nil || !found {
		t.Errorf("corrupt cache: found %v, err %v", found, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Restore(canceled, "bad", t.TempDir()); err == nil {
		t.Error("Restore with a canceled context: no error")
	}
	src := tree(t, map[string]string{"f": "x"})
	if err := c.Save(canceled, "k", src, []string{"f"}, false); err == nil {
		t.Error("Save with a canceled context: no error")
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "k.zip")); err == nil {
		t.Error("a canceled Save stored a cache")
	}
}

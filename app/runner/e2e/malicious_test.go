package e2e_test

import (
	"archive/zip"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
)

// maliciousYML: evil (tagged, so only the fake runner takes it) leaves
// artifacts; victim runs on the real runner and unpacks them first.
const maliciousYML = `
stages: [build, test]
evil:
  stage: build
  tags: [fake]
  script: ['true']
  artifacts:
    paths: [out/]
victim:
  stage: test
  dependencies: [evil]
  script: ['ls -laR']
`

// maliciousZip writes an archive whose entries try to leave the directory
// it is unpacked in: ../ paths at several depths, absolute paths into
// outside, a symlink to outside followed by a write through it, and a
// harmless file.
func maliciousZip(outside string) func(io.Writer) error {
	return func(w io.Writer) error {
		zw := zip.NewWriter(w)
		file := func(name, content string) error {
			f, err := zw.Create(name)
			if err != nil {
				return err
			}
			_, err = io.WriteString(f, content)
			return err
		}
		link := func(name, target string) error {
			h := &zip.FileHeader{Name: name, Method: zip.Store}
			h.SetMode(os.ModeSymlink | 0o777)
			f, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			_, err = io.WriteString(f, target)
			return err
		}
		steps := []func() error{
			func() error { return file("out/harmless.txt", "fine\n") },
			func() error { return file("../escaped1.txt", "x") },
			func() error { return file("../../escaped2.txt", "x") },
			func() error { return file("../../../escaped3.txt", "x") },
			func() error { return file("../../../../escaped4.txt", "x") },
			func() error { return file("out/../../../../../escaped5.txt", "x") },
			func() error { return file(filepath.Join(outside, "absolute.txt"), "x") },
			func() error { return link("out/link", outside) },
			func() error { return file("out/link/through-link.txt", "x") },
			func() error { return link("out/rel-link", "../../../../../../"+strings.TrimPrefix(outside, "/")) },
			func() error { return file("out/rel-link/through-rel-link.txt", "x") },
		}
		for _, s := range steps {
			if err := s(); err != nil {
				return err
			}
		}
		return zw.Close()
	}
}

// TestMaliciousArtifact: a fake job uploads an archive built to escape
// (../ entries, absolute paths, symlinks out of the tree); the real runner
// downloads it as a dependency of the next job and writes nothing outside
// its build directory.
func TestMaliciousArtifact(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t, serverConfig(nil))
	p := newProject(t, srv, "malicious")
	// Everything the runner owns lives in root/builds; outside is a
	// sibling that must stay empty, and nothing else may appear in root.
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	rc := runnerConfig(t, srv.URL, 1)
	rc.BuildsDir = filepath.Join(root, "builds", "deeper", "still")
	rc.CacheDir = filepath.Join(root, "builds", "cache")
	runIn(t, rc)

	// The fake runner takes evil (tagged) and uploads the archive.
	fake := contracttests.RunnerClient{URL: srv.URL, HTTP: &http.Client{Timeout: 30 * time.Second}}
	_, fakeToken, reply, err := fake.Register(context.Background(), registrationToken, map[string]any{
		"description": "fake", "tag_list": "fake", "run_untagged": false})
	if err != nil || reply.Status != http.StatusCreated {
		t.Fatalf("register the fake runner: %v %d %s", err, reply.Status, reply.Body)
	}
	sha := p.push(map[string]string{".gitlab-ci.yml": maliciousYML})
	plID := p.pipelineOf("main", sha)
	var evil *contracttests.RunnerJob
	for deadline := time.Now().Add(10 * time.Second); evil == nil; {
		job, reply, err := fake.RequestJob(context.Background(), fakeToken, "")
		if err != nil {
			t.Fatal(err)
		}
		if reply.Status == http.StatusCreated {
			evil = job
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake runner got no job: %d %s", reply.Status, reply.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if evil.JobInfo.Name != "evil" {
		t.Fatalf("the fake runner got %s", evil.JobInfo.Name)
	}
	reply, err = fake.UploadArtifact(context.Background(), evil.ID, evil.Token,
		url.Values{"artifact_format": {"zip"}, "artifact_type": {"archive"}}, "artifacts.zip", maliciousZip(outside))
	if err != nil || reply.Status != http.StatusCreated {
		t.Fatalf("upload the malicious archive: %v %d %s", err, reply.Status, reply.Body)
	}
	if reply, err := fake.UpdateJob(context.Background(), evil.ID, evil.Token, "success", "", 0, []byte("evil\n")); err != nil || reply.Status != http.StatusOK {
		t.Fatalf("finish evil: %v %d %s", err, reply.Status, reply.Body)
	}

	// victim runs on the real runner; it may fail (the archive is
	// refused) but must not write outside.
	deadline := time.Now().Add(20 * time.Second)
	var victim job
	for {
		victim = p.jobs(plID)["victim"]
		if victim.Status == "success" || victim.Status == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("victim is still %q", victim.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("victim %s (%s); trace:\n%s", victim.Status, victim.FailureReason, p.trace(victim.ID))
	if victim.Status != "failed" {
		t.Errorf("victim %s: a dependency archive with entries out of the tree should fail the job", victim.Status)
	}

	if entries, err := os.ReadDir(outside); err != nil || len(entries) > 0 {
		t.Errorf("written outside the build directory, in %s: %v %v", outside, entries, err)
	}
	// No escaped*, absolute.txt or through-* anywhere under root (the
	// builds directory is four levels down, so every ../ entry stays
	// inside), nor next to root.
	bad := func(name string) bool {
		return strings.HasPrefix(name, "escaped") || name == "absolute.txt" || strings.HasPrefix(name, "through-")
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if bad(d.Name()) {
			t.Errorf("escaped: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(filepath.Dir(root)); err == nil {
		for _, e := range entries {
			if bad(e.Name()) {
				t.Errorf("escaped: %s", filepath.Join(filepath.Dir(root), e.Name()))
			}
		}
	}
	if _, err := os.Stat("/escaped1.txt"); err == nil {
		t.Error("escaped to /")
	}
}

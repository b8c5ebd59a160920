package contracttests

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// twoJobsYML has two jobs in one stage: one warms the upload path up,
// the other uploads the large archive.
const twoJobsYML = `
warm:
  script: [echo ok]
  artifacts: {paths: [out/]}
big:
  script: [echo ok]
  artifacts: {paths: [out/]}
`

// largeZip writes a zip archive holding one stored (uncompressed) file of
// size pseudo-random bytes, produced 32 KiB at a time from one buffer so
// the client side allocates next to nothing, and hashes what it writes.
func largeZip(size int64, sum hash.Hash) func(io.Writer) error {
	return func(w io.Writer) error {
		zw := zip.NewWriter(io.MultiWriter(w, sum))
		f, err := zw.CreateHeader(&zip.FileHeader{Name: "out/blob.bin", Method: zip.Store})
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(1, 2))
		buf := make([]byte, 32<<10)
		for left := size; left > 0; {
			for i := 0; i+8 <= len(buf); i += 8 {
				v := rng.Uint64()
				for b := range 8 {
					buf[i+b] = byte(v >> (8 * b))
				}
			}
			n := int64(len(buf))
			if left < n {
				n = left
			}
			if _, err := f.Write(buf[:n]); err != nil {
				return err
			}
			left -= n
		}
		return zw.Close()
	}
}

// runnerLargeArtifact uploads a 50 MB archive chunked (no Content-Length)
// as the runner does, checks it comes back whole, and, when the server
// has a Memory probe, that the upload grew the server's resident memory
// by less than 20 MB: the upload must stream to the blob store.
func runnerLargeArtifact(t *testing.T, e *ciEnv) {
	const size = 50 << 20
	if e.srv.MaxArtifactsBytes < 64<<20 {
		t.Fatalf("MaxArtifactsBytes %d: the suite needs at least 64 MiB", e.srv.MaxArtifactsBytes)
	}
	p := e.newCIProject("large", twoJobsYML)
	tok := e.register(p.RunnersToken, nil)
	first, second := e.take(tok), e.take(tok)
	if r := e.upload(first, mustZip(t, map[string]string{"out/x": "warm-up"})); r.Status != http.StatusCreated {
		t.Fatalf("warm-up upload: %d %s", r.Status, r.Body)
	}

	var (
		peak, base int64
		stop       = make(chan struct{})
		sampled    sync.WaitGroup
	)
	if e.srv.Memory != nil {
		base = e.srv.Memory()
		peak = base
		sampled.Add(1)
		go func() {
			defer sampled.Done()
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if m := e.srv.Memory(); m > peak {
						peak = m
					}
				}
			}
		}()
	}
	sent := sha256.New()
	q := url.Values{"artifact_format": {"zip"}, "artifact_type": {"archive"}, "expire_in": {"1 day"}}
	start := time.Now()
	r, err := e.runner.UploadArtifact(e.ctx, second.ID, second.Token, q, "artifacts.zip", largeZip(size, sent))
	close(stop)
	sampled.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusCreated {
		t.Fatalf("50 MB upload: %d %s, want 201", r.Status, r.Body)
	}
	t.Logf("50 MB chunked upload in %v", time.Since(start).Round(time.Millisecond))
	if e.srv.Memory != nil {
		growth := peak - base
		t.Logf("server resident memory: %d MiB before, peak %d MiB during the upload (growth %.1f MiB)", base>>20, peak>>20, float64(growth)/(1<<20))
		if growth >= 20<<20 {
			t.Errorf("a 50 MB upload grew the server's resident memory by %.1f MiB (limit 20 MiB): it is buffered, not streamed", float64(growth)/(1<<20))
		}
	}
	// The whole archive comes back to a dependent job's download.
	got := sha256.New()
	r, n, err := e.runner.DownloadArtifact(e.ctx, second.ID, second.Token, got)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusOK || !bytes.Equal(got.Sum(nil), sent.Sum(nil)) {
		t.Errorf("download of the 50 MB archive: %d, %d bytes, digest differs: %v", r.Status, n, !bytes.Equal(got.Sum(nil), sent.Sum(nil)))
	}
	e.update(first, "success", "", nil, http.StatusOK)
	e.update(second, "success", "", nil, http.StatusOK)
}

// runnerArtifactTooLarge: an archive over ci.max_artifacts_bytes is a 413
// and leaves nothing behind.
func runnerArtifactTooLarge(t *testing.T, e *ciEnv) {
	p := e.newCIProject("toolarge", oneJobYML)
	job := e.take(e.register(p.RunnersToken, nil))
	q := url.Values{"artifact_format": {"zip"}, "artifact_type": {"archive"}}
	r, err := e.runner.UploadArtifact(e.ctx, job.ID, job.Token, q, "artifacts.zip", largeZip(e.srv.MaxArtifactsBytes+1<<20, sha256.New()))
	if err != nil {
		t.Fatalf("upload over the limit: no answer (%v): the server must answer 413 before closing", err)
	}
	if r.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("upload over the limit: %d %s, want 413", r.Status, r.Body)
	}
	if r, _, _ := e.runner.DownloadArtifact(e.ctx, job.ID, job.Token, io.Discard); r.Status != http.StatusNotFound {
		t.Errorf("download after a refused upload: %d, want 404", r.Status)
	}
	// The job still takes a normal upload.
	if r := e.upload(job, mustZip(t, map[string]string{"out/x": "small"})); r.Status != http.StatusCreated {
		t.Errorf("upload after a 413: %d %s", r.Status, r.Body)
	}
}

func mustZip(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ZipArtifact(files)(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// runnerJobTokenGit: the runner clones with repo_url
// (gitlab-ci-token:<job token>) while the job runs; the token never
// pushes, and stops working when the job ends.
func runnerJobTokenGit(t *testing.T, e *ciEnv) {
	p := e.newCIProject("gitfetch", oneJobYML, "README.md", "hello\n")
	job := e.take(e.register(p.RunnersToken, nil))
	g := newRepoGit(t)
	dir := filepath.Join(t.TempDir(), "build")
	if _, err := g.try("", "clone", "--quiet", job.GitInfo.RepoURL, dir); err != nil {
		t.Fatalf("clone with the job token while the job runs: %v", err)
	}
	if head, _ := g.try(dir, "rev-parse", "HEAD"); head != p.SHA {
		t.Errorf("cloned HEAD %s, want %s", head, p.SHA)
	}
	if _, err := g.try(dir, "fetch", "--quiet", "origin", "+refs/heads/main:refs/remotes/origin/main"); err != nil {
		t.Errorf("fetch with the job token: %v", err)
	}
	// The same URL built by hand (what CI_REPOSITORY_URL is for).
	u := mustURL(t, e.srv.URL)
	byHand := fmt.Sprintf("%s://gitlab-ci-token:%s@%s/%s.git", u.Scheme, url.PathEscape(job.Token), u.Host, p.Path)
	if out, err := g.try("", "ls-remote", byHand, "refs/heads/main"); err != nil || !strings.HasPrefix(out, p.SHA) {
		t.Errorf("ls-remote with the job token: %q %v", out, err)
	}
	// Never a push.
	if _, err := g.try(dir, "push", "--quiet", "origin", "HEAD:refs/heads/from-ci"); err == nil {
		t.Errorf("a job token pushed")
	}
	if _, err := g.try("", "ls-remote", "http://gitlab-ci-token:glcbt-wrong@"+u.Host+"/"+p.Path+".git"); err == nil {
		t.Errorf("a wrong job token fetched")
	}
	e.update(job, "success", "", nil, http.StatusOK)
	e.waitJobStatus(p.ID, job.ID, "success")
	if _, err := g.try(dir, "fetch", "--quiet", "origin"); err == nil {
		t.Errorf("the job token still fetches after the job ended")
	}
	if _, err := g.try("", "ls-remote", byHand); err == nil {
		t.Errorf("ls-remote with the token of a finished job succeeded")
	}
}

package runner

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/app/runner/archive"
)

// dependencies downloads and unpacks the artifacts of the jobs this one
// depends on, into the project directory (archive.Extract refuses
// entries that would land outside it).
func (j *jobRun) dependencies(projectDir, tmpDir string) error {
	for _, d := range j.job.Dependencies {
		if d.ArtifactsFile == nil || d.ArtifactsFile.Filename == "" {
			continue
		}
		j.printf("Downloading artifacts for %s (%d)...", d.Name, d.ID)
		if err := j.downloadOne(d, projectDir, tmpDir); err != nil {
			if errors.Is(err, ErrNotFound) {
				j.printf("\x1b[33;1mWARNING: artifacts of %s (%d) not found\x1b[0;m", d.Name, d.ID)
				continue
			}
			return fmt.Errorf("artifacts of %s (%d): %w", d.Name, d.ID, err)
		}
	}
	return nil
}

func (j *jobRun) downloadOne(d Dependency, projectDir, tmpDir string) error {
	f, err := os.CreateTemp(tmpDir, "dependency-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := j.r.client().DownloadArtifact(j.workCtx, d.ID, d.Token, f)
	if err != nil {
		return err
	}
	return archive.Extract(f, n, projectDir)
}

// cacheKey scopes a cache key to the project: projects never share one.
func (j *jobRun) cacheKey(c CacheSpec, env []string) string {
	key := os.Expand(c.Key, func(k string) string { return envValue(env, k) })
	if key == "" {
		key = "default"
	}
	return "project-" + strconv.FormatInt(j.job.JobInfo.ProjectID, 10) + "-" + key
}

func (j *jobRun) restoreCache(projectDir string, env []string) {
	for _, c := range j.job.Cache {
		if c.Policy == "push" {
			continue
		}
		key := j.cacheKey(c, env)
		ok, err := archive.Cache{Dir: j.r.Config.CacheDir}.Restore(j.workCtx, key, projectDir)
		switch {
		case err != nil:
			j.printf("\x1b[33;1mWARNING: restoring the cache failed: %v\x1b[0;m", err)
		case ok:
			j.printf("Restored the cache %q", c.Key)
		default:
			j.printf("No cache %q yet", c.Key)
		}
	}
}

func (j *jobRun) saveCache(projectDir string, env []string, success bool) {
	for _, c := range j.job.Cache {
		if c.Policy == "pull" || !whenMatches(c.When, success) {
			continue
		}
		err := archive.Cache{Dir: j.r.Config.CacheDir}.Save(j.abortCtx, j.cacheKey(c, env), projectDir, c.Paths, c.Untracked)
		if err != nil {
			j.printf("\x1b[33;1mWARNING: saving the cache failed: %v\x1b[0;m", err)
			continue
		}
		j.printf("Saved the cache %q", c.Key)
	}
}

func whenMatches(when string, success bool) bool {
	switch when {
	case "always":
		return true
	case "on_failure":
		return !success
	}
	return success
}

// uploadArtifacts zips each artifacts entry that applies into a
// temporary file (so that an empty one is skipped and memory stays flat)
// and streams it to the server.
func (j *jobRun) uploadArtifacts(projectDir, tmpDir string, env []string, success bool) error {
	for _, a := range j.job.Artifacts {
		if !whenMatches(a.When, success) || len(a.Paths) == 0 && !a.Untracked {
			continue
		}
		if a.Format != "" && a.Format != "zip" {
			j.printf("\x1b[33;1mWARNING: artifacts format %q is not supported, skipped\x1b[0;m", a.Format)
			continue
		}
		if err := j.uploadOne(a, projectDir, tmpDir, env); err != nil {
			return err
		}
	}
	return nil
}

func (j *jobRun) uploadOne(a Artifact, projectDir, tmpDir string, env []string) error {
	expand := func(s string) string { return os.Expand(s, func(k string) string { return envValue(env, k) }) }
	paths := make([]string, 0, len(a.Paths))
	for _, p := range a.Paths {
		paths = append(paths, expand(p))
	}
	f, err := os.CreateTemp(tmpDir, "artifacts-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	j.printf("Uploading artifacts...")
	files, err := archive.Create(j.abortCtx, f, projectDir, paths, a.Exclude, a.Untracked)
	if err != nil {
		return fmt.Errorf("zip the artifacts: %w", err)
	}
	if files == 0 {
		j.printf("\x1b[33;1mWARNING: no files to upload\x1b[0;m")
		return nil
	}
	typ := a.Type
	if typ == "" {
		typ = "archive"
	}
	q := url.Values{"artifact_format": {"zip"}, "artifact_type": {typ}}
	if a.ExpireIn != "" {
		q.Set("expire_in", a.ExpireIn)
	}
	err = j.r.client().UploadArtifact(j.abortCtx, j.job.ID, j.job.Token, q, "artifacts.zip", func(w io.Writer) error {
		_, err := io.Copy(w, io.NewSectionReader(f, 0, 1<<62))
		return err
	})
	if err != nil {
		return err
	}
	j.printf("Uploaded %d files as artifacts", files)
	j.log.Debug("artifacts uploaded", zap.Int("files", files))
	return nil
}

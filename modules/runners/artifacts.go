package runners

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

const artifactArchive = "archive"

// ArtifactInput is POST /jobs/:id/artifacts's query.
type ArtifactInput struct {
	Token    string  `param:"token"`
	Type     *string `param:"artifact_type"`
	Format   *string `param:"artifact_format"`
	ExpireIn *string `param:"expire_in"`
}

// artifactFormats are the formats runners upload in.
var artifactFormats = []string{"zip", "gzip", "raw"}

var artifactType = regexp.MustCompile(`^[a-z][a-z_]{0,49}$`)

// ArtifactFile is the file part of an upload, opened by the transport
// after the job was authenticated: its name and its bytes, streamed.
type ArtifactFile func() (filename string, body io.Reader, err error)

// UploadArtifact stores a running job's artifact file: its bytes stream
// into the blob store (core.ErrTooLarge above the configured limit, and
// nothing kept), then its record replaces the job's earlier file of the
// same type.
func (s *Service) UploadArtifact(ctx context.Context, id int64, token string, in ArtifactInput, open ArtifactFile) (*domain.Artifact, error) {
	j, err := s.authJob(ctx, id, token)
	if err != nil {
		return nil, err
	}
	typ, format := artifactArchive, "zip"
	if in.Type != nil && *in.Type != "" {
		typ = *in.Type
	}
	if in.Format != nil && *in.Format != "" {
		format = *in.Format
	}
	if !artifactType.MatchString(typ) {
		return nil, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "artifact_type does not have a valid value"}
	}
	if !contains(artifactFormats, format) {
		return nil, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "artifact_format does not have a valid value"}
	}
	now := s.now()
	var expireAt *time.Time
	if in.ExpireIn != nil {
		d, never, err := parseExpireIn(*in.ExpireIn)
		if err != nil {
			return nil, core.InvalidParam("expire_in")
		}
		if !never {
			t := now.Add(d)
			expireAt = &t
		}
	}
	name, body, err := open()
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = "artifacts.zip"
	}
	key := domain.ArtifactKey(j.ProjectID, j.ID, typ)
	sum := sha256.New()
	size, err := s.p.Blob.Write(ctx, key, io.TeeReader(body, sum), s.p.Config.CI.MaxArtifactsBytes)
	if err != nil {
		return nil, fmt.Errorf("store artifact: %w", err)
	}
	a := &domain.Artifact{
		JobID: j.ID, ProjectID: j.ProjectID, Type: typ, Format: format, Filename: clip(name, 255),
		Size: size, Key: key, SHA256: hex.EncodeToString(sum.Sum(nil)), ExpireAt: expireAt, CreatedAt: now,
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if _, err := s.authJob(ctx, id, token); err != nil {
			return err
		}
		old, err := s.p.Artifacts.Create(ctx, a)
		if err != nil {
			return fmt.Errorf("record artifact: %w", err)
		}
		if old != nil && old.Key != a.Key {
			s.p.Tx.AfterCommit(ctx, func(ctx context.Context) { s.deleteBlob(ctx, old.Key) })
		}
		if typ == artifactArchive {
			if _, err := s.p.Jobs.Update(ctx, j.ID, func(j *domain.Job) error {
				j.ArtifactsExpireAt = a.ExpireAt
				return nil
			}); err != nil {
				return fmt.Errorf("job artifacts expiry: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		// The job stopped running meanwhile: its upload does not count.
		s.deleteBlob(context.WithoutCancel(ctx), key)
		return nil, err
	}
	return a, nil
}

func (s *Service) deleteBlob(ctx context.Context, key string) {
	if err := s.p.Blob.Delete(ctx, key); err != nil {
		s.log.Warn("delete blob", zapKey(key), zapErr(err))
	}
}

// Download is an artifact file opened for reading.
type Download struct {
	Artifact domain.Artifact
	Body     io.ReadCloser
	Size     int64
}

// DownloadArtifacts opens job id's archive for a runner presenting a job
// token: the job's own token (whatever its status), or the token of a
// running job of the same pipeline that depends on it (Hearth sends the
// downloading job's token in dependencies[], having no way to recover a
// dependency's). 403 for other tokens, 404 without an archive.
func (s *Service) DownloadArtifacts(ctx context.Context, id int64, token string) (*Download, error) {
	if id <= 0 {
		return nil, errJobNotFound()
	}
	target, err := s.p.Jobs.GetByID(ctx, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errJobNotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("find job: %w", err)
	}
	if !tokenMatches(target, token) {
		ok, err := s.dependentOf(ctx, target, token)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errForbidden()
		}
	}
	arts, err := s.p.Artifacts.OfJobs(ctx, []int64{target.ID})
	if err != nil {
		return nil, fmt.Errorf("job artifacts: %w", err)
	}
	for _, a := range arts[target.ID] {
		if a.Type != artifactArchive {
			continue
		}
		body, size, err := s.p.Blob.Open(ctx, a.Key)
		if errors.Is(err, core.ErrNotFound) {
			return nil, errJobNotFound()
		}
		if err != nil {
			return nil, fmt.Errorf("open artifact: %w", err)
		}
		return &Download{Artifact: a, Body: body, Size: size}, nil
	}
	return nil, errJobNotFound()
}

// dependentOf reports whether token belongs to a live job of target's
// pipeline that depends on target.
func (s *Service) dependentOf(ctx context.Context, target *domain.Job, token string) (bool, error) {
	if token == "" {
		return false, nil
	}
	j, err := s.p.Jobs.GetByToken(ctx, domain.TokenDigest(token))
	if errors.Is(err, core.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("find job by token: %w", err)
	}
	if !tokenMatches(j, token) || !tokenLive(j) || j.PipelineID != target.PipelineID {
		return false, nil
	}
	deps, err := s.dependencyJobs(ctx, j)
	if err != nil {
		return false, err
	}
	for _, d := range deps {
		if d.ID == target.ID {
			return true, nil
		}
	}
	return false, nil
}

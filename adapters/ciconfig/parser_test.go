package ciconfig_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/adapters/ciconfig"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// files is an include callback over a map of paths.
func files(m map[string]string) func(context.Context, string) ([]byte, error) {
	return func(_ context.Context, path string) ([]byte, error) {
		src, ok := m[path]
		if !ok {
			return nil, core.NotFound("File")
		}
		return []byte(src), nil
	}
}

func parseWith(t *testing.T, limits ciconfig.Limits, src string, included map[string]string) (*domain.PipelineConfig, error) {
	t.Helper()
	return ciconfig.New(limits).Parse(context.Background(), []byte(src), files(included))
}

func mustParse(t *testing.T, src string) *domain.PipelineConfig {
	t.Helper()
	cfg, err := parseWith(t, ciconfig.Limits{}, src, nil)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return cfg
}

// invalid asserts err is core.ErrInvalid and returns its message (the
// pipeline's yaml_errors).
func invalid(t *testing.T, err error) string {
	t.Helper()
	var e *core.Error
	if !errors.Is(err, core.ErrInvalid) || !errors.As(err, &e) {
		t.Fatalf("error = %v, want core.ErrInvalid", err)
	}
	return e.Msg
}

func parseError(t *testing.T, src string) string {
	t.Helper()
	_, err := parseWith(t, ciconfig.Limits{}, src, nil)
	return invalid(t, err)
}

func job(t *testing.T, cfg *domain.PipelineConfig, name string) domain.JobConfig {
	t.Helper()
	for _, j := range cfg.Jobs {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("no job %q in %+v", name, cfg.Jobs)
	return domain.JobConfig{}
}

// TestParseRoundTrip reads a file using most keywords and compares the
// whole domain configuration.
func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	src := `
image: ruby:2.4
services:
  - postgres:9.6
  - name: docker:dind
    alias: docker
    entrypoint: ["dockerd-entrypoint.sh"]
    command: ["--tls=false"]
variables:
  DATABASE_URL: postgres://postgres@postgres/test
  RETRIES: 3
  RATIO: 1.50
stages: [build, test, deploy]
before_script:
  - bundle install
after_script:
  - echo done
cache:
  key: gems
  paths: [vendor/ruby]

.defaults: &defaults
  tags: [docker]
  retry: 1

compile:
  <<: *defaults
  stage: build
  script: make
  artifacts:
    name: binaries
    paths: [bin/]
    expire_in: 1 week
    when: always

rspec:
  <<: *defaults
  script:
    - bundle exec rspec
  variables:
    RETRIES: "5"
    LOCAL: yes-really
  coverage: '/\(\d+\.\d+%\) covered/'
  dependencies: [compile]
  only: [branches, /^feature-.*$/i]
  except:
    refs: [tags]
  cache:
    key: rspec
    untracked: true
    policy: pull

deploy:
  stage: deploy
  image:
    name: alpine:3.6
    entrypoint: [""]
  services: []
  before_script: []
  script: ./deploy.sh
  when: manual
  environment:
    name: production
    url: https://example.com
  only:
    - master
  dependencies: []
`
	got := mustParse(t, src)
	ruby := &domain.Image{Name: "ruby:2.4"}
	services := []domain.Image{
		{Name: "postgres:9.6"},
		{Name: "docker:dind", Alias: "docker", Entrypoint: []string{"dockerd-entrypoint.sh"}, Command: []string{"--tls=false"}},
	}
	globalVars := []domain.Variable{
		{Key: "DATABASE_URL", Value: "postgres://postgres@postgres/test", Public: true},
		{Key: "RETRIES", Value: "3", Public: true},
		{Key: "RATIO", Value: "1.5", Public: true},
	}
	gems := &domain.CacheSpec{Key: "gems", Paths: []string{"vendor/ruby"}, Policy: "pull-push"}
	want := &domain.PipelineConfig{
		Stages:    []string{"build", "test", "deploy"},
		Variables: globalVars,
		Jobs: []domain.JobConfig{{
			Name: "compile", Stage: "build", When: "on_success", Tags: []string{"docker"},
			Spec: domain.JobSpec{
				Image: ruby, Services: services,
				BeforeScript: []string{"bundle install"}, Script: []string{"make"}, AfterScript: []string{"echo done"},
				Variables: globalVars,
				Artifacts: &domain.ArtifactsSpec{Name: "binaries", Paths: []string{"bin/"}, ExpireIn: "1 week", When: "always"},
				Cache:     gems,
				Retry:     1,
			},
		}, {
			Name: "rspec", Stage: "test", When: "on_success", Tags: []string{"docker"},
			Only:   &domain.RefPolicy{Refs: []string{"branches", "/^feature-.*$/i"}},
			Except: &domain.RefPolicy{Refs: []string{"tags"}},
			Spec: domain.JobSpec{
				Image: ruby, Services: services,
				BeforeScript: []string{"bundle install"}, Script: []string{"bundle exec rspec"}, AfterScript: []string{"echo done"},
				Variables: []domain.Variable{
					globalVars[0], {Key: "RETRIES", Value: "5", Public: true}, globalVars[2],
					{Key: "LOCAL", Value: "yes-really", Public: true},
				},
				Cache:         &domain.CacheSpec{Key: "rspec", Untracked: true, Policy: "pull"},
				Dependencies:  []string{"compile"},
				Retry:         1,
				CoverageRegex: `\(\d+\.\d+%\) covered`,
			},
		}, {
			Name: "deploy", Stage: "deploy", When: "manual", AllowFailure: true,
			Only: &domain.RefPolicy{Refs: []string{"master"}},
			Spec: domain.JobSpec{
				Image:        &domain.Image{Name: "alpine:3.6", Entrypoint: []string{""}},
				Services:     []domain.Image{},
				BeforeScript: []string{},
				Script:       []string{"./deploy.sh"},
				AfterScript:  []string{"echo done"},
				Variables:    globalVars,
				Cache:        gems,
				Dependencies: []string{},
				Environment:  "production",
			},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

// TestParseDefaults checks what a minimal file gets: GitLab's default
// stages, the test stage, on_success, no policies, dependencies on every
// earlier job (nil).
func TestParseDefaults(t *testing.T) {
	t.Parallel()
	got := mustParse(t, "rspec:\n  script: rspec\n")
	want := &domain.PipelineConfig{
		Stages: []string{"build", "test", "deploy"},
		Jobs: []domain.JobConfig{{
			Name: "rspec", Stage: "test", When: "on_success",
			Spec: domain.JobSpec{Script: []string{"rspec"}},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestParseHonoursContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ciconfig.New(ciconfig.Limits{}).Parse(ctx, []byte("a:\n  script: x\n"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestParseErrorIsReadable(t *testing.T) {
	t.Parallel()
	_, err := parseWith(t, ciconfig.Limits{}, "test:\n  stage: test\n", nil)
	if !strings.Contains(err.Error(), "jobs:test script can't be blank") {
		t.Fatalf("Error() = %q", err.Error())
	}
}

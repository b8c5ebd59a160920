package ciconfig_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestParseKeywords reads each keyword and checks what it becomes.
func TestParseKeywords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		got       func(*domain.PipelineConfig) any
		want      any
	}{
		{"stages default", "rspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Stages }, []string{"build", "test", "deploy"}},
		{"stages", "stages: [lint, unit]\nrspec: {script: x, stage: unit}\n",
			func(c *domain.PipelineConfig) any { return c.Stages }, []string{"lint", "unit"}},
		{"types is the old stages", "types: [one, two]\nrspec: {script: x, stage: two}\n",
			func(c *domain.PipelineConfig) any { return c.Stages }, []string{"one", "two"}},
		{"stages beats types", "stages: [a]\ntypes: [b]\nrspec: {script: x, stage: a}\n",
			func(c *domain.PipelineConfig) any { return c.Stages }, []string{"a"}},
		{"stage defaults to test", "rspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Stage }, "test"},
		{"type is the old stage", "rspec: {script: x, type: deploy}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Stage }, "deploy"},
		{"stage beats type", "rspec: {script: x, type: deploy, stage: build}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Stage }, "build"},

		{"script string", "rspec: {script: make test}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Script }, []string{"make test"}},
		{"script list", "rspec:\n  script:\n    - make\n    - make test\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Script }, []string{"make", "make test"}},
		{"script block scalar", "rspec:\n  script:\n    - |\n      echo a\n      echo b\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Script }, []string{"echo a\necho b\n"}},
		{"global before_script", "before_script: [pwd]\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.BeforeScript }, []string{"pwd"}},
		{"job before_script wins", "before_script: [global]\nrspec: {script: x, before_script: [local]}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.BeforeScript }, []string{"local"}},
		{"null job before_script inherits", "before_script: [global]\nrspec: {script: x, before_script: null}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.BeforeScript }, []string{"global"}},
		{"global after_script", "after_script: [after]\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.AfterScript }, []string{"after"}},
		{"job after_script wins", "after_script: [global]\nrspec: {script: x, after_script: [local]}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.AfterScript }, []string{"local"}},

		{"global variables", "variables: {VAR1: value1, VAR2: value2}\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Variables },
			[]domain.Variable{{Key: "VAR1", Value: "value1", Public: true}, {Key: "VAR2", Value: "value2", Public: true}}},
		{"job and global variables", "variables: {VAR1: global1, VAR3: global3}\nrspec:\n  script: x\n  variables: {VAR1: value1, VAR2: value2}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Variables },
			[]domain.Variable{{Key: "VAR1", Value: "value1", Public: true}, {Key: "VAR3", Value: "global3", Public: true}, {Key: "VAR2", Value: "value2", Public: true}}},
		{"empty job variables", "rspec:\n  script: x\n  variables:\n",
			func(c *domain.PipelineConfig) any { return len(c.Jobs[0].Spec.Variables) }, 0},

		{"image string", "image: ruby:2.1\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Image }, &domain.Image{Name: "ruby:2.1"}},
		{"image hash", "image: {name: ruby:2.1, entrypoint: [/usr/local/bin/init, run]}\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Image },
			&domain.Image{Name: "ruby:2.1", Entrypoint: []string{"/usr/local/bin/init", "run"}}},
		{"job image wins", "image: ruby:2.1\nrspec: {script: x, image: ruby:2.5}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Image }, &domain.Image{Name: "ruby:2.5"}},
		{"services", "services: [mysql, {name: docker:dind, alias: docker, entrypoint: [init], command: [run]}]\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Services },
			[]domain.Image{{Name: "mysql"}, {Name: "docker:dind", Alias: "docker", Entrypoint: []string{"init"}, Command: []string{"run"}}}},
		{"job services win", "services: [mysql]\nrspec: {script: x, services: [postgresql]}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Services }, []domain.Image{{Name: "postgresql"}}},

		{"when default", "rspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].When }, "on_success"},
		{"when on_failure", "rspec: {script: x, when: on_failure}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].When }, "on_failure"},
		{"when always", "rspec: {script: x, when: always}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].When }, "always"},
		{"manual jobs may fail", "rspec: {script: x, when: manual}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].AllowFailure }, true},
		{"manual jobs may be told not to fail", "rspec: {script: x, when: manual, allow_failure: false}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].AllowFailure }, false},
		{"allow_failure default", "rspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].AllowFailure }, false},
		{"allow_failure", "rspec: {script: x, allow_failure: true}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].AllowFailure }, true},

		{"only absent", "rspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Only }, (*domain.RefPolicy)(nil)},
		{"only keywords, refs and regexps", "rspec: {script: x, only: [master, branches, tags, api, web, pushes, triggers, external, '/^release-.*$/', '/^FEAT/i', 'branches@group/project']}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Only },
			&domain.RefPolicy{Refs: []string{"master", "branches", "tags", "api", "web", "pushes", "triggers", "external", "/^release-.*$/", "/^FEAT/i", "branches@group/project"}}},
		{"only refs form", "rspec: {script: x, only: {refs: [tags]}}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Only }, &domain.RefPolicy{Refs: []string{"tags"}}},
		{"empty only is every ref", "rspec: {script: x, only: []}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Only }, (*domain.RefPolicy)(nil)},
		{"except", "rspec: {script: x, except: [/^docs-/]}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Except }, &domain.RefPolicy{Refs: []string{"/^docs-/"}}},

		{"tags", "rspec: {script: x, tags: [docker, linux]}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Tags }, []string{"docker", "linux"}},

		{"artifacts", "rspec:\n  script: x\n  artifacts: {paths: [logs/, binaries/], untracked: true, name: custom_name, expire_in: 7d}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Artifacts },
			&domain.ArtifactsSpec{Name: "custom_name", Paths: []string{"logs/", "binaries/"}, Untracked: true, When: "on_success", ExpireIn: "7d"}},
		{"artifacts when on_failure", "rspec: {script: x, artifacts: {paths: [a], when: on_failure}}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Artifacts.When }, "on_failure"},
		{"artifacts durations", "rspec: {script: x, artifacts: {expire_in: '3 weeks and 2 days'}}\nb: {script: x, artifacts: {expire_in: 2h20min}}\nc: {script: x, artifacts: {expire_in: never}}\n",
			func(c *domain.PipelineConfig) any {
				return []string{c.Jobs[0].Spec.Artifacts.ExpireIn, c.Jobs[1].Spec.Artifacts.ExpireIn, c.Jobs[2].Spec.Artifacts.ExpireIn}
			}, []string{"3 weeks and 2 days", "2h20min", "never"}},
		{"no artifacts", "rspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Artifacts }, (*domain.ArtifactsSpec)(nil)},

		{"dependencies absent: every earlier job", "build: {stage: build, script: x}\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[1].Spec.Dependencies == nil }, true},
		{"dependencies empty: none", "build: {stage: build, script: x}\nrspec: {script: x, dependencies: []}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[1].Spec.Dependencies }, []string{}},
		{"dependencies", "build1: {stage: build, script: x}\nbuild2: {stage: build, script: x}\nrspec: {script: x, dependencies: [build1, build2]}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[2].Spec.Dependencies }, []string{"build1", "build2"}},

		{"coverage", "rspec: {script: x, coverage: '/Code coverage: \\d+\\.\\d+/'}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.CoverageRegex }, `Code coverage: \d+\.\d+`},
		{"retry", "rspec: {script: x, retry: 2}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Retry }, 2},
		{"retry as a numeric string", "rspec: {script: x, retry: '1'}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Retry }, 1},

		{"global cache", "cache: {paths: [logs/, binaries/], untracked: true, key: key}\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Cache },
			&domain.CacheSpec{Key: "key", Paths: []string{"logs/", "binaries/"}, Untracked: true, Policy: "pull-push"}},
		{"job cache wins", "cache: {paths: [logs/], untracked: true, key: global}\nrspec: {script: x, cache: {paths: [test/], untracked: false, key: local}}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Cache },
			&domain.CacheSpec{Key: "local", Paths: []string{"test/"}, Policy: "pull-push"}},
		{"cache defaults", "rspec: {script: x, cache: {paths: [a], policy: push}}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Cache },
			&domain.CacheSpec{Key: "default", Paths: []string{"a"}, Policy: "push"}},

		{"environment string", "deploy: {stage: deploy, script: x, environment: production}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Environment }, "production"},
		{"environment hash", "deploy: {stage: deploy, script: x, environment: {name: review/$CI_COMMIT_REF_NAME, url: 'http://review.example.com:$PORT'}}\n",
			func(c *domain.PipelineConfig) any { return c.Jobs[0].Spec.Environment }, "review/$CI_COMMIT_REF_NAME"},
		{"environment with its stop job", "review:\n  stage: deploy\n  script: x\n  environment: {name: review, on_stop: close}\nclose:\n  stage: deploy\n  script: x\n  when: manual\n  environment: {name: review, action: stop}\n",
			func(c *domain.PipelineConfig) any { return len(c.Jobs) }, 2},

		{"hidden jobs are left out", ".hidden_job: {image: ruby:2.1, script: test}\n.no_script: {image: ruby}\n.scalar: x\nnormal_job: {script: test}\n",
			func(c *domain.PipelineConfig) any { return jobNames(c) }, []string{"normal_job"}},
		{"global keys are not jobs", "image: a\nservices: [b]\ncache: {}\nbefore_script: []\nafter_script: []\nvariables: {}\nstages: [test]\ntypes: [test]\ninclude: []\nrspec: {script: x}\n",
			func(c *domain.PipelineConfig) any { return jobNames(c) }, []string{"rspec"}},
		{"jobs in file order", "zeta: {script: x}\nalpha: {script: x}\nmid: {script: x}\n",
			func(c *domain.PipelineConfig) any { return jobNames(c) }, []string{"zeta", "alpha", "mid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, tc.src)
			if diff := cmp.Diff(tc.want, tc.got(cfg)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func jobNames(c *domain.PipelineConfig) []string {
	names := make([]string, len(c.Jobs))
	for i, j := range c.Jobs {
		names[i] = j.Name
	}
	return names
}

// Package ciconfig implements ports.PipelineConfigParser: it reads
// .gitlab-ci.yml files as GitLab 9.x does, with GitLab's error messages,
// into domain.PipelineConfig.
//
// The file is parsed by go.yaml.in/yaml/v3 into a yaml.Node tree, never
// into maps: the tree is measured first (its size, its depth, and its node
// count with every alias expanded, computed once per anchor) and refused
// over the limits, so a billion-laughs file costs what its text costs.
// Then it is resolved the way Ruby's Psych (YAML 1.1) resolves it (yes/no
// booleans, `<<` merge keys applied in order), its includes merged in,
// and checked keyword by keyword (entries.go, job.go, config.go) with the
// messages of GitLab's Gitlab::Ci::Config::Entry classes.
//
// Only/except policies are passed through as written (refs, keywords,
// /regexps/flags checked to compile with Go's regexp); matching them is
// the CI module's.
package ciconfig

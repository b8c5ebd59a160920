package domain

// PipelineConfig is a parsed CI configuration (.gitlab-ci.yml): what a
// pipeline is made of before it is created for one ref.
type PipelineConfig struct {
	// Stages in order (default: build, test, deploy).
	Stages []string
	// Variables are the global variables keyword.
	Variables []Variable
	// Jobs in file order; hidden jobs (".name") are left out.
	Jobs []JobConfig
}

// JobConfig is one job of the configuration.
type JobConfig struct {
	Name         string
	Stage        string
	When         string
	AllowFailure bool
	// Only and Except select the refs the job runs for (nil: every ref
	// for Only, none for Except).
	Only, Except *RefPolicy
	Tags         []string
	Spec         JobSpec
}

// RefPolicy is an only or except keyword: ref names, the special words
// (branches, tags, api, web, pushes, triggers, external) and regular
// expressions written /like this/.
type RefPolicy struct {
	Refs []string
}

package ciconfig

import (
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// globalKeys are the top-level keys of 9.x that are not jobs (include is
// taken out before).
var globalKeys = []string{"before_script", "image", "services", "after_script", "variables", "stages", "types", "cache"}

// laterKeywords are top-level keywords of later GitLab versions. They are
// refused rather than read as jobs, which would only say "script can't be
// blank".
var laterKeywords = []string{"default", "workflow"}

var defaultStages = []string{"build", "test", "deploy"}

// globals are the top-level keywords, which jobs inherit.
type globals struct {
	stages                    []string
	variables                 []domain.Variable
	image                     *domain.Image
	services                  []domain.Image
	beforeScript, afterScript []string
	cache                     *domain.CacheSpec
}

// build checks the configuration (its includes merged in) and makes the
// domain's from it; an invalid one is a problem with every message.
func build(root *value, limits Limits) (*domain.PipelineConfig, error) {
	if root.kind != mapKind {
		return nil, problem("Invalid configuration format")
	}
	c := &checker{}
	var unknown []string
	for _, k := range root.keys {
		if k.isString() && slices.Contains(laterKeywords, k.text) {
			unknown = append(unknown, k.text)
		}
	}
	if len(unknown) > 0 {
		c.add("root", "config contains unknown keys: "+strings.Join(unknown, ", "))
	}
	g := c.globals(root)
	names, values := c.visibleJobs(root)
	if len(names) > limits.MaxJobs {
		return nil, problemf("jobs config contains too many jobs: %d, the limit is %d", len(names), limits.MaxJobs)
	}
	jobs := make([]*job, 0, len(names))
	for i, name := range names {
		if j := c.job(name, values[i], g); j != nil {
			jobs = append(jobs, j)
		}
	}
	if !c.ok() {
		return nil, c.err()
	}
	c.crossCheck(g.stages, jobs)
	if !c.ok() {
		return nil, c.err()
	}
	cfg := &domain.PipelineConfig{Stages: g.stages, Variables: g.variables, Jobs: make([]domain.JobConfig, len(jobs))}
	for i, j := range jobs {
		cfg.Jobs[i] = j.JobConfig
	}
	return cfg, nil
}

func (c *checker) globals(root *value) *globals {
	g := &globals{stages: defaultStages}
	g.beforeScript = c.script("before_script", root.get("before_script"))
	g.image = c.image("image", root.get("image"))
	g.services = c.services("services", root.get("services"))
	g.afterScript = c.script("after_script", root.get("after_script"))
	g.variables = c.variables("variables", root.get("variables"))
	stages, types := root.get("stages"), root.get("types")
	stageList, typeList := c.stringList("stages", "config", stages), c.stringList("types", "config", types)
	switch {
	case !stages.isNull():
		g.stages = stageList
	case !types.isNull():
		g.stages = typeList
	}
	g.cache = c.cache("cache", root.get("cache"))
	return g
}

// visibleJobs returns the jobs' names and values: every top-level key but
// the global ones and hidden jobs (".name"), which are templates.
func (c *checker) visibleJobs(root *value) (names []string, values []*value) {
	invalidNames := false
	for i, k := range root.keys {
		if k.isString() && (k.text == "include" || slices.Contains(globalKeys, k.text) || slices.Contains(laterKeywords, k.text)) {
			continue
		}
		switch {
		case k.isString() && strings.HasPrefix(k.text, "."):
			continue
		case k.isNull() || k.isString() && k.text == "":
			c.add("jobs:job", "name can't be blank")
			invalidNames = true
			continue
		case !k.isString():
			c.add("jobs:"+k.describe(100), "name should be a symbol")
			invalidNames = true
			continue
		}
		names = append(names, k.text)
		values = append(values, root.vals[i])
	}
	if len(names) == 0 && !invalidNames {
		c.add("jobs", "config should contain at least one visible job")
	}
	return names, values
}

// crossCheck runs the checks between jobs GitLab's YamlProcessor runs
// once every entry is valid: stages, dependencies, on_stop jobs.
func (c *checker) crossCheck(stages []string, jobs []*job) {
	byName := make(map[string]*job, len(jobs))
	for _, j := range jobs {
		byName[j.Name] = j
	}
	for _, j := range jobs {
		stage := slices.Index(stages, j.Stage)
		if stage < 0 {
			c.addf("%s job: stage parameter should be %s", j.Name, strings.Join(stages, ", "))
			continue
		}
		for _, dep := range j.Spec.Dependencies {
			d, ok := byName[dep]
			switch {
			case !ok:
				c.addf("%s job: undefined dependency: %s", j.Name, dep)
			case slices.Index(stages, d.Stage) >= stage || slices.Index(stages, d.Stage) < 0:
				c.addf("%s job: dependency %s is not defined in prior stages", j.Name, dep)
			}
		}
		c.onStop(j, byName)
	}
}

func (c *checker) onStop(j *job, byName map[string]*job) {
	if j.env == nil || j.env.onStop == "" {
		return
	}
	stop, ok := byName[j.env.onStop]
	switch {
	case !ok:
		c.addf("%s job: on_stop job %s is not defined", j.Name, j.env.onStop)
	case stop.env == nil:
		c.addf("%s job: on_stop job %s does not have environment defined", j.Name, j.env.onStop)
	case stop.env.name != j.env.name:
		c.addf("%s job: on_stop job %s have different environment name", j.Name, j.env.onStop)
	case stop.env.action != "stop":
		c.addf("%s job: on_stop job %s needs to have action stop defined", j.Name, j.env.onStop)
	}
}

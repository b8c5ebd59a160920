package ciconfig

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// jobKeys are the keywords of a 9.x job.
var jobKeys = []string{
	"tags", "script", "only", "except", "type", "image", "services", "allow_failure",
	"stage", "when", "artifacts", "cache", "dependencies", "before_script",
	"after_script", "variables", "environment", "coverage", "retry",
}

var whens = []string{domain.WhenOnSuccess, domain.WhenOnFailure, domain.WhenAlways, domain.WhenManual}

// maxNameLength is GitLab's limit on job names (the column's).
const maxNameLength = 255

// job is one visible job while the configuration is checked.
type job struct {
	domain.JobConfig
	env *environment
}

// job reads the job called name (already known to be a visible, named
// job) with the global defaults it inherits. nil when it is invalid.
func (c *checker) job(name string, v *value, g *globals) *job {
	loc := "jobs:" + name
	if v.kind != mapKind || len(v.keys) == 0 {
		if v.blank() {
			c.add(loc, "config can't be blank")
		} else {
			c.add(loc, "config should be a hash")
		}
		return nil
	}
	before := len(c.msgs)
	c.allowedKeys(loc, v, jobKeys...)
	if v.get("script").blank() {
		c.add(loc, "script can't be blank")
	}
	if len(name) > maxNameLength {
		c.add(loc, "name is too long (maximum is 255 characters)")
	}
	j := &job{JobConfig: domain.JobConfig{Name: name, Stage: "test", When: domain.WhenOnSuccess}}
	j.Tags = c.stringList(loc, "tags", v.get("tags"))
	allowFailure := v.get("allow_failure")
	j.AllowFailure = c.boolean(loc, "allow failure", allowFailure, false)
	j.Spec.Retry = c.retry(loc, v.get("retry"))
	if w := v.get("when"); !w.isNull() {
		if !w.isString() || !slices.Contains(whens, w.text) {
			c.add(loc, "when should be on_success, on_failure, always or manual")
		} else {
			j.When = w.text
		}
	}
	if allowFailure.isNull() {
		// Manual jobs may fail by default: they do not block the pipeline.
		j.AllowFailure = j.When == domain.WhenManual
	}
	if d := v.get("dependencies"); !d.isNull() {
		j.Spec.Dependencies = c.stringList(loc, "dependencies", d)
	}
	c.jobEntries(loc, v, g, j)
	if len(c.msgs) > before {
		return nil
	}
	return j
}

// jobEntries reads the job's keywords that are entries of their own, in
// GitLab's order, the job's own winning over the global ones.
func (c *checker) jobEntries(loc string, v *value, g *globals, j *job) {
	j.Spec.BeforeScript = inherit(c.script, loc, v, "before_script", g.beforeScript)
	j.Spec.Script = c.commands(loc+":script", v.get("script"))
	stage, typ := v.get("stage"), v.get("type")
	stageName, typeName := c.stage(loc+":stage", stage), c.stage(loc+":type", typ)
	switch {
	case !stage.isNull():
		j.Stage = stageName
	case !typ.isNull():
		j.Stage = typeName
	}
	j.Spec.AfterScript = inherit(c.script, loc, v, "after_script", g.afterScript)
	j.Spec.Cache = inherit(c.cache, loc, v, "cache", g.cache)
	j.Spec.Image = inherit(c.image, loc, v, "image", g.image)
	j.Spec.Services = inherit(c.services, loc, v, "services", g.services)
	j.Only = c.policy(loc+":only", v.get("only"))
	j.Except = c.policy(loc+":except", v.get("except"))
	j.Spec.Variables = mergeVariables(g.variables, c.variables(loc+":variables", v.get("variables")))
	j.Spec.Artifacts = c.artifacts(loc+":artifacts", v.get("artifacts"))
	if j.env = c.environment(loc+":environment", v.get("environment")); j.env != nil {
		j.Spec.Environment = j.env.name
	}
	j.Spec.CoverageRegex = c.coverage(loc+":coverage", v.get("coverage"))
}

// inherit reads the job's key, or takes the global value when the job
// leaves the key out or null (GitLab's Job#inherit!).
func inherit[T any](read func(loc string, v *value) T, loc string, job *value, key string, global T) T {
	if x := job.get(key); !x.isNull() {
		return read(loc+":"+key, x)
	}
	return global
}

// retry is 0, 1 or 2, as Rails' numericality checks it (a numeric string
// passes).
func (c *checker) retry(loc string, v *value) int {
	if v.isNull() {
		return 0
	}
	var text string
	switch v.kind {
	case intKind:
		text = v.rubyString()
	case floatKind, strKind:
		text = strings.TrimSpace(v.text)
	default:
		c.add(loc, "retry is not a number")
		return 0
	}
	n, ok := new(big.Int).SetString(text, 10)
	switch {
	case !ok:
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			c.add(loc, "retry is not a number")
		} else {
			c.add(loc, "retry must be an integer")
		}
	case n.Sign() < 0:
		c.add(loc, "retry must be greater than or equal to 0")
	case n.Cmp(big.NewInt(2)) > 0:
		c.add(loc, "retry must be less than or equal to 2")
	default:
		return int(n.Int64())
	}
	return 0
}

// mergeVariables is Ruby's global.merge(job): the global variables in
// their order, a job's value replacing a global one, then the job's own.
func mergeVariables(global, own []domain.Variable) []domain.Variable {
	if len(global) == 0 && len(own) == 0 {
		return nil
	}
	out := make([]domain.Variable, 0, len(global)+len(own))
	at := make(map[string]int, len(global)+len(own))
	for _, list := range [][]domain.Variable{global, own} {
		for _, v := range list {
			if i, ok := at[v.Key]; ok {
				out[i] = v
				continue
			}
			at[v.Key] = len(out)
			out = append(out, v)
		}
	}
	return out
}

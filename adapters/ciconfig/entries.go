package ciconfig

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// The entries below are GitLab 9.x's Gitlab::Ci::Config::Entry classes:
// each reads one keyword, global or per job, with its messages.

// commands is a job's script: a string or an array of strings.
func (c *checker) commands(loc string, v *value) []string {
	switch {
	case v.isNull():
		return nil
	case v.isString():
		return []string{v.text}
	}
	list, ok := v.strings()
	if !ok {
		c.add(loc, "config should be a string or an array of strings")
	}
	return list
}

// script is before_script or after_script: an array of strings.
func (c *checker) script(loc string, v *value) []string {
	return c.stringList(loc, "config", v)
}

// stage is a job's stage (or type): a string.
func (c *checker) stage(loc string, v *value) string {
	if !v.isNull() && !v.isString() {
		c.add(loc, "config should be a string")
	}
	if v.isString() {
		return v.text
	}
	return ""
}

var (
	imageKeys   = []string{"name", "entrypoint"}
	serviceKeys = []string{"name", "entrypoint", "command", "alias"}
)

// image is a string or {name, entrypoint}.
func (c *checker) image(loc string, v *value) *domain.Image {
	return c.container(loc, v, false)
}

// services is an array of services.
func (c *checker) services(loc string, v *value) []domain.Image {
	if v.isNull() {
		return nil
	}
	if v.kind != seqKind {
		c.add(loc, "config should be a array")
		return nil
	}
	out := make([]domain.Image, 0, len(v.items))
	for _, it := range v.items {
		if img := c.container(loc+":service", it, true); img != nil {
			out = append(out, *img)
		}
	}
	return out
}

// container reads an image, or a service (which may also have a command
// and an alias).
func (c *checker) container(loc string, v *value, service bool) *domain.Image {
	switch {
	case v.isNull():
		return nil
	case v.isString():
		return &domain.Image{Name: v.text}
	case v.kind != mapKind:
		c.add(loc, "config should be a hash or a string")
		return nil
	}
	keys := imageKeys
	if service {
		keys = serviceKeys
	}
	c.allowedKeys(loc, v, keys...)
	img := &domain.Image{Name: c.str(loc, "name", v.get("name"))}
	if v.get("name").blank() {
		c.add(loc, "name can't be blank")
	}
	img.Entrypoint = c.stringList(loc, "entrypoint", v.get("entrypoint"))
	if service {
		img.Command = c.stringList(loc, "command", v.get("command"))
		img.Alias = c.str(loc, "alias", v.get("alias"))
	}
	return img
}

// variables is a hash of names to strings or numbers (numbers become
// strings as Ruby writes them). Null is no variables (GitLab issue 18775).
func (c *checker) variables(loc string, v *value) []domain.Variable {
	if v.isNull() {
		return nil
	}
	if v.kind == mapKind {
		out := make([]domain.Variable, 0, len(v.keys))
		valid := true
		for i, k := range v.keys {
			val := v.vals[i]
			if !variableScalar(k, false) || !variableScalar(val, true) {
				valid = false
				break
			}
			out = append(out, domain.Variable{Key: k.rubyString(), Value: val.rubyString(), Public: true})
		}
		if valid {
			return out
		}
	}
	c.add(loc, "config should be a hash of key value pairs")
	return nil
}

func variableScalar(v *value, floats bool) bool {
	return v.kind == strKind || v.kind == intKind || floats && v.kind == floatKind
}

var cacheKeys = []string{"key", "untracked", "paths", "policy"}

// cache is {key, untracked, paths, policy}, passed to the runner.
func (c *checker) cache(loc string, v *value) *domain.CacheSpec {
	if v.isNull() || !c.hash(loc, v) {
		return nil
	}
	c.allowedKeys(loc, v, cacheKeys...)
	spec := &domain.CacheSpec{Key: "default", Policy: "pull-push"}
	if k := v.get("key"); !k.isNull() {
		spec.Key = c.cacheKey(loc+":key", k)
	}
	spec.Untracked = c.boolean(loc+":untracked", "config", v.get("untracked"), false)
	spec.Paths = c.stringList(loc+":paths", "config", v.get("paths"))
	if p := v.get("policy"); !p.blank() {
		if !p.isString() || !slices.Contains([]string{"pull-push", "push", "pull"}, p.text) {
			c.add(loc, "policy should be pull-push, push, or pull")
		} else {
			spec.Policy = p.text
		}
	}
	return spec
}

func (c *checker) cacheKey(loc string, v *value) string {
	if !v.isString() {
		c.add(loc, "config should be a string or symbol")
		return ""
	}
	path, err := url.QueryUnescape(v.text)
	if err != nil {
		path = v.text
	}
	switch {
	case strings.Contains(path, "/"):
		c.add(loc, `config cannot contain the "/" character`)
	case path == "." || path == "..":
		c.add(loc, `config cannot be "." or ".."`)
	}
	return v.text
}

var artifactsKeys = []string{"name", "untracked", "paths", "when", "expire_in"}

// artifacts is {name, untracked, paths, when, expire_in}.
func (c *checker) artifacts(loc string, v *value) *domain.ArtifactsSpec {
	if v.isNull() || !c.hash(loc, v) {
		return nil
	}
	c.allowedKeys(loc, v, artifactsKeys...)
	spec := &domain.ArtifactsSpec{
		Name:      c.str(loc, "name", v.get("name")),
		Untracked: c.boolean(loc, "untracked", v.get("untracked"), false),
		Paths:     c.stringList(loc, "paths", v.get("paths")),
		When:      domain.WhenOnSuccess,
	}
	if w := v.get("when"); !w.isNull() {
		if !w.isString() || !slices.Contains([]string{domain.WhenOnSuccess, domain.WhenOnFailure, domain.WhenAlways}, w.text) {
			c.add(loc, "when should be on_success, on_failure or always")
		} else {
			spec.When = w.text
		}
	}
	if e := v.get("expire_in"); !e.isNull() {
		if !e.isString() || !validDuration(e.text) {
			c.add(loc, "expire in should be a duration")
		} else {
			spec.ExpireIn = e.text
		}
	}
	return spec
}

// refRegexp is how GitLab tells a regular expression from a ref name in
// only/except: /pattern/ with RE2's flags.
var refRegexp = regexp.MustCompile(`^/(.*)/([ismU]*)$`)

// policy is only or except: an array of refs, keywords and /regexps/, or
// {refs: [...]}. An empty policy is no policy, as in GitLab.
func (c *checker) policy(loc string, v *value) *domain.RefPolicy {
	var refs []string
	switch {
	case v.isNull():
		return nil
	case v.kind == seqKind:
		var ok bool
		if refs, ok = refList(v); !ok {
			c.add(loc, "config should be an array of strings or regexps")
			return nil
		}
	case v.kind == mapKind:
		if v.blank() {
			c.add(loc, "config can't be blank")
			return nil
		}
		c.allowedKeys(loc, v, "refs")
		r := v.get("refs")
		if r.isNull() {
			return nil
		}
		var ok bool
		if refs, ok = refList(r); !ok {
			c.add(loc, "refs should be an array of strings or regexps")
			return nil
		}
	default:
		c.add(loc, "has to be either an array of conditions or a hash")
		return nil
	}
	if len(refs) == 0 {
		return nil
	}
	return &domain.RefPolicy{Refs: refs}
}

func refList(v *value) ([]string, bool) {
	refs, ok := v.strings()
	if !ok {
		return nil, false
	}
	for _, r := range refs {
		if m := refRegexp.FindStringSubmatch(r); m != nil && !compiles(m[1], m[2]) {
			return nil, false
		}
	}
	return refs, true
}

// compiles reports whether RE2 (Go's regexp, which the CI module matches
// with) accepts the pattern.
func compiles(pattern, flags string) bool {
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	_, err := regexp.Compile(pattern)
	return err == nil
}

// coverage is /regexp/; the runners module applies the pattern inside.
func (c *checker) coverage(loc string, v *value) string {
	if v.isNull() {
		return ""
	}
	if v.isString() && len(v.text) >= 2 && strings.HasPrefix(v.text, "/") && strings.HasSuffix(v.text, "/") {
		if inner := v.text[1 : len(v.text)-1]; compiles(inner, "") {
			return inner
		}
	}
	c.add(loc, "config must be a regular expression")
	return ""
}

// environment is what a job deploys to: a name, or {name, url, action,
// on_stop}.
type environment struct {
	name, action, onStop string
}

var environmentKeys = []string{"name", "url", "action", "on_stop"}

// environmentName is GitLab's Gitlab::Regex.environment_name_regex.
var environmentName = regexp.MustCompile(`^[a-zA-Z0-9_/${}. -]+$`)

const environmentNameMessage = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces"

func (c *checker) environment(loc string, v *value) *environment {
	env := &environment{action: "start"}
	var name *value
	switch {
	case v.isNull():
		return nil
	case v.isString():
		name = v
	case v.kind == mapKind:
		c.allowedKeys(loc, v, environmentKeys...)
		name = v.get("name")
		if u := v.get("url"); !u.isNull() {
			switch {
			case !u.isString() || !validURL(u.text):
				c.add(loc, "url must be a valid URL")
			case len(u.text) > 255:
				c.add(loc, "url is too long (maximum is 255 characters)")
			}
		}
		if a := v.get("action"); !a.isNull() {
			if !a.isString() || a.text != "start" && a.text != "stop" {
				c.add(loc, "action should be start or stop")
			} else {
				env.action = a.text
			}
		}
		env.onStop = c.str(loc, "on_stop", v.get("on_stop"))
	default:
		c.add(loc, "config should be a hash or a string")
		return nil
	}
	switch {
	case name.blank():
		c.add(loc, "name can't be blank")
	case !name.isString() || !environmentName.MatchString(name.text):
		c.add(loc, "name "+environmentNameMessage)
	case len(name.text) > 255:
		c.add(loc, "name is too long (maximum is 255 characters)")
	default:
		env.name = name.text
	}
	return env
}

// validURL accepts http(s) URLs, variables included
// (http://host:$PORT), as GitLab's addressable_url validator does.
func validURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "https://")
	}
	return ok && rest != "" && !strings.ContainsAny(s, " \t\r\n")
}

package ciconfig

import (
	"fmt"
	"slices"
	"strings"
)

// maxMessages caps the messages of one error: enough to fix a file in
// one go, short enough to show.
const maxMessages = 20

// checker collects validation messages, located the way GitLab locates
// them ("jobs:rspec:artifacts name should be a string"), in the order
// GitLab's entries validate.
type checker struct {
	msgs []string
}

func (c *checker) add(loc, msg string) { c.msgs = append(c.msgs, loc+" "+msg) }

func (c *checker) addf(format string, args ...any) {
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
}

func (c *checker) ok() bool { return len(c.msgs) == 0 }

// err joins the messages as GitLab joins a pipeline's yaml_errors.
func (c *checker) err() error {
	if c.ok() {
		return nil
	}
	msgs := c.msgs
	if len(msgs) > maxMessages {
		msgs = append(msgs[:maxMessages:maxMessages], fmt.Sprintf("and %d more errors", len(c.msgs)-maxMessages))
	}
	return problem(strings.Join(msgs, ", "))
}

// hash reports whether v is a mapping, and if not says so.
func (c *checker) hash(loc string, v *value) bool {
	if v.kind == mapKind {
		return true
	}
	c.add(loc, "config should be a hash")
	return false
}

// allowedKeys reports the keys of mapping v outside allowed.
func (c *checker) allowedKeys(loc string, v *value, allowed ...string) {
	var unknown []string
	for _, k := range v.keys {
		if !k.isString() || !slices.Contains(allowed, k.text) {
			unknown = append(unknown, k.rubyString())
		}
	}
	if len(unknown) > 0 {
		c.add(loc, "config contains unknown keys: "+strings.Join(unknown, ", "))
	}
}

// stringList reads an array of strings; null is nil. what is the
// attribute as GitLab names it ("tags", "paths", "config").
func (c *checker) stringList(loc, what string, v *value) []string {
	if v.isNull() {
		return nil
	}
	list, ok := v.strings()
	if !ok {
		c.add(loc, what+" should be an array of strings")
	}
	return list
}

// boolean reads a boolean; null is def.
func (c *checker) boolean(loc, what string, v *value, def bool) bool {
	switch {
	case v.isNull():
		return def
	case v.kind == boolKind:
		return v.b
	}
	c.add(loc, what+" should be a boolean value")
	return def
}

// str reads a string; null is "".
func (c *checker) str(loc, what string, v *value) string {
	switch {
	case v.isNull():
		return ""
	case v.isString():
		return v.text
	}
	c.add(loc, what+" should be a string")
	return ""
}

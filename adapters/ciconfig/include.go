package ciconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

// includer expands the include keyword as GitLab does: each file named
// (local files of the repository only) is read, its own includes expanded
// (nested, within the same limits), and the files are deep-merged in
// order, the including file last so that it wins.
type includer struct {
	loader *loader
	read   func(ctx context.Context, path string) ([]byte, error)
	// seen are the files included so far: the count is bounded and a
	// file included twice (a loop) is refused, as GitLab 11's mapper did.
	seen map[string]bool
}

// yamlFile is GitLab's YAML_ALLOWLIST_EXTENSION.
var yamlFile = regexp.MustCompile(`(?i)^.+\.(yml|yaml)$`)

// otherAccessors are the include forms of later GitLab this parser does
// not fetch.
var otherAccessors = []string{"remote", "template", "project", "file", "component", "artifact"}

func (in *includer) expand(ctx context.Context, file *value) (*value, error) {
	inc := file.get("include")
	if inc == nil {
		return file, nil
	}
	locations, err := includeLocations(inc)
	if err != nil {
		return nil, err
	}
	merged := newMapBuilder(0).value()
	for _, loc := range locations {
		if loc.isNull() {
			continue // GitLab compacts the list
		}
		v, err := in.include(ctx, loc)
		if err != nil {
			return nil, err
		}
		merged = deepMerge(merged, v)
	}
	return deepMerge(merged, without(file, "include")), nil
}

func includeLocations(v *value) ([]*value, error) {
	switch {
	case v.isNull():
		return nil, nil
	case v.isString() || v.kind == mapKind:
		return []*value{v}, nil
	case v.kind == seqKind:
		return v.items, nil
	}
	return nil, problem("include config should be a string or an array")
}

// include reads one location: a path, or {local: path}.
func (in *includer) include(ctx context.Context, loc *value) (*value, error) {
	raw, err := localPath(loc)
	if err != nil {
		return nil, err
	}
	if len(in.seen) >= in.loader.limits.MaxIncludes {
		return nil, problemf("Maximum of %d nested includes are allowed!", in.loader.limits.MaxIncludes)
	}
	name := strings.TrimLeft(raw, "/")
	clean := path.Clean(name)
	if in.seen[clean] {
		j, _ := json.Marshal(map[string]string{"local": raw})
		return nil, problemf("Include `%s` was already included!", j)
	}
	in.seen[clean] = true
	if !yamlFile.MatchString(path.Base(name)) {
		return nil, problemf("Included file `%s` does not have YAML extension!", name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src, err := in.fetch(ctx, name, clean)
	if err != nil {
		return nil, err
	}
	v, err := in.loader.load(src)
	var p problem
	if errors.As(err, &p) {
		return nil, problemf("`%s`: %s", name, p)
	}
	if err != nil {
		return nil, err
	}
	if v.kind != mapKind {
		return nil, problemf("Included file `%s` does not have valid YAML syntax!", name)
	}
	return in.expand(ctx, v)
}

// localPath is the path a location names; other kinds of location are
// refused with what is wrong.
func localPath(loc *value) (string, error) {
	switch {
	case loc.isString():
		if strings.HasPrefix(loc.text, "http://") || strings.HasPrefix(loc.text, "https://") {
			return "", problemf("Include `%s` is a remote file: only local files can be included", loc.text)
		}
		return loc.text, nil
	case loc.kind != mapKind:
		return "", problemf("Included file `%s` needs to be a string", loc.describe(200))
	}
	local := loc.get("local")
	switch {
	case local != nil && len(loc.keys) == 1:
		if !local.isString() {
			return "", problemf("Included file `%s` needs to be a string", local.describe(200))
		}
		return local.text, nil
	case local == nil && slices.ContainsFunc(loc.keys, func(k *value) bool {
		return k.isString() && slices.Contains(otherAccessors, k.text)
	}):
		return "", problemf("Include `%s` is not supported: only local files can be included", loc.describe(200))
	}
	return "", problemf("Include `%s` needs to match exactly one accessor!", loc.describe(200))
}

// fetch reads the file through the callback, within the size limit.
func (in *includer) fetch(ctx context.Context, name, clean string) ([]byte, error) {
	if in.read == nil || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || strings.ContainsRune(clean, 0) {
		return nil, problemf("Local file `%s` does not exist!", name)
	}
	src, err := in.read(ctx, clean)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return nil, problemf("Local file `%s` does not exist!", name)
	case err != nil:
		return nil, fmt.Errorf("ciconfig: reading included file %s: %w", clean, err)
	case int64(len(src)) > in.loader.limits.MaxBytes:
		return nil, problemf("Included file `%s` is too big: %d bytes, the limit is %d bytes", name, len(src), in.loader.limits.MaxBytes)
	case len(bytes.TrimSpace(src)) == 0:
		return nil, problemf("Local file `%s` is empty!", name)
	}
	return src, nil
}

// deepMerge is ActiveSupport's deep_merge: b's keys win, mappings present
// in both are merged in turn.
func deepMerge(a, b *value) *value {
	if a.kind != mapKind || b.kind != mapKind {
		return b
	}
	m := newMapBuilder(len(a.keys) + len(b.keys))
	m.setAll(a)
	for i, k := range b.keys {
		v := b.vals[i]
		if j, ok := m.index[k.identity()]; ok {
			v = deepMerge(m.v.vals[j], v)
		}
		m.set(k, v)
	}
	return m.value()
}

// without is mapping m less the string key name.
func without(m *value, name string) *value {
	b := newMapBuilder(len(m.keys))
	for i, k := range m.keys {
		if !k.isString() || k.text != name {
			b.set(k, m.vals[i])
		}
	}
	return b.value()
}

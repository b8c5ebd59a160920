package ciconfig

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"
)

// problem is a configuration error with the message GitLab shows in the
// pipeline's yaml_errors; Parse turns it into core.ErrInvalid.
type problem string

func (p problem) Error() string { return string(p) }

func problemf(format string, args ...any) problem { return problem(fmt.Sprintf(format, args...)) }

// loader reads YAML files into values. Its node budget is shared by a
// file and everything it includes.
type loader struct {
	limits Limits
	nodes  int // nodes left
}

// load parses one file into its root value (nullValue for an empty
// document). The file is measured before anything is built: its depth and
// its node count with every alias expanded are computed once per anchor,
// so a billion-laughs file costs what its text costs.
func (l *loader) load(src []byte) (*value, error) {
	var doc yaml.Node
	if err := unmarshal(src, &doc); err != nil {
		return nil, l.syntaxProblem(src, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nullValue, nil
	}
	m := measurer{stats: map[*yaml.Node]stat{}, active: map[*yaml.Node]bool{}}
	s, err := m.measure(doc.Content[0])
	if err != nil {
		return nil, err
	}
	if s.depth > l.limits.MaxDepth {
		return nil, l.tooDeep()
	}
	if s.nodes > l.nodes {
		return nil, problemf("The parsed YAML is too big: more than %d nodes once aliases are expanded", l.limits.MaxNodes)
	}
	l.nodes -= s.nodes
	c := converter{memo: map[*yaml.Node]*value{}}
	return c.convert(doc.Content[0]), nil
}

func (l *loader) tooDeep() problem {
	return problemf("The parsed YAML is too deep: more than %d levels of nesting", l.limits.MaxDepth)
}

// unmarshal parses src into a node tree. go-yaml never expands aliases
// into a yaml.Node; a panic of the parser is an invalid file, not a crash.
func unmarshal(src []byte, doc *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the parser failed: %v", r)
		}
	}()
	return yaml.Unmarshal(src, doc)
}

// stat is what a node costs: its nodes with aliases expanded and its
// nesting depth.
type stat struct{ nodes, depth int }

// measurer computes stats, remembering those of anchored nodes (the only
// ones aliases reach) so that each is computed once.
type measurer struct {
	stats  map[*yaml.Node]stat
	active map[*yaml.Node]bool
}

func (m *measurer) measure(n *yaml.Node) (stat, error) {
	if n.Anchor != "" {
		if s, ok := m.stats[n]; ok {
			return s, nil
		}
		if m.active[n] {
			return stat{}, problemf("(<unknown>): anchor %s contains an alias to itself at line %d column %d", n.Anchor, n.Line, n.Column)
		}
		m.active[n] = true
		defer delete(m.active, n)
	}
	var s stat
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return stat{}, problemf("Unknown alias: %s", n.Value)
		}
		var err error
		if s, err = m.measure(n.Alias); err != nil {
			return stat{}, err
		}
	case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
		s.nodes = 1
		for _, c := range n.Content {
			cs, err := m.measure(c)
			if err != nil {
				return stat{}, err
			}
			s.nodes = addSaturated(s.nodes, cs.nodes)
			s.depth = max(s.depth, cs.depth)
		}
		s.depth++
	default:
		s.nodes = 1
	}
	if n.Anchor != "" {
		m.stats[n] = s
	}
	return s, nil
}

func addSaturated(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// converter builds values from a measured node tree, once per anchored
// node: every alias of an anchor shares its value.
type converter struct {
	memo map[*yaml.Node]*value
}

func (c *converter) convert(n *yaml.Node) *value {
	if n.Kind == yaml.AliasNode {
		return c.convert(n.Alias)
	}
	if v, ok := c.memo[n]; ok {
		return v
	}
	var v *value
	switch n.Kind {
	case yaml.MappingNode:
		v = c.mapping(n)
	case yaml.SequenceNode:
		v = &value{kind: seqKind, items: make([]*value, 0, len(n.Content))}
		for _, it := range n.Content {
			v.items = append(v.items, c.convert(it))
		}
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nullValue
		}
		return c.convert(n.Content[0])
	default:
		v = scalar(n)
	}
	if n.Anchor != "" {
		c.memo[n] = v
	}
	return v
}

// mapping applies Psych's rules: pairs are assigned in order (a later
// duplicate key wins, at the first one's place), and `<<` merges the
// mapping it names, or the mappings of a sequence with the first one
// winning, as if their pairs were written there.
func (c *converter) mapping(n *yaml.Node) *value {
	b := newMapBuilder(len(n.Content) / 2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" && c.merge(b, v) {
			continue
		}
		b.set(c.convert(k), c.convert(v))
	}
	return b.value()
}

// merge merges v into b, false when v is not something Psych merges (then
// `<<` is an ordinary key).
func (c *converter) merge(b *mapBuilder, v *yaml.Node) bool {
	switch {
	case v.Kind == yaml.MappingNode || v.Kind == yaml.AliasNode && v.Alias.Kind == yaml.MappingNode:
		b.setAll(c.convert(v))
		return true
	case v.Kind == yaml.SequenceNode:
		for _, it := range v.Content {
			if deref(it).Kind != yaml.MappingNode {
				return false
			}
		}
		merged := newMapBuilder(0)
		for i := len(v.Content) - 1; i >= 0; i-- {
			merged.setAll(c.convert(v.Content[i]))
		}
		b.setAll(merged.value())
		return true
	}
	return false
}

func deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return n.Alias
	}
	return n
}

// scalar resolves a scalar as Psych does: go-yaml already knows null, int
// and float; Psych's YAML 1.1 booleans (yes, on, off ...) are added for
// plain, untagged scalars.
func scalar(n *yaml.Node) *value {
	switch n.ShortTag() {
	case "!!null":
		return nullValue
	case "!!bool":
		b, _ := psychBool(n.Value)
		return &value{kind: boolKind, b: b, text: n.Value}
	case "!!int":
		return &value{kind: intKind, text: n.Value}
	case "!!float":
		return &value{kind: floatKind, text: n.Value}
	case "!!str":
		if n.Style == 0 {
			if b, ok := psychBool(n.Value); ok {
				return &value{kind: boolKind, b: b, text: n.Value}
			}
		}
	}
	return &value{kind: strKind, text: n.Value}
}

// mapBuilder assembles a mapping with Ruby hash assignment: a key set
// again keeps its place and takes the new value.
type mapBuilder struct {
	v     *value
	index map[string]int
}

func newMapBuilder(size int) *mapBuilder {
	return &mapBuilder{
		v:     &value{kind: mapKind, keys: make([]*value, 0, size), vals: make([]*value, 0, size)},
		index: make(map[string]int, size),
	}
}

func (b *mapBuilder) set(k, v *value) {
	id := k.identity()
	if i, ok := b.index[id]; ok {
		b.v.vals[i] = v
		return
	}
	b.index[id] = len(b.v.keys)
	b.v.keys = append(b.v.keys, k)
	b.v.vals = append(b.v.vals, v)
}

func (b *mapBuilder) setAll(m *value) {
	for i, k := range m.keys {
		b.set(k, m.vals[i])
	}
}

func (b *mapBuilder) value() *value { return b.v }

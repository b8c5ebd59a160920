package ciconfig

import (
	"bytes"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// GitLab reads the file with Ruby's Psych (libyaml), whose syntax errors
// read "(<unknown>): <problem> <context> at line L column C", L and C
// being where the construct the parser was in began. go-yaml runs the same
// libyaml state machine but says only "yaml: line N: <problem>", N being
// that place's line counted from 0 (or the problem's). The problem and
// context come in fixed pairs, so the context is known from the problem;
// the line is found again by parsing prefixes of the file, and the
// column from the tree of the lines before it.

var yamlErrorRE = regexp.MustCompile(`^yaml: (?:line \d+: )?(.*)$`)

// contexts maps libyaml's problems to the context libyaml names with them
// and to how the place is found.
var contexts = map[string]struct {
	context string
	locate  func(lines [][]byte, line int) (col int, atLine int)
}{
	"did not find expected key":                       {"while parsing a block mapping", nil},
	"did not find expected '-' indicator":             {"while parsing a block collection", nil},
	"did not find expected ',' or ']'":                {"while parsing a flow sequence", columnOfByte('[')},
	"did not find expected ',' or '}'":                {"while parsing a flow mapping", columnOfByte('{')},
	"found unexpected end of stream":                  {"while scanning a quoted scalar", columnOfQuote},
	"could not find expected ':'":                     {"while scanning a simple key", firstNonBlank},
	"found character that cannot start any token":     {"while scanning for the next token", columnOfAny("@`")},
	"mapping values are not allowed in this context":  {"", columnOfMappingValue},
	"found a tab character that violates indentation": {"", columnOfAny("\t")},
}

// syntaxProblem turns a go-yaml error into GitLab's message.
func (l *loader) syntaxProblem(src []byte, err error) problem {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "yaml: unknown anchor '"); ok {
		return problemf("Unknown alias: %s", strings.TrimSuffix(name, "' referenced"))
	}
	if strings.HasPrefix(msg, "yaml: exceeded max depth") {
		return l.tooDeep()
	}
	m := yamlErrorRE.FindStringSubmatch(msg)
	if m == nil {
		return problemf("(<unknown>): %s", msg)
	}
	what := m[1]
	lines := bytes.SplitAfter(src, []byte("\n"))
	line := problemLine(src, lines, what)
	ctx := contexts[what]
	col := 0
	switch {
	case ctx.context == "while parsing a block mapping":
		line, col = enclosingBlock(lines, line, yaml.MappingNode)
	case ctx.context == "while parsing a block collection":
		line, col = enclosingBlock(lines, line, yaml.SequenceNode)
	case ctx.locate != nil:
		col, line = ctx.locate(lines, line)
	default:
		col, line = firstNonBlank(lines, line)
	}
	if ctx.context != "" {
		what += " " + ctx.context
	}
	return problemf("(<unknown>): %s at line %d column %d", what, line, col)
}

// problemLine is the first line (from 1) whose prefix of the file already
// fails with the same problem.
func problemLine(src []byte, lines [][]byte, what string) int {
	fails := func(n int) bool {
		end := 0
		for _, l := range lines[:n] {
			end += len(l)
		}
		var doc yaml.Node
		err := unmarshal(src[:end], &doc)
		if err == nil {
			return false
		}
		m := yamlErrorRE.FindStringSubmatch(err.Error())
		return m != nil && m[1] == what
	}
	lo, hi := 1, len(lines)
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return max(lo, 1)
}

// enclosingBlock finds the block collection of kind the parser was in
// when it met line: the deepest one, on the last branch of the lines
// before, that starts at or left of the line's indentation.
func enclosingBlock(lines [][]byte, line int, kind yaml.Kind) (int, int) {
	indent, _ := firstNonBlank(lines, line)
	var doc yaml.Node
	if unmarshal(bytes.Join(lines[:line-1], nil), &doc) != nil || len(doc.Content) == 0 {
		return line, indent
	}
	foundLine, foundCol := line, indent
	for n := doc.Content[0]; n != nil; {
		if n.Kind == kind && n.Style&yaml.FlowStyle == 0 && n.Column <= indent {
			foundLine, foundCol = n.Line, n.Column
		}
		if (n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode) || len(n.Content) == 0 {
			break
		}
		n = n.Content[len(n.Content)-1]
	}
	return foundLine, foundCol
}

func lineAt(lines [][]byte, line int) []byte {
	if line < 1 || line > len(lines) {
		return nil
	}
	return bytes.TrimRight(lines[line-1], "\r\n")
}

func firstNonBlank(lines [][]byte, line int) (int, int) {
	l := lineAt(lines, line)
	return len(l) - len(bytes.TrimLeft(l, " ")) + 1, line
}

func columnOfAny(chars string) func([][]byte, int) (int, int) {
	return func(lines [][]byte, line int) (int, int) {
		if i := bytes.IndexAny(lineAt(lines, line), chars); i >= 0 {
			return i + 1, line
		}
		return firstNonBlank(lines, line)
	}
}

// columnOfByte finds the last c on the line, or on the lines before (a
// flow collection left open).
func columnOfByte(c byte) func([][]byte, int) (int, int) {
	return func(lines [][]byte, line int) (int, int) {
		for l := line; l >= 1; l-- {
			if i := bytes.LastIndexByte(lineAt(lines, l), c); i >= 0 {
				return i + 1, l
			}
		}
		return firstNonBlank(lines, line)
	}
}

func columnOfQuote(lines [][]byte, line int) (int, int) {
	return columnOfAny(`"'`)(lines, line)
}

// columnOfMappingValue finds the ": " libyaml refused: the second on the
// line when there are two (a: b: c), else the first.
func columnOfMappingValue(lines [][]byte, line int) (int, int) {
	l := lineAt(lines, line)
	var found []int
	for i := 0; i < len(l); i++ {
		if l[i] == ':' && (i+1 == len(l) || l[i+1] == ' ') {
			found = append(found, i+1)
		}
	}
	switch {
	case len(found) >= 2:
		return found[1], line
	case len(found) == 1:
		return found[0], line
	}
	return firstNonBlank(lines, line)
}

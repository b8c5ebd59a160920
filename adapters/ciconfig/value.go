package ciconfig

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// kind is the type a YAML value has once resolved the way GitLab's Psych
// (YAML 1.1) resolves it.
type kind uint8

const (
	nullKind kind = iota
	boolKind
	intKind
	floatKind
	strKind
	mapKind
	seqKind
)

// value is a resolved YAML value: aliases point at the value of their
// anchor (the tree is a DAG, never copied) and `<<` merge keys are applied.
// It is read-only once built.
type value struct {
	kind kind
	// text is a scalar as written (strings, numbers).
	text string
	b    bool
	// keys and vals are a mapping's pairs in order, each key once.
	keys, vals []*value
	items      []*value
}

var nullValue = &value{kind: nullKind}

// get returns the value of the string key name in a mapping, nil when
// absent (a present null key is nullValue).
func (v *value) get(name string) *value {
	if v == nil || v.kind != mapKind {
		return nil
	}
	for i, k := range v.keys {
		if k.kind == strKind && k.text == name {
			return v.vals[i]
		}
	}
	return nil
}

func (v *value) isNull() bool { return v == nil || v.kind == nullKind }

// isString is Ruby's `is_a?(String)`: GitLab's validators accept strings only.
func (v *value) isString() bool { return v != nil && v.kind == strKind }

func (v *value) isScalar() bool {
	return v != nil && v.kind != mapKind && v.kind != seqKind
}

// blank is ActiveSupport's blank?: nil, false, "", whitespace, [] and {}.
func (v *value) blank() bool {
	switch {
	case v.isNull():
		return true
	case v.kind == boolKind:
		return !v.b
	case v.kind == strKind:
		return strings.TrimSpace(v.text) == ""
	case v.kind == mapKind:
		return len(v.keys) == 0
	case v.kind == seqKind:
		return len(v.items) == 0
	}
	return false
}

// strings returns the items of an array of strings, ok false when v is not
// one.
func (v *value) strings() ([]string, bool) {
	if v == nil || v.kind != seqKind {
		return nil, false
	}
	out := make([]string, 0, len(v.items))
	for _, it := range v.items {
		if !it.isString() {
			return nil, false
		}
		out = append(out, it.text)
	}
	return out, true
}

// rubyString is the scalar as Ruby's to_s writes it once Psych loaded it:
// numbers in decimal, floats with a fraction, true/false; GitLab turns
// variable values into strings this way.
func (v *value) rubyString() string {
	switch v.kind {
	case nullKind:
		return ""
	case boolKind:
		return strconv.FormatBool(v.b)
	case intKind:
		return rubyInt(v.text)
	case floatKind:
		return rubyFloat(v.text)
	}
	return v.text
}

// identity is what makes two mapping keys the same key, as Ruby hash keys
// compare: by type and value (1 and "1" differ, true and yes do not).
func (v *value) identity() string {
	switch v.kind {
	case nullKind:
		return "n"
	case boolKind:
		return "b" + strconv.FormatBool(v.b)
	case intKind:
		return "i" + rubyInt(v.text)
	case floatKind:
		return "f" + rubyFloat(v.text)
	case strKind:
		return "s" + v.text
	}
	// Collections as keys are never equal to each other here; Ruby would
	// compare them by content, which no CI file relies on.
	return fmt.Sprintf("p%p", v)
}

// describe writes a value short and JSON-like for error messages.
func (v *value) describe(limit int) string {
	var b strings.Builder
	v.writeJSON(&b, limit)
	if b.Len() > limit {
		return b.String()[:limit] + "..."
	}
	return b.String()
}

func (v *value) writeJSON(b *strings.Builder, limit int) {
	if b.Len() > limit {
		return
	}
	switch v.kind {
	case nullKind:
		b.WriteString("null")
	case strKind:
		b.WriteString(strconv.Quote(v.text))
	case mapKind:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k.rubyString()))
			b.WriteByte(':')
			v.vals[i].writeJSON(b, limit)
		}
		b.WriteByte('}')
	case seqKind:
		b.WriteByte('[')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.writeJSON(b, limit)
		}
		b.WriteByte(']')
	default:
		b.WriteString(v.rubyString())
	}
}

// psychBool reports whether a plain scalar is a YAML 1.1 boolean as Psych
// reads it (yes/no/on/off/true/false in any case); go-yaml reads only
// true/false so.
func psychBool(s string) (b, ok bool) {
	for _, t := range []string{"true", "yes", "on"} {
		if strings.EqualFold(s, t) {
			return true, true
		}
	}
	for _, f := range []string{"false", "no", "off"} {
		if strings.EqualFold(s, f) {
			return false, true
		}
	}
	return false, false
}

// rubyInt writes an integer literal (0x1f, 0o17, 1_000, +5) in decimal.
func rubyInt(text string) string {
	clean := strings.ReplaceAll(text, "_", "")
	if strings.HasPrefix(strings.TrimLeft(clean, "+-"), "0o") {
		// Psych leaves YAML 1.2 octal as a string.
		return text
	}
	if n, err := strconv.ParseInt(clean, 0, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	if n, ok := new(big.Int).SetString(clean, 0); ok {
		return n.String()
	}
	return text
}

// rubyFloat writes a float as Ruby's Float#to_s does (1.5, 100.0,
// 1.0e+20, Infinity). Psych only reads literals with a dot as floats;
// others (1e3) stay as written.
func rubyFloat(text string) string {
	switch strings.ToLower(strings.TrimLeft(text, "+")) {
	case ".inf":
		return "Infinity"
	case "-.inf":
		return "-Infinity"
	case ".nan":
		return "NaN"
	}
	if !strings.Contains(text, ".") {
		return text
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
	if err != nil || math.IsInf(f, 0) {
		return text
	}
	if abs := math.Abs(f); f != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		if mant, exp, ok := strings.Cut(s, "e"); ok && !strings.Contains(mant, ".") {
			s = mant + ".0e" + exp
		}
		return s
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

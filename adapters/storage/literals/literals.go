// Package literals turns the values bun writes inline into SQL text (bun
// formats every argument into the statement) back into parameters, so that
// statements that differ only in their values share one prepared statement
// and its plan. Parsing and planning cost the databases more than running
// Hearth's indexed reads: SQLite spent most of a token lookup in
// sqlite3Prepare, Postgres most of its backend time in parse and plan.
//
// The drivers' connection wrappers (adapters/storage/sqlite,
// adapters/storage/postgres) call Extract on each statement and run the
// result through a per-connection statement cache.
package literals

import (
	"database/sql/driver"
	"strconv"
	"strings"
)

// Dialect says how placeholders are written and which literals may become
// parameters.
type Dialect int

const (
	// SQLite placeholders are ?; values keep their Go type (int64,
	// float64, string), as bound values have no type affinity, like
	// literals.
	SQLite Dialect = iota
	// Postgres placeholders are $1, $2, ...; every value is passed as the
	// text of the literal (pgx sends strings in text format), so the server
	// reads it exactly as it read the quoted literal. Only literals whose
	// type Postgres infers from their place become parameters: a comparison
	// operand, an element of an IN list or a VALUES row, a SET value, a LIKE
	// pattern. A literal elsewhere (a select list, CASE, arithmetic) would be
	// typed text and could change the statement's meaning.
	Postgres
)

// maxParams bounds the literals one statement may turn into parameters: a
// longer IN list is rare, would fill the cache with one-off shapes, and runs
// as it came.
const maxParams = 200

// Extract rewrites query with placeholders for its literal values and
// returns those values as arguments. ok is false, and the statement must run
// as it came, for anything Extract does not understand or where a
// placeholder could change the meaning or the plan:
//   - statements other than SELECT, INSERT, UPDATE, DELETE and WITH (DDL
//     keeps its defaults and index predicates literal);
//   - comments, blob, hex or escape-string literals, numbers with
//     exponents, placeholders of its own, several statements.
//
// Literals that stay as written in a statement that is otherwise rewritten:
//   - in an ON CONFLICT target, whose WHERE must repeat a partial unique
//     index's predicate as written;
//   - inside a function call's parentheses, since an index on an expression
//     such as coalesce(parent_id, 0) is only used by a query that spells the
//     same constant;
//   - after ORDER BY or GROUP BY (an integer there names a column), LIMIT or
//     OFFSET (SQLite re-prepares a statement whose LIMIT is a parameter on
//     every run, which costs more than the cache saves);
//   - followed by a cast (::type), which names the type itself.
//
// Literals inside IN lists and subqueries become parameters: their
// parentheses follow a keyword or an operator, not a function's name.
func Extract(query string, d Dialect) (text string, args []driver.NamedValue, ok bool) {
	switch firstWord(query) {
	case "SELECT", "WITH", "INSERT", "UPDATE", "DELETE":
	default:
		return "", nil, false
	}
	x := extractor{d: d, query: query}
	x.b.Grow(len(query))
	if !x.run() {
		return "", nil, false
	}
	return x.b.String(), x.args, true
}

// paren is one open parenthesis.
type paren struct {
	call bool // a function call's arguments
	list bool // an IN list or a VALUES row: elements are typed by context
}

type extractor struct {
	d     Dialect
	query string
	b     strings.Builder
	args  []driver.NamedValue

	parens []paren
	// prevWord is the last bare word, upper-cased, if it was the last
	// token; whitespace keeps it ("IN (" is still after IN).
	prevWord string
	// prevSig is the last token that was not whitespace: a word, an
	// operator, or one punctuation character.
	prevSig        string
	keepLiterals   bool // in ORDER BY, GROUP BY, LIMIT or OFFSET, until the next clause
	conflictTarget bool // from ON CONFLICT to DO
	inValues       bool // since VALUES, until the next clause
}

func (x *extractor) run() bool {
	q := x.query
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'':
			end, val, good := stringLiteral(q, i)
			if !good {
				return false
			}
			x.literal(q[i:end], val, end)
			i = end
			x.token("'")
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := strings.IndexByte(q[i+1:], closer)
			if j < 0 {
				return false
			}
			x.b.WriteString(q[i : i+j+2])
			i += j + 2
			x.token(`"`)
		case isDigit(c) || (c == '.' && i+1 < len(q) && isDigit(q[i+1])):
			j, dot := i, false
			for j < len(q) && (isDigit(q[j]) || (q[j] == '.' && !dot)) {
				dot = dot || q[j] == '.'
				j++
			}
			if j < len(q) && (isWordByte(q[j]) || q[j] == '.') {
				return false // 1e5, 0x1f, 1.2.3
			}
			lit := q[i:j]
			var v any = lit
			if x.d == SQLite {
				if dot {
					f, err := strconv.ParseFloat(lit, 64)
					if err != nil {
						return false
					}
					v = f
				} else {
					n, err := strconv.ParseInt(lit, 10, 64)
					if err != nil {
						return false
					}
					v = n
				}
			}
			x.literal(lit, v, j)
			i = j
			x.token("0")
		case isWordByte(c):
			j := i
			for j < len(q) && (isWordByte(q[j]) || isDigit(q[j])) {
				j++
			}
			if j < len(q) && q[j] == '\'' && j-i == 1 && strings.IndexByte("XxNnEeBbUu", q[i]) >= 0 {
				return false // blob, national, escape, bit or unicode strings
			}
			w := upperWord(q[i:j])
			if !x.word(w) {
				return false
			}
			x.b.WriteString(q[i:j])
			i = j
			x.prevWord, x.prevSig = w, w
		case c == '(':
			// A parenthesis right after a bare word that is not a keyword
			// opens a function call; after a keyword or an operator it
			// groups an expression, a list or a subquery.
			p := paren{call: x.prevWord != "" && !groupingKeywords[x.prevWord]}
			p.list = x.prevWord == "IN" || (x.inValues && (x.prevWord == "VALUES" || x.prevSig == ","))
			x.parens = append(x.parens, p)
			x.b.WriteByte(c)
			i++
			x.token("(")
		case c == ')':
			if len(x.parens) == 0 {
				return false
			}
			x.parens = x.parens[:len(x.parens)-1]
			x.b.WriteByte(c)
			i++
			x.token(")")
		case c == '-' && i+1 < len(q) && q[i+1] == '-', c == '/' && i+1 < len(q) && q[i+1] == '*':
			return false // comments
		case c == ':' && i+1 < len(q) && q[i+1] == ':':
			x.b.WriteString("::") // a cast
			i += 2
			x.token("::")
		case c == '?' || c == '$' || c == ':' || c == '@' || c == ';':
			return false // parameters of its own, or several statements
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			x.b.WriteByte(c)
			i++
		case strings.IndexByte("=<>!", c) >= 0:
			j := i
			for j < len(q) && strings.IndexByte("=<>!", q[j]) >= 0 {
				j++
			}
			x.b.WriteString(q[i:j])
			x.token(q[i:j])
			i = j
		default:
			x.b.WriteByte(c)
			x.token(q[i : i+1])
			i++
		}
	}
	return len(x.parens) == 0
}

// token records a token that is not a bare word.
func (x *extractor) token(t string) { x.prevWord, x.prevSig = "", t }

// word follows the clauses a keyword starts; false for statements Extract
// leaves alone.
func (x *extractor) word(w string) bool {
	switch w {
	case "PRAGMA", "ATTACH", "DETACH", "VACUUM", "CREATE", "DROP", "ALTER", "REINDEX", "ANALYZE":
		return false
	case "CONFLICT":
		x.conflictTarget = x.prevWord == "ON"
	case "DO":
		x.conflictTarget = false
	case "BY":
		x.keepLiterals = x.prevWord == "ORDER" || x.prevWord == "GROUP"
	case "LIMIT", "OFFSET":
		x.keepLiterals = true
	case "VALUES":
		x.inValues = true
	case "HAVING", "WHERE", "FROM", "UNION", "EXCEPT", "INTERSECT", "SELECT", "WINDOW", "RETURNING", "ON", "SET":
		x.keepLiterals, x.inValues = false, false
	}
	return true
}

// literal writes a placeholder for the literal lit (ending at end) with
// value v, or lit itself where it must stay.
func (x *extractor) literal(lit string, v any, end int) {
	if x.keep(end) {
		x.b.WriteString(lit)
		return
	}
	if x.args == nil {
		x.args = make([]driver.NamedValue, 0, 4)
	}
	x.args = append(x.args, driver.NamedValue{Ordinal: len(x.args) + 1, Value: v})
	if x.d == Postgres {
		var buf [24]byte
		x.b.Write(strconv.AppendInt(append(buf[:0], '$'), int64(len(x.args)), 10))
		return
	}
	x.b.WriteByte('?')
}

func (x *extractor) keep(end int) bool {
	if x.keepLiterals || x.conflictTarget || len(x.args) >= maxParams {
		return true
	}
	for _, p := range x.parens {
		if p.call {
			return true
		}
	}
	if strings.HasPrefix(strings.TrimLeft(x.query[end:], " \t\r\n"), "::") {
		return true
	}
	if x.d == SQLite {
		return false
	}
	switch x.prevSig {
	case "=", "<>", "!=", "<", ">", "<=", ">=", "LIKE", "ILIKE":
		return false
	case "(", ",":
		return len(x.parens) == 0 || !x.parens[len(x.parens)-1].list
	}
	return true
}

// groupingKeywords are the words after which a parenthesis is not a function
// call.
var groupingKeywords = map[string]bool{
	"IN": true, "AND": true, "OR": true, "NOT": true, "WHERE": true, "ON": true, "EXISTS": true,
	"SELECT": true, "FROM": true, "AS": true, "VALUES": true, "JOIN": true, "WHEN": true,
	"THEN": true, "ELSE": true, "BY": true, "HAVING": true, "IS": true, "LIKE": true,
	"BETWEEN": true, "UNION": true, "ALL": true, "DISTINCT": true, "CASE": true, "LIMIT": true,
	"OFFSET": true, "WITH": true, "RECURSIVE": true, "END": true, "ESCAPE": true, "GLOB": true,
	"USING": true, "EXCEPT": true, "INTERSECT": true, "OVER": true, "ILIKE": true,
	"SET": true, "RETURNING": true,
}

// upperWord is w upper-cased when it is one of the keywords Extract looks
// at (the keyword's own string, no allocation), "?" for any other word.
func upperWord(w string) string {
	if len(w) > 16 {
		return "?"
	}
	var buf [16]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	if k, ok := keywords[string(buf[:len(w)])]; ok {
		return k
	}
	return "?"
}

// keywords are the words Extract tells apart; every other bare word is an
// identifier or a function name to it.
var keywords = func() map[string]string {
	m := map[string]string{}
	for _, w := range []string{"PRAGMA", "ATTACH", "DETACH", "VACUUM", "CREATE", "DROP", "ALTER", "REINDEX",
		"ANALYZE", "CONFLICT", "DO", "BY", "ORDER", "GROUP", "LIMIT", "OFFSET", "VALUES", "HAVING", "WHERE",
		"FROM", "UNION", "EXCEPT", "INTERSECT", "SELECT", "WINDOW", "RETURNING", "ON", "SET", "LIKE", "ILIKE"} {
		m[w] = w
	}
	for w := range groupingKeywords {
		m[w] = w
	}
	return m
}()

// stringLiteral reads the '...' literal starting at query[i] (” is a quote).
func stringLiteral(query string, i int) (end int, val string, ok bool) {
	if j := strings.IndexByte(query[i+1:], '\''); j >= 0 && (i+2+j >= len(query) || query[i+2+j] != '\'') {
		return i + 2 + j, query[i+1 : i+1+j], true // no doubled quote: the text itself
	}
	var b strings.Builder
	for j := i + 1; j < len(query); j++ {
		if query[j] != '\'' {
			b.WriteByte(query[j])
			continue
		}
		if j+1 < len(query) && query[j+1] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		return j + 1, b.String(), true
	}
	return 0, "", false
}

func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t\r\n(")
	i := 0
	for i < len(s) && isWordByte(s[i]) {
		i++
	}
	for _, w := range []string{"SELECT", "WITH", "INSERT", "UPDATE", "DELETE"} {
		if strings.EqualFold(s[:i], w) {
			return w
		}
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

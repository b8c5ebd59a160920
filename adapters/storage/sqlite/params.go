package sqlite

import (
	"database/sql/driver"
	"strconv"
	"strings"
)

// maxParams bounds the literals one statement may turn into parameters: a
// longer IN list is rare, would fill the cache with one-off shapes, and runs
// as it came.
const maxParams = 200

// parameterize rewrites a statement whose values bun wrote inline
// (bun formats every argument into the SQL text) into the same statement with
// ? placeholders and the values as arguments, so that statements differing
// only in their values share one prepared statement. ok is false, and the
// statement must run as it came, for anything it does not understand or where
// a placeholder could change the meaning or the plan:
//   - statements other than SELECT, INSERT, UPDATE, DELETE and WITH (DDL
//     keeps its defaults and index predicates literal);
//   - literals in an ON CONFLICT target, whose WHERE must repeat a partial
//     unique index's predicate as written;
//   - comments, blob or hex literals, numbers with exponents;
//   - literals inside a function call's parentheses, since an index on an
//     expression such as coalesce(parent_id, 0) is only used by a query that
//     spells the same constant;
//   - literals after ORDER BY or GROUP BY (an integer there names a column),
//     LIMIT or OFFSET (SQLite re-prepares a statement whose LIMIT is a
//     parameter on every run, which costs more than the cache saves).
//
// Literals inside IN lists and subqueries become parameters: their
// parentheses follow a keyword or an operator, not a function's name.
func parameterize(query string) (text string, args []driver.NamedValue, ok bool) {
	switch firstWord(query) {
	case "SELECT", "WITH", "INSERT", "UPDATE", "DELETE":
	default:
		return "", nil, false
	}
	var b strings.Builder
	b.Grow(len(query))
	// parens holds, for each open parenthesis, whether it opened a function
	// call (whose literals stay).
	var parens []bool
	inFunc := func() bool {
		for _, f := range parens {
			if f {
				return true
			}
		}
		return false
	}
	prevWord := ""          // the last bare word, upper-cased, if it was the last token
	keepLiterals := false   // since ORDER BY / GROUP BY, until the next clause keyword
	conflictTarget := false // from ON CONFLICT to DO: a partial index's WHERE must match as written
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '\'':
			end, val, good := stringLiteral(query, i)
			if !good {
				return "", nil, false
			}
			if inFunc() || keepLiterals || conflictTarget || len(args) >= maxParams {
				b.WriteString(query[i:end])
			} else {
				args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: val})
				b.WriteByte('?')
			}
			i, prevWord = end, ""
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := strings.IndexByte(query[i+1:], closer)
			if j < 0 {
				return "", nil, false
			}
			b.WriteString(query[i : i+j+2])
			i, prevWord = i+j+2, ""
		case isDigit(c) || (c == '.' && i+1 < len(query) && isDigit(query[i+1])):
			j := i
			dot := false
			for j < len(query) && (isDigit(query[j]) || (query[j] == '.' && !dot)) {
				dot = dot || query[j] == '.'
				j++
			}
			if j < len(query) && (isWordByte(query[j]) || query[j] == '.') {
				return "", nil, false // 1e5, 0x1f, 1.2.3
			}
			lit := query[i:j]
			if inFunc() || keepLiterals || conflictTarget || len(args) >= maxParams {
				b.WriteString(lit)
			} else {
				var v any
				if dot {
					f, err := strconv.ParseFloat(lit, 64)
					if err != nil {
						return "", nil, false
					}
					v = f
				} else {
					n, err := strconv.ParseInt(lit, 10, 64)
					if err != nil {
						return "", nil, false
					}
					v = n
				}
				args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
				b.WriteByte('?')
			}
			i, prevWord = j, ""
		case isWordByte(c):
			j := i
			for j < len(query) && (isWordByte(query[j]) || isDigit(query[j])) {
				j++
			}
			w := strings.ToUpper(query[i:j])
			if (w == "X" || w == "N") && j < len(query) && query[j] == '\'' {
				return "", nil, false // blob literal
			}
			switch w {
			case "PRAGMA", "ATTACH", "DETACH", "VACUUM", "CREATE", "DROP", "ALTER", "REINDEX", "ANALYZE":
				return "", nil, false
			case "CONFLICT":
				conflictTarget = prevWord == "ON"
			case "DO":
				conflictTarget = false
			case "BY":
				keepLiterals = prevWord == "ORDER" || prevWord == "GROUP"
			case "LIMIT", "OFFSET":
				keepLiterals = true
			case "HAVING", "WHERE", "FROM", "UNION", "EXCEPT", "INTERSECT", "SELECT", "WINDOW":
				keepLiterals = false
			}
			b.WriteString(query[i:j])
			i, prevWord = j, w
		case c == '(':
			// A parenthesis right after a bare word that is not a keyword
			// opens a function call; after a keyword or an operator it
			// groups an expression, a list or a subquery.
			parens = append(parens, prevWord != "" && !groupingKeywords[prevWord])
			b.WriteByte(c)
			i, prevWord = i+1, ""
		case c == ')':
			if len(parens) == 0 {
				return "", nil, false
			}
			parens = parens[:len(parens)-1]
			b.WriteByte(c)
			i, prevWord = i+1, ""
		case c == '-' && i+1 < len(query) && query[i+1] == '-', c == '/' && i+1 < len(query) && query[i+1] == '*':
			return "", nil, false // comments
		case c == '?' || c == '$' || c == ':' || c == '@' || c == ';':
			return "", nil, false // parameters of its own, or several statements
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(c)
			i++ // whitespace keeps prevWord: "IN (" is still after IN
		default:
			b.WriteByte(c)
			i, prevWord = i+1, ""
		}
	}
	if len(parens) != 0 {
		return "", nil, false
	}
	return b.String(), args, true
}

// groupingKeywords are the words after which a parenthesis is not a function
// call.
var groupingKeywords = map[string]bool{
	"IN": true, "AND": true, "OR": true, "NOT": true, "WHERE": true, "ON": true, "EXISTS": true,
	"SELECT": true, "FROM": true, "AS": true, "VALUES": true, "JOIN": true, "WHEN": true,
	"THEN": true, "ELSE": true, "BY": true, "HAVING": true, "IS": true, "LIKE": true,
	"BETWEEN": true, "UNION": true, "ALL": true, "DISTINCT": true, "CASE": true, "LIMIT": true,
	"OFFSET": true, "WITH": true, "RECURSIVE": true, "END": true, "ESCAPE": true, "GLOB": true,
	"USING": true, "EXCEPT": true, "INTERSECT": true, "OVER": true,
}

// stringLiteral reads the '...' literal starting at query[i] (” is a quote).
func stringLiteral(query string, i int) (end int, val string, ok bool) {
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
	return strings.ToUpper(s[:i])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

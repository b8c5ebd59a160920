package bunstore

import (
	"strings"

	"github.com/uptrace/bun"
)

// whereSet adds cond with v to q when v is set (not its zero value): the
// optional equality filters of the list methods.
func whereSet[T comparable](q *bun.SelectQuery, cond string, v T) *bun.SelectQuery {
	var zero T
	if v == zero {
		return q
	}
	return q.Where(cond, v)
}

// whereContains matches s as a case-insensitive substring of any of cols
// (see containsPattern); an empty s matches everything.
func whereContains(q *bun.SelectQuery, s string, cols ...string) *bun.SelectQuery {
	if s == "" {
		return q
	}
	pat := containsPattern(s)
	conds := make([]string, len(cols))
	args := make([]any, len(cols))
	for i, col := range cols {
		conds[i] = "lower(" + col + `) LIKE ? ESCAPE '\'`
		args[i] = pat
	}
	return q.Where("("+strings.Join(conds, " OR ")+")", args...)
}

// containsPattern is a LIKE pattern matching s as a lower-cased substring,
// with LIKE's wildcards escaped (use with ESCAPE '\').
func containsPattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

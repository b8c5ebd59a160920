package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core/ports"
)

// SchemaProblems turns a schema's status into problems. The command runs
// it before anything starts: starting applies pending migrations.
func SchemaProblems(st ports.SchemaStatus) []Problem {
	var out []Problem
	if len(st.Unknown) > 0 {
		out = append(out, Problem{Severity: Error,
			What: fmt.Sprintf("database schema: %d applied migration(s) this binary does not know (%s): the database is newer than the binary",
				len(st.Unknown), strings.Join(st.Unknown, ", ")),
			Fix: "upgrade the hearth binary to the version that migrated the database (or restore the database backup taken before that upgrade)"})
	}
	if len(st.Pending) > 0 {
		out = append(out, Problem{Severity: Error,
			What: fmt.Sprintf("database schema: %d of %d migration(s) not applied (%s)",
				len(st.Pending), st.Known, strings.Join(st.Pending, ", ")),
			Fix: "run `hearth migrate` (`hearth serve` and `hearth doctor --repair` also apply them)"})
	}
	return out
}

// schema checks the database's migrations (within a started app they
// were just applied; the command checks before starting).
func (r *run) schema(ctx context.Context) error {
	st, err := r.s.p.Schema.SchemaStatus(ctx)
	if err != nil {
		return fmt.Errorf("schema status: %w", err)
	}
	r.rep.Problems = append(r.rep.Problems, SchemaProblems(st)...)
	return nil
}

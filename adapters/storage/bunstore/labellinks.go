package bunstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"
)

// labelLinks is a table linking issues or merge requests to label names
// (issue_labels, merge_request_labels): both kinds write and read their
// labels the same way. alias names the table in list filters.
type labelLinks struct{ table, owner, alias string }

var (
	issueLabelLinks        = labelLinks{table: "issue_labels", owner: "issue_id", alias: "il"}
	mergeRequestLabelLinks = labelLinks{table: "merge_request_labels", owner: "merge_request_id", alias: "l"}
)

// insert links labels to the owner id in one statement.
func (l labelLinks) insert(ctx context.Context, db bun.IDB, id int64, labels []string) error {
	if len(labels) == 0 {
		return nil
	}
	args := []any{bun.Ident(l.table), bun.Ident(l.owner)}
	for _, name := range labels {
		args = append(args, id, name)
	}
	values := strings.TrimSuffix(strings.Repeat("(?, ?), ", len(labels)), ", ")
	if _, err := db.NewRaw("INSERT INTO ? (?, name) VALUES "+values, args...).Exec(ctx); err != nil {
		return fmt.Errorf("insert %s: %w", l.table, err)
	}
	return nil
}

// replace makes labels the owner's only ones.
func (l labelLinks) replace(ctx context.Context, db bun.IDB, id int64, labels []string) error {
	if _, err := db.NewRaw("DELETE FROM ? WHERE ? = ?", bun.Ident(l.table), bun.Ident(l.owner), id).Exec(ctx); err != nil {
		return fmt.Errorf("clear %s: %w", l.table, err)
	}
	return l.insert(ctx, db, id, labels)
}

// update makes labels the owner's only ones when they differ from old.
func (l labelLinks) update(ctx context.Context, db bun.IDB, id int64, old, labels []string) error {
	if slices.Equal(labels, old) {
		return nil
	}
	return l.replace(ctx, db, id, labels)
}

// load reads the labels of the owners ids in one query, each list sorted
// in byte order (the same on both dialects, whatever the collation).
func (l labelLinks) load(ctx context.Context, db bun.IDB, ids []int64) (map[int64][]string, error) {
	var rows []struct {
		Owner int64  `bun:"owner"`
		Name  string `bun:"name"`
	}
	if len(ids) > 0 {
		err := db.NewRaw("SELECT ? AS owner, name FROM ? WHERE ? IN (?)",
			bun.Ident(l.owner), bun.Ident(l.table), bun.Ident(l.owner), bun.In(dedupeIDs(ids))).Scan(ctx, &rows)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", l.table, err)
		}
	}
	out := make(map[int64][]string, len(ids))
	for _, r := range rows {
		out[r.Owner] = append(out[r.Owner], r.Name)
	}
	for _, ls := range out {
		slices.Sort(ls)
	}
	return out, nil
}

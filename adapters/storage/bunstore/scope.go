package bunstore

import (
	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
)

// whereReadable limits q to the projects r lets a reader see: everything
// when r.All, otherwise public projects, internal ones when r.Internal, the
// listed projects and every project in the listed namespaces. col prefixes
// the projects columns ("p." for the aliased model, "" for a bare table).
// Project lists and the events feed share it, so both answer alike.
func whereReadable(q *bun.SelectQuery, r domain.ReadScope, col string) *bun.SelectQuery {
	if r.All {
		return q
	}
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.WhereOr(col+"visibility = ?", string(domain.Public))
		if r.Internal {
			q = q.WhereOr(col+"visibility = ?", string(domain.Internal))
		}
		if len(r.ProjectIDs) > 0 {
			q = q.WhereOr(col+"id IN (?)", bun.List(dedupeIDs(r.ProjectIDs)))
		}
		if len(r.NamespaceIDs) > 0 {
			q = q.WhereOr(col+"namespace_id IN (?)", bun.List(dedupeIDs(r.NamespaceIDs)))
		}
		return q
	})
}

// dedupeIDs drops repeated IDs (scopes are built by appending lists), so
// IN lists stay as short as they can.
func dedupeIDs(ids []int64) []int64 {
	seen := make(map[int64]struct{}, len(ids))
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	return out
}

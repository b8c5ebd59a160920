package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
)

// scaleShape is what --scale adds to the data set, for issue 14's
// acceptance that cost does not grow with history: a project under a group
// tree Depth deep, a project with Members members, and a repository of
// Commits commits beside the usual one.
type scaleShape struct {
	Depth   int
	Members int
	Commits int // 0: no long-history project
}

// scaleSet is what seedScale made: public projects that differ from Plain
// in one thing each, all holding a copy of the same repository but History,
// and the token of a user who is a developer in all of them.
type scaleSet struct {
	Plain, Deep, Crowded, History int64
	Token                         string
}

// developer is GitLab's Developer access level.
const developer = "30"

// seedScale creates the users, groups and projects of sh through the API.
// The token's user is a direct member of Plain, Crowded and History, and a
// member of Deep only through the top group of its tree, so that reading
// Deep resolves access through every level.
func seedScale(ctx context.Context, a api, repo, historyRepo string, repoDir func(id int64) string, sh scaleShape) (scaleSet, error) {
	var set scaleSet
	users := make([]int64, sh.Members)
	err := parallel(sh.Members, 16, func(i int) error {
		name := fmt.Sprintf("scale-user-%04d", i)
		var u struct{ ID int64 }
		err := a.call(ctx, "POST", "/users", url.Values{
			"username": {name}, "email": {name + "@example.com"}, "name": {"Scale user " + strconv.Itoa(i)},
			"password": {"scale-password-" + strconv.Itoa(i)},
		}, 201, &u)
		users[i] = u.ID
		return err
	})
	if err != nil {
		return set, fmt.Errorf("seed users: %w", err)
	}
	member := users[0]
	var tok struct{ Token string }
	err = a.call(ctx, "POST", fmt.Sprintf("/users/%d/personal_access_tokens", member), url.Values{
		"name": {"hearth-load"}, "scopes[]": {"api"},
	}, 201, &tok)
	if err != nil {
		return set, fmt.Errorf("member token: %w", err)
	}
	set.Token = tok.Token
	addMember := func(source string, user int64) error {
		return a.call(ctx, "POST", source+"/members", url.Values{
			"user_id": {strconv.FormatInt(user, 10)}, "access_level": {developer},
		}, 201, nil)
	}
	public := func(name string) url.Values { return url.Values{"name": {name}, "visibility": {"public"}} }

	if set.Plain, err = newProject(ctx, a, public("scale-plain"), repo, repoDir); err != nil {
		return set, fmt.Errorf("plain project: %w", err)
	}
	if err := addMember(fmt.Sprintf("/projects/%d", set.Plain), member); err != nil {
		return set, fmt.Errorf("plain project: %w", err)
	}

	var groups []int64
	for d := range sh.Depth {
		form := url.Values{"name": {fmt.Sprintf("Scale %02d", d+1)}, "path": {fmt.Sprintf("scale-%02d", d+1)}, "visibility": {"public"}}
		if d > 0 {
			form.Set("parent_id", strconv.FormatInt(groups[d-1], 10))
		}
		var g struct{ ID int64 }
		if err := a.call(ctx, "POST", "/groups", form, 201, &g); err != nil {
			return set, fmt.Errorf("group tree: %w", err)
		}
		groups = append(groups, g.ID)
	}
	deep := public("scale-deep")
	if len(groups) > 0 {
		deep.Set("namespace_id", strconv.FormatInt(groups[len(groups)-1], 10))
		if err := addMember(fmt.Sprintf("/groups/%d", groups[0]), member); err != nil {
			return set, fmt.Errorf("group tree: %w", err)
		}
	}
	if set.Deep, err = newProject(ctx, a, deep, repo, repoDir); err != nil {
		return set, fmt.Errorf("deep project: %w", err)
	}

	if set.Crowded, err = newProject(ctx, a, public("scale-members"), repo, repoDir); err != nil {
		return set, fmt.Errorf("crowded project: %w", err)
	}
	crowded := fmt.Sprintf("/projects/%d", set.Crowded)
	if err := parallel(len(users), 16, func(i int) error { return addMember(crowded, users[i]) }); err != nil {
		return set, fmt.Errorf("crowded project: %w", err)
	}

	if historyRepo != "" {
		if set.History, err = newProject(ctx, a, public("scale-history"), historyRepo, repoDir); err != nil {
			return set, fmt.Errorf("history project: %w", err)
		}
		if err := addMember(fmt.Sprintf("/projects/%d", set.History), member); err != nil {
			return set, fmt.Errorf("history project: %w", err)
		}
	}
	return set, nil
}

// comparison pairs two endpoints of the scale run: Other should cost at
// most 1.3 times Base.
type comparison struct {
	Name        string
	Base, Other string // endpoint names
}

// scaleEndpoints are the requests --scale drives, and the comparisons it
// prints; commits is the usual repository's history length.
func scaleEndpoints(base string, set scaleSet, sh scaleShape, commits int) ([]target, []comparison) {
	project := func(id int64) string { return fmt.Sprintf("%s/projects/%d", base, id) }
	deep := fmt.Sprintf("%d groups deep", sh.Depth)
	crowded := fmt.Sprintf("%d members", sh.Members)
	var ts []target
	var cs []comparison
	for _, who := range []struct{ name, token string }{{"member", set.Token}, {"anonymous", ""}} {
		get := "GET /projects/:id, " + who.name
		name := func(what string) string { return get + ", " + what }
		ts = append(ts,
			target{Name: name("plain"), Method: "GET", URL: project(set.Plain), Token: who.token},
			target{Name: name(deep), Method: "GET", URL: project(set.Deep), Token: who.token},
			target{Name: name(crowded), Method: "GET", URL: project(set.Crowded), Token: who.token})
		cs = append(cs,
			comparison{Name: get + ": " + deep + " / plain", Base: name("plain"), Other: name(deep)},
			comparison{Name: get + ": " + crowded + " / plain", Base: name("plain"), Other: name(crowded)})
	}
	if set.History == 0 {
		return ts, cs
	}
	short, long := fmt.Sprintf("%d commits", commits), fmt.Sprintf("%d commits", sh.Commits)
	for _, ep := range []struct{ name, path string }{
		{"GET repository/branches", "/repository/branches"},
		{"GET repository/commits (20)", "/repository/commits?per_page=20"},
	} {
		name := func(what string) string { return ep.name + ", " + what }
		ts = append(ts,
			target{Name: name(short), Method: "GET", URL: project(set.Plain) + ep.path, Token: set.Token},
			target{Name: name(long), Method: "GET", URL: project(set.History) + ep.path, Token: set.Token})
		cs = append(cs, comparison{Name: ep.name + ": " + long + " / " + short, Base: name(short), Other: name(long)})
	}
	return ts, cs
}

// maxCostRatio is the acceptance bound of issue 14.
const maxCostRatio = 1.3

// printRatios prints each comparison whose two endpoints were driven. The
// cost ratio is, in closed loop, the base's req/s over the other's (time per
// request under the same concurrency); in open loop, where both reach the
// rate, the other's p90 over the base's.
func printRatios(w io.Writer, comps []comparison, names []string, rows []stats, open bool) {
	byName := make(map[string]stats, len(names))
	for i, n := range names {
		byName[n] = rows[i]
	}
	fmt.Fprintln(w, "| comparison | req/s | base req/s | p50 ratio | p90 ratio | cost ratio | within 1.3x |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|")
	for _, c := range comps {
		b, okB := byName[c.Base]
		o, okO := byName[c.Other]
		if !okB || !okO {
			continue
		}
		p50, p90 := ratio(float64(o.P50), float64(b.P50)), ratio(float64(o.P90), float64(b.P90))
		cost := ratio(b.Rate, o.Rate)
		if open {
			cost = p90
		}
		verdict := "no"
		if cost <= maxCostRatio {
			verdict = "yes"
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %s |\n", c.Name, o.Rate, b.Rate, p50, p90, cost, verdict)
	}
}

// ratio is a/b: 1 when both are zero, +Inf when only b is.
func ratio(a, b float64) float64 {
	if a == b {
		return 1
	}
	return a / b
}

package ci

import (
	"context"
	"testing"

	"github.com/hearth-forge/hearth/core/domain"
)

func TestMatcher(t *testing.T) {
	t.Parallel()
	pol := func(refs ...string) *domain.RefPolicy { return &domain.RefPolicy{Refs: refs} }
	branch := matcher{ref: "feature/login", source: domain.SourcePush, fullPath: func() string { return "group/app" }}
	tag := matcher{ref: "v1.0", tag: true, source: domain.SourcePush, fullPath: func() string { return "group/app" }}
	api := matcher{ref: "master", source: domain.SourceAPI, fullPath: func() string { return "group/app" }}
	cases := []struct {
		name         string
		m            matcher
		only, except *domain.RefPolicy
		want         bool
	}{
		{"no policy", branch, nil, nil, true},
		{"empty policy", branch, pol(), pol(), true},
		{"branches", branch, pol("branches"), nil, true},
		{"branches on a tag", tag, pol("branches"), nil, false},
		{"tags", tag, pol("tags"), nil, true},
		{"name", branch, pol("feature/login"), nil, true},
		{"other name", branch, pol("master"), nil, false},
		{"regexp searched", branch, pol("/login$/"), nil, true},
		{"regexp with flags", branch, pol("/^FEATURE/i"), nil, true},
		{"regexp without flags is case-sensitive", branch, pol("/^FEATURE/"), nil, false},
		{"tag regexp", tag, pol(`/^v\d+/`), nil, true},
		{"pushes", branch, pol("pushes"), nil, true},
		{"pushes from the api", api, pol("pushes"), nil, false},
		{"api", api, pol("api"), nil, true},
		{"web", api, pol("web"), nil, false},
		{"triggers", branch, pol("triggers"), nil, false},
		{"except name", api, nil, pol("master"), false},
		{"except other", branch, nil, pol("master"), true},
		{"except tags", tag, nil, pol("tags"), false},
		{"only and except", branch, pol("branches"), pol("/^feature/"), false},
		{"path scoped match", branch, pol("branches@group/app"), nil, true},
		{"path scoped other project", branch, pol("branches@group/fork"), nil, false},
		{"any of several", api, pol("tags", "master"), nil, true},
	}
	for _, c := range cases {
		if got := c.m.runs(c.only, c.except); got != c.want {
			t.Errorf("%s: runs = %v, want %v", c.name, got, c.want)
		}
	}
	if sourceKeyword(domain.SourceTrigger) != "triggers" || sourceKeyword(domain.SourcePush) != "pushes" || sourceKeyword("schedule") != "schedules" {
		t.Error("source keywords")
	}
}

func TestSkipPattern(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]bool{
		"fix [ci skip]": true, "[skip ci] docs": true, "x\n\n[CI SKIP]": true, "[ci-skip]": true, "[skip_ci]": true,
		"ci skip": false, "[ci  skip]": false, "[skipci]": false,
	} {
		if got := skipPattern.MatchString(msg); got != want {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
}

func TestProcessingMarker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if processing(ctx, 1) {
		t.Fatal("marked without a mark")
	}
	inner, done := markProcessing(ctx, 1)
	again, doneAgain := markProcessing(inner, 1)
	doneAgain()
	if !processing(again, 1) {
		t.Fatal("a nested mark of the same pipeline ended the outer one")
	}
	nested, doneNested := markProcessing(inner, 2)
	if !processing(inner, 1) || !processing(nested, 2) || processing(ctx, 1) {
		t.Fatal("marks")
	}
	doneNested()
	if processing(nested, 2) || !processing(nested, 1) {
		t.Fatal("nested mark not ended")
	}
	done()
	// what runs after commit with the processor's context values is not
	// mistaken for the processor
	if processing(inner, 1) {
		t.Fatal("mark outlived its processor")
	}
}

package events

import (
	"net/http"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

func routes() any {
	return httpx.AsRoutes(func(s *Service) httpx.Routes {
		h := handlers{s}
		return httpx.Routes{Module: "events", Routes: []httpx.Route{
			{Method: http.MethodGet, Pattern: "/events", Handle: h.own},
			{Method: http.MethodGet, Pattern: "/users/{id}/events", Handle: h.user},
			{Method: http.MethodGet, Pattern: "/projects/{id}/events", Handle: h.project},
		}}
	})
}

type handlers struct{ s *Service }

// filter decodes the Events part's filters: action, target_type, before, after, sort.
func filter(r *http.Request) (domain.EventFilter, error) {
	var in struct {
		Action     string     `param:"action"`
		TargetType string     `param:"target_type"`
		Before     *time.Time `param:"before"`
		After      *time.Time `param:"after"`
		Sort       string     `param:"sort"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return domain.EventFilter{}, err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return domain.EventFilter{}, err
	}
	f := domain.EventFilter{Before: in.Before, After: in.After, Page: pg}
	if in.Action != "" {
		if !actions[in.Action] {
			return f, invalidValue("action")
		}
		f.Action = in.Action
	}
	if in.TargetType != "" {
		t, ok := targetTypes[in.TargetType]
		if !ok {
			return f, invalidValue("target_type")
		}
		f.TargetType = t
	}
	switch in.Sort {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		return f, invalidValue("sort")
	}
	return f, nil
}

func invalidValue(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}

func (h handlers) own(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	f, err := filter(r)
	if err != nil {
		return err
	}
	feed, err := h.s.ForCaller(r.Context(), caller, f)
	if err != nil {
		return err
	}
	return render(w, r, feed, f.Page)
}

func (h handlers) user(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.PathParam(r, "id")
	if err != nil {
		return err
	}
	f, err := filter(r)
	if err != nil {
		return err
	}
	feed, err := h.s.ForUser(r.Context(), httpx.CallerOf(r), ref, f)
	if err != nil {
		return err
	}
	return render(w, r, feed, f.Page)
}

func (h handlers) project(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	f, err := filter(r)
	if err != nil {
		return err
	}
	feed, err := h.s.ForProject(r.Context(), httpx.CallerOf(r), ref.ID, ref.Path, f)
	if err != nil {
		return err
	}
	return render(w, r, feed, f.Page)
}

func render(w http.ResponseWriter, r *http.Request, feed *Feed, pg domain.Page) error {
	base := httpx.BaseURL(r)
	out := make([]eventJSON, 0, len(feed.Events))
	for _, e := range feed.Events {
		out = append(out, toJSON(base, e, feed))
	}
	return httpx.Paginated(w, r, out, feed.Total, pg)
}
